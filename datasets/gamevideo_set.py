"""A set of rendered games for evaluation: different seeds, 4 and 6 seats, all four rulesets.

Why a fixed recipe: `unotable eval-video --games N --seed S` must mean the same games on every machine, so the
i-th game's ruleset, seat count and seeds follow from (S, i) alone. Videos are cached under `data/gamevideo/` (git-
ignored) so that evaluating again does not render again. Each cached game carries the stamp of the renderer that
made it (a hash of the sources that decide its pixels and its truth); a game from another renderer is rendered
again, so a redrawn card face is never scored on videos of the old faces.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

RULESETS = ("mattel", "falsonal", "chempiunat", "olympic")
_ROOT = Path(__file__).resolve().parents[1]
CACHE = _ROOT / "data" / "gamevideo"
RENDER_SOURCES = ("datasets/faces.py", "datasets/backgrounds.py", "datasets/scenes.py", "datasets/gamevideo.py",
                  "datasets/gamevideo_draw.py", "datasets/gamevideo_plan.py", "tracker/simulate.py")
"""The files whose code decides a rendered game: the faces, table and hands drawn, and the simulated log."""


@lru_cache(maxsize=1)
def renderer_stamp() -> str:
    """A short hash of `RENDER_SOURCES`: equal stamps, equal videos for the same spec."""
    h = hashlib.sha256()
    for name in RENDER_SOURCES:
        h.update(name.encode())
        h.update((_ROOT / name).read_bytes())
    return h.hexdigest()[:12]


@dataclass(frozen=True)
class GameSpec:
    index: int
    seed: int
    ruleset: str
    seats: int

    @property
    def name(self) -> str:
        return f"game_{self.seed:05d}_{self.ruleset}_{self.seats}p"


def game_specs(n: int, seed: int) -> list[GameSpec]:
    return [GameSpec(i, seed + i, RULESETS[i % 4], 4 if (i // 4) % 2 == 0 else 6) for i in range(n)]


def simulate(spec: GameSpec) -> list:
    from tracker.simulate import SimConfig, simulate_match

    return simulate_match(SimConfig(ruleset=spec.ruleset, players=spec.seats, seed=spec.seed, max_hands=1)).events


def ensure_game(spec: GameSpec, folder: Path = CACHE, fps: float = 30.0, progress: bool = False) -> Path:
    """The video of `spec` in `folder`, rendered now unless already there (with its truth files)."""
    from datasets.gamevideo import render_game, truth_paths

    folder = Path(folder)
    video = folder / f"{spec.name}_{int(fps)}fps.mp4"
    meta_path = truth_paths(video)[1]
    if video.exists() and all(p.exists() for p in truth_paths(video)):
        meta = json.loads(meta_path.read_text())
        if meta.get("frames") and meta.get("renderer") == renderer_stamp():
            return video
    render_game(simulate(spec), video, seed=spec.seed, fps=fps, progress=progress)
    meta = json.loads(meta_path.read_text())
    meta["renderer"] = renderer_stamp()
    meta_path.write_text(json.dumps(meta, indent=1))
    return video


if __name__ == "__main__":  # background pre-rendering: python -m datasets.gamevideo_set N SEED [FPS]
    import sys

    from tqdm import tqdm

    n, s = int(sys.argv[1]), int(sys.argv[2])
    fps = float(sys.argv[3]) if len(sys.argv) > 3 else 30.0
    part = sys.argv[4] if len(sys.argv) > 4 else "0/1"
    k, m = (int(v) for v in part.split("/"))
    for spec in tqdm(game_specs(n, s)[k::m], desc="games"):
        print(ensure_game(spec, fps=fps), flush=True)
