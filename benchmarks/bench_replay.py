"""Replay throughput on a 100,000-event log (issue: at least 200,000 events/s on one core).

Prints events per second for the engine's fold alone (events already parsed) and for the whole `unotable replay`
path (read + parse + fold), best of several runs, so that a noisy shared machine shows its best honest figure.
Run: `python benchmarks/bench_replay.py [--events N] [--ruleset NAME]`.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from tracker.engine import replay
from tracker.log import read_log, write_log
from tracker.simulate import SimConfig, simulate_match


def build_log(n_events: int, ruleset: str) -> list:
    events: list = []
    seed = 0
    while len(events) < n_events:  # one long match: a target nobody reaches
        sim = simulate_match(SimConfig(ruleset=ruleset, players=4, seed=seed, rate=0.02, target=10**5,
                                       max_events=n_events))
        events = sim.events
        seed += 1
    return events[:n_events]


def best_of(fn, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--ruleset", default="olympic")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core, as the target says
    events = build_log(args.events, args.ruleset)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "long.jsonl"
        write_log(path, events)
        size_mb = path.stat().st_size / 1e6
        fold = best_of(lambda: replay(events), args.repeats)
        full = best_of(lambda: replay(read_log(path)), args.repeats)
    n = len(events)
    flags = len(replay(events).flags)
    print(f"log: {n} events ({size_mb:.1f} MB), ruleset {args.ruleset}, {flags} flags; one core, best of {args.repeats}")
    print(f"engine fold (parsed events):  {n / fold:12,.0f} events/s  ({fold * 1000:.0f} ms)")
    print(f"read + parse + fold:          {n / full:12,.0f} events/s  ({full * 1000:.0f} ms)")
    print(f"target: 200,000 events/s for the fold -> {'met' if n / fold >= 200_000 else 'NOT met'}")


if __name__ == "__main__":
    main()
