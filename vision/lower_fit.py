"""Where a pair's lower card lies under the top card, and how sure its name must be to count.

Two cards laid together and fanned leave the lower one showing as a strip. The discard tracker
(`vision.discard.ZoneCandidates`) finds that strip from the change on the pile (`fit_lower_box`), turns its crops so
the strip lies left for a model that learnt them so (`strip_turns`), tells a lower card from an old card showing
through by whether its strip changed (`strip_changed`), and turns the lower-card model's name into a second card
only above the bars here. They live apart from the tracker because the crops the model learns from
(`datasets.pairs`) are cut by the same fit, and the bars are measured on the model, not on the tracker.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.motion import LOW, box_raster

Box = tuple[float, float, float, float]

FIT_SHIFTS = np.round(np.arange(-0.8, 0.801, 0.05), 2)
"""Shifts, in shares of the top card's box, tried for a pair's lower card (`fit_lower_box`)."""
FIT_MIN_SHIFT = 0.2
"""A lower card shifted less than this share of a card from the top one would hardly show: not tried."""
LOWER_PUSH = (0.35, 0.5, 0.65)
"""The lower card is named on crops pushed this much further from the top card than the fit (shares of the
shift), towards the strip of it that shows, within the range the lower-card classifier learnt (`datasets.pairs`);
its name is the class of highest mean probability over the three."""
LOWER_MIN_CONF = 0.2
"""The least mean probability for a lower card named by fit. Measured on the 45 tuning games, every change the
fit named (40 pairs, 85 single cards with a change a little larger than one card: a shadow, the old pile nudged),
with the name the mean over the quarter-turns of each crop (`vision.readers.HIDDEN_TURNS`), which is flatter than
one crop's: at 0.35, 106 of the 125 were decided right; at 0.2, 109 (five lower cards named right at 0.19-0.32
are kept, two single cards are taken for pairs); at 0.1, 102. A single card is mostly named under 0.2.
Checked again for the model that learnt single cards as "no lower card" (`datasets.pairs` `singles`), on every
frame the fit named in sets 31000 and 33000 (203 frames where no old card matched; full probabilities traced):
these bars (0.2, `LOWER_DARK_CONF` 0.45, `LOWER_SAME_CONF` 0.5) decide 172 right. 0.3 decides 173 and 0.15
decides 171. With 0.2 kept, a dark bar of 0.3, a same-card bar of 0.3-0.4, or "no lower card" taken only when
its own probability reaches 0.3-0.7 changes nothing. So the bars stay."""
LOWER_DARK_CONF = 0.45
"""The least mean probability for a lower card named by fit as a Wild, a Wild Draw Four or a Draw Two: faces the
lower-card classifier also finds in a strip of the old pile darkened by the shadow at a single card's edge.
Measured on the 45 tuning games (every naming by fit traced, the pairs it kept): four single cards were taken for
pairs, all four with such a name (0.22, 0.23, 0.41, 0.43), while no other name took a single card for a pair but
one (0.26); the five lower cards rightly kept with such a name scored 0.48-0.94. At 0.45 the four are single cards
again and the five pairs stay."""
LOWER_OLD_SHARE = 0.3
"""A lower card named by fit as a card of the pile read before, whose box holds this share of the fitted box, is
that old card showing beside the new one (the fitted box is the top card's slid, not the old card's own, so the
detector's 0.8 is too strict here: the demo's wild laid beside the blue-5 before it read as a pair)."""
LOWER_OLD_STRIP = 0.75
"""... unless the strip of the fitted box that the top card leaves (where the lower card would show) changed at
least this much and the lower card is named at least `LOWER_OLD_SURE`: an old card showing through is as it was,
and a twin of it laid under the new card changes its strip. Only where the detector named one card
(`ZoneCandidates._second_card`); where it named two, its own lower card stands. Measured on every change the fit
named in 80 rendered games (sets 25000-29000 and 17000-19012 read with their table files; 286 changes, 102 of
them pairs, each judged on the read that decided it): single cards' strips changed 0.50 at the median and 0.74 at
the 95th percentile. At 0.75, eight changes decided otherwise: three pairs whose lower card, a twin of an old card
near it, was named at 0.71-0.99 and had been read as a single card (29000's second yellow Skip over the first,
strip 0.78; 29003's yellow 6, 0.95; 25017's green Skip, 0.89) now right; and five lower cards named at 0.22-0.43,
of which one pair now right (19004), one single card now taken for a pair (27015) and three pairs wrong either way.
With `LOWER_OLD_SURE` the three sure pairs alone: 232 -> 235 decided right (236 without the bar, 235 at 0.45-0.7).
The fresh set 31000 then showed the rule in the other path: the detector named both cards of a pair, and the fit,
misled, named the old card beside them surely enough to replace the right lower card (31011)."""
LOWER_OLD_SURE = 0.5
"""See `LOWER_OLD_STRIP`."""
LOWER_TWIN_SURE = 0.75
"""A lower card named by fit like an old card near it is that card's twin laid now, whatever its strip's change,
when named at least this surely (`LOWER_OLD_STRIP` asks a strip change for the less sure ones). Why: the strip
is cut from the top card's box slid, and where the real lower card lies a little closer than the fit the strip
holds table as well, so it changes less. The tuning set 39000 (markers' calibration) had two such pairs read as
one card: 39012's blue 5 under a green Skip on the blue 5 starter, named 0.87-0.89 with its strip 0.58 changed, and
39006's blue 4, named 0.80-0.81 with 0.36-0.38. Since the lower-card model learnt single cards as "no lower card",
an old card showing beside a single one is named a face this surely far less often (`datasets.pairs` `singles`).
With this bar both pairs were read right and no other play changed on 39000 and 35000; on 33000 and 31000, read
with this bar and the identical-pairs model together, one pair more was read right and none less."""
LOWER_SAME_CONF = 0.3
"""The least mean probability for a lower card named by fit as the top card's own name: two identical cards
laid together (OL-INTERCEPT's self-interception, two Skips of one colour under CH-PAIR). Only the lower-card
classifier is trusted with it (it learnt identical pairs); the crop classifier, seeing part of the top card in
the crop, would name the top card for a single card. Measured on 1,024 fresh turned crops (`datasets.pairs`, seed
43, half of them identical pairs) with the model fine-tuned on a larger share of identical pairs
(`datasets.pairs.IDENTICAL`): at 0.3 it keeps 418 of the 524 identical pairs and names one of the 500 different
lower cards as the top card; at 0.5, 391 and none; at 0.2, 426 and four. The model shipped before kept 367 at
0.5 (the bar then). On the tuning sets 35000 and 39000 (markers' calibration) the model and this bar together
took misread plays from 12 to 9 and from 10 to 8."""
LOWER_AREA = 1.2
"""With a lower-card classifier, a change this many cards large, read as one card, is looked at for a second
card (`vision.discard.PAIR_AREA` without one): fanned pairs measured 1.24-1.55, and the classifier's mean probability, not the
area, tells the single cards of 1.2-1.3 apart."""


def _rect_sum(integral: np.ndarray, x0: int, y0: int, x1: int, y1: int) -> int:
    """Pixels set in [x0, x1) x [y0, y1) of the raster whose summed-area table is `integral`."""
    h, w = integral.shape[0] - 1, integral.shape[1] - 1
    x0, x1, y0, y1 = min(max(x0, 0), w), min(max(x1, 0), w), min(max(y0, 0), h), min(max(y1, 0), h)
    if x1 <= x0 or y1 <= y0:
        return 0
    return int(integral[y1, x1] - integral[y0, x1] - integral[y1, x0] + integral[y0, x0])


def dark_face(code: str) -> bool:
    """A Wild, a Wild Draw Four or a Draw Two: a face whose middle is mostly dark (`LOWER_DARK_CONF`)."""
    return code.startswith("wild") or code.endswith("draw2")


def fit_lower_box(top_mm: Box, changed: np.ndarray) -> tuple[Box, float]:
    """(box, IoU): where a second card lies under the top one, judged from the change alone.

    Two cards laid together and fanned change the union of their outlines. The lower card is about the top
    card's size and turn, shifted, so the top card's box is slid over a grid of shifts and the one whose union
    with the top box best matches the change (intersection over union on the motion raster) wins. Why not the
    detector's box: a strip a quarter of a card wide is where its boxes are least sure, and a box around the
    strip alone crops the lower card off-centre, unlike anything the classifier learnt."""
    integral = cv2.integral(changed.astype(np.uint8))
    total = int(integral[-1, -1])
    t = [int(round(v * LOW)) for v in top_mm]
    bw, bh = t[2] - t[0], t[3] - t[1]
    t_area = max(bw, 0) * max(bh, 0)
    t_in = _rect_sum(integral, *t)
    best: tuple[float, int, int] = (-1.0, 0, 0)
    for fx in FIT_SHIFTS:
        for fy in FIT_SHIFTS:
            if np.hypot(fx, fy) < FIT_MIN_SHIFT:
                continue
            dx, dy = int(round(fx * bw)), int(round(fy * bh))
            s = (t[0] + dx, t[1] + dy, t[2] + dx, t[3] + dy)
            both = (max(t[0], s[0]), max(t[1], s[1]), min(t[2], s[2]), min(t[3], s[3]))
            both_area = max(both[2] - both[0], 0) * max(both[3] - both[1], 0)
            inter = t_in + _rect_sum(integral, *s) - _rect_sum(integral, *both)
            union = 2 * t_area - both_area + total - inter
            iou = inter / max(union, 1)
            if iou > best[0]:
                best = (iou, dx, dy)
    iou, dx, dy = best
    return (top_mm[0] + dx / LOW, top_mm[1] + dy / LOW, top_mm[2] + dx / LOW, top_mm[3] + dy / LOW), iou


def strip_turns(dx: float, dy: float) -> int:
    """The quarter-turns (`np.rot90`'s k, on an image with y down) that bring a pair's lower card, lying
    (dx, dy) from the top card, to the top card's left: 0 for a shift to the left, 1 upwards, 2 to the right, 3
    downwards (the larger of the two components decides).

    Why: a lower card shows as a strip on the far side of the top card, and the classifier that names it then
    always sees its strip at the left of the crop and the top card at the right (`datasets.pairs`'s canonical
    crops), instead of having to learn a corner index a few pixels tall at all four sides."""
    if abs(dx) >= abs(dy):
        return 0 if dx <= 0 else 2
    return 1 if dy < 0 else 3


def strip_changed(top_mm: Box, lower_mm: Box, changed: np.ndarray) -> float:
    """The share of the lower card's box outside the top card's box (the strip of it that shows) that lies on
    `changed` (the motion raster's change); 0 when the top card's box covers it all."""
    strip = box_raster(lower_mm, changed.shape) & ~box_raster(top_mm, changed.shape)
    return float(changed[strip].mean()) if strip.any() else 0.0
