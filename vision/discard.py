"""The discard-pile tracker: a card laid and let go becomes a `play`, confirmed over several frames.

How (see `vision.motion` for hands and candidates):
- gating: nothing is read while no candidate exists (nothing new has come to rest) or while a hand still covers
  or touches it (its blob is part of the hand's), so the detector runs on a few frames per play only;
- a candidate is read when it has not moved for `settle` frames; reads on `confirm` consecutive frames must agree
  (the same cards) before the play is emitted; after `max_reads` reads without two agreeing, the most frequent
  non-empty reading wins, and a candidate that never shows a new card (a nudged pile) is dropped;
- new vs old: the candidate *is* the change against the pile as it was, so an identical card laid on top in a new
  pose (a jump-in) is a new candidate, and the old top card, whose visible box lies mostly outside it, is not read
  as new;
- two cards laid together are one candidate and one `play` with both cards (the one lying on top last);
- a card carried over the pile and taken away again is always part of a hand's blob, so it is never read.
The seat is the seat of the most recent hand that covered the candidate's place in the second before it appeared.

A pile emptied (a starter the ruleset sends back into the draw pile, CH-START or MA-START's Wild Draw Four; the pile
gathered for the next deal) is seen against the look of the empty pile, kept from before its first card: the next
card laid there is a `starter`, not a play (`DiscardTracker.pile_emptied`).
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from vision.lower_fit import (
    LOWER_AREA,
    LOWER_DARK_CONF,
    LOWER_MIN_CONF,
    LOWER_OLD_SHARE,
    LOWER_OLD_STRIP,
    LOWER_OLD_SURE,
    LOWER_PUSH,
    LOWER_SAME_CONF,
    LOWER_TWIN_SURE,
    dark_face,
    fit_lower_box,
    strip_changed,
    strip_turns,
)
from vision.motion import CARD_AREA_PX, LOW, Blob, ForegroundModel, box_raster, channel_diff
from vision.readers import CardReader, LowerCardNamer, Seen
from vision.tablefile import CARD_H_MM, CARD_W_MM, Zone

OWN_CHANGED = 0.5
"""A lower card of a new reading must show at least this share of change outside the boxes of the cards above it
(`with_own_change`)."""
PAIR_AREA = 1.33
"""A change this many cards large, read as one card, holds a second card half hidden under the first: a single
card laid on the pile changes about one card's area (0.8-1.3 measured, the old top card showing through or
shadows at the edges), a fanned pair 1.34-1.55."""
PAIR_PRESENCE = 0.1
"""The box score at which a pair's lower card is taken (its name is read from a sliver and may be unsure)."""
OWN_MIN_PX = 12
"""Fewer own pixels than this (at the motion raster's scale) and the test can't tell: the card is kept."""
DARK_FACE_CONF = 0.5
"""A box of the discard pile's change that the detector calls a card back is the face the crop classifier names it,
this surely: the pile lies face up, and a Wild's black face is the likeliest face to be boxed as a back. Fresh set
45000 (game 45003): a Wild laid on a blue 4 boxed as a back at 0.77 on every frame; with no face new in the
change, the blue 4 showing through was taken for the same card laid again, and the Wild was read as a blue 4."""
TOP_SURER = 0.3
"""Of two cards laid together the larger box is the top card's (it shows whole, the lower card a strip), unless the
other is boxed this much more surely (box score): a lower card turned across the pile boxes larger than the square
top card over it. Tuning game 31011: a blue 0 under a yellow 7, boxed 5,686-5,751 mm² at 0.53-0.55 against the 7's
5,356 at 0.96-0.97, was reported on top, and the engine then judged every later play against the wrong card
(replays gave two `count_mismatch` flags that did not happen). In the other 135 pairs read on seven tuning sets the
order was right."""
TWIN_HOLDS = 0.9
TWIN_FRESH_HOLDS = 0.5
"""A card laid on the pile makes a change that lies in its own box. Where the change lies `TWIN_HOLDS` or more in
the box of a card read there before, and no card not read there before holds `TWIN_FRESH_HOLDS` of it, the card
laid is that card's twin, laid where it lay (`ZoneCandidates._laid_now`): the other boxes are the pile showing
beside it. Why: fresh 73009 of stop 38: a Wild laid on a Wild, a little turned, the change 0.98 in its box
(boxed at 0.94); the pile's yellow 6 beside it boxed at 0.25-0.28, 0.31 of the change in its box, was taken
for the card laid, as the only card not there before. A card laid new holds its change whole; an old card showing
through holds that much of it only where the card laid is not boxed at all."""
CHANGE_BOX_IOU = 0.5
"""A single card is named on the box of the change too (`ZoneCandidates._named_on_change`) when that box and the
detector's overlap at least this much (IoU); less, and the change holds more than this card."""
CHANGE_INSIDE = 0.9
CHANGE_WHOLE = 0.8
"""A change at least `CHANGE_WHOLE` of a card large lying `CHANGE_INSIDE` or more inside the detector's box is that
card's too, however little the two boxes overlap (`ZoneCandidates._named_on_change`): the detector's box then holds
the card laid and much of the card below, and the change the card alone. Why: fresh 81000 of stop 41: a yellow
Draw Two laid across a blue Draw Two was boxed round both (116 x 113 mm) and named blue at 0.44, read so on every
frame; its change (one card's area, 93 x 68 mm, wholly inside that box) named it yellow at 0.95, but the boxes'
IoU was 0.48. A change that is not the card's (the pile nudged, a shadow) spreads beyond its box or is a sliver."""
BURIED = 0.8
"""An old card of the pile whose box the changes of the cards laid since cover this much is buried: it cannot show
through as a box most of a card large (`BURIED_WHOLE`), so a card of its name boxed there is its twin, laid now
(`ZoneCandidates._was_there`). The changes are the laid cards' own footprints, and an old card's box is larger than
the card when it lies turned, so the share errs low. Tuning game 43017: a red 8 laid where the other red 8 had
lain eleven cards before was taken for that one showing through, and the red Draw Two beside it was read as
played."""
BURIED_WHOLE = 0.6
"""See `BURIED`."""
REST_GAP_S = 0.3
"""A hand's visits to the pile this far apart (seconds with its tip off the pile) are two reaches, and the card was
put down in the last (`DiscardTracker._seat`). Tuning game 43013: seat 5's arm swept over the pile to the draw
pile at 31.3-31.6 s and laid a yellow 2 at 32.48 s; the sweep, reaching deeper, was taken for the moment the card
came to rest, and the play was stamped 0.9 s early (outside the 0.5 s a play is matched within)."""
EMPTY_TAKEN = 0.25
"""A card was taken off the pile when at least this share of a card's area changed and now looks like the empty
pile did (`DiscardTracker.pile_emptied`); a card laid square on the old pile changes nothing outside itself."""
EMPTY_OLD = 0.1
"""... and the pile is empty but for what was just laid when less than this share of a card, outside the change,
still differs from the empty pile (a card of the old pile showing beside the new one shows more)."""
EMPTY_BARE = 0.02
"""Where nothing at all outside the change differs from the empty pile (less than this share of a card), the
card taken off need only have left `EMPTY_TAKEN_BARE` of the table bare: a starter sent back (MA-START's Wild Draw
Four) and the next card turned over most of its place. Measured on sets 27000 and 29000 (1,636 plays, the emptied
piles of 27006, 27010, 29006): a play on a pile showed 0.06-0.28 of a card outside its change when the old pile
was one card it nearly covered, and bared up to 0.38 of a card only on piles showing 0.17 or more; 29006's starter,
laid where the Wild Draw Four had lain, bared 0.15 with nothing outside (it was read as a play)."""
EMPTY_TAKEN_BARE = 0.1
"""See `EMPTY_BARE`."""

@dataclass
class Candidate:
    mask: np.ndarray
    first_t: float
    bbox_mm: tuple[float, float, float, float]
    stable: int = 0
    reads: list[tuple[str, ...]] = field(default_factory=list)
    seen: list[list[Seen]] = field(default_factory=list)


def inside_share(s: Seen, mask: np.ndarray) -> float:
    """The share of the seen box (shrunk a little) that lies on `mask` (a raster of the table)."""
    x0, y0, x1, y1 = (np.array(s.box_mm) * LOW).astype(int)
    cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
    x0, x1 = (x0 + cx) // 2, (x1 + cx) // 2
    y0, y1 = (y0 + cy) // 2, (y1 + cy) // 2
    h, w = mask.shape
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1 + 1), min(h, y1 + 1)
    if x0 >= x1 or y0 >= y1:
        return 0.0
    return float(mask[y0:y1, x0:x1].mean())


def with_own_change(new: list[Seen], changed: np.ndarray, strict: bool = False) -> list[Seen]:
    """Drop a lower card whose own visible part did not change: an old card showing beside the new one.

    The box of an old card that a new card now half covers is mostly change, but only because the new card
    lies in it; outside the boxes of the cards above it, its pixels are as they were. A card laid with the
    new one (a pair) shows change there too. The card judged first, the one whose box changed most (the card
    just laid, whole on top), is never dropped. A card showing too little of its own to judge is kept, unless
    `strict` (a card looked for beyond what the reading named must prove itself)."""
    if len(new) < 2:
        return new
    boxes = [box_raster(s.box_mm, changed.shape) for s in new]
    share = [float(changed[b].mean()) if b.any() else 0.0 for b in boxes]
    order = sorted(range(len(new)), key=lambda i: (-share[i], -new[i].area))
    keep = {order[0]}
    for i in order[1:]:
        own = boxes[i].copy()
        for k in keep:
            own &= ~boxes[k]
        if own.sum() < OWN_MIN_PX:
            if not strict:
                keep.add(i)
        elif changed[own].mean() >= OWN_CHANGED:
            keep.add(i)
    return [s for i, s in enumerate(new) if i in keep]


def without_twins(seen: list[Seen]) -> list[Seen]:
    """Without a second box of the card on top (the surest): a box named like it and lying mostly inside it
    (`Seen.same_card`) is that card boxed twice (the detector boxes a part of a Wild's face beside the whole,
    and class NMS keeps both, their IoU being small), never a second card. Two identical cards laid together
    show the lower one as a strip beside the top one, mostly outside its box. (A lower card's two boxes are left
    to `with_own_change`, which keeps the one it cannot judge.)"""
    if len(seen) < 2:
        return seen
    top = max(seen, key=lambda x: x.confidence)
    return [s for s in seen if s is top or s.code != top.code or not s.same_card(top)]


def on_top_last(cards: list[Seen]) -> list[Seen]:
    """`cards` (one reading) in the order laid, the card on top last: the largest box, as the top card shows whole
    and a lower card a strip, unless another card is boxed much more surely (`TOP_SURER`). Only the detector's
    box scores (`Seen.presence`) are compared: a lower card named by the lower-card model on its fitted box
    (`ZoneCandidates._lower_by_fit`) carries that model's confidence in its name, no box score, and is never
    taken for the top (tuning 37014: a yellow Skip so named at 0.91 under a yellow Reverse boxed at 0.58), though
    its fitted box be as large as the top card's or a hair larger (fresh 67012 of stop 36: the two boxes 5,467 mm²
    each, their order on a tie left to the order read, the lower card came out on top, and the next play was judged
    against it)."""
    order = sorted(cards, key=lambda s: (s.presence is not None, s.area))
    if len(order) < 2:
        return order
    top = order[-1]
    if top.presence is None:
        return order
    surer = [s for s in order[:-1] if s.presence is not None and s.presence >= top.presence + TOP_SURER]
    if surer:
        top = max(surer, key=lambda s: s.presence or 0.0)
        order = [s for s in order if s is not top] + [top]
    return order


class ZoneCandidates:
    """Candidates (things laid and let go) in one zone, read once they settle; `step` returns the decided ones as
    (candidate, cards) pairs — cards empty when the candidate showed nothing new."""

    def __init__(self, model: ForegroundModel, zone: str, reader: CardReader, scale: float, settle: int = 1,
                 confirm: int = 2, max_reads: int = 4, faces_only: bool = True, pad: float = 12.0,
                 cap_by_area: bool = True, withdraw_mm: float = 15.0, whole_zone: bool = False,
                 presence: float | None = None, reach: Zone | None = None) -> None:
        """`reach`, with `whole_zone`: the area read and whose faces count, where cards laid from the zone may
        lie beyond it (a seat zone grown inwards, `vision.seat_frame.reaching`); the zone itself when None."""
        self.model, self.reader = model, reader
        self.zone = model.table.zone(zone)
        self.reach = reach if reach is not None else self.zone
        self.zone_mask = model.raster.zone_mask(zone)
        self.scale, self.settle, self.confirm, self.max_reads = scale, settle, confirm, max_reads
        self.faces_only, self.cap_by_area, self.withdraw_mm = faces_only, cap_by_area, withdraw_mm
        self.whole_zone = whole_zone  # every face in the zone counts (a seat zone holds faces only when revealed)
        self.presence = presence  # read every box this likely a card, however unsure its name (`CardReader.read`)
        x0, y0, x1, y1 = self.reach.bounds()
        t = model.table
        self.region = (max(0.0, x0 - pad), max(0.0, y0 - pad), min(t.width, x1 + pad), min(t.height, y1 + pad))
        self.current: Candidate | None = None
        self.known: list[Seen] = []  # cards read earlier in this zone, with their boxes
        self.laid_over: dict[int, np.ndarray] = {}  # by id of a known card: the changes of the cards laid since
        self.last_seen: list[Seen] = []  # what the last read found in the region, old cards too

    def _blob_here(self) -> Blob | None:
        mine = [b for b in self.model.blobs if self.zone.contains(b.centroid)]
        if not mine:
            return None
        m = np.zeros_like(mine[0].mask)
        for b in mine:
            m |= b.mask
        ys, xs = np.nonzero(m)
        bbox = (xs.min() / LOW, ys.min() / LOW, (xs.max() + 1) / LOW, (ys.max() + 1) / LOW)
        return Blob(m, np.array([xs.mean(), ys.mean()]) / LOW, float(m.sum()), bbox)

    def step(self, image: np.ndarray, t: float) -> list[tuple[Candidate, tuple[str, ...]]]:
        blob = self._blob_here()
        if self.current is not None:  # the hold follows the candidate's blob as it is now, never an old outline
            self.model.release(self.current.mask)
        if blob is None:
            self.current = None
            return []
        self.model.hold_mask(blob.mask)
        c = self.current
        if c is None or (c.mask & blob.mask).sum() < 0.3 * blob.mask.sum():
            c = self.current = Candidate(blob.mask, t, blob.bbox_mm)
        c.mask, c.bbox_mm = blob.mask, blob.bbox_mm
        grown = cv2.dilate(blob.mask.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
        near = cv2.dilate(blob.mask.astype(np.uint8), np.ones((11, 11), np.uint8)) > 0
        moving = (self.model.motion & grown).sum() > 2
        touched = (self.model.hand_mask() & near).any()  # fingers a centimetre off still hold it
        hovering = any(not self.model.withdrawing(h, self.withdraw_mm) for h in self.model.hands if (h.mask & self.zone_mask).any())
        if moving or touched or hovering:
            c.stable = 0
            return []
        c.stable += 1
        if c.stable < self.settle:
            return []
        seen = self.reader.read(image, self.region, self.scale, t, presence=self.presence)
        self.last_seen = seen
        if self.whole_zone:
            new = [s for s in seen if self.reach.contains(s.centre) and (s.code != "back" or not self.faces_only)]
        else:
            inside = without_twins([s for s in seen if inside_share(s, grown) >= 0.6
                                    and (s.code != "back" or not self.faces_only)]
                                   + self._dark_faces(image, seen, grown))
            # cards read before in about the same place are the old pile showing through; if nothing else is
            # there, the same card was laid again on top (a jump-in with an identical card)
            new = self._laid_now(inside, blob)
            new = with_own_change(new, grown)
            pair_area = (LOWER_AREA if self._lower_model() else PAIR_AREA) * CARD_AREA_PX
            if len(new) == 1 and blob.area < pair_area:
                new = [self._named_on_change(image, new[0], blob)]
            elif len(new) == 1 and blob.area >= pair_area:
                new = self._second_card(image, t, new[0], grown)
            elif len(new) == 2 and blob.area >= pair_area:
                new = self._renamed_lower(image, new, grown)
        # no more cards than the changed area can hold (a pair fanned covers ~1.4 cards)
        if self.cap_by_area:
            n_max = max(1, int(round(blob.area / (0.75 * CARD_AREA_PX))))
            new = sorted(new, key=lambda s: -s.area)[:n_max]
        new = on_top_last(new)
        reading = tuple(s.code for s in new)
        c.reads.append(reading)
        c.seen.append(new)
        agree = Counter(c.reads[-self.confirm:])
        if len(c.reads) >= self.confirm and len(agree) == 1 and reading:
            return self._decide(c, reading)
        if len(c.reads) >= self.max_reads:
            votes = Counter(r for r in c.reads if r)
            return self._decide(c, votes.most_common(1)[0][0] if votes else ())
        return []

    def _laid_now(self, inside: list[Seen], blob: Blob) -> list[Seen]:
        """The cards of `inside` laid now: those not read there before (`_was_there`); where all were, the same
        card laid again on top. And where the change lies in the box of a card read there before
        (`TWIN_HOLDS`) while no card new there holds half of it, that card's twin was laid now."""
        fresh = [s for s in inside if not self._was_there(s)]
        if not fresh:
            return inside
        def holds(s: Seen) -> float:
            return float((blob.mask & box_raster(s.box_mm, blob.mask.shape)).sum()) / max(1.0, blob.area)
        if max(holds(s) for s in fresh) >= TWIN_FRESH_HOLDS:
            return fresh
        twins = [s for s in inside if not any(s is f for f in fresh) and holds(s) >= TWIN_HOLDS]
        return [max(twins, key=holds)] if twins else fresh

    def _dark_faces(self, image: np.ndarray, seen: list[Seen], grown: np.ndarray) -> list[Seen]:
        """The "card backs" boxed in the change of a face-up zone, where the crop classifier names them a face
        (`DARK_FACE_CONF`): a Wild or Wild Draw Four laid on the pile, boxed as a back."""
        name_card = getattr(self.reader, "name_card", None)
        if not self.faces_only or name_card is None:
            return []
        out = []
        for s in seen:
            if s.code != "back" or inside_share(s, grown) < 0.6:
                continue
            got = name_card(image, self.region, self.scale, [s.box_mm])
            if got is not None and got[0] != "back" and got[1] >= DARK_FACE_CONF:
                presence = s.presence if s.presence is not None else s.confidence
                out.append(Seen(got[0], s.box_mm, got[1], presence))
        return out

    def _named_on_change(self, image: np.ndarray, s: Seen, blob: Blob) -> Seen:
        """A single card laid, named by the mean of the crop classifier's probabilities on the detector's box and
        on the box of the change it made (`CHANGE_BOX_IOU`).

        Why: on a pile the detector's box may take in a strip of the card below, and the crop around it then
        shows two faces; a blue 2 laid beside a red 2 read as the red 2 on every frame (0.46 against 0.49). The
        change is the new card alone, so its box is a second, independent framing of the same card. It is asked
        where the two boxes overlap (`CHANGE_BOX_IOU`) or a whole card's change lies inside the detector's box
        (`CHANGE_INSIDE`)."""
        name_card = getattr(self.reader, "name_card", None)
        if name_card is None:
            return s
        box = blob.bbox_mm
        change = Seen(s.code, box, 0.0)
        inside = blob.area >= CHANGE_WHOLE * CARD_AREA_PX and s.overlap(change) >= CHANGE_INSIDE * change.area
        if s.iou(change) < CHANGE_BOX_IOU and not inside:  # the change is not this card's (the pile nudged, a shadow)
            return s
        got = name_card(image, self.region, self.scale, [s.box_mm, box])
        if got is None or got[0] in (s.code, "back"):
            return s
        presence = s.presence if s.presence is not None else s.confidence
        return Seen(got[0], s.box_mm, presence * got[1], s.presence)

    def _second_card(self, image: np.ndarray, t: float, top: Seen, grown: np.ndarray) -> list[Seen]:
        """The change covers more than one card can (a pair fanned), but only one card was named: the lower
        card, mostly hidden, is named where the change says it lies (`_lower_by_fit`) when the reader can name
        a box it is given. Without the lower-card classifier, a lower card it does not name is then looked for
        among the detector's boxes that surely hold *a* card (`PAIR_PRESENCE`), inside the change, not seen there
        before, and showing change of its own outside the top card (measured on the tuning games, with the
        classifier that fallback only added cards that were not there)."""
        named = self._lower_by_fit(image, top, grown, twin_of_old=True)
        if named is not None and (len(named) == 2 or self._lower_model()):
            return named  # the lower-card classifier, when shipped, is the judge: its "no card" stands
        seen = self.reader.read(image, self.region, self.scale, t, presence=PAIR_PRESENCE)
        others = [s for s in seen if s.code != "back" and inside_share(s, grown) >= 0.6 and not self._was_there(s)
                  and s.overlap(top) < 0.8 * min(s.area, top.area)]
        if not others:
            return [top]
        kept = with_own_change([top, *others], grown, strict=True)
        lower = [s for s in kept if s is not top]
        if top not in kept or not lower:
            return [top]
        return [max(lower, key=lambda s: s.confidence), top]

    def _lower_model(self) -> bool:
        """The reader has the model trained for lower cards (`models/card_lower.onnx`)."""
        return getattr(self.reader, "lower", None) is not None

    def _lower_by_fit(self, image: np.ndarray, top: Seen, grown: np.ndarray,
                      twin_of_old: bool = False) -> list[Seen] | None:
        """[lower, top] with the lower card named on crops around its fitted box (`fit_lower_box`,
        `LOWER_PUSH`); [top] when no card is named there surely (not a face, an old card showing through, a low
        mean probability, the top card's own name below `LOWER_SAME_CONF`); None when the reader has no model to
        name it with. `twin_of_old`: a lower card named like an old card near it may be that card's twin laid now
        (`LOWER_OLD_STRIP`), asked where the detector named one card only."""
        if getattr(self.reader, "name_lower", None) is None:
            return None
        box, _ = fit_lower_box(top.box_mm, grown)
        dx, dy = box[0] - top.box_mm[0], box[1] - top.box_mm[1]
        pushed = [(box[0] + k * dx, box[1] + k * dy, box[2] + k * dx, box[3] + k * dy) for k in LOWER_PUSH]
        namer: LowerCardNamer = self.reader  # type: ignore[assignment]
        named = namer.name_lower(image, self.region, self.scale, pushed, turn=strip_turns(dx, dy))
        if named is None:
            return None
        code, conf = named
        lower = Seen(code, box, conf)
        same = code == top.code and (not self._lower_model() or conf < LOWER_SAME_CONF)
        if code == "back" or same or conf < (LOWER_DARK_CONF if dark_face(code) else LOWER_MIN_CONF):
            return [top]
        if self._was_there(lower, share=LOWER_OLD_SHARE) and not (twin_of_old and (
                conf >= LOWER_TWIN_SURE
                or conf >= LOWER_OLD_SURE and strip_changed(top.box_mm, box, grown) >= LOWER_OLD_STRIP)):
            return [top]
        return [lower, top]

    def _renamed_lower(self, image: np.ndarray, new: list[Seen], grown: np.ndarray) -> list[Seen]:
        """Both cards of a pair were read, the lower one from a sliver: its name is taken from the lower-card
        classifier on its fitted box when that names it more surely."""
        top = on_top_last(new)[-1]
        lower = next(s for s in new if s is not top)
        named = self._lower_by_fit(image, top, grown)
        if named is None or len(named) != 2 or named[0].confidence <= lower.confidence:
            return new
        return [Seen(named[0].code, lower.box_mm, named[0].confidence, lower.presence), top]

    def _was_there(self, s: Seen, share: float = 0.8) -> bool:
        """The same card, in (part of) the box it had when last read: an old card showing through. `share`: how
        much of `s`'s box must lie in the old one's. An old card that the cards laid since have buried
        (`BURIED`) shows too little to be a box most of a card large (`BURIED_WHOLE`): that is its twin, laid now."""
        for o in self.known:
            if o.code != s.code or o.overlap(s) < share * s.area:
                continue
            over = self.laid_over.get(id(o))
            if over is not None and s.area >= BURIED_WHOLE * o.area:
                place = box_raster(o.box_mm, over.shape)
                if (over & place).sum() >= BURIED * place.sum():
                    continue
            return True
        return False

    def _decide(self, c: Candidate, cards: tuple[str, ...]) -> list[tuple[Candidate, tuple[str, ...]]]:
        self.model.absorb(c.mask)
        self.current = None
        if cards:
            last = next((r for r in reversed(c.seen) if tuple(x.code for x in r) == cards), [])
            self.known = (self.known + list(last))[-12:]
            self.laid_over = {id(o): np.logical_or(self.laid_over.get(id(o), False), c.mask)
                              for o in self.known if all(o is not x for x in last)}
        return [(c, cards)]


class DiscardTracker:
    """Turns discard-pile candidates into `play` (and, on an empty pile, `starter`) events."""

    def __init__(self, model: ForegroundModel, reader: CardReader, scale: float = 1.5, confirm: int = 2,
                 history_s: float = 1.5) -> None:
        self.model = model
        self.cands = ZoneCandidates(model, "discard", reader, scale, confirm=confirm)
        self.history: deque[tuple[float, int, np.ndarray, float, np.ndarray]] = deque()  # t, seat, hand, reach, tip
        self.last_decided = -1.0
        self.history_s = history_s
        self.top: tuple[str, ...] = ()
        self.plays = 0
        self.zone_mask = self.cands.zone_mask
        self.empty_look: np.ndarray | None = None  # the pile's raster while it held nothing (`pile_emptied`)
        self.emptied: tuple[str, ...] = ()  # the top before the pile was last seen emptied, until the next card

    def step(self, image: np.ndarray, t: float) -> list[dict[str, Any]]:
        for h in self.model.hands:
            if (h.mask & self.zone_mask).any():
                reach = h.reach if self.cands.zone.contains(h.tip) else -1.0
                self.history.append((t, h.seat, h.mask & self.zone_mask, reach, h.tip))
        while self.history and self.history[0][0] < t - self.history_s - 1.0:
            self.history.popleft()
        if not self.top:
            self._remember_empty()
        out = []
        for c, cards in self.cands.step(image, t):
            if self.top and self.pile_emptied(c.mask):
                self.emptied, self.top = self.top, ()  # what is laid next starts the pile again
            if not cards:
                continue
            if not self.top and self._old_cards_under(cards):
                # faces of an old pile lie beside the new card: the pile was not empty after all (the camera
                # joined a game under way, or the light changed since the empty pile was seen)
                self.empty_look = None
                if self.emptied:
                    self.top = self.emptied
            self.emptied = ()
            seat, conf, t_rest = self._seat(c, t)
            ev: dict[str, Any] = {"t": round(t_rest, 3), "type": "play", "seat": seat, "cards": list(cards),
                                  "source": "vision", "confidence": round(conf, 3), "seen_t": round(t, 3)}
            if not self.top:
                ev = {"t": ev["t"], "type": "starter", "card": cards[-1], "source": "vision",
                      "confidence": ev["confidence"], "seen_t": ev["seen_t"]}
            else:
                self.plays += 1
            self.top = cards
            self.last_decided = t
            out.append(ev)
        return out

    def _seat(self, c: Candidate, now: float) -> tuple[int | None, float, float]:
        """(seat, confidence, rest time): the last hand over the candidate's place, and the moment it reached
        deepest (when the card was put down)."""
        grown = cv2.dilate(c.mask.astype(np.uint8), np.ones((9, 9), np.uint8)) > 0
        x0, y0, x1, y1 = c.bbox_mm

        def near(m: np.ndarray, tip: np.ndarray) -> bool:
            dx = max(x0 - tip[0], 0.0, tip[0] - x1)
            dy = max(y0 - tip[1], 0.0, tip[1] - y1)
            return bool((m & grown).any()) or float(np.hypot(dx, dy)) < 60.0  # the palm may blend with the table

        since = max(c.first_t - self.history_s, self.last_decided)
        votes = [(t, s, r) for t, s, m, r, tip in self.history if since < t <= now and near(m, tip)]
        if not votes:
            return None, 0.3, c.first_t
        last = votes[-1][1]
        share = sum(1 for _, s, _ in votes if s == last) / len(votes)
        mine = [(t, r) for t, s, r in votes if s == last and r >= 0]  # frames with the tip over the pile
        if not mine:
            return last, 0.5 + 0.5 * share, c.first_t
        # the last peak of the reach (walking back from now, the hand was pulling back until it put the card down)
        best_t, best_r = mine[-1]
        later = best_t
        for t, r in reversed(mine[:-1]):
            if later - t > REST_GAP_S:  # the tip was off the pile between: an earlier reach (a sweep past it)
                break
            later = t
            if r >= best_r - 2.0:  # at or above the peak so far: the peak is this early at least
                best_t, best_r = t, max(r, best_r)
            elif r < best_r - 10.0:  # going back, the reach falls: that was the approach
                break
        t_rest = best_t
        return last, 0.5 + 0.5 * share, t_rest

    def forget_empty_look(self) -> None:
        """The camera was away (`vision.pipeline.Watcher.gap`): it may have moved, so the empty pile's look no longer
        holds."""
        self.empty_look = None

    def _remember_empty(self) -> None:
        """Keep the pile's look while nothing lies or moves on it and no hand is over it, before its first card and
        whenever it has been emptied (the light drifts over a match)."""
        m = self.model
        if m.low is None:
            return
        zone = self.zone_mask
        if (m.fg & zone).any() or (m.motion & zone).any() or (m.hand_mask() & zone).any():
            return
        if self.empty_look is None:
            self.empty_look = m.low.copy()
        else:
            self.empty_look[zone] = m.low[zone]

    def pile_emptied(self, changed: np.ndarray) -> bool:
        """Was the pile taken away, so that nothing but what was just laid lies on it? `changed`: the candidate's
        raster mask, the change against the pile as it was last taken in.

        Why the empty pile's look: a card lifted off the pile leaves the table showing where it lay, a change like
        any other; what tells it from a card laid is that the changed place now looks as it did before the first
        card (`EMPTY_TAKEN`), and that no card of the old pile shows outside the change (`EMPTY_OLD`). A card laid
        on a pile whose cards all hide under it changes nothing outside itself, so it is never taken for a
        starter. Unknown (False) without the empty look."""
        m = self.model
        if self.empty_look is None or m.low is None:
            return False
        cards_now = channel_diff(m.low, self.empty_look) > m.fg_threshold
        cards_now = cv2.morphologyEx(cards_now.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)) > 0
        cards_now &= self.zone_mask & ~m.hand_mask()
        grown = cv2.dilate(changed.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
        taken = int((changed & ~cards_now & self.zone_mask).sum())
        old_showing = int((cards_now & ~grown).sum())
        if old_showing < EMPTY_BARE * CARD_AREA_PX:
            return taken >= EMPTY_TAKEN_BARE * CARD_AREA_PX
        return taken >= EMPTY_TAKEN * CARD_AREA_PX and old_showing < EMPTY_OLD * CARD_AREA_PX

    def _old_cards_under(self, cards: tuple[str, ...]) -> bool:
        """The read that decided the cards laid on a pile thought empty also found other faces in the zone: an old
        pile lies there."""
        zone = self.cands.zone
        faces = [s for s in self.cands.last_seen if s.code != "back" and zone.contains(s.centre)]
        return len(without_twins(faces)) > len(cards)


CARD_DIAG_MM = float(np.hypot(CARD_W_MM, CARD_H_MM))
