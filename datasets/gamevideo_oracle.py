"""An oracle card reader for unit tests ONLY: it answers from the renderer's truth of what each frame shows.

Why: the trackers' logic (gating, confirmation, new-vs-old, seats, counts) must be testable without the trained
detector, and independently of its mistakes. The oracle sees exactly the cards a perfect detector would see in the
asked region: those at least `min_visible` visible, with the box of their visible part. It is never used for the
figures `eval-video` reports.
"""

from __future__ import annotations

import numpy as np

from datasets.gamevideo import FrameInfo
from vision.readers import Seen


class OracleReader:
    def __init__(self, infos: dict[int, FrameInfo], fps: float, min_visible: float = 0.4, min_visible_back: float = 0.4) -> None:
        self.infos, self.fps, self.min_visible, self.min_visible_back = infos, fps, min_visible, min_visible_back
        self.calls = 0

    def read(self, image: np.ndarray, region_mm: tuple[float, float, float, float], scale: float,
             t: float, presence: float | None = None, turn: int = 0) -> list[Seen]:
        """As `vision.readers.CardReader.read` (a perfect detector reads any way up: `turn` changes nothing); read
        by `presence`, a perfect detector also finds the cards half as visible as `min_visible` (a box surely holds
        a card before its name can be read)."""
        self.calls += 1
        share = 0.5 if presence is not None else 1.0
        info = self.infos.get(int(round(t * self.fps)))
        if info is None:
            return []
        x0, y0, x1, y1 = region_mm
        out = []
        for code, _quad, vis, box in info.cards:
            if vis < share * (self.min_visible_back if code == "back" else self.min_visible) or box is None:
                continue
            cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
            if x0 <= cx <= x1 and y0 <= cy <= y1:
                out.append(Seen(code, box, 0.9))
        return out
