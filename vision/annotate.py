"""Draw detections on an image (boxes coloured by the card's colour, label and confidence)."""

from __future__ import annotations

import cv2
import numpy as np

from vision.detections import Detections

_COLOURS = {
    "red": (40, 40, 230),
    "yellow": (0, 210, 240),
    "green": (60, 180, 40),
    "blue": (230, 140, 20),
}


def _colour(name: str) -> tuple[int, int, int]:
    return _COLOURS.get(name.split("-")[0], (255, 255, 255) if name != "back" else (160, 160, 160))


def annotate(image: np.ndarray, dets: Detections) -> np.ndarray:
    """A copy of `image` with each detection's box and "code 0.93" label; the most confident is drawn last (on top)."""
    out = image.copy()
    scale = max(image.shape[:2]) / 640
    thick = max(1, int(round(2 * scale)))
    for d in reversed(list(dets.sorted())):
        x1, y1, x2, y2 = (int(round(v)) for v in d.box)
        col = _colour(d.card)
        cv2.rectangle(out, (x1, y1), (x2, y2), (0, 0, 0), thick + 2)
        cv2.rectangle(out, (x1, y1), (x2, y2), col, thick)
        label = f"{d.card} {d.confidence:.2f}"
        fs = 0.5 * scale
        (tw, th), base = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, fs, thick)
        ty = max(th + base, y1)
        cv2.rectangle(out, (x1, ty - th - base), (x1 + tw, ty), (0, 0, 0), -1)
        cv2.putText(out, label, (x1, ty - base), cv2.FONT_HERSHEY_SIMPLEX, fs, col, thick, cv2.LINE_AA)
    return out
