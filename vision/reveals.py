"""End of hand (and challenges): cards laid face up in a seat's zone become that seat's `reveal`.

Each seat zone has its own candidate reader (`vision.discard.ZoneCandidates`): cards laid down and let go in the
zone are read once they settle, and the face-up cards among them (backs ignored: a fan of held cards is not a
reveal) make the reveal, so the engine can score the hand or settle a challenge. A revealed hand picked up again
leaves a candidate with no face in it, which is dropped.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from vision.discard import ZoneCandidates
from vision.motion import ForegroundModel
from vision.readers import CardReader


class RevealTracker:
    def __init__(self, model: ForegroundModel, reader: CardReader, scale: float = 1.5) -> None:
        self.zones = {z.seat: ZoneCandidates(model, z.name, reader, scale, settle=6, confirm=2, max_reads=3, pad=8.0,
                                         cap_by_area=False, withdraw_mm=70.0, whole_zone=True)
                      for z in model.table.seat_zones()}

    def step(self, image: np.ndarray, t: float) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for seat, zc in self.zones.items():
            for c, cards in zc.step(image, t):
                if cards:
                    out.append({"t": round(c.first_t, 3), "type": "reveal", "seat": seat, "cards": sorted(cards),
                                "source": "vision", "confidence": 0.9 if len(c.reads) <= 2 else 0.6,
                                "seen_t": round(t, 3)})
        return out
