"""Which boxes of a carried fan's read are cards: one box to a card, the fan's far cards kept, the palm left out.

Why a module of its own: the detector boxes a carried fan otherwise than a card lying on the table (a pair of
overlapping cards boxed once more as one, a card boxed again together with the hand holding it), and these rules,
each measured on the rendered games, decide which of its boxes `vision.draws.DrawTracker` counts.
"""

from __future__ import annotations

import numpy as np

from vision.readers import Seen, rectify
from vision.tablefile import Table


def without_merged(backs: list[Seen]) -> list[Seen]:
    """Drop a box that holds most of two or more other boxes: the detector's box around a pair of overlapping
    cards beside its boxes for each (NMS keeps both, their overlap being small against the big box)."""
    return [a for a in backs if sum(1 for b in backs if b is not a and a.overlap(b) >= 0.6 * max(b.area, 1e-6)) < 2]


FAN_OVERLAP = 0.3
"""A moving back in a seat's zone, beyond `CARRY_MM` of the tip, is carried when this share of its box lies in the box
of a back already carried: it is a card of the same fan, which the blob's tip does not reach. Why: a hand the
colour of the table shows only its sleeve, so the tip is the sleeve's end and a fan of four held below the palm
reaches 85-95 mm beyond it; entering the seat's zone on its way home, its far cards were dropped (fresh 51007 of
stop 34: a draw of four read 4 on the last read before the cards crossed into the zone, 2 on the read after, and
counted three). A fan's cards overlap their neighbours by half a card or more; a hand of backs lying at the seat
does not move, and the seat's held fan is dropped before (`HELD_FAN_MM`). Measured with the second-read rule of
`DrawTracker._read_carry` on whole sets: 51000's draw counts 99.06 -> 99.69 % (flags 15 -> 17 of 18 fully seen
games), 45000 99.7 -> 100 %, 43000 100 % as before (47000, read on an interim commit with this rule and one since
dropped, 100 % as before)."""


def fan_members(carried: list[Seen], candidates: list[Seen]) -> list[Seen]:
    """`carried` with each of `candidates` whose box lies `FAN_OVERLAP` or more in a carried back's box, taken
    in as they join (a fan's far card overlaps its neighbour, not the card at the fingers)."""
    out, rest = list(carried), list(candidates)
    grew = True
    while grew and rest:
        joined = [c for c in rest if any(c.overlap(b) >= FAN_OVERLAP * max(c.area, 1e-6) for b in out)]
        out += joined
        rest = [c for c in rest if not any(c is j for j in joined)]
        grew = bool(joined)
    return out


PALM_RATIO = 1.4
PALM_DARK = 0.1
"""A carried back's box that holds another carried back's box (0.9 of it or more) and is `PALM_RATIO` times its area
or more is that card boxed again with the hand holding it, not a fan, where under `PALM_DARK` of what it holds
beyond that card is dark (every channel under `DARK_LEVEL`): a card back is a black field, and a strip of one
shows it; a palm does not. Why: fresh 59007 of stop 35: a hand carrying one card home, the card at its fingertips,
the detector boxing the card (0.9-0.95) and a box from the card's far edge over the palm behind it (0.63-0.92,
2.0-3.1 times the card's box) on three reads of each of two draws of one, both read as two. Measured: the 12 such
boxes there had 0.00 of their part beyond the card dark; game 59004 read whole had no box held so in another; a
fan of two at the renderer's pitch, boxed whole beside its top card, shows 0.3-0.4 dark beyond it (its lower
card's strip)."""
DARK_LEVEL = 70


def with_palms(image: np.ndarray, table: Table, backs: list[Seen], scale: float = 2.0) -> list[Seen]:
    """The boxes of `backs` that hold another of them and a palm beyond it (`PALM_DARK`)."""
    out = []
    for outer in backs:
        for inner in backs:
            if inner is outer or outer.area < PALM_RATIO * inner.area or outer.overlap(inner) < 0.9 * inner.area:
                continue
            x0, y0, x1, y1 = outer.box_mm
            crop = rectify(image, table, (x0, y0, x1, y1), scale)
            beyond = np.ones(crop.shape[:2], bool)
            ix0, iy0, ix1, iy1 = (int(round((v - o) * scale)) for v, o in zip(inner.box_mm, (x0, y0, x0, y0), strict=True))
            beyond[max(0, iy0):max(0, iy1), max(0, ix0):max(0, ix1)] = False
            pixels = crop[beyond]
            if len(pixels) and float((pixels.max(axis=1) < DARK_LEVEL).mean()) < PALM_DARK:
                out.append(outer)
                break
    return out
