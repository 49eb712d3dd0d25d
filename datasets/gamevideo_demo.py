"""The demo recording for `make run`: one short rendered game (video + truth log + table file), small enough to
commit (H.264 via ffmpeg when it is installed, else MPEG-4 Part 2 straight from OpenCV).

    .venv/bin/python -m datasets.gamevideo_demo OUT_DIR [--seed 42] [--max-seconds 120] [--force]

writes `game.mp4`, `game.truth.jsonl` (the full retimed log: replay it, or merge its speech events with what
`unotable watch` sees), `game.truth.json` and `game.table.toml`.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path


def pick_game(seed: int, max_seconds: float, ruleset: str = "mattel", players: int = 4) -> tuple[int, list]:
    """The first seed from `seed` whose one-hand game renders to at most `max_seconds`."""
    from datasets.gamevideo import GameRenderer
    from tracker.simulate import SimConfig, simulate_match

    for s in range(seed, seed + 200):
        events = simulate_match(SimConfig(ruleset=ruleset, players=players, seed=s, max_hands=1)).events
        if GameRenderer(events, seed=s).duration <= max_seconds:
            return s, events
    raise RuntimeError(f"no game of at most {max_seconds}s among seeds {seed}..{seed + 199}")


def make_demo(out_dir: Path, seed: int = 42, max_seconds: float = 120.0, ruleset: str = "mattel",
              players: int = 4, force: bool = False) -> Path:
    from datasets.gamevideo import render_game

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    if (out_dir / "game.mp4").exists() and not force:
        raise FileExistsError(f"{out_dir / 'game.mp4'} exists; pass force=True (--force) to replace it")
    s, events = pick_game(seed, max_seconds, ruleset, players)
    raw = out_dir / "game.raw.mp4"
    render_game(events, raw, seed=s, progress=True)
    final = out_dir / "game.mp4"
    for suffix in (".truth.jsonl", ".truth.json", ".table.toml"):
        Path(f"{raw.with_suffix('')}{suffix}").replace(f"{final.with_suffix('')}{suffix}")
    if shutil.which("ffmpeg"):
        cmd = ["ffmpeg", "-y", "-loglevel", "error", "-i", str(raw), "-c:v", "libx264", "-preset", "medium",
               "-crf", "26", "-pix_fmt", "yuv420p", str(final)]
        if subprocess.run(cmd, check=False).returncode == 0:
            raw.unlink()
            return final
    raw.replace(final)
    return final


def main() -> int:
    ap = argparse.ArgumentParser(description="render the demo game for `make run`")
    ap.add_argument("out", type=Path)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--max-seconds", type=float, default=120.0)
    ap.add_argument("--force", action="store_true", help="replace an existing game.mp4 in OUT")
    args = ap.parse_args()
    try:
        path = make_demo(args.out, args.seed, args.max_seconds, force=args.force)
    except FileExistsError as exc:
        print(f"gamevideo_demo: {exc}", file=sys.stderr)
        return 2
    print(f"{path} ({path.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
