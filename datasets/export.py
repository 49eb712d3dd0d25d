"""Build a synthetic card data set on disk in Ultralytics YOLO format (images/, labels/, data.yaml).

Why axis-aligned boxes (not OBB): the runtime contract (`unotable detect --json`) reports `box: [x1, y1, x2, y2]`,
the real-photo check only needs the top card, and plain YOLO trains faster on the CPU budget we have.

Scene i of a build is drawn from `numpy.random.default_rng([seed, i])`, so a build is reproducible whatever the
number of worker processes, and two builds with different seeds never share a scene.

Which cards get a label: those showing at least `LABEL_MIN_VISIBLE` (0.3) of their face. Beside each label file,
`visibility/<split>/<stem>.txt` lists every card that shows at all, as `class cx cy w h visible`, so that the
evaluation can score the cards a referee must see (at least half showing, `vision.evaluate.SCORED_MIN_VISIBLE`)
and ignore the half-hidden ones, as pedestrian benchmarks (Caltech, CityPersons) ignore heavily occluded people
rather than count them as misses or their detections as false alarms: no detector can tell 45% showing from 55%.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from datasets import faces
from datasets.faces import BACK
from datasets.labels import yolo_row
from datasets.scenes import render_scene
from tracker.cards import ALL_CODES

CLASS_NAMES: tuple[str, ...] = (*ALL_CODES, BACK)
"""Detector classes: the 54 faces in `tracker.cards` order, then the card back (index 54)."""


LABEL_MIN_VISIBLE = 0.3
"""Training labels reach down to cards 30% visible, so the detector finds the half-hidden cards of a pile."""


@dataclass(frozen=True)
class BuildJob:
    out: str
    seed: int
    index: int
    split: str
    kind: str | None
    min_visible: float = LABEL_MIN_VISIBLE
    lean: int = faces.OVAL_AS_TRAINED


def _render_one(job: BuildJob) -> int:
    """Render scene `job.index` and write its JPEG and YOLO label file; returns the number of boxes."""
    faces.OVAL_LEAN = job.lean  # this process renders only this build's scenes
    rng = np.random.default_rng([job.seed, job.index])
    scene = render_scene(rng, ALL_CODES, kind=job.kind, min_visible=0.0)
    h, w = scene.image.shape[:2]
    stem = f"{job.seed}_{job.index:06d}"
    root = Path(job.out)
    cv2.imwrite(str(root / "images" / job.split / f"{stem}.jpg"), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    lines, seen = [], []
    for code, box, vis in zip(scene.codes, scene.boxes, scene.visible, strict=True):
        row = yolo_row(CLASS_NAMES.index(code), box, w, h)
        seen.append(f"{row} {vis:.3f}")
        if vis >= job.min_visible:
            lines.append(row)
    (root / "labels" / job.split / f"{stem}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))
    (root / "visibility" / job.split / f"{stem}.txt").write_text("\n".join(seen) + ("\n" if seen else ""))
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
    min_visible: float = LABEL_MIN_VISIBLE,
    lean: int = faces.OVAL_AS_TRAINED,
) -> Path:
    """Render `images` scenes into `out` (the last `val_fraction` of them to the val split); returns data.yaml.

    `progress(iterable, total)` wraps the stream of finished scenes (a tqdm bar in the CLI). Cards showing at least
    `min_visible` of their face are labelled; `lean`: which way the faces' ovals lean (`datasets.faces.OVAL_LEAN`).
    """
    if images < 1:
        raise ValueError(f"--images must be at least 1, got {images}")
    if not 0.0 <= val_fraction <= 1.0:
        raise ValueError(f"--val-fraction must be between 0 and 1, got {val_fraction}")
    if not 0.0 < min_visible <= 1.0:
        raise ValueError(f"--min-visible must be above 0 and at most 1, got {min_visible}")
    n_val = int(round(images * val_fraction))
    for split in ("train", "val"):
        for part in ("images", "labels", "visibility"):
            (out / part / split).mkdir(parents=True, exist_ok=True)
    jobs = [BuildJob(str(out), seed, i, "val" if i >= images - n_val else "train", kind, min_visible, lean)
            for i in range(images)]
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
