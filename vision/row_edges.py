"""A revealed row counted from the picture: the card edges that cross it at a steady pitch.

Why: the detector's boxes of a row's half-hidden strips are missed or wander (5-9 mm against a pitch of about
32), so a count built from boxes alone (`vision.reveal_rows`) misses cards where two or three strips in a row go
unboxed, and the engine flags a `count_mismatch` that did not happen (held-out game 13009: a first row of seven
with four boxed, the hand of nine read as six). The picture itself is plainer: every card in an overlapping row
shows one straight edge across the whole row's depth, where its white border meets the card it lies on. Seen
from above and summed down the row, these edges make a comb of sharp peaks a pitch apart, while a card's print
(an oval, a digit, a Skip's ring) crosses only part of the depth and drops out of a median.

A row of n cards laid at pitch p with the top card at one end spans (n - 1) p and a card's width; the edges that
show are the top card's inner edge and then one every pitch to the row's far end. So for each n (and each end
on top) the comb is fixed by the row's two ends, and the row holds n cards when every tooth of that comb finds an
edge. A comb of half the pitch puts teeth between the edges, on card faces, and fails; a comb of twice the pitch
also finds edges at every tooth, so of the combs that hold the one with the most cards is taken.

Geometry is in the seat's frame (`vision.seat_frame.SeatFrame`): `u` along the player's table edge, `v` into
the table.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from scipy.ndimage import maximum_filter1d

from vision.tablefile import CARD_W_MM

PROFILE_SCALE = 4.0
"""Pixels per mm of the row's crop (`vision.seat_frame.SeatFrame.crop`): a card's border (about 3 mm) spans 12
pixels, its edge's peak about 4."""
EDGE_SMOOTH_MM = 1.0
"""The edge image is smoothed this much along the row before the median down it, so an edge a degree or two off
square (a card laid a little turned moves its edge 1-2 mm over a row's depth) still adds up in one place."""
TOOTH_MM = 1.5
"""A comb's tooth finds an edge within this distance: the ends the comb hangs from are box ends, a few mm off."""
WIDTH_SLACK_MM = 3.0
"""The top card's width is searched this far either side of a card's width: its box (one end of the comb) and a
card turned a little make its seen width wander."""
EDGE_OVER_BACKGROUND = 3.0
"""A comb holds when its weakest tooth's edge is this many times the row's typical edge strength (the median of
its profile: print, cloth and noise) ..."""
EDGE_MIN = 12.0
"""... and at least this strong (mean absolute Sobel response, 8-bit grey, after smoothing): a flat row (cloth
only, a crop of nothing) has no comb however faint its background."""
PITCH_FIT = 0.15
"""A row counted again past its far end (`past_far_end`) keeps its pitch within this share: the player lays one
row at one pitch, and the first comb's pitch is off by a few millimetres only where its end box wanders."""
COMB_TIE = 0.5
"""Of the combs that hold, the one with the most cards is taken where its weakest tooth is at least this share of
the best comb's: a comb of twice the pitch holds as well as the true one, a comb of half the pitch does not."""
MIN_PITCH_MM = 10.0
MAX_PITCH_MM = 0.9 * CARD_W_MM
"""A row whose pitch is a whole card width or more is laid apart, not overlapping: no card hides in its gaps (the
box-based steps of `vision.reveal_rows` and the draw tracker's fan use the same bounds)."""
FAR_END_SLACK_MM = 6.0
"""Where no comb holds on the boxes' ends, the row is counted again with its far end (the last-laid card's shown
edge) up to this much short of its box's end, every tooth checked (`count_row`'s `end_slack`). Why: fresh 87012 of
stop 42: a second row of seven under a third, its last card's box 5.7 mm past that card's edge; hung on the box,
the comb's pitch came out 1 mm long and its last inner tooth fell 4 mm off its edge, so the picture counted
nothing, two unboxed strips went uncounted and the hand of 17 was read as 15 (a `count_mismatch`). Only a far end
short of the box is tried, the way that game's box erred; on the 247 revealed hands of the tuning sets 79000-87000
this fallback changed no count but 87012's."""
MAX_CARDS = 25
"""No row holds more: a hand of more cards is laid in more rows."""


@dataclass(frozen=True)
class RowComb:
    """A row's cards as the picture counts them: `n` cards at `pitch`, each showing its edge on `shown` side
    ("right": each card lies on the one to its right, so its right edge shows; "left": the other way), the top
    card `width` wide; `edges[k]` is card k's shown edge, from the top card on; `strength` is the weakest tooth's
    edge strength."""

    n: int
    shown: str
    width: float
    pitch: float
    edges: tuple[float, ...]
    strength: float

    @property
    def extent(self) -> tuple[float, float]:
        """(u0, u1) of the whole row: from the top card's far side to the last card's shown edge."""
        top_end = self.edges[0] - self.width if self.shown == "right" else self.edges[0] + self.width
        return min(top_end, self.edges[-1]), max(top_end, self.edges[-1])

    def visible(self, k: int) -> tuple[float, float]:
        """(u0, u1) of the part of card k that shows: the whole top card, a pitch of every other."""
        e = self.edges[k]
        reach = self.width if k == 0 else self.pitch
        return (e - reach, e) if self.shown == "right" else (e, e + reach)

    def card_of(self, box: tuple[float, float, float, float]) -> int | None:
        """The card whose shown edge a seat-frame box's end on the shown side lies at (within half a pitch)."""
        end = box[1] if self.shown == "right" else box[0]
        k = int(np.argmin([abs(end - e) for e in self.edges]))
        return k if abs(end - self.edges[k]) <= self.pitch / 2 else None


def edge_profile(crop: np.ndarray) -> np.ndarray:
    """Per column of a seat-frame crop (columns along `u`): the median, down the row, of the edge strength across
    it (the strongest of the colour channels'). An edge that crosses the whole row (a card's border) keeps its
    strength; print crossing less than half the depth drops out. In colour because a card's white border on a
    yellow card hardly differs in grey (tuning game 33013: a second row of a blue 9 and two yellow 9s, the comb's
    teeth on the yellow edges under its bar, the middle 9 unboxed; the hand of ten read as nine); in the blue
    channel it is the strongest edge of all."""
    gx = np.abs(cv2.Sobel(crop.astype(np.float32), cv2.CV_32F, 1, 0, ksize=3))
    if gx.ndim == 3:
        gx = gx.max(axis=2)
    gx = cv2.GaussianBlur(gx, (0, 0), sigmaX=EDGE_SMOOTH_MM * PROFILE_SCALE, sigmaY=0.1)
    return np.asarray(np.median(gx, axis=0), dtype=np.float64)


def count_row(profile: np.ndarray, u_start: float, left: float, right: float,
              floor: float | None = None, end_slack: float = 0.0) -> RowComb | None:
    """The comb that counts a row spanning `left`..`right` (u, mm), from its edge `profile` (column 0 at
    `u_start`, `PROFILE_SCALE` columns a mm), or None when no comb holds (the row keeps its boxes' count).
    `floor`: the teeth's bar (`edge_floor` of the profile when None). `end_slack`: the row's far end (the last
    shown edge) may lie up to this much short of the box end given (`FAR_END_SLACK_MM`); 0 hangs the comb on it."""
    if right - left - CARD_W_MM < MIN_PITCH_MM * 0.8 or len(profile) < 2:
        return None
    reach = max(1, int(round(TOOTH_MM * PROFILE_SCALE)))
    found = maximum_filter1d(profile, size=2 * reach + 1, mode="nearest")
    floor = edge_floor(profile) if floor is None else floor

    w_grid = np.arange(CARD_W_MM - WIDTH_SLACK_MM, CARD_W_MM + WIDTH_SLACK_MM + 1e-6, 0.5)
    s_grid = np.arange(0.0, end_slack + 1e-6, 0.5)
    widths, short = (a.ravel() for a in np.meshgrid(w_grid, s_grid))  # every width with every far end
    combs: list[RowComb] = []
    for n in range(2, MAX_CARDS + 1):
        pitches = (right - left - widths - short) / (n - 1)
        ok = (pitches >= MIN_PITCH_MM) & (pitches <= MAX_PITCH_MM)
        if not ok.any():
            continue
        w, p = widths[ok], pitches[ok]
        k = np.arange(n)
        best: RowComb | None = None
        for shown in ("right", "left"):  # the top card at the near end, its outer edge on the box's
            edges = (left + w[:, None] + k[None, :] * p[:, None] if shown == "right"
                     else right - w[:, None] - k[None, :] * p[:, None])
            # the last edge is the row's end, the box's: unchecked, unless it may lie short of the box's end
            teeth = edges if end_slack > 0 else edges[:, :-1]
            idx = np.round((teeth - u_start) * PROFILE_SCALE).astype(int)
            inside = ((idx >= 0) & (idx < len(found))).all(axis=1)
            strength = np.where(inside, found[np.clip(idx, 0, len(found) - 1)].min(axis=1), 0.0)
            i = int(np.argmax(strength))
            if best is None or strength[i] > best.strength:
                best = RowComb(n, shown, float(w[i]), float(p[i]), tuple(float(e) for e in edges[i]), float(strength[i]))
        if best is not None:
            combs.append(best)
    holding = [c for c in combs if c.strength >= floor]
    if not holding:
        return None
    top = max(c.strength for c in holding)
    return max((c for c in holding if c.strength >= COMB_TIE * top), key=lambda c: c.n)


def edge_floor(profile: np.ndarray) -> float:
    """The edge strength a comb's every tooth must reach on a row of this `profile` (`EDGE_OVER_BACKGROUND`,
    `EDGE_MIN`)."""
    return max(EDGE_OVER_BACKGROUND * float(np.median(profile)), EDGE_MIN)


def past_far_end(comb: RowComb, profile: np.ndarray, u_start: float, left: float, right: float,
                 floor: float) -> RowComb:
    """`comb`, or a comb of one card more where the row carries on past its far end (the first-laid card's),
    unboxed.

    Why: the comb hangs from the row's two ends, which the boxes give, so a first-laid card that the detector
    missed moves the far end in, and the row is counted a card short (fresh game 43001: a first row of seven under
    a second, its first card a Red Skip showing a red strip and no index, unboxed; its strip beyond the row's end
    was named at 0.16, far below `vision.reveal_rows.ROW_END_CONF`, and the hand of seventeen was read a card
    short). What the end box took for the row's end is then the next card's shown edge, and that card's own outer
    edge (its border on the cloth) lies about a pitch further: the row is counted again hung from each strong edge
    there, and a comb of one card more at much the same pitch (`PITCH_FIT`) that holds at every tooth is the row.
    Cloth beyond a true end has no edge. `profile` must run a card's pitch and a tooth past either end, from
    `u_start`; `floor` is the row's own (`edge_floor`), which the cloth in the longer profile must not lower."""
    reach = max(1, int(round(TOOTH_MM * PROFILE_SCALE)))
    peaks = (profile >= maximum_filter1d(profile, size=2 * reach + 1, mode="nearest")) & (profile >= floor)
    u = u_start + np.arange(len(profile)) / PROFILE_SCALE
    far_right = comb.shown == "right"
    gap = (u - right) if far_right else (left - u)
    best = comb
    for i in np.flatnonzero(peaks & (gap >= MIN_PITCH_MM) & (gap <= MAX_PITCH_MM)):
        longer = count_row(profile, u_start, left, float(u[i]), floor) if far_right else \
            count_row(profile, u_start, float(u[i]), right, floor)
        if (longer is not None and longer.n == comb.n + 1 and longer.shown == comb.shown
                and longer.strength >= max(floor, COMB_TIE * comb.strength)
                and abs(longer.pitch - comb.pitch) <= PITCH_FIT * comb.pitch
                and (best is comb or longer.strength > best.strength)):
            best = longer
    return best
