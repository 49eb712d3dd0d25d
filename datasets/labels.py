"""The label files of a card data set, read and written in one place.

`labels/<split>/<name>.txt` holds YOLO rows `class cx cy w h` (normalised), the cards the detector trains on;
`visibility/<split>/<name>.txt` holds `class cx cy w h visible` for every card that shows at all, with the share of
its face that shows (see `datasets.export`). The evaluation and the classifier's training read both.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


def yolo_row(cls: int, box: tuple[float, float, float, float], w: int, h: int) -> str:
    """One YOLO label row for pixel box (x1, y1, x2, y2) in a `w` x `h` image."""
    x1, y1, x2, y2 = box
    return f"{cls} {(x1 + x2) / 2 / w:.6f} {(y1 + y2) / 2 / h:.6f} {(x2 - x1) / w:.6f} {(y2 - y1) / h:.6f}"


def read_rows(path: Path, columns: int) -> np.ndarray:
    """The rows of a label or visibility file as an (N, columns) array (none if the file is absent); a short or
    unparsable row is a ValueError naming the file and line."""
    if not path.exists():
        return np.zeros((0, columns), np.float32)
    rows = []
    for n, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = [float(x) for x in line.split()]
        except ValueError as exc:
            raise ValueError(f"{path}:{n}: not a label row ({exc})") from exc
        if len(row) < columns:
            raise ValueError(f"{path}:{n}: expected {columns} numbers, got {len(row)}")
        rows.append(row[:columns])
    return np.array(rows, np.float32).reshape(-1, columns)
