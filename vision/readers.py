"""Card readers: what cards are in a region of the table, read from a rectified (top-down) crop.

Why crops: in a 960x540 frame a card is about 50x85 pixels and the detector, run on the whole frame at its input
size, sees it at a third of that. A crop of one zone warped to the table plane at `scale` pixels per mm shows the
cards big, square-on and upright-independent, and costs one small detector call only when a tracker needs it.
A reader returns `Seen` records in table millimetres, so the trackers never deal with pixels.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Protocol

import cv2
import numpy as np

from vision.classifier import square_crops
from vision.tablefile import Table


@dataclass(frozen=True)
class Seen:
    code: str  # a card code or "back"
    box_mm: tuple[float, float, float, float]
    confidence: float
    presence: float | None = None  # the chance the box holds a card at all (None: as `confidence`)

    @property
    def card_score(self) -> float:
        return self.confidence if self.presence is None else self.presence

    @property
    def centre(self) -> np.ndarray:
        return np.array([(self.box_mm[0] + self.box_mm[2]) / 2, (self.box_mm[1] + self.box_mm[3]) / 2])

    @property
    def area(self) -> float:
        return max(0.0, self.box_mm[2] - self.box_mm[0]) * max(0.0, self.box_mm[3] - self.box_mm[1])

    def overlap(self, other: Seen) -> float:
        """The area (mm²) the two boxes share."""
        ix = max(0.0, min(self.box_mm[2], other.box_mm[2]) - max(self.box_mm[0], other.box_mm[0]))
        iy = max(0.0, min(self.box_mm[3], other.box_mm[3]) - max(self.box_mm[1], other.box_mm[1]))
        return ix * iy

    def iou(self, other: Seen) -> float:
        """The boxes' intersection over their union."""
        inter = self.overlap(other)
        return inter / max(self.area + other.area - inter, 1e-6)

    def same_card(self, other: Seen, iou: float = 0.5, inside: float = 0.6) -> bool:
        """The two boxes show one card: they overlap by `iou`, or, given the same name, one lies mostly inside
        the other (at least `inside` of the smaller: a box of the visible part beside one of the whole card)."""
        if self.iou(other) > iou:
            return True
        return self.code == other.code and self.overlap(other) >= inside * min(self.area, other.area)


HIDDEN_TURNS = 4
"""The classifiers of half-hidden cards (a pair's lower card, a revealed hand's cards) name a crop as the mean
over it and its quarter-turns (`vision.classifier.quarter_turns`). On their validation crops: lower cards 68.1 ->
71.5% named right, revealed cards 87.1 -> 90.0% (1,013 crops of seed 2). Both run rarely (a change too big for
one card; once per revealed hand), so four times their work costs nothing a frame rate would notice."""
MIN_PRESENCE = 0.1
"""The lowest box score a reader's detector keeps (for `read(..., presence=...)`)."""


class CardReader(Protocol):
    calls: int

    def read(self, image: np.ndarray, region_mm: tuple[float, float, float, float], scale: float,
             t: float, presence: float | None = None, turn: int = 0) -> list[Seen]:
        """The cards in `region_mm`: those named with confidence, or, given `presence`, every box at least
        that likely to hold a card, however unsure its name (for counting: a revealed hand, a pair's lower
        card). A `Seen`'s `confidence` is always the named confidence. `turn`: the quarter-turns (as `np.rot90`)
        the crop is given before the detector sees it (the boxes come back in table millimetres all the same),
        for a reader that counts cards better one way up (`vision.draws.arm_down_turn`)."""


class LowerCardNamer(Protocol):
    """A reader that can also name a pair's half-hidden lower card from crops it is given (boxes its detector
    did not find)."""

    def name_lower(self, image: np.ndarray, region_mm: tuple[float, float, float, float], scale: float,
                   boxes_mm: list[tuple[float, float, float, float]], turn: int = 0) -> tuple[str, float] | None:
        """(code, confidence) of the one card that crops around each box (table mm, in `region_mm`'s view) all
        show: the class of highest mean probability over the crops, and that mean; None when the reader has no
        model to name a box with. `turn`: the quarter-turns that bring the lower card left of the top one
        (`vision.lower_fit.strip_turns`), for a model that learnt its crops so."""


def unturned_box(box: tuple[float, float, float, float] | np.ndarray, turn: int,
                 size: tuple[int, int]) -> tuple[float, float, float, float]:
    """A box (x0, y0, x1, y1, pixels) found on `np.rot90(crop, turn)`, in the pixels of `crop` itself, whose
    (width, height) is `size`."""
    a0, b0, a1, b1 = (float(v) for v in box)
    w, h = size
    k = turn % 4
    if k == 0:
        return a0, b0, a1, b1
    if k == 1:  # a quarter-turn anticlockwise: the crop's column x became row w - x, its row y column y
        return w - b1, a0, w - b0, a1
    if k == 2:
        return w - a1, h - b1, w - a0, h - b0
    return b0, h - a1, b1, h - a0  # three quarter-turns: column x became row x, row y column h - y


def rectify(image: np.ndarray, table: Table, region_mm: tuple[float, float, float, float],
            scale: float) -> np.ndarray:
    """The table region `region_mm` (x0, y0, x1, y1) seen from straight above at `scale` px/mm."""
    assert table.image_to_table is not None
    x0, y0, x1, y1 = region_mm
    m = np.array([[scale, 0, -scale * x0], [0, scale, -scale * y0], [0, 0, 1.0]]) @ table.image_to_table
    size = (max(8, int(round((x1 - x0) * scale))), max(8, int(round((y1 - y0) * scale))))
    return cv2.warpPerspective(image, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


class DetectorReader:
    """The card detector (`vision.detector`) run on rectified crops."""

    def __init__(self, table: Table, detector: object, min_conf: float = 0.2, lower: object | None = None,
                 reveal: object | None = None) -> None:
        """`lower`, `reveal`: the lower-card and revealed-card classifiers (`models/card_lower.onnx`,
        `models/card_reveal.onnx`, `OnnxClassifier`s), where shipped."""
        self.table, self.detector, self.min_conf, self.lower, self.reveal = table, detector, min_conf, lower, reveal
        self.calls = 0

    def read(self, image: np.ndarray, region_mm: tuple[float, float, float, float], scale: float,
             t: float, presence: float | None = None, turn: int = 0) -> list[Seen]:
        crop = rectify(image, self.table, region_mm, scale)
        self.calls += 1
        size = (crop.shape[1], crop.shape[0])
        if turn % 4:
            crop = np.ascontiguousarray(np.rot90(crop, turn))
        dets = self.detector.detect(crop)  # type: ignore[attr-defined]
        out = []
        x0, y0 = region_mm[0], region_mm[1]
        for d, present in zip(dets, dets.presence, strict=True):
            if (d.confidence < self.min_conf) if presence is None else (present < presence):
                continue
            b = unturned_box(d.box, turn, size)
            out.append(Seen(d.card, (x0 + b[0] / scale, y0 + b[1] / scale, x0 + b[2] / scale, y0 + b[3] / scale),
                            float(d.confidence), float(present)))
        return out

    def name_revealed(self, image: np.ndarray, region_mm: tuple[float, float, float, float], scale: float,
                      boxes_mm: list[tuple[float, float, float, float]]) -> list[tuple[str, float]]:
        """(code, confidence) for each box (table mm) of a revealed hand's card, on the rectified crop `read` would
        see: by the revealed-card classifier (`models/card_reveal.onnx`, which learnt cards half hidden in
        overlapping rows), or the crop classifier where none is shipped."""
        classifier = self.reveal or getattr(self.detector, "classifier", None)
        if classifier is None or not boxes_mm:
            return [("back", 0.0)] * len(boxes_mm)
        turns = HIDDEN_TURNS if classifier is self.reveal else 1
        probs = self._probabilities(classifier, image, region_mm, scale, boxes_mm, turns)
        return [(classifier.names[int(p.argmax())], float(p.max())) for p in probs]

    def name_card(self, image: np.ndarray, region_mm: tuple[float, float, float, float], scale: float,
                  boxes_mm: list[tuple[float, float, float, float]]) -> tuple[str, float] | None:
        """The crop classifier's name for the one card all the boxes (table mm) frame, on the rectified crop `read`
        sees: the mean of its probabilities over the boxes (`name_lower`'s rule); None without a crop classifier."""
        classifier = getattr(self.detector, "classifier", None)
        if classifier is None or not boxes_mm:
            return None
        return self._named_by_mean(classifier, image, region_mm, scale, boxes_mm)

    def name_lower(self, image: np.ndarray, region_mm: tuple[float, float, float, float], scale: float,
                   boxes_mm: list[tuple[float, float, float, float]], turn: int = 0) -> tuple[str, float] | None:
        """The lower-card classifier's name (the crop classifier's where none is shipped) for the card all the
        boxes hold, on the rectified crop `read` would see, as the model learnt it (`datasets.pairs`): the mean of
        its probabilities over the crops, so a name one crop alone gives counts for little. A model that learnt
        its crops turned so the lower card lies left (its JSON's `canonical`) gets them turned by `turn`, once;
        one that learnt them at every angle gets the mean over the quarter-turns (`HIDDEN_TURNS`)."""
        classifier = self.lower or getattr(self.detector, "classifier", None)
        if classifier is None or not boxes_mm:
            return None
        if classifier is self.lower and getattr(classifier, "canonical", False):
            return self._named_by_mean(classifier, image, region_mm, scale, boxes_mm, rotate=turn % 4)
        turns = HIDDEN_TURNS if classifier is self.lower else 1
        return self._named_by_mean(classifier, image, region_mm, scale, boxes_mm, turns)

    def _named_by_mean(self, classifier: object, image: np.ndarray, region_mm: tuple[float, float, float, float],
                       scale: float, boxes_mm: list[tuple[float, float, float, float]], turns: int = 1,
                       rotate: int | None = None) -> tuple[str, float]:
        """The class with the highest mean probability over the boxes, and that mean."""
        mean = self._probabilities(classifier, image, region_mm, scale, boxes_mm, turns, rotate).mean(axis=0)
        k = int(mean.argmax())
        return classifier.names[k], float(mean[k])  # type: ignore[attr-defined]

    def _probabilities(self, classifier: object, image: np.ndarray, region_mm: tuple[float, float, float, float],
                       scale: float, boxes_mm: list[tuple[float, float, float, float]], turns: int = 1,
                       rotate: int | None = None) -> np.ndarray:
        """`classifier`'s class probabilities for each box (table mm), cropped from `region_mm` rectified as
        `read` rectifies it; with `turns`, averaged over the crops' quarter-turns (`OnnxClassifier.probabilities`);
        with `rotate` (0-3), each crop turned that many quarter-turns first (`np.rot90`), for a model that learnt
        its crops in one orientation."""
        crop = rectify(image, self.table, region_mm, scale)
        x0, y0 = region_mm[0], region_mm[1]
        px = np.array([[(b[0] - x0) * scale, (b[1] - y0) * scale, (b[2] - x0) * scale, (b[3] - y0) * scale]
                       for b in boxes_mm], np.float32)
        if rotate is None:
            return classifier.probabilities(crop, px, turns=turns)  # type: ignore[attr-defined, no-any-return]
        cuts = square_crops(crop, px, classifier.size, classifier.margin)  # type: ignore[attr-defined]
        turned = np.ascontiguousarray(np.rot90(cuts, rotate, axes=(1, 2)))
        return classifier.crop_probabilities(turned, turns)  # type: ignore[attr-defined, no-any-return]


FRAMINGS: tuple[tuple[float, float, float, float], ...] = ((0, 0, 0, 0), (-25, -25, 25, 25), (15, 0, 15, 0))
"""Offsets (mm) added to a region's (x0, y0, x1, y1) for `FramedReader`: as asked, wider, and shifted."""


SAME_INSIDE = 0.8
"""Two boxes of one name from different framings of a revealed hand are one card when the smaller lies at least
this much inside the other. A hand may hold two identical cards side by side in a row: the strip of the lower one
lies 0.6 inside the top one's box, and at `Seen.same_card`'s 0.6 the two were one card (held-out 25007, two green
Draw Twos, a hand of five read as four); a box of the part of one card that shows lies wholly inside its box."""


class FramedReader:
    """A reader that, asked to count (`presence` given), reads the region under several framings and keeps the
    boxes that most framings agree on.

    Why: the detector sees a region letterboxed to its input size, so the same half-hidden card falls on other
    pixels, and other neighbours share its classifier crop, under another framing. A card found in one framing
    only, or missed in one, is judged by its box score averaged over all (a missing box scores 0), and named by the
    summed confidence of the names it got. On a dense revealed hand this counts more hands right than one read.
    A first framing that shows no face (a held fan of backs, an empty zone) is the answer: one read. Reads that
    do not count (`presence` None) pass through unchanged."""

    def __init__(self, reader: CardReader, framings: tuple[tuple[float, float, float, float], ...] = FRAMINGS,
                 same_iou: float = 0.5) -> None:
        self.reader, self.framings, self.same_iou = reader, framings, same_iou

    @property
    def calls(self) -> int:
        return self.reader.calls

    def read(self, image: np.ndarray, region_mm: tuple[float, float, float, float], scale: float,
             t: float, presence: float | None = None, turn: int = 0) -> list[Seen]:
        if presence is None:
            return self.reader.read(image, region_mm, scale, t, turn=turn)
        groups: list[list[Seen]] = []
        for k, d in enumerate(self.framings):
            framed = (region_mm[0] + d[0], region_mm[1] + d[1], region_mm[2] + d[2], region_mm[3] + d[3])
            seen = self.reader.read(image, framed, scale, t, presence=MIN_PRESENCE, turn=turn)
            if k == 0 and all(s.code == "back" for s in seen):  # backs only (a held fan): nothing to count
                return [s for s in seen if s.card_score >= presence]
            for s in sorted(seen, key=lambda s: -s.card_score):
                same = [g for g in groups if s.same_card(g[0], self.same_iou, SAME_INSIDE)]
                if same:  # the group whose first box it overlaps most
                    max(same, key=lambda g: s.overlap(g[0])).append(s)
                else:
                    groups.append([s])
        n = len(self.framings)
        out = []
        for g in groups:
            score = sum(s.card_score for s in g) / n
            if score < presence:
                continue
            votes: Counter[str] = Counter()
            for s in g:
                votes[s.code] += s.confidence
            code, conf = votes.most_common(1)[0]
            out.append(Seen(code, g[0].box_mm, conf / n, score))
        return out


def load_reader(table: Table, weights: str | None = None, conf: float = 0.2) -> DetectorReader:
    """The shipped detector as a reader (raises `vision.detector.DetectorError` naming missing weights)."""
    from pathlib import Path

    from vision.classifier import OnnxClassifier
    from vision.detector import DEFAULT_LOWER, DEFAULT_REVEAL, load_detector

    det = load_detector(Path(weights) if weights else None, conf=min(conf, 0.25), presence=min(conf, MIN_PRESENCE))
    lower = OnnxClassifier(DEFAULT_LOWER) if DEFAULT_LOWER.exists() else None
    reveal = OnnxClassifier(DEFAULT_REVEAL) if DEFAULT_REVEAL.exists() else None
    return DetectorReader(table, det, min_conf=conf, lower=lower, reveal=reveal)
