"""End of hand (and challenges): cards laid face up in a seat's zone become that seat's `reveal`.

Each seat zone has its own candidate reader (`vision.discard.ZoneCandidates`): cards laid down and let go in the
zone are read once they settle, and the face-up cards among them (backs ignored: a fan of held cards is not a
reveal) make the reveal, so the engine can score the hand or settle a challenge. Faces read while the seat still
holds a fan (`HELD_BACKS`) are no reveal: a hand is laid open whole. A revealed hand is counted as well
as named (the engine flags a count that differs from the log's), so the zone is read by `presence`: a card half
hidden under its neighbours is kept under its likeliest name rather than dropped for an unsure one; and it is read
under several framings (`vision.readers.FramedReader`), a card counted when most framings find it. A hand laid in
rows hides cards in its first row's gaps; they are counted from the row's pitch (`vision.reveal_rows`). A revealed
hand picked up again leaves a candidate with no face in it, which is dropped.
"""

from __future__ import annotations

from collections import Counter
from functools import partial
from typing import Any

import numpy as np

from vision.discard import ZoneCandidates
from vision.draws import HELD_FAN_MM
from vision.motion import CARD_AREA_PX, ForegroundModel
from vision.readers import CardReader, FramedReader, Seen
from vision.reveal_rows import RowReader
from vision.seat_frame import reaching

REVEAL_PRESENCE = 0.2
"""A box in a revealed hand counts as a card at this box score, whatever the confidence of its name."""

REVEAL_REACH_MM = 60.0
"""A revealed hand is read this far beyond its seat zone, inwards: the renderer lays rows 40 mm apart from 112 mm
off the edge, so a third row (15 cards or more) is centred at 192 mm, beyond the zone's 186 mm; a player short of
room does the same. Faces on the discard pile there are not the hand's (`vision.seat_frame.off_piles`)."""
LAID_WITHIN_S = 3.0
"""A change taken into the background up to this long after the last motion in the zone was laid then: the reveal
is stamped with the moment things stopped moving there (the hand let go and left), not the later moment the change
was taken in (a hand at rest beside the cards keeps them out of the background for a while)."""
MOVING_PX = 20
"""Moving pixels (motion raster) in a seat zone that mean something is still being laid there."""
HELD_BACKS = 1
"""A card back read at a seat's edge (its centre within `vision.draws.HELD_FAN_MM` of it) is a hand still held, and
faces read beside it are no revealed hand: a hand is laid open whole (MA-SCORE counts every card left; a challenged
hand is shown whole), so no fan stays in the player's hands. What such a read finds is a thing on the cloth or a
back misread (a mark like a green 7, a red back on red cloth read as a red Skip) and, unchecked, it made a one-card
"reveal" every time the seat's fan changed, each a `count_mismatch` flag. One back is enough: a held fan's cards
overlap so closely that a detector may box only its top card, while a revealed row lies 112 mm or more from the
edge, so a Wild in it read as a back lies well beyond the band."""

HELD_BACK_SCORE = 0.5
"""... boxed at least this surely: a held fan's backs are plain to the detector, a dark thing on the cloth at the
seat's edge is not. Why: fresh 77015 of stop 40: a dark keyboard at seat 2's edge, there from the first frame,
boxed as a back at 0.31, kept the seat's revealed hand of six (boxed at 0.44-0.97) from being reported. Measured
on the 20 games of that set: of 2,085 reads that found a back at a seat's edge and no reveal then, the surest back
scored 0.6 or more on all but one (0.51, and no face read beside it); the three where faces were read beside a
held fan, the reads this rule is for, scored 0.91 and more."""

LAID_MARGIN_S = 5.0
LAID_SHARE = 0.3
"""A face read in a revealed hand counts only where at least this share of its box was foreground (laid, or
moved over) since the cards being read began to be laid, less `LAID_MARGIN_S` (`ForegroundModel.changed_share`;
the candidate's first frame, or the last motion in the zone before the change came to rest). Why: a seat's
reach takes in whatever else lies on the cloth there, and a thing that lay there before the hand was laid is no
card of it. Fresh set 41000 (game 41013): the corner of a green notebook beside the draw pile, in seat 3's reach,
boxed as a green Draw Two at 0.62-0.66, made a hand of five a hand of six and a `count_mismatch` flag. An arm
had crossed it 10-20 s before the read; every card of that table's five hands had changed within 3 s of it."""


class RevealTracker:
    """Two triggers per seat zone: a candidate (cards laid apart from the hand) that settles, or a change that came
    to rest and was taken into the background (cards laid next to the held fan merge with it into one blob that
    touches the edge). Either way the zone is read and its face-up cards are the reveal; the same cards are not
    reported twice for a seat."""

    def __init__(self, model: ForegroundModel, reader: CardReader, scale: float = 1.5) -> None:
        self.model, self.scale = model, scale
        framed = FramedReader(reader)  # a revealed hand is counted: read under several framings
        table = model.table
        # ... and laid in rows: the cards hidden in a row's gaps are found from its pitch
        # ... beyond the seat zone's depth when a big hand takes three rows
        reach = {z.seat: reaching(table, z, REVEAL_REACH_MM) for z in table.seat_zones()}
        self.readers = {s: RowReader(framed, table, r, reader, [o for k, o in reach.items() if k != s],
                                     laid=partial(self._laid, s))
                        for s, r in reach.items()}
        self.zones = {z.seat: ZoneCandidates(model, z.name, self.readers[z.seat], scale, settle=6, confirm=2,
                                             max_reads=3, pad=8.0, cap_by_area=False, withdraw_mm=70.0,
                                             whole_zone=True, presence=REVEAL_PRESENCE, reach=reach[z.seat])
                      for z in table.seat_zones()}
        self.masks = {s: zc.zone_mask for s, zc in self.zones.items()}
        self.pending: dict[int, tuple[float, list[tuple[str, ...]]]] = {}  # seat -> (t, readings)
        self.last: dict[int, tuple[float, tuple[str, ...]]] = {}
        self.touched: dict[int, float] = {}  # seat -> the last frame time something moved in its zone

    def _laid(self, seat: int, s: Seen, t: float) -> bool:
        """`s`, read in `seat`'s reach at `t`, lies where something was laid or moved since the cards being read
        began to be laid (`LAID_SHARE`)."""
        starts = [t]
        if seat in self.pending:
            starts.append(self.pending[seat][0])
        current = self.zones[seat].current
        if current is not None:
            starts.append(current.first_t)
        return self.model.changed_share(s.box_mm, min(starts) - LAID_MARGIN_S) >= LAID_SHARE

    def still_held(self, seat: int, seen: list[Seen]) -> bool:
        """The read finds a held fan at the seat's edge (`HELD_BACKS`): no hand was laid open."""
        zone = self.zones[seat].reach
        backs = [s for s in seen if s.code == "back" and zone.contains(s.centre)
                 and self.model.edge_depth(seat, s.centre) < HELD_FAN_MM and s.card_score >= HELD_BACK_SCORE]
        return len(backs) >= HELD_BACKS

    def _emit(self, seat: int, t0: float, t: float, cards: tuple[str, ...], conf: float) -> list[dict[str, Any]]:
        cards = tuple(sorted(cards))
        prev = self.last.get(seat)
        if not cards or (prev is not None and prev[1] == cards and t - prev[0] < 10.0):
            return []
        self.last[seat] = (t, cards)
        return [{"t": round(t0, 3), "type": "reveal", "seat": seat, "cards": list(cards), "source": "vision",
                 "confidence": conf, "seen_t": round(t, 3)}]

    def step(self, image: np.ndarray, t: float) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for seat, zc in self.zones.items():
            if (self.model.motion & self.masks[seat]).sum() > MOVING_PX:
                self.touched[seat] = t
            for c, cards in zc.step(image, t):
                if not self.still_held(seat, zc.last_seen):
                    out += self._emit(seat, c.first_t, t, cards, 0.9 if len(c.reads) <= 2 else 0.6)
            if seat not in self.pending and self.model.absorbed[self.masks[seat]].sum() > 0.3 * CARD_AREA_PX:
                laid = self.touched.get(seat, t)  # the change is taken in later; it was laid when motion stopped
                self.pending[seat] = (laid if t - LAID_WITHIN_S <= laid < t else t, [])
            if seat in self.pending:
                if any((h.mask & self.masks[seat]).any() and not self.model.withdrawing(h, 40.0)
                       for h in self.model.hands):
                    continue  # a hand still at work in the zone
                t0, reads = self.pending[seat]
                zone = zc.reach
                seen = self.readers[seat].read(image, zc.region, self.scale, t, presence=REVEAL_PRESENCE)
                held = self.still_held(seat, seen)
                reads.append(() if held else
                             tuple(sorted(s.code for s in seen if s.code != "back" and zone.contains(s.centre))))
                if len(reads) >= 2 and reads[-1] == reads[-2]:
                    del self.pending[seat]
                    out += self._emit(seat, t0, t, reads[-1], 0.8)
                elif len(reads) >= 4:
                    del self.pending[seat]
                    best = Counter(r for r in reads if r).most_common(1)
                    if best:
                        out += self._emit(seat, t0, t, best[0][0], 0.5)
        return out
