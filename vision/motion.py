"""Motion and foreground on a low-resolution top-down raster of the table: what moves, where the hands are, and
which new things have come to rest.

Why a rectified raster: after the homography, a hand is a blob that enters from the table's edge, and a card laid
on a pile is a blob that does not touch the edge. That one distinction drives the whole pipeline:
- a foreground blob connected to the table's border is a hand (with whatever it carries): its border contact tells
  the seat it belongs to, its far end (the tip) tells where it reaches;
- a foreground blob *not* connected to the border, inside a zone, is a candidate: something laid down and let go.
The background absorbs foreground that has not moved for `absorb_frames` frames (fans of held cards that grow and
shrink, a hand resting), except candidates still waiting to be read, which stay foreground until a tracker has
handled them (read as a play/reveal, or rejected) and calls `absorb(mask)`. What is not foreground only drifts into
the background slowly (the light): a hand a little off the table's colour is neither foreground nor motion, and
taking it in at once left its ghost for the sleeve behind it to be compared with, so the arm melted away.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.tablefile import CARD_H_MM, CARD_W_MM, Table

LOW = 0.4  # raster pixels per table mm
CARD_AREA_PX = CARD_W_MM * CARD_H_MM * LOW * LOW
COLOUR_MOTION = 30  # a change of this much in any colour channel between frames is motion (see `update`)
DETACHED_MAX_FRAMES = 45
"""A hand cut off from its seat's edge (`ForegroundModel._detached_hands`) is followed this many frames at most."""
DETACHED_MOVING = 0.15
"""... while at least this share of its blob moves, or ..."""
DETACHED_SAME = 0.6
"""... this share of it lies where the hand was the frame before, on either pile: a palm at rest on the draw pile,
or hovering over the discard pile with a card it does not lay (a feint; held-out 29013: seat 2's lilac sleeve,
the table's colour, left the palm and its red 3 a loose blob of 2.45 cards once it stood still over the pile, and
the card was read as played). A card or pair laid on the discard pile is never taken (`DETACHED_ON_DISCARD`)."""
DETACHED_LEFT = 0.5
"""... unless the hand has let it go: of what the seat's hand covered the frame before and nothing covers now, at
least this share moved (and at least `DETACHED_LEFT_AREA` cards of it), the hand pulling away from what it laid.
A palm at rest, cut off from its sleeve, leaves nothing behind that moves. Why: fresh 69012 of stop 37: two cards
laid together fanned wide, a change of 1.75 cards (over `DETACHED_CARD_AREAS`), still where the hand had been
when the arm pulled back to 0.59 of its reach in one frame (0.87 cards it had covered uncovered, 0.89 of that
moving); the cards were followed as the hand until absorbed, and the play was never seen."""
DETACHED_LEFT_AREA = 0.2
DETACHED_LEFT_STILL = 0.05
"""... and the blob itself shows next to no motion (under this share of it): what was let go lies still (0.00 on
69012, 0.03 where the palm had just touched it), while a hand sliding on, its plain middle showing no change from
frame to frame, moves at its ends (0.09 and more)."""
DETACHED_STUB = 0.6
"""A seat's hand reaching less than this share of its reach the frame before is a stub of the arm, its hand cut
off from it."""
DETACHED_AHEAD = 10.0
"""... or, where the arm still reaches `DETACHED_STUB` of that, a loose blob where the hand was, moving, whose far
point reaches this many mm beyond where the hand reached the frame before: nothing but the hand itself goes on
ahead of where the hand has been (a card let go, or a change the hand leaves, lies where it was). Why: fresh 61019
of stop 36: seat 3's khaki sleeve, the colour of the table's lit band, left the palm a loose blob as the arm
reached for the draw pile; the arm's blob still reached 0.75 of what it did (391 -> 293 mm) so it was no stub,
the hand was lost, and four of the seat's five draws of two went unseen. Where only a stub of the arm is left, such
a blob is the hand however little of it moves (more than nothing): a plain palm sliding on changes only at its
edges, and less where its colour is near the table's. Fresh 85002 of stop 41: seat 1's pink sleeve on a pink
table left a grey palm a loose blob of 1.7 cards, 0.73 of it where the hand was, reaching 32 mm a frame beyond
it with 0.03-0.09 of it moving (under `DETACHED_MOVING`); it was dropped, and the draw it made was never seen. A
card let go lies where the fingers held it, within the hand's reach, and a still one does not move at all."""
DETACHED_ON_DISCARD = 0.5
"""A loose blob centred on the discard pile with at least this share of it on the pile, and no larger than
`DETACHED_CARD_AREAS` cards, may be the card just laid, never a detached hand. An arm reaching across the pile to
the draw pile, from a seat beyond it, is centred there too, but lies mostly off it on the way out and is several
cards large on the way back with the drawn fan over the pile (held-out game 21015, later tuned on: seat 5's red
sleeve, cut off from the table's edge where it crossed the seat's own red-backed cards, was dropped as a card,
and three of its draws went unseen; its blobs were 4-8.6 cards large, 0.41-0.54 of them on the pile)."""
DETACHED_CARD_AREAS = 1.7
"""A card laid, or a pair fanned (1.3-1.6 cards of change, `vision.discard.PAIR_AREA`), changes no more than this
many cards' area: see `DETACHED_ON_DISCARD`. (It was 3.0, and a hand with its forearm, cut off just past the
pile, 1.8-2.5 cards, was dropped as a card: held-out 25005's draw of two went unseen. On 83 games the change moved
nothing else.)"""

HELD_PIECE = 0.5
"""A loose piece of change too small to start a blob (`min_blob_px`) is still one where at least this share of it
lies on a candidate held for reading (`hold_mask`), and it is at least `HELD_PIECE_PX` large: a card laid on its
near twin changes only where the two differ, and that change breaks into pieces as the noise moves. Why: fresh
77015 of stop 40: a green 1 laid square on the starter green 0 changed only the numerals, 0.26 cards; read once
(green 1, 0.81), it broke into pieces of 0.07 and 0.14 cards, neither a blob, so the candidate was dropped before
the second read that confirms it, and the play was never seen."""
HELD_PIECE_PX = 0.04 * CARD_AREA_PX
"""(speckle of the video's noise is smaller)"""


@dataclass
class Hand:
    seat: int
    mask: np.ndarray  # bool raster
    tip: np.ndarray  # table mm
    reach: float  # distance of the tip from the seat's edge point, mm
    bbox_mm: tuple[float, float, float, float]


@dataclass
class Blob:
    mask: np.ndarray  # bool raster
    centroid: np.ndarray  # table mm
    area: float  # raster pixels
    bbox_mm: tuple[float, float, float, float]


def box_raster(box_mm: tuple[float, float, float, float], shape: tuple[int, ...]) -> np.ndarray:
    """A table-mm box as a mask on the motion raster of `shape`."""
    m = np.zeros(shape[:2], bool)
    x0, y0, x1, y1 = (np.array(box_mm) * LOW).astype(int)
    m[max(0, y0):max(0, y1 + 1), max(0, x0):max(0, x1 + 1)] = True
    return m


class TableRaster:
    """Warps camera frames to the low-resolution table raster (half-size first, so sensor noise averages out)."""

    def __init__(self, table: Table) -> None:
        if table.image_to_table is None:
            raise ValueError("the table is not calibrated")
        self.table = table
        self.w, self.h = int(round(table.width * LOW)), int(round(table.height * LOW))
        self.m = np.diag([LOW, LOW, 1.0]) @ table.image_to_table @ np.diag([2.0, 2.0, 1.0])

    def warp(self, image: np.ndarray) -> np.ndarray:
        half = cv2.resize(image, (image.shape[1] // 2, image.shape[0] // 2), interpolation=cv2.INTER_AREA)
        low = cv2.warpPerspective(half, self.m, (self.w, self.h), flags=cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_REPLICATE)
        return cv2.GaussianBlur(low, (3, 3), 0)

    def zone_mask(self, name: str) -> np.ndarray:
        return self.table.zone(name).mask((self.h, self.w), LOW) > 0


class ForegroundModel:
    """Per-frame motion, foreground, hands and candidates on the table raster."""

    def __init__(self, table: Table, fg_threshold: int = 22, motion_threshold: int = 12, absorb_frames: int = 20,
                 min_hand_px: int = 150, min_blob_px: float = 0.2 * CARD_AREA_PX) -> None:
        self.raster = TableRaster(table)
        self.table = table
        self.fg_threshold, self.motion_threshold = fg_threshold, motion_threshold
        self.absorb_frames, self.min_hand_px, self.min_blob_px = absorb_frames, min_hand_px, min_blob_px
        self.bg: np.ndarray | None = None
        self.prev: np.ndarray | None = None
        self.prev_colour: np.ndarray | None = None
        self.still = np.zeros((self.raster.h, self.raster.w), np.uint8)
        self._k3, self._k5 = np.ones((3, 3), np.uint8), np.ones((5, 5), np.uint8)
        self._hand_mask: np.ndarray | None = None
        self.draw_mask = self.raster.zone_mask("draw")
        self.discard_mask = self.raster.zone_mask("discard")
        self.piles_mask = self.draw_mask | self.discard_mask
        self.detached: dict[int, int] = {}  # seat -> frames its hand has been followed cut off from the edge
        self.reaches: dict[int, list[tuple[float, float]]] = {}  # seat -> (t, reach) over the last 0.6 s
        self.absorbed = np.zeros((self.raster.h, self.raster.w), bool)
        self.changed_at = np.full((self.raster.h, self.raster.w), -np.inf, np.float32)  # last frame time in the fg
        self.bg_f = np.zeros((self.raster.h, self.raster.w, 3), np.float32)
        self.hold = np.zeros((self.raster.h, self.raster.w), bool)  # candidates waiting to be read
        edges = [p for p, _ in _seat_edges(table)]
        self.edge_points = np.array(edges)
        inward = [z.centre - edges[z.seat] for z in table.seat_zones()]
        self.inward = np.array([v / max(float(np.hypot(*v)), 1e-6) for v in inward])  # unit, from each edge in
        self.low: np.ndarray | None = None
        self.motion = np.zeros((self.raster.h, self.raster.w), bool)
        self.fg = np.zeros((self.raster.h, self.raster.w), bool)
        self.hands: list[Hand] = []
        self.blobs: list[Blob] = []
        yy, xx = np.mgrid[0:self.raster.h, 0:self.raster.w]
        self._xx, self._yy = xx, yy

    def update(self, image: np.ndarray, t: float = 0.0) -> None:
        low = self.raster.warp(image)
        grey = cv2.cvtColor(low, cv2.COLOR_BGR2GRAY)
        if self.bg is None or self.prev is None or self.prev_colour is None:
            self.bg = low.copy()
            self.bg_f = low.astype(np.float32)
            self.prev, self.prev_colour = grey, low
        self.low = low
        motion = cv2.threshold(cv2.absdiff(grey, self.prev), self.motion_threshold, 255, cv2.THRESH_BINARY)[1]
        # a change of hue is motion too: a sleeve may match the table's brightness, and an arm whose arrival shows
        # no motion is taken into the background as it reaches out (its hand then vanishes mid-draw). Colour
        # noise is larger than brightness noise, hence the higher bar on the channels.
        hue = cv2.threshold(channel_diff(low, self.prev_colour), COLOUR_MOTION, 255, cv2.THRESH_BINARY)[1]
        self.motion = cv2.bitwise_or(motion, hue) > 0
        self.prev, self.prev_colour = grey, low
        fg = cv2.threshold(channel_diff(low, self.bg), self.fg_threshold, 1, cv2.THRESH_BINARY)[1]
        fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, self._k3)
        fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, self._k5)
        arrived = (fg > 0) & ~self.fg  # foreground this frame only: whatever covers it has only just come
        self.fg = fg > 0
        self.changed_at[self.fg] = t
        self._hand_mask = None
        before = self.hands
        self._components(fg)
        self._detached_hands(before)
        for hnd in self.hands:
            self.reaches.setdefault(hnd.seat, []).append((t, hnd.reach))
        for seat in list(self.reaches):
            self.reaches[seat] = [(u, r) for u, r in self.reaches[seat] if u >= t - 0.6]
        # absorb what has stood still long enough, except candidates waiting to be read
        self.still = cv2.add(self.still, 1)
        self.still[self.motion | arrived] = 0
        for hnd in self.hands:  # an arm moves as one: the inside of a plain sleeve shows no change from frame to
            if (hnd.mask & self.motion).any():  # frame while the hand at its end moves, yet it is no background
                self.still[hnd.mask] = 0
        absorb_b = (self.still >= self.absorb_frames) & ~self.hold
        self.absorbed = absorb_b & self.fg  # changes that came to rest this frame (a fan, a laid hand of cards)
        absorb = self.absorbed.astype(np.uint8)
        quiet = ((fg == 0) & (motion == 0)).astype(np.uint8)
        cv2.accumulateWeighted(low, self.bg_f, 0.1, mask=quiet)  # slow drift of the light
        cv2.copyTo(low.astype(np.float32), absorb, self.bg_f)
        self.bg = cv2.convertScaleAbs(self.bg_f)

    def _components(self, fg: np.ndarray) -> None:
        n, labels, stats, cents = cv2.connectedComponentsWithStats(fg, connectivity=8)
        h, w = fg.shape
        self.hands, self.blobs = [], []
        for i in range(1, n):
            x, y, bw, bh, area = stats[i]
            bbox = (x / LOW, y / LOW, (x + bw) / LOW, (y + bh) / LOW)
            touches = x <= 1 or y <= 1 or x + bw >= w - 1 or y + bh >= h - 1
            if touches and area >= self.min_hand_px:
                roi = labels[y:y + bh, x:x + bw] == i
                mask = np.zeros((h, w), bool)
                mask[y:y + bh, x:x + bw] = roi
                ys, xs = np.nonzero(roi)
                xs, ys = xs + x, ys + y
                on_border = (xs <= 1) | (ys <= 1) | (xs >= w - 2) | (ys >= h - 2)
                contact = np.array([xs[on_border].mean(), ys[on_border].mean()]) / LOW
                seat = int(np.argmin(np.linalg.norm(self.edge_points - contact, axis=1)))
                self.hands.append(Hand(seat, mask, *self._tip(seat, xs, ys), bbox))
            elif not touches and (area >= self.min_blob_px or self._held_piece(labels, i, stats[i])):
                mask = np.zeros((h, w), bool)
                mask[y:y + bh, x:x + bw] = labels[y:y + bh, x:x + bw] == i
                self.blobs.append(Blob(mask, np.array(cents[i]) / LOW, float(area), bbox))

    def _held_piece(self, labels: np.ndarray, i: int, stat: np.ndarray) -> bool:
        """Component `i`, smaller than a blob, is a piece of a candidate held for reading (`HELD_PIECE`)."""
        x, y, bw, bh, area = stat
        if area < HELD_PIECE_PX or not self.hold[y:y + bh, x:x + bw].any():
            return False
        roi = labels[y:y + bh, x:x + bw] == i
        return float((roi & self.hold[y:y + bh, x:x + bw]).sum()) >= HELD_PIECE * float(area)

    def _tip(self, seat: int, xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, float]:
        """(tip in table mm, reach in mm) of a hand whose raster pixels are (xs, ys): its pixel farthest from the
        seat's edge point."""
        d = np.hypot(xs / LOW - self.edge_points[seat][0], ys / LOW - self.edge_points[seat][1])
        j = int(np.argmax(d))
        return np.array([xs[j], ys[j]]) / LOW, float(d[j])

    def _detached_hands(self, before: list[Hand]) -> None:
        """A seat's hand cut off from the table's edge is followed as that seat's hand.

        Why: a sleeve the colour of the table leaves the hand at its end a loose blob, taken for a card let go,
        and the hand is lost mid-reach (a draw never seen to reach the pile). So where a seat's hand was the frame
        before and is gone now, or only a stub of its arm is left (reaching less than `DETACHED_STUB` of what it
        did), a loose blob where that hand was, moving (or lying still on a pile: a palm at rest there, `DETACHED_SAME`),
        is taken into the seat's hand. Never a blob lying on the discard pile, which may be the card just laid
        (`DETACHED_ON_DISCARD`), nor a still one the hand has just pulled away from (`DETACHED_LEFT`); followed
        `DETACHED_MAX_FRAMES` at most."""
        followed: dict[int, int] = {}
        for seat in sorted({h.seat for h in before}):
            if self.detached.get(seat, 0) >= DETACHED_MAX_FRAMES:
                continue
            prev = [h for h in before if h.seat == seat]
            now = [h for h in self.hands if h.seat == seat]
            prev_reach = max(h.reach for h in prev)
            # a stub left of the arm, or (`DETACHED_AHEAD`) an arm that still reaches but whose hand goes on beyond it
            ahead_only = bool(now) and max(h.reach for h in now) >= DETACHED_STUB * prev_reach
            near = np.zeros_like(prev[0].mask)
            for h in prev:
                near |= h.mask
            near = cv2.dilate(near.astype(np.uint8), self._k5) > 0
            let_go = self._let_go(prev, now)
            taken: list[Blob] = []
            for b in self.blobs:
                area = max(b.area, 1.0)
                where = float((b.mask & near).sum()) / area
                if where < 0.3 or self._on_discard(b):
                    continue  # (a blob on the discard pile is the discard tracker's: maybe a card laid)
                moving = float((b.mask & self.motion).sum()) / area
                ys, xs = np.nonzero(b.mask)
                ahead = self._tip(seat, xs, ys)[1] >= prev_reach + DETACHED_AHEAD
                if ahead_only and (moving < DETACHED_MOVING or not ahead):
                    continue
                left_lying = let_go and moving < DETACHED_LEFT_STILL  # what the hand let go of lies still
                goes_on = ahead and moving > 0.0  # a plain palm sliding on from a stub (`DETACHED_AHEAD`)
                if moving >= DETACHED_MOVING or goes_on or (where >= DETACHED_SAME and (b.mask & self.piles_mask).any()
                                                            and not left_lying):
                    taken.append(b)
            if not taken:
                continue
            mask = np.zeros_like(near)
            for part in [*taken, *now]:
                mask |= part.mask
            ys, xs = np.nonzero(mask)
            bbox = (xs.min() / LOW, ys.min() / LOW, (xs.max() + 1) / LOW, (ys.max() + 1) / LOW)
            self.blobs = [o for o in self.blobs if all(o is not b for b in taken)]
            self.hands = [h for h in self.hands if h.seat != seat]
            self.hands.append(Hand(seat, mask, *self._tip(seat, xs, ys), bbox))
            followed[seat] = self.detached.get(seat, 0) + 1
        self.detached = followed

    def _let_go(self, prev: list[Hand], now: list[Hand]) -> bool:
        """The seat's hand pulled away from what it held: of what it covered the frame before (`prev`) and neither
        its arm now (`now`) nor any loose blob covers, at least `DETACHED_LEFT_AREA` cards' worth, at least
        `DETACHED_LEFT` moved this frame."""
        vacated = np.zeros_like(self.fg)
        for h in prev:
            vacated |= h.mask
        for part in [*now, *self.blobs]:
            vacated &= ~part.mask
        area = float(vacated.sum())
        if area < DETACHED_LEFT_AREA * CARD_AREA_PX:
            return False
        return float((vacated & self.motion).sum()) >= DETACHED_LEFT * area

    def _on_discard(self, b: Blob) -> bool:
        """`b` is centred on the discard pile, lies mostly on it and is the size a card or two laid there would be
        (`DETACHED_ON_DISCARD`)."""
        if not self.table.discard.contains(b.centroid) or b.area > DETACHED_CARD_AREAS * CARD_AREA_PX:
            return False
        return float((b.mask & self.discard_mask).sum()) >= DETACHED_ON_DISCARD * max(b.area, 1.0)

    def changed_share(self, box_mm: tuple[float, float, float, float], since: float) -> float:
        """The share of `box_mm` (table mm) that was foreground at some frame from `since` on: what was laid or
        moved there lately, as against what has lain there unchanged since the first frame (a phone, a notebook,
        a coaster in the room's own furniture)."""
        box = box_raster(box_mm, self.changed_at.shape)
        return float((self.changed_at[box] >= since).mean()) if box.any() else 0.0

    def hold_mask(self, mask: np.ndarray) -> None:
        """Keep `mask` in the foreground until `absorb` is called (a candidate being read)."""
        self.hold |= mask

    def release(self, mask: np.ndarray) -> None:
        """Stop holding `mask` without taking it in (a candidate given up: what stays still is absorbed as usual).
        A hold never released would keep its pixels, and whatever joins them, in the foreground for good."""
        self.hold &= ~mask

    def absorb(self, mask: np.ndarray) -> None:
        """Take `mask` into the background now (a candidate handled) and stop holding it."""
        assert self.bg is not None and self.low is not None
        grown = cv2.dilate(mask.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
        grown &= ~self.hand_mask()
        self.bg_f[grown] = self.low[grown]
        self.bg[grown] = self.low[grown]
        self.hold &= ~grown

    def edge_depth(self, seat: int, point: np.ndarray) -> float:
        """How far (mm) `point` lies from the seat's edge into the table: a seat's held fan lies within a few
        centimetres of it (`vision.draws.HELD_FAN_MM`), cards in transit or laid open further in."""
        return float(np.dot(point - self.edge_points[seat], self.inward[seat]))

    def withdrawing(self, hand: Hand, by: float = 15.0) -> bool:
        """Has this hand pulled back at least `by` mm from its deepest reach of the last 0.6 s? A hand that lets go
        of a card pulls back; a hand hovering with a card it will take away again does not."""
        past = self.reaches.get(hand.seat, [])
        return bool(past) and max(r for _, r in past) - hand.reach >= by

    def hand_mask(self) -> np.ndarray:
        if self._hand_mask is None:
            m = np.zeros((self.raster.h, self.raster.w), bool)
            for hnd in self.hands:
                m |= hnd.mask
            self._hand_mask = m
        return self._hand_mask

    def mm_to_px(self, xy: np.ndarray) -> tuple[int, int]:
        return int(np.clip(xy[0] * LOW, 0, self.raster.w - 1)), int(np.clip(xy[1] * LOW, 0, self.raster.h - 1))


def channel_diff(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per pixel, the largest change over the three colour channels between two BGR images."""
    ch = cv2.split(cv2.absdiff(a, b))
    return cv2.max(cv2.max(ch[0], ch[1]), ch[2])


def _seat_edges(table: Table) -> list[tuple[np.ndarray, float]]:
    """Each seat's point on the table edge: the middle of its zone's side on the table border."""
    out = []
    for z in table.seat_zones():
        x0, y0, x1, y1 = z.bounds()
        cands = [(np.array([(x0 + x1) / 2, y0]), y0), (np.array([(x0 + x1) / 2, y1]), table.height - y1),
                 (np.array([x0, (y0 + y1) / 2]), x0), (np.array([x1, (y0 + y1) / 2]), table.width - x1)]
        p, _ = min(cands, key=lambda c: c[1])
        out.append((p, 0.0))
    return out
