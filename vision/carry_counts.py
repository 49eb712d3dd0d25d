"""How a carry's reads become one count: the reads' counts settle (`settled_count`), a card hidden in a fan's
steady pitch is filled (`hidden_in_fan`), and a carry whose count still rises is read on (`still_rising`).

Pure functions of what the reads saw, apart from `vision.draws.DrawTracker` that takes the reads, so each rule is
tested on its numbers and replayed over recorded carries without a video.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from vision.reveal_rows import MIN_ROW, PITCH_FIT
from vision.row_edges import MAX_PITCH_MM

EXTRA_READS = 4  # reads a carry may take beyond `DrawTracker.reads` while its count is still rising
FAN_DOUBLE = (1.7, 2.3)  # a gap this many pitches wide in a carried fan holds a card the detector missed
FAN_MIN_PITCH_MM = 20.0
"""A fan held tighter than this pitch (above a row's least, `vision.row_edges.MIN_PITCH_MM`) has no card filled in
its gap (`hidden_in_fan`): the half-hidden backs' boxes
wander a few millimetres, which at a pitch of 14-17 mm moves a gap by a third of a pitch. Measured on every carry of
130 game readings (1,980 carries: sets 25000-27000 and 31000-33000 with the markers' calibration, sets 17000-25000
with their table files, and the fresh game 41005): the fill changed three carries' counts. The one it made right
(31013, a four read as three) had a pitch of 27-28 mm on each read that filled; the two it made wrong (25004 and
41005, fours read as fives) had 14-17 mm. With this bar both read four and nothing else moves (1,967 -> 1,969
right)."""
FAN_ENDS_ALIKE = 0.05
"""A fan whose two end cards' boxes differ by less than this share of the larger in area has no end that is surely
the card on top, and `hidden_in_fan` reads no gap in it: which edges keep the pitch depends on that end. Measured
on every carry of 73 games read with the markers' calibration (sets 25000-33000, 1,040 carries): the fill made 1
count right and 4 wrong (fours read as fives). In three of those (31014, 33013, 27014) the ends of most reads that
found a gap differed by 0.4-3 %: with this bar they read four, and nothing else moves (1,029 -> 1,032 right). The
fourth, 25004, whose ends differed by 37-52 %, still read five (its pitch reads four: `FAN_MIN_PITCH_MM`)."""


def settled_count(counts: list[int]) -> int:
    """The count of a carry from its reads: the largest count read on at least two frames (fingers hide a card on
    one frame and show it on the next, so the largest wins over the typical; a box read on one frame only, a
    glint or a card's corner boxed twice, does not)."""
    if len(counts) < 2:
        return max(counts, default=0)
    return sorted(counts)[-2]


def carry_count(counts: list[int], hidden: list[int]) -> int:
    """The count of a carry: the backs seen (`settled_count`), or, when most reads make a larger count, the count
    they make: the backs a read saw, with the card it found hidden in the fan (`hidden_in_fan`). A card the
    detector misses stays missed while the fan is held still (measured: four reads of five, or all), while the
    pitch read from wandering boxes fakes a gap on a read or two at most. A read that saw the card the others
    missed and a read that found its gap both tell of the same card, so they count together: in held-out 35016
    a fan of four was seen whole on one read and its gap found on two others, and it was counted three while only
    the reads that filled the gap were asked (replayed on every carry of 73 games with the markers' calibration
    and 55 with their table files, nothing else changes)."""
    n = settled_count(counts)
    totals = [c + k for c, k in zip(counts, hidden, strict=True)]
    more = [t for t in totals if t > n]
    if n == 0 or 2 * len(more) <= len(totals):
        return n
    return Counter(more).most_common(1)[0][0]


def still_rising(counts: list[int], reads: int) -> bool:
    """True when the last read saw more cards than the reads so far settle on, and fewer than `EXTRA_READS` more
    reads were taken: a card dragged off the pile clears it only as the arm withdraws (the detector boxes the pile
    and the card sliding off it as one until then), so the carry is read until it has shown on two frames."""
    return reads <= len(counts) < reads + EXTRA_READS and counts[-1] > settled_count(counts)


def hidden_in_fan(backs: list[tuple[float, float, float]]) -> int:
    """1 when a carried fan hides one card between the backs seen, from the fan's steady pitch; else 0.

    `backs`: (u0, u1, area) of each back seen, `u` across the arm. A drawn fan is held spread at a steady pitch,
    and the detector misses one of its middle cards now and then (a fan of four read as three, measured on the
    tuning games): its neighbours' edges then lie two pitches apart where the others lie one. The card on top
    shows whole (the larger box of the two ends); the others show strips on the side away from it, where their
    edges keep the pitch (on the other side, the top card's edge is a card's width off). So with three backs or
    more, one gap between those edges of `FAN_DOUBLE` times the mean of the others, which agree (`PITCH_FIT`)
    and make a pitch, hides a card. The detector's boxes wander a few millimetres against a pitch of
    two or three centimetres, so one card at most is filled, and only on so clear a pattern."""
    if len(backs) < MIN_ROW:
        return 0
    order = sorted(backs, key=lambda b: b[0] + b[1])
    if abs(order[-1][2] - order[0][2]) < FAN_ENDS_ALIKE * max(order[-1][2], order[0][2]):
        return 0  # no end is surely the top card (`FAN_ENDS_ALIKE`)
    # the card on top shows whole, at one end: the strips show their edges on the side away from it
    edges = np.sort([b[0] for b in backs] if order[-1][2] > order[0][2] else [b[1] for b in backs])
    gaps = np.diff(edges)
    wide = int(np.argmax(gaps))
    rest = np.delete(gaps, wide)
    pitch = float(rest.mean())
    if not FAN_MIN_PITCH_MM <= pitch <= MAX_PITCH_MM or (np.abs(rest / pitch - 1) >= PITCH_FIT).any():
        return 0
    return int(FAN_DOUBLE[0] <= gaps[wide] / pitch <= FAN_DOUBLE[1])
