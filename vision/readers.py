"""Card readers: what cards are in a region of the table, read from a rectified (top-down) crop.

Why crops: in a 960x540 frame a card is about 50x85 pixels and the detector, run on the whole frame at its input
size, sees it at a third of that. A crop of one zone warped to the table plane at `scale` pixels per mm shows the
cards big, square-on and upright-independent, and costs one small detector call only when a tracker needs it.
A reader returns `Seen` records in table millimetres, so the trackers never deal with pixels.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import cv2
import numpy as np

from vision.tablefile import Table


@dataclass(frozen=True)
class Seen:
    code: str  # a card code or "back"
    box_mm: tuple[float, float, float, float]
    confidence: float

    @property
    def centre(self) -> np.ndarray:
        return np.array([(self.box_mm[0] + self.box_mm[2]) / 2, (self.box_mm[1] + self.box_mm[3]) / 2])

    @property
    def area(self) -> float:
        return max(0.0, self.box_mm[2] - self.box_mm[0]) * max(0.0, self.box_mm[3] - self.box_mm[1])

    def overlap(self, other: Seen) -> float:
        """The area (mm²) the two boxes share."""
        ix = max(0.0, min(self.box_mm[2], other.box_mm[2]) - max(self.box_mm[0], other.box_mm[0]))
        iy = max(0.0, min(self.box_mm[3], other.box_mm[3]) - max(self.box_mm[1], other.box_mm[1]))
        return ix * iy


MIN_PRESENCE = 0.1
"""The lowest box score a reader's detector keeps (for `read(..., presence=...)`)."""


class CardReader(Protocol):
    calls: int

    def read(self, image: np.ndarray, region_mm: tuple[float, float, float, float], scale: float,
             t: float, presence: float | None = None) -> list[Seen]:
        """The cards in `region_mm`: those named with confidence, or, given `presence`, every box at least
        that likely to hold a card, however unsure its name (for counting: a revealed hand, a pair's lower
        card). A `Seen`'s `confidence` is always the named confidence."""


def rectify(image: np.ndarray, table: Table, region_mm: tuple[float, float, float, float],
            scale: float) -> np.ndarray:
    """The table region `region_mm` (x0, y0, x1, y1) seen from straight above at `scale` px/mm."""
    assert table.image_to_table is not None
    x0, y0, x1, y1 = region_mm
    m = np.array([[scale, 0, -scale * x0], [0, scale, -scale * y0], [0, 0, 1.0]]) @ table.image_to_table
    size = (max(8, int(round((x1 - x0) * scale))), max(8, int(round((y1 - y0) * scale))))
    return cv2.warpPerspective(image, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


class DetectorReader:
    """The card detector (`vision.detector`) run on rectified crops."""

    def __init__(self, table: Table, detector: object, min_conf: float = 0.2) -> None:
        self.table, self.detector, self.min_conf = table, detector, min_conf
        self.calls = 0

    def read(self, image: np.ndarray, region_mm: tuple[float, float, float, float], scale: float,
             t: float, presence: float | None = None) -> list[Seen]:
        crop = rectify(image, self.table, region_mm, scale)
        self.calls += 1
        dets = self.detector.detect(crop)  # type: ignore[attr-defined]
        out = []
        x0, y0 = region_mm[0], region_mm[1]
        for d, present in zip(dets, dets.presence, strict=True):
            if (d.confidence < self.min_conf) if presence is None else (present < presence):
                continue
            b = d.box
            out.append(Seen(d.card, (x0 + b[0] / scale, y0 + b[1] / scale, x0 + b[2] / scale, y0 + b[3] / scale),
                            float(d.confidence)))
        return out


def load_reader(table: Table, weights: str | None = None, conf: float = 0.2) -> DetectorReader:
    """The shipped detector as a reader (raises `vision.detector.DetectorError` naming missing weights)."""
    from pathlib import Path

    from vision.detector import load_detector

    det = load_detector(Path(weights) if weights else None, conf=min(conf, 0.25), presence=min(conf, MIN_PRESENCE))
    return DetectorReader(table, det, min_conf=conf)
