"""A referee's corrections applied to a log: each `correction` replaces (or strikes) the event on its line.

EVENTS.md: a correction names the 1-based line it corrects and the corrected event (or `null` to strike it); lines
keep their numbers, so flag ids still point at the line a referee sees in the raw log."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from .events import Correction, Event, Ruling


def apply_corrections(events: Sequence[Event]) -> list[Event]:
    """The log as the referee corrected it: each `correction` replaces (or strikes) the event on its line.

    A later correction of the same line wins; a correction that is itself struck by a later one no longer applies.
    Lines keep their original numbers, so flags still point at the line a referee sees in the raw log.
    """
    by_line: dict[int, Event] = {}
    for i, ev in enumerate(events, start=1):
        by_line[ev.line if ev.line is not None else i] = ev
    corrections = [ev for ev in events if isinstance(ev, Correction)]
    if not corrections:
        return list(events)
    struck: set[int] = set()
    for c in reversed(corrections):
        if c.line in struck:
            continue
        target = by_line.get(c.target_line)
        if isinstance(target, Correction):  # struck, or replaced by another event: it no longer corrects anything
            struck.add(c.target_line)
    replaced: dict[int, Event | None] = {}
    written: dict[int, float] = {}  # when each replacement was written
    for c in corrections:
        if c.line in struck:
            continue
        if c.event is None:
            replaced[c.target_line] = None
        else:
            fixed = c.event
            object.__setattr__(fixed, "line", c.target_line)
            replaced[c.target_line] = fixed
            written[c.target_line] = c.t
    out: list[Event] = []
    for i, ev in enumerate(events, start=1):
        line = ev.line if ev.line is not None else i
        if line in replaced:
            fixed_event = replaced[line]
            if fixed_event is not None:
                # the corrected event happens when the original did, unless the referee moved it within its
                # neighbours: a correction written later must not make time run backwards (a turn timer would fire)
                # (its neighbours are game events: the referee's own corrections and rulings come later, stamped
                # when they were written, and bound nothing)
                lo = out[-1].t if out else 0.0
                hi = next((e.t for e in events[i:] if not isinstance(e, Correction | Ruling)), ev.t)
                # (an event stamped with the moment the correction was written was not moved on purpose)
                stamped_late = fixed_event.t == written.get(line) and fixed_event.t > ev.t
                if stamped_late or not lo <= fixed_event.t <= hi:
                    fixed_event = dataclasses.replace(fixed_event, t=ev.t)
                    object.__setattr__(fixed_event, "line", line)
                out.append(fixed_event)
            continue
        out.append(ev)
    return out
