"""`unotable replay` and `unotable simulate`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("replay", help="replay an event log: print its flags (EVENTS.md)")
    p.add_argument("log", help="the event log, JSON Lines")
    p.add_argument("--json", action="store_true", help='print one object {"flags", "state", "scores"}')
    p.add_argument("--ruleset", help="override the log's ruleset: a name or a path to a ruleset TOML file")
    p.add_argument("--pretty", action="store_true", help="print a human-readable game summary instead")
    p.set_defaults(func=_replay)

    p = sub.add_parser("simulate", help="simulate matches with injected mistakes; write logs and the true flags")
    p.add_argument("--ruleset", default="mattel", help="ruleset name or TOML path (default: mattel)")
    p.add_argument("--players", type=int, default=4, help="seats at the table (default 4)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--matches", type=int, default=1, help="how many matches (one log each)")
    p.add_argument("--hands", type=int, default=0, help="stop each match after this many hands (0: play to target)")
    p.add_argument("--mistakes", default="all",
                   help="comma-separated mistake kinds to inject, 'all' or 'none' (see tracker.simulate.MISTAKES)")
    p.add_argument("--rate", type=float, default=0.03, help="chance of a mistake at each opportunity")
    p.add_argument("--out", default="-", help="log path (with --matches > 1: a folder); '-' for stdout")
    p.set_defaults(func=_simulate)


def _replay(args: argparse.Namespace) -> int:
    from .engine import replay
    from .log import LogError, read_log
    from .ruleset import RulesetError

    try:
        events = read_log(args.log)
        if not events:
            raise LogError(None, "no events: an empty log (a log begins with match_start)")
        result = replay(events, args.ruleset, base_dir=Path(args.log).resolve().parent)
    except FileNotFoundError:
        print(f"unotable replay: no such log file: {args.log}", file=sys.stderr)
        return 2
    except IsADirectoryError:
        print(f"unotable replay: {args.log} is a folder, not a log file", file=sys.stderr)
        return 2
    except (LogError, RulesetError) as exc:
        print(f"unotable replay: {args.log}: {exc}", file=sys.stderr)
        return 2
    # what the engine had to ignore or guess (a ruling on a flag that doesn't exist, a hand left unscored): standard
    # error, so that standard output stays the flags of EVENTS.md
    for w in result.state.warnings + _unfinished(result):
        print(f"unotable replay: {args.log}: warning: {w}", file=sys.stderr)
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False))
    elif args.pretty:
        from .report import render_game

        print(render_game(events, result))
    else:
        for f in result.flags:
            print(json.dumps(f.to_dict(), ensure_ascii=False))
    return 0


def _unfinished(result: Any) -> list[str]:
    """A note for a log that ends with a hand won but not scored: its reveals never came."""
    s = result.state
    if s.hand_winner is None or s.hand_scored or s.match_decided:
        return []
    missing = [i for i in range(s.n) if i != s.hand_winner and i not in s.reveals]
    return [f"the log ends before hand {s.hand} was scored: no reveal from seats {missing}"]


def _simulate(args: argparse.Namespace) -> int:
    from .log import write_log
    from .ruleset import RulesetError, load_ruleset
    from .simulate import MISTAKES, SimConfig, simulate_match

    try:
        load_ruleset(args.ruleset)
    except RulesetError as exc:
        print(f"unotable simulate: {exc}", file=sys.stderr)
        return 2
    kinds: tuple[str, ...]
    if args.mistakes == "all":
        kinds = MISTAKES
    elif args.mistakes == "none":
        kinds = ()
    else:
        kinds = tuple(k.strip() for k in args.mistakes.split(",") if k.strip())
        bad = [k for k in kinds if k not in MISTAKES]
        if bad:
            print(f"unotable simulate: unknown mistake kinds {bad}; known: {', '.join(MISTAKES)}", file=sys.stderr)
            return 2
    for i in range(args.matches):
        cfg = SimConfig(ruleset=args.ruleset, players=args.players, seed=args.seed + i, mistakes=kinds,
                        rate=args.rate, max_hands=args.hands)
        sim = simulate_match(cfg)
        if args.out == "-":
            write_log(sys.stdout, sim.events)
            continue
        out = Path(args.out)
        if args.matches > 1:
            out.mkdir(parents=True, exist_ok=True)
            path = out / f"match-{args.seed + i:05d}.jsonl"
        else:
            out.parent.mkdir(parents=True, exist_ok=True)
            path = out
        write_log(path, sim.events)
        truth = path.with_suffix(".flags.jsonl")
        with truth.open("w", encoding="utf-8") as fh:
            for flag in sim.truth:
                fh.write(json.dumps(flag, ensure_ascii=False) + "\n")
        print(f"{path}: {len(sim.events)} events, {len(sim.truth)} planted flags -> {truth}", file=sys.stderr)
    return 0
