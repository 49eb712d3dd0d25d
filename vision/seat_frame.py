"""A seat's frame and reach, and which of the faces read there are the hand's.

Why a module of its own: a revealed hand is read in its seat's frame (`u` along the player's table edge, `v` from
that edge into the table), beyond the seat zone's depth when a big hand takes three rows, and a read there takes in
more than the hand: a cable boxed as a card, the discard pile's edge, the end of a neighbour's row. These decide
what is read and where; `vision.reveal_rows` then counts the hand's rows from what is left.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from vision.readers import Seen, rectify
from vision.tablefile import CARD_H_MM, CARD_W_MM, Table, Zone

CARD_SPAN_MM = float(np.hypot(CARD_W_MM, CARD_H_MM)) + 8.0
"""The longest side a box of one card (or of two strips boxed as one, `TWO_STRIPS`) can have: the card's
diagonal, and the few millimetres a detector's box runs over."""


@dataclass(frozen=True)
class SeatFrame:
    """The axes of a seat zone: `u` along its table edge, `v` from that edge into the table (both unit vectors,
    in table mm), and the edge's offset, so `v` is the distance from the edge."""

    u: np.ndarray
    v: np.ndarray
    origin: np.ndarray

    @classmethod
    def of(cls, table: Table, zone: Zone) -> SeatFrame:
        """The frame of the table edge nearest the zone's centre."""
        cx, cy = zone.polygon.mean(axis=0)
        dists = {"top": cy, "bottom": table.height - cy, "left": cx, "right": table.width - cx}
        edge = min(dists, key=lambda k: dists[k])
        if edge == "top":
            return cls(np.array([1.0, 0.0]), np.array([0.0, 1.0]), np.array([0.0, 0.0]))
        if edge == "bottom":
            return cls(np.array([-1.0, 0.0]), np.array([0.0, -1.0]), np.array([table.width, table.height]))
        if edge == "left":
            return cls(np.array([0.0, -1.0]), np.array([1.0, 0.0]), np.array([0.0, table.height]))
        return cls(np.array([0.0, 1.0]), np.array([-1.0, 0.0]), np.array([table.width, 0.0]))

    def to_seat(self, box_mm: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        """(u0, u1, v0, v1) of a table box."""
        corners = np.array([[box_mm[0], box_mm[1]], [box_mm[2], box_mm[3]]]) - self.origin
        us, vs = corners @ self.u, corners @ self.v
        return float(us.min()), float(us.max()), float(vs.min()), float(vs.max())

    def to_table(self, u0: float, u1: float, v0: float, v1: float) -> tuple[float, float, float, float]:
        pts = np.array([self.origin + self.u * u + self.v * v for u in (u0, u1) for v in (v0, v1)])
        x0, y0 = pts.min(axis=0)
        x1, y1 = pts.max(axis=0)
        return float(x0), float(y0), float(x1), float(y1)

    def crop(self, image: np.ndarray, table: Table, band: tuple[float, float, float, float],
             scale: float) -> np.ndarray:
        """The seat-frame band (u0, u1, v0, v1) seen from above at `scale` px/mm, turned so that columns run along
        `u` and rows along `v` (a row of cards reads the same way at every seat)."""
        crop = rectify(image, table, self.to_table(*band), scale)
        if abs(self.u[0]) > 0.5:  # u along the table's x
            if self.u[0] < 0:
                crop = crop[:, ::-1]
            if self.v[1] < 0:
                crop = crop[::-1]
        else:
            crop = crop.transpose(1, 0, 2)
            if self.u[1] < 0:
                crop = crop[:, ::-1]
            if self.v[0] < 0:
                crop = crop[::-1]
        return np.ascontiguousarray(crop)


def reaching(table: Table, zone: Zone, reach_mm: float) -> Zone:
    """The seat zone grown `reach_mm` inwards (away from its table edge), within the table: a hand of fifteen
    cards or more is laid in three rows, and the third lies beyond a seat zone's depth (`SEAT_DEPTH`)."""
    frame = SeatFrame.of(table, zone)
    depth = (zone.polygon - frame.origin) @ frame.v
    poly = zone.polygon.astype(np.float64).copy()
    inner = depth > depth.mean()
    poly[inner] += frame.v * reach_mm
    poly[:, 0] = poly[:, 0].clip(0.0, table.width)
    poly[:, 1] = poly[:, 1].clip(0.0, table.height)
    return replace(zone, polygon=poly)


def card_sized(seen: list[Seen]) -> list[Seen]:
    """`seen` without the faces whose box is longer than any card's can be (`CARD_SPAN_MM`): a card turned any way
    boxes at most its diagonal. The revealed hand is read down to a low box score (`REVEAL_PRESENCE`), where the
    detector also boxes things on the cloth: a cable beside a seat boxed 62 x 241 mm at score 0.32 and named a
    green 1 made a one-card "reveal" at a seat that had gone out (held-out game 17010), a `count_mismatch`."""
    return [s for s in seen if s.code == "back"
            or max(s.box_mm[2] - s.box_mm[0], s.box_mm[3] - s.box_mm[1]) <= CARD_SPAN_MM]


PILE_ROW_MM = 12.0
"""A face whose centre lies on the discard pile's zone is still the hand's when it carries on a row of the hand: its
box squared with the seat (no wider along the row, nor deeper, than a card and `PILE_ROW_MM`), its player-side edge
within `PILE_ROW_MM` of a hand face's, and no more than `PILE_ROW_MM` apart from it along the row. Why: a third row
lies 172-232 mm off the edge, so its cards' centres fall on the discard zone's near edge where it meets a seat's
(fresh game 43001: a hand of seventeen in rows of seven, seven and three; the third row's Blue 0 and Green 5 lay
centred 5 mm inside the discard zone, were dropped as the pile's, and the hand was read as fourteen). A card of the
pile lies where it was thrown, turned any way: squared with the seat, in line with a row, and touching its end,
it would have to be laid there."""

OVER_ROWS = 0.5
"""A face whose centre lies on the discard pile's zone is still the hand's when it lies over the hand's faces: squared
with the seat, its player-side edge on faces the hand keeps along this share of its width or more (a further row,
laid over the ones before it). Why: a row of one has no face to be in line with (`PILE_ROW_MM`). Fresh 59009 of stop
35: a hand of fifteen in rows of seven, seven and one; the third row's Red 0 lay 40 mm further in than the second,
its near edge on the second row's faces along all its width and its centre 2 mm inside the discard zone, was
dropped as the pile's, and the hand was read as fourteen. The pile's cards lie where they were thrown, around the
pile's middle; one lying over a revealed hand's faces would have to be laid there."""


def off_piles(seen: list[Seen], piles: list[Zone], frame: SeatFrame | None = None) -> list[Seen]:
    """`seen` without the faces lying in the zones of `piles` (a seat's reach may take in the discard pile's edge,
    whose faces are not the hand's), but for those that carry on a row of the hand (`PILE_ROW_MM`) or lie over its
    rows (`OVER_ROWS`; both with the seat's `frame` given)."""
    on_pile = [s.code != "back" and any(p.contains(s.centre) for p in piles) for s in seen]
    kept = [not o for o in on_pile]
    if frame is not None:
        boxes = [frame.to_seat(s.box_mm) for s in seen]

        def squared(b: tuple[float, float, float, float]) -> bool:
            return b[1] - b[0] <= CARD_W_MM + PILE_ROW_MM and b[3] - b[2] <= CARD_H_MM + PILE_ROW_MM

        def in_line(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
            gap = max(a[0], b[0]) - min(a[1], b[1])
            return abs(a[2] - b[2]) <= PILE_ROW_MM and gap <= PILE_ROW_MM

        grown = True
        while grown:  # a row may carry on over several cards of the pile's zone
            grown = False
            for i, b in enumerate(boxes):
                if kept[i] or not squared(b):
                    continue
                if any(kept[j] and seen[j].code != "back" and squared(boxes[j]) and in_line(b, boxes[j])
                       for j in range(len(seen))):
                    kept[i] = grown = True
        hand = [boxes[j] for j in range(len(seen)) if kept[j] and seen[j].code != "back" and squared(boxes[j])]
        for i, b in enumerate(boxes):
            if not kept[i] and squared(b) and over_rows(b, hand):
                kept[i] = True
    return [s for s, k in zip(seen, kept, strict=True) if k]


def over_rows(box: tuple[float, float, float, float], hand: list[tuple[float, float, float, float]]) -> bool:
    """Seat-frame `box` (u0, u1, v0, v1) has its player-side edge on the `hand` boxes along `OVER_ROWS` or more of
    its width: it lies over them, from further in. (Its edge, not its area: the faces under it show, and are boxed,
    only up to it.)"""
    under = [h for h in hand if h[2] < box[2] < h[3]]
    us = np.arange(box[0], box[1], 1.0) + 0.5  # a millimetre grid along the edge
    covered = np.zeros(len(us), bool)
    for h in under:
        covered |= (us >= h[0]) & (us <= h[1])
    return bool(covered.size) and float(covered.mean()) >= OVER_ROWS


def owned(seen: list[Seen], zone: Zone, others: list[Zone]) -> list[Seen]:
    """`seen` without the faces that lie where this seat zone overlaps another and nearer the other's middle: seat
    zones meet at the table's corners, and the end of one seat's revealed row must not count in its neighbour's
    hand."""
    def theirs(s: Seen) -> bool:
        here = float(np.linalg.norm(s.centre - zone.polygon.mean(axis=0)))
        return any(z.contains(s.centre) and float(np.linalg.norm(s.centre - z.polygon.mean(axis=0))) < here
                   for z in others)

    return [s for s in seen if s.code == "back" or not zone.contains(s.centre) or not theirs(s)]
