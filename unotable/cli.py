"""`unotable` command line.

Each area owns its subcommands in `<area>/commands.py` with a `register(subparsers)` function, so that this file
stays a thin switchboard and heavy imports (OpenCV, onnxruntime, Flask) happen only in the command that needs them.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

AREAS = ("tracker", "datasets", "vision", "vision.video_commands", "speech", "web", "unotable.run", "unotable.agent")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="unotable", description="A table assistant that referees physical UNO.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for area in AREAS:
        module_name = area if "." in area else f"{area}.commands"
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:  # an area not built yet
            if exc.name and module_name.startswith(exc.name):
                continue
            raise
        if not hasattr(module, "register"):
            continue
        module.register(sub)
    return parser


def _database_error(exc: BaseException) -> str | None:
    """The first line of the driver's message when `exc` is the database refusing or unreachable, else None
    (SQLAlchemy is imported only by the commands that use a store)."""
    sqlalchemy = sys.modules.get("sqlalchemy.exc")
    if sqlalchemy is None or not isinstance(exc, sqlalchemy.OperationalError | sqlalchemy.InterfaceError):
        return None
    text = str(getattr(exc, "orig", None) or exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _one_line(exc: BaseException) -> str | None:
    """What a command's unhandled failure says in one line, when it is an operator's mistake or the machine's
    state (a path that is a file, a folder missing, a closed standard input, a database down, a log that can't be
    read), not a fault of the program; None for anything else, which keeps its traceback."""
    from tracker.log import LogError

    if isinstance(exc, OSError) and not isinstance(exc, BrokenPipeError):
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror or exc}"
    if isinstance(exc, EOFError):
        return "the input ended before the command had what it asked for"
    if isinstance(exc, LogError):
        return str(exc)
    db = _database_error(exc)
    return f"can't use the database: {db}" if db is not None else None


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        result = args.func(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:
        message = _one_line(exc)
        if message is None:
            raise
        print(f"unotable {args.command}: {message}", file=sys.stderr)
        return 2
    return int(result or 0)


if __name__ == "__main__":
    sys.exit(main())
