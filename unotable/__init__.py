"""The `unotable` command line: one entry point that wires each area's subcommands."""
