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


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        result = args.func(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    return int(result or 0)


if __name__ == "__main__":
    sys.exit(main())
