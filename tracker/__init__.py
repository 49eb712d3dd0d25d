"""The rules engine: the event log, four rulebooks as data, and the fold of a log into state, flags and scores.

`tracker` consumes events only: it never imports a sense (`vision`, `speech`) or the web.
"""
