"""Build a synthetic card data set on disk in Ultralytics YOLO format (images/, labels/, data.yaml).

Why axis-aligned boxes (not OBB): the runtime contract (`unotable detect --json`) reports `box: [x1, y1, x2, y2]`,
the real-photo check only needs the top card, and plain YOLO trains faster on the CPU budget we have.

Scene i of a build is drawn from `numpy.random.default_rng([seed, i])`, so a build is reproducible whatever the
number of worker processes, and two builds with different seeds never share a scene.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from datasets.faces import BACK
from datasets.scenes import render_scene
from tracker.cards import ALL_CODES

CLASS_NAMES: tuple[str, ...] = (*ALL_CODES, BACK)
"""Detector classes: the 54 faces in `tracker.cards` order, then the card back (index 54)."""


@dataclass(frozen=True)
class BuildJob:
    out: str
    seed: int
    index: int
    split: str
    kind: str | None


def _render_one(job: BuildJob) -> int:
    """Render scene `job.index` and write its JPEG and YOLO label file; returns the number of boxes."""
    rng = np.random.default_rng([job.seed, job.index])
    scene = render_scene(rng, ALL_CODES, kind=job.kind)
    h, w = scene.image.shape[:2]
    stem = f"{job.seed}_{job.index:06d}"
    img_path = Path(job.out) / "images" / job.split / f"{stem}.jpg"
    lbl_path = Path(job.out) / "labels" / job.split / f"{stem}.txt"
    cv2.imwrite(str(img_path), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    lines = []
    for code, (x1, y1, x2, y2) in zip(scene.codes, scene.boxes, strict=True):
        cls = CLASS_NAMES.index(code)
        lines.append(f"{cls} {(x1 + x2) / 2 / w:.6f} {(y1 + y2) / 2 / h:.6f} {(x2 - x1) / w:.6f} {(y2 - y1) / h:.6f}")
    lbl_path.write_text("\n".join(lines) + ("\n" if lines else ""))
    return len(lines)


def write_yaml(out: Path) -> Path:
    """Write `data.yaml` (absolute path, train/val folders, class names) and return its path."""
    lines = [f"path: {out.resolve()}", "train: images/train", "val: images/val", f"nc: {len(CLASS_NAMES)}", "names:"]
    lines += [f"  {i}: {name}" for i, name in enumerate(CLASS_NAMES)]
    path = out / "data.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def build_dataset(
    out: Path,
    images: int,
    seed: int,
    val_fraction: float = 0.1,
    workers: int | None = None,
    kind: str | None = None,
    progress: Callable[[Iterable[int], int], Iterable[int]] | None = None,
) -> Path:
    """Render `images` scenes into `out` (the last `val_fraction` of them to the val split); returns data.yaml.

    `progress(iterable, total)` wraps the stream of finished scenes (a tqdm bar in the CLI).
    """
    if images < 1:
        raise ValueError(f"--images must be at least 1, got {images}")
    if not 0.0 <= val_fraction <= 1.0:
        raise ValueError(f"--val-fraction must be between 0 and 1, got {val_fraction}")
    n_val = int(round(images * val_fraction))
    for split in ("train", "val"):
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
    jobs = [BuildJob(str(out), seed, i, "val" if i >= images - n_val else "train", kind) for i in range(images)]
    workers = workers or max(1, min(2, os.cpu_count() or 1))
    if workers == 1:
        stream: Iterable[int] = map(_render_one, jobs)
        for _ in progress(stream, len(jobs)) if progress else stream:
            pass
    else:
        with ProcessPoolExecutor(workers) as pool:
            stream = pool.map(_render_one, jobs, chunksize=8)
            for _ in progress(stream, len(jobs)) if progress else stream:
                pass
    return write_yaml(out)
