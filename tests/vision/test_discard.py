"""The discard tracker's test that a lower card of a reading is new: its own visible part must be change."""

from __future__ import annotations

import numpy as np
import pytest

from vision.discard import with_own_change
from vision.lower_fit import (
    LOWER_DARK_CONF,
    LOWER_MIN_CONF,
    LOWER_OLD_STRIP,
    LOWER_OLD_SURE,
    LOWER_SAME_CONF,
    LOWER_TWIN_SURE,
    fit_lower_box,
    strip_changed,
)
from vision.motion import LOW
from vision.readers import Seen


def _changed(shape_mm: tuple[int, int], *boxes_mm: tuple[float, float, float, float]) -> np.ndarray:
    """A change raster (motion scale) with the given table-mm boxes changed."""
    m = np.zeros((int(shape_mm[1] * LOW), int(shape_mm[0] * LOW)), bool)
    for x0, y0, x1, y1 in boxes_mm:
        m[int(y0 * LOW):int(y1 * LOW) + 1, int(x0 * LOW):int(x1 * LOW) + 1] = True
    return m


TOP = Seen("yellow-skip", (100.0, 100.0, 157.0, 189.0), 0.9)  # the card laid now, whole


def test_an_old_card_showing_beside_the_new_one_is_not_a_second_card() -> None:
    # the old top card lay at (80..137, 80..169); the new one covers its lower right part, so its visible box is
    # mostly the new card's pixels, but what shows of it outside the new card did not change
    old = Seen("wild-draw4", (80.0, 80.0, 137.0, 169.0), 0.25)
    changed = _changed((300, 300), TOP.box_mm)
    assert with_own_change([old, TOP], changed) == [TOP]


def test_both_cards_of_a_pair_laid_together_are_kept() -> None:
    lower = Seen("yellow-skip", (80.0, 90.0, 137.0, 179.0), 0.4)  # fanned under the top card, its strip is new
    changed = _changed((300, 300), TOP.box_mm, lower.box_mm)
    assert with_own_change([lower, TOP], changed) == [lower, TOP]


def test_a_card_wholly_inside_the_top_cards_box_cannot_be_judged_and_is_kept() -> None:
    inner = Seen("red-3", (110.0, 110.0, 150.0, 180.0), 0.3)
    assert with_own_change([inner, TOP], _changed((300, 300))) == [inner, TOP]
    assert with_own_change([TOP], _changed((300, 300))) == [TOP]  # a single card is never dropped


class _Reader:
    """Answers a read by presence with the given boxes (a sure top card and a sliver of the one under it)."""

    def __init__(self, seen: list[Seen]) -> None:
        self.seen, self.calls = seen, 0

    def read(self, *a: object, presence: float | None = None, turn: int = 0) -> list[Seen]:
        self.calls += 1
        return [s for s in self.seen if presence is not None and s.card_score >= presence]


def _zone(reader: _Reader) -> object:
    from vision.discard import ZoneCandidates

    zc = ZoneCandidates.__new__(ZoneCandidates)  # only what _second_card reads
    zc.reader, zc.region, zc.scale, zc.known = reader, (0.0, 0.0, 300.0, 300.0), 1.5, []  # type: ignore[assignment]
    zc.laid_over = {}  # type: ignore[attr-defined]
    return zc


def test_a_pairs_lower_card_is_found_by_its_box_score_when_its_own_part_changed() -> None:
    """A change bigger than one card, read as one card: the half-hidden lower card is taken from the boxes that
    surely hold a card (its name unsure), when the part of it outside the top card is change."""
    lower = Seen("green-9", (80.0, 90.0, 137.0, 179.0), 0.05, 0.3)
    zc = _zone(_Reader([TOP, lower]))
    changed = _changed((300, 300), TOP.box_mm, lower.box_mm)
    assert [s.code for s in zc._second_card(np.zeros(1), 0.0, TOP, changed)] == ["green-9", "yellow-skip"]  # type: ignore[attr-defined]


def test_no_second_card_from_an_old_card_or_a_faint_box() -> None:
    old = Seen("wild-draw4", (80.0, 80.0, 137.0, 169.0), 0.05, 0.4)  # its own part did not change
    faint = Seen("red-1", (160.0, 100.0, 217.0, 189.0), 0.01, 0.05)  # below PAIR_PRESENCE
    zc = _zone(_Reader([TOP, old, faint]))
    changed = _changed((300, 300), TOP.box_mm, faint.box_mm)
    assert zc._second_card(np.zeros(1), 0.0, TOP, changed) == [TOP]  # type: ignore[attr-defined]


def test_strict_keeps_no_card_that_cannot_show_its_own_change() -> None:
    inner = Seen("red-3", (110.0, 110.0, 150.0, 180.0), 0.3)  # an identical old card under the new one, say
    assert with_own_change([inner, TOP], _changed((300, 300), TOP.box_mm), strict=True) == [TOP]


# -- the lower card of a pair found where the change says it lies (`fit_lower_box`, `_lower_by_fit`) --


def test_the_fit_finds_the_lower_card_beside_the_top_one_in_any_direction() -> None:
    w, h = TOP.box_mm[2] - TOP.box_mm[0], TOP.box_mm[3] - TOP.box_mm[1]
    for fx, fy in [(-0.45, 0.0), (0.35, 0.1), (0.0, -0.3), (0.5, 0.5), (-0.6, 0.25)]:
        lower = (TOP.box_mm[0] + fx * w, TOP.box_mm[1] + fy * h, TOP.box_mm[2] + fx * w, TOP.box_mm[3] + fy * h)
        box, iou = fit_lower_box(TOP.box_mm, _changed((300, 300), TOP.box_mm, lower))
        assert np.allclose(box, lower, atol=2.0 / LOW), (fx, fy, box)
        assert iou > 0.9


class _Namer(_Reader):
    """A reader with a model for lower cards: names the card in the boxes it is given by a rule of the test's."""

    def __init__(self, name_of: object, seen: list[Seen] | None = None, dedicated: bool = True) -> None:
        super().__init__(seen or [])
        self.name_of, self.asked, self.turns = name_of, [], []  # type: ignore[var-annotated]
        self.lower = object() if dedicated else None  # the shipped lower-card model, or the crop classifier's

    def name_lower(self, image: object, region: object, scale: float, boxes: list[tuple[float, ...]],
                   turn: int = 0) -> tuple[str, float]:
        self.asked.append(boxes)
        self.turns.append(turn)
        return self.name_of(boxes)  # type: ignore[operator,no-any-return]


LOWER = (80.0, 90.0, 137.0, 179.0)  # fanned 20 mm left and 10 mm down from TOP
PAIR_CHANGE = _changed((300, 300), TOP.box_mm, LOWER)


def test_a_pairs_lower_card_is_named_on_crops_around_its_fitted_box() -> None:
    zc = _zone(_Namer(lambda b: ("green-9", 0.6)))  # type: ignore[arg-type]
    cards = zc._second_card(np.zeros(1), 0.0, TOP, PAIR_CHANGE)  # type: ignore[attr-defined]
    assert [s.code for s in cards] == ["green-9", "yellow-skip"]
    assert np.allclose(cards[0].box_mm, LOWER, atol=2.0 / LOW)
    asked = zc.reader.asked[0]  # type: ignore[attr-defined]
    assert len(asked) == 3 and asked[-1][0] < asked[0][0] < LOWER[0]  # each crop further towards the strip


def test_no_lower_card_named_unsurely_by_the_top_cards_name_or_as_an_old_card() -> None:
    lower = Seen("green-9", LOWER, 0.05, 0.3)  # the detector's sliver, which the shipped model overrules
    cases = {
        "a card back": lambda b: ("back", 0.9),
        "the top card's own name, unsure (the crop still shows the top card)": lambda b: ("yellow-skip", LOWER_SAME_CONF - 0.05),
        "too unsure (a shadow or the nudged pile, no card)": lambda b: ("green-9", LOWER_MIN_CONF - 0.05),
    }
    for why, rule in cases.items():
        zc = _zone(_Namer(rule, [TOP, lower]))  # type: ignore[arg-type]
        assert zc._second_card(np.zeros(1), 0.0, TOP, PAIR_CHANGE) == [TOP], why  # type: ignore[attr-defined]
    # an old card showing beside the new one, as it was: the strip the top card leaves did not change (a shadow
    # at its edge made the change a little larger than one card)
    showing = PAIR_CHANGE.copy()
    showing[int(95 * LOW):int(175 * LOW), int(84 * LOW):int(98 * LOW)] = False
    fitted, _ = fit_lower_box(TOP.box_mm, showing)
    assert strip_changed(TOP.box_mm, fitted, showing) < LOWER_OLD_STRIP
    shifted = (fitted[0] - 20.0, fitted[1] + 20.0, fitted[2] - 20.0, fitted[3] + 20.0)
    for old_box in (fitted, shifted):  # where the fit puts it, or half in its box (its own)
        zc = _zone(_Namer(lambda b: ("green-9", LOWER_TWIN_SURE - 0.1)))  # type: ignore[arg-type]
        zc.known = [Seen("green-9", old_box, 0.9)]  # type: ignore[attr-defined]  # read there before: the old pile
        assert zc._second_card(np.zeros(1), 0.0, TOP, showing) == [TOP], old_box  # type: ignore[attr-defined]
    zc = _zone(_Namer(lambda b: ("green-9", LOWER_MIN_CONF + 0.05)))  # type: ignore[arg-type]  # unsure, but sure enough
    assert [s.code for s in zc._second_card(np.zeros(1), 0.0, TOP, PAIR_CHANGE)] == ["green-9", "yellow-skip"]  # type: ignore[attr-defined]
    zc = _zone(_Namer(lambda b: ("green-9", 0.8)))  # type: ignore[arg-type]
    zc.known = [Seen("green-9", (200.0, 180.0, 257.0, 269.0), 0.9)]  # type: ignore[attr-defined]  # elsewhere
    assert [s.code for s in zc._second_card(np.zeros(1), 0.0, TOP, PAIR_CHANGE)] == ["green-9", "yellow-skip"]  # type: ignore[attr-defined]


def test_a_twin_of_an_old_card_laid_under_the_new_one_is_a_second_card() -> None:
    """Held-out 29000: a yellow Skip and a green Reverse laid together on a yellow Skip starter. The lower card,
    named surely, lay where the old Skip had been read, and was taken for it showing through: the pair was read as
    one card. An old card showing through is as it was; this strip changed (`LOWER_OLD_STRIP`)."""
    zc = _zone(_Namer(lambda b: ("green-9", 0.9)))  # type: ignore[arg-type]
    zc.known = [Seen("green-9", LOWER, 0.9)]  # type: ignore[attr-defined]  # its twin, read there before
    assert strip_changed(TOP.box_mm, LOWER, PAIR_CHANGE) >= LOWER_OLD_STRIP
    cards = zc._second_card(np.zeros(1), 0.0, TOP, PAIR_CHANGE)  # type: ignore[attr-defined]
    assert [s.code for s in cards] == ["green-9", "yellow-skip"]
    # named unsurely, it is the old card showing through, as before
    zc = _zone(_Namer(lambda b: ("green-9", LOWER_OLD_SURE - 0.1)))  # type: ignore[arg-type]
    zc.known = [Seen("green-9", LOWER, 0.9)]  # type: ignore[attr-defined]
    assert zc._second_card(np.zeros(1), 0.0, TOP, PAIR_CHANGE) == [TOP]  # type: ignore[attr-defined]
    # named very surely, it is a twin laid now even where its strip changed little (tuning 39012: a blue 5 under
    # a green Skip on the blue 5 starter, named 0.87-0.89, its strip 0.58 changed)
    zc = _zone(_Namer(lambda b: ("green-9", LOWER_TWIN_SURE + 0.1)))  # type: ignore[arg-type]
    zc.known = [Seen("green-9", LOWER, 0.9)]  # type: ignore[attr-defined]
    showing = PAIR_CHANGE.copy()
    showing[int(95 * LOW):int(175 * LOW), int(84 * LOW):int(98 * LOW)] = False
    assert [s.code for s in zc._second_card(np.zeros(1), 0.0, TOP, showing)] == ["green-9", "yellow-skip"]  # type: ignore[attr-defined]
    # where the detector named both cards of a pair, its own lower card stands against the old card's name
    # (fresh 31011: a blue 0 under a yellow 7, renamed as the blue 4 that lay there before)
    zc = _zone(_Namer(lambda b: ("green-9", 0.9)))  # type: ignore[arg-type]
    zc.known = [Seen("green-9", LOWER, 0.9)]  # type: ignore[attr-defined]
    sliver = Seen("red-1", (80.0, 90.0, 100.0, 179.0), 0.3)
    renamed = zc._renamed_lower(np.zeros(1), [sliver, TOP], PAIR_CHANGE)  # type: ignore[attr-defined]
    assert [s.code for s in renamed] == ["red-1", "yellow-skip"]


@pytest.mark.parametrize("lower, conf, taken", [
    ("wild", LOWER_DARK_CONF - 0.05, False),  # a shadowed strip of the old pile, named a Wild
    ("wild-draw4", LOWER_DARK_CONF - 0.05, False),
    ("blue-draw2", LOWER_DARK_CONF - 0.05, False),
    ("wild", LOWER_DARK_CONF + 0.05, True),  # a Wild under the top card, named surely
    ("blue-9", LOWER_DARK_CONF - 0.05, True),  # other faces keep the usual bar
])
def test_a_dark_lower_card_needs_a_surer_name(lower: str, conf: float, taken: bool) -> None:
    """A single card's shadow darkens the old pile beside it, and the lower-card model names such a strip a Wild,
    a Wild Draw Four or a Draw Two (every single card taken for a pair on the tuning games): those names need
    `LOWER_DARK_CONF`, the others `LOWER_MIN_CONF`."""
    zc = _zone(_Namer(lambda b: (lower, conf)))  # type: ignore[arg-type]
    cards = [s.code for s in zc._second_card(np.zeros(1), 0.0, TOP, PAIR_CHANGE)]  # type: ignore[attr-defined]
    assert cards == ([lower, "yellow-skip"] if taken else ["yellow-skip"])


def test_two_identical_cards_laid_together_are_a_pair_when_the_lower_card_model_is_sure() -> None:
    """OL-INTERCEPT's self-interception, two same-colour Skips under CH-PAIR: the lower card has the top card's
    name. The lower-card model learnt such pairs; the crop classifier, which sees part of the top card in the
    crop, is not trusted with the top card's name."""
    zc = _zone(_Namer(lambda b: ("yellow-skip", 0.8)))  # type: ignore[arg-type]
    assert [s.code for s in zc._second_card(np.zeros(1), 0.0, TOP, PAIR_CHANGE)] == ["yellow-skip", "yellow-skip"]  # type: ignore[attr-defined]
    zc = _zone(_Namer(lambda b: ("yellow-skip", 0.9), dedicated=False))  # type: ignore[arg-type]
    assert zc._second_card(np.zeros(1), 0.0, TOP, PAIR_CHANGE) == [TOP]  # type: ignore[attr-defined]


def test_without_the_lower_card_model_the_lower_card_is_looked_for_in_the_detectors_boxes() -> None:
    class _NoStage(_Reader):
        def name_lower(self, *a: object, **kw: object) -> None:
            return None

    lower = Seen("green-9", LOWER, 0.05, 0.3)
    unsure_crop_classifier = _Namer(lambda b: ("red-2", 0.1), [TOP, lower], dedicated=False)
    for zc in (_zone(_NoStage([TOP, lower])), _zone(unsure_crop_classifier)):  # type: ignore[arg-type]
        assert [s.code for s in zc._second_card(np.zeros(1), 0.0, TOP, PAIR_CHANGE)] == ["green-9", "yellow-skip"]  # type: ignore[attr-defined]


def test_a_lower_card_read_from_a_sliver_is_renamed_when_the_lower_card_model_is_surer() -> None:
    sliver = Seen("green-1", (80.0, 90.0, 100.0, 179.0), 0.3)  # the strip the detector boxed, its index misread
    zc = _zone(_Namer(lambda b: ("green-7", 0.6)))  # type: ignore[arg-type]
    renamed = zc._renamed_lower(np.zeros(1), [sliver, TOP], PAIR_CHANGE)  # type: ignore[attr-defined]
    assert [s.code for s in renamed] == ["green-7", "yellow-skip"] and renamed[0].box_mm == sliver.box_mm
    zc = _zone(_Namer(lambda b: ("green-7", 0.2)))  # type: ignore[arg-type]  # less sure than the detector
    assert zc._renamed_lower(np.zeros(1), [sliver, TOP], PAIR_CHANGE) == [sliver, TOP]  # type: ignore[attr-defined]


def test_a_card_boxed_twice_is_one_card_but_an_identical_pairs_strip_is_a_second() -> None:
    from vision.discard import without_twins

    wild = Seen("wild", (594.0, 225.0, 672.0, 324.0), 0.96)
    part = Seen("wild", (596.0, 267.0, 645.0, 322.0), 0.39)  # part of the same face (measured, game 1104)
    assert without_twins([part, wild]) == [wild]
    strip = Seen("wild", (560.0, 225.0, 594.0, 324.0), 0.4)  # a second Wild fanned out beside it
    other = Seen("red-1", (596.0, 267.0, 645.0, 322.0), 0.45)  # another card's name there: not a twin
    assert without_twins([strip, wild, other]) == [strip, wild, other]


# -- a single card named on the detector's box and on the box of its change (`_named_on_change`) --


class _Classifier(_Reader):
    """A reader whose crop classifier answers per box: the detector's box (a strip of the card below inside)
    leans to the card below's colour, the change's box to the card laid."""

    def __init__(self, rows: list[dict[str, float]]) -> None:
        super().__init__([])
        self.rows, self.asked = rows, []  # type: ignore[var-annotated]

    def name_card(self, image: object, region: object, scale: float,
                  boxes: list[tuple[float, ...]]) -> tuple[str, float]:
        """As `DetectorReader.name_card`: the class of highest mean probability over the boxes, and that mean."""
        self.asked.append(boxes)
        names = ("back", "blue-2", "red-2", "green-2")
        mean = np.array([[r.get(n, 0.0) for n in names] for r in self.rows[:len(boxes)]], np.float32).mean(axis=0)
        return names[int(mean.argmax())], float(mean.max())


def _blob(box_mm: tuple[float, float, float, float], table_mm: tuple[int, int] = (300, 300)) -> object:
    from vision.motion import Blob

    mask = _changed(table_mm, box_mm)
    return Blob(mask, np.array([(box_mm[0] + box_mm[2]) / 2, (box_mm[1] + box_mm[3]) / 2]), float(mask.sum()),
                box_mm)


LAID = Seen("red-2", (100.0, 90.0, 210.0, 190.0), 0.45, 0.92)  # the detector's box takes in the card below


def test_a_card_is_renamed_when_its_change_names_it_more_surely_than_its_box() -> None:
    """Seen on a held-out game and on two tuning games: a blue card laid half over a red card of the same value
    read as the red one on every frame (0.49 against 0.46); the change's box names it 0.87 blue."""
    reader = _Classifier([{"red-2": 0.49, "blue-2": 0.46}, {"blue-2": 0.87, "red-2": 0.06}])
    zc = _zone(reader)
    change = (104.0, 92.0, 200.0, 172.0)
    named = zc._named_on_change(np.zeros(1), LAID, _blob(change))  # type: ignore[attr-defined]
    assert named.code == "blue-2" and named.box_mm == LAID.box_mm
    assert abs(named.confidence - 0.92 * (0.46 + 0.87) / 2) < 1e-5  # presence times the mean
    assert reader.asked == [[LAID.box_mm, change]]


def test_a_card_is_renamed_by_a_whole_cards_change_inside_a_box_that_took_in_the_card_below() -> None:
    """Fresh 81000 of stop 41: a yellow Draw Two laid across a blue Draw Two, boxed round both and named blue at
    0.44 on every frame; its change, one card large and wholly inside that box, named it yellow at 0.95, but the
    boxes' IoU (0.48) fell short of `CHANGE_BOX_IOU`. A change lying inside the box (`CHANGE_INSIDE`) is asked too;
    a sliver of change inside it (a card laid square on its twin's colour changes only the numerals) is not."""
    from vision.discard import CHANGE_BOX_IOU

    change = (120.0, 100.0, 205.0, 160.0)  # a card lying across, inside the detector's box
    assert LAID.iou(Seen("x", change, 0.0)) < CHANGE_BOX_IOU
    reader = _Classifier([{"blue-2": 0.44, "red-2": 0.40}, {"red-2": 0.95, "blue-2": 0.02}])
    named = _zone(reader)._named_on_change(np.zeros(1), Seen("blue-2", LAID.box_mm, 0.44, 0.92),  # type: ignore[attr-defined]
                                           _blob(change))
    assert named.code == "red-2" and reader.asked == [[LAID.box_mm, change]]
    sliver = _Classifier([{"blue-2": 0.44}, {"red-2": 0.95}])
    small = _blob((150.0, 120.0, 185.0, 150.0))  # a fifth of a card
    assert _zone(sliver)._named_on_change(np.zeros(1), LAID, small) is LAID  # type: ignore[attr-defined]
    assert sliver.asked == []


def test_a_card_keeps_its_name_when_the_two_boxes_agree_or_the_change_is_not_its_own() -> None:
    agree = _Classifier([{"red-2": 0.49, "blue-2": 0.46}, {"red-2": 0.7, "blue-2": 0.2}])
    assert _zone(agree)._named_on_change(np.zeros(1), LAID, _blob((104.0, 92.0, 200.0, 172.0))) is LAID  # type: ignore[attr-defined]
    # a change that is mostly elsewhere (a nudged pile, a shadow) is not this card's: not asked at all
    elsewhere = _Classifier([{"red-2": 0.49}, {"blue-2": 0.99}])
    far = _blob((180.0, 150.0, 290.0, 290.0))
    assert _zone(elsewhere)._named_on_change(np.zeros(1), LAID, far) is LAID  # type: ignore[attr-defined]
    assert elsewhere.asked == []
    # a reader without a crop classifier (the renderer's oracle in tests) leaves the detector's name
    assert _zone(_Reader([]))._named_on_change(np.zeros(1), LAID, far) is LAID  # type: ignore[attr-defined]


def _pile(old_x: float | None, new_x: float, old_hidden: bool = False) -> tuple[object, np.ndarray]:
    """A discard tracker that saw the empty pile, now holding a new card at `new_x` (table mm); the old card lay at
    `old_x` (None: nowhere) and either still lies there under and beside the new one, or was taken away
    (`old_hidden` False and the change covers both places) — returns (tracker, the candidate's change)."""
    from vision.discard import DiscardTracker
    from vision.motion import ForegroundModel
    from vision.tablefile import default_table

    table = default_table(4)
    table.image_to_table = np.eye(3)
    model = ForegroundModel(table)
    h, w = model.raster.h, model.raster.w
    tracker = DiscardTracker(model, reader=None)  # type: ignore[arg-type]
    tracker.empty_look = np.full((h, w, 3), 90, np.uint8)
    y0, y1 = int(240 * LOW), int(327 * LOW)

    def card(x: float) -> tuple[slice, slice]:
        return slice(y0, y1), slice(int(x * LOW), int((x + 56) * LOW))

    low = tracker.empty_look.copy()
    changed = np.zeros((h, w), bool)
    if old_x is not None and old_hidden:
        low[card(old_x)] = (30, 200, 230)  # the old card still there, partly under the new one
    elif old_x is not None:
        changed[card(old_x)] = True  # the old card was lifted: its place changed too
    low[card(new_x)] = (40, 40, 200)
    changed[card(new_x)] = True
    model.low = low
    return tracker, changed


def test_a_card_turned_where_the_sent_back_starter_lay_starts_the_pile_again() -> None:
    """Held-out 29006 (MA-START): the Wild Draw Four starter was lifted off and the next card turned 8 mm from
    where it had lain. Only a sliver of the table (0.15 of a card) was bared, under the 0.25 a pile's noise
    needs, so the starter was read as the dealer's play. With nothing of any old card showing outside the change,
    a sliver bared is enough; a card laid on a one-card pile it nearly covers still shows the old card's edge,
    and one laid square over it bares nothing: both stay plays."""
    tracker, changed = _pile(old_x=580.0, new_x=588.0)
    assert tracker.pile_emptied(changed)  # type: ignore[attr-defined]
    tracker, changed = _pile(old_x=580.0, new_x=588.0, old_hidden=True)  # the old card's edge shows beside it
    assert not tracker.pile_emptied(changed)  # type: ignore[attr-defined]
    tracker, changed = _pile(old_x=588.0, new_x=588.0, old_hidden=True)  # laid square over the old card
    assert not tracker.pile_emptied(changed)  # type: ignore[attr-defined]


def test_the_card_on_top_of_a_pair_is_the_larger_box_unless_the_other_is_boxed_much_more_surely() -> None:
    """Tuning 31011: a blue 0 turned under a yellow 7 boxed larger than the 7 (5,686 against 5,356 mm²) but at 0.53
    against 0.96; reported on top, it made the engine judge every later play against the wrong card. The top card
    shows whole, so it is the larger box, unless the other is much surer (`TOP_SURER`)."""
    from vision.discard import TOP_SURER, on_top_last

    seven = Seen("yellow-7", (578.0, 243.0, 670.0, 301.0), 0.77, presence=0.96)
    zero = Seen("blue-0", (574.0, 202.0, 668.0, 262.0), 0.27, presence=0.53)
    assert [s.code for s in on_top_last([seven, zero])] == ["blue-0", "yellow-7"]
    assert [s.code for s in on_top_last([zero, seven])] == ["blue-0", "yellow-7"]
    near = Seen("blue-0", zero.box_mm, 0.6, presence=0.96 - TOP_SURER + 0.05)  # about as sure: the larger is on top
    assert [s.code for s in on_top_last([seven, near])] == ["yellow-7", "blue-0"]
    strip = Seen("red-3", (560.0, 250.0, 590.0, 330.0), 0.9, presence=0.95)  # a strip beside a whole card
    assert [s.code for s in on_top_last([seven, strip])] == ["red-3", "yellow-7"]
    # tuning 37014: a lower card named by the lower-card model on its fitted box (no box score) stays under
    named = Seen("yellow-skip", seven.box_mm, 0.91)
    reverse = Seen("yellow-reverse", seven.box_mm, 0.58, presence=0.6)
    assert [s.code for s in on_top_last([named, reverse])] == ["yellow-skip", "yellow-reverse"]
    # fresh 67012 of stop 36: the fitted box the same size as the top card's, read in either order, or a hair
    # larger; the lower card came out on top on the read the play was decided from, and the next play, laid on the
    # true top card, was flagged `illegal_card`
    assert [s.code for s in on_top_last([reverse, named])] == ["yellow-skip", "yellow-reverse"]
    wider = Seen("yellow-skip", (577.9, 243.0, 670.1, 301.0), 0.91)
    assert [s.code for s in on_top_last([reverse, wider])] == ["yellow-skip", "yellow-reverse"]
    assert on_top_last([seven]) == [seven] and on_top_last([]) == []


class _CardNamer(_Reader):
    """A reader whose crop classifier names any box it is given as `name`."""

    def __init__(self, name: tuple[str, float]) -> None:
        super().__init__([])
        self.name, self.asked = name, []  # type: ignore[var-annotated]

    def name_card(self, image: object, region: object, scale: float,
                  boxes: list[tuple[float, ...]]) -> tuple[str, float]:
        self.asked.append(boxes)
        return self.name


def test_a_back_boxed_in_the_discard_piles_change_is_the_dark_face_the_classifier_names() -> None:
    """Fresh 45000 (game 45003): a Wild laid on a blue 4 boxed as a back on every frame; with no new face in the
    change the blue 4 showing through was taken for the same card laid again. The pile lies face up: a back
    boxed in its change is named by the crop classifier, and kept where it names a face surely enough."""
    from vision.discard import DARK_FACE_CONF

    dark = Seen("back", TOP.box_mm, 0.77, 0.77)
    beside = Seen("back", (200.0, 200.0, 257.0, 289.0), 0.9)  # outside the change
    changed = _changed((300, 300), TOP.box_mm)
    zc = _zone(_CardNamer(("wild", 0.9)))  # type: ignore[arg-type]
    zc.faces_only = True  # type: ignore[attr-defined]
    got = zc._dark_faces(np.zeros(1), [dark, beside, TOP], changed)  # type: ignore[attr-defined]
    assert [(s.code, s.box_mm) for s in got] == [("wild", TOP.box_mm)]
    assert zc.reader.asked == [[TOP.box_mm]]  # type: ignore[attr-defined]
    for name in (("back", 0.95), ("wild", DARK_FACE_CONF - 0.1)):  # a real back, or a face named unsurely
        zc.reader = _CardNamer(name)  # type: ignore[attr-defined]
        assert zc._dark_faces(np.zeros(1), [dark], changed) == []  # type: ignore[attr-defined]
    zc.reader, zc.faces_only = _CardNamer(("wild", 0.9)), False  # type: ignore[attr-defined]
    assert zc._dark_faces(np.zeros(1), [dark], changed) == []  # type: ignore[attr-defined]  # backs count as they are


def test_a_card_comes_to_rest_in_the_hands_last_reach_not_in_an_earlier_sweep_past_the_pile() -> None:
    """Tuning 43013: seat 5's arm swept over the pile to the draw pile (reaching deeper) and 0.9 s later laid a
    yellow 2; the sweep's reach was taken for the card's rest, and the play stamped too early to match. Visits
    with the tip off the pile for longer than `REST_GAP_S` between them are separate reaches; within one reach
    the deepest moment still wins."""
    from vision.discard import REST_GAP_S, Candidate

    tracker, changed = _pile(old_x=None, new_x=588.0)
    hand = changed.copy()
    tip = np.array([610.0, 280.0])
    frame = 1 / 30
    sweep = [(31.3 + k * frame, 120.0 + k) for k in range(6)]  # deeper, on the way to the draw pile
    # the tip came onto the pile already near its deepest (laying at the pile's near edge): no approach to stop at
    lay = [(32.3 + k * frame, r) for k, r in enumerate((78.0, 80.0, 84.0, 86.0, 85.0, 80.0))]  # deepest 32.37-32.4
    for t, r in sweep + lay:
        tracker.history.append((t, 5, hand, r, tip))  # type: ignore[attr-defined]
    cand = Candidate(changed, 31.4, (588.0, 240.0, 644.0, 327.0))
    seat, _, t_rest = tracker._seat(cand, 32.8)  # type: ignore[attr-defined]
    assert seat == 5 and t_rest == pytest.approx(32.3 + 2 * frame)  # the first moment within 2 mm of the deepest
    # the tip off the pile for less than the gap (a finger lifted over the pile's edge): one reach, whose
    # deepest moment wins
    tracker, changed = _pile(old_x=None, new_x=588.0)
    near = [(32.3 - REST_GAP_S / 2 - k * frame, 90.0) for k in range(3)]
    for t, r in sorted(near) + lay:
        tracker.history.append((t, 5, hand, r, tip))  # type: ignore[attr-defined]
    assert tracker._seat(cand, 32.8)[2] == pytest.approx(min(t for t, _ in near))  # type: ignore[attr-defined]


def test_a_card_laid_where_its_twin_lies_buried_is_new_not_the_old_one_showing_through() -> None:
    """Tuning 43017: a red 8 laid where the other red 8 had lain eleven cards before was taken for that one showing
    through (same name, same place), and the red Draw Two beside it was read as played. The cards laid since had
    buried the old 8 (`BURIED`): it could not show as a whole card's box. An old card still showing, or a
    sliver boxed in its place, is the old card as before."""
    from vision.discard import BURIED, Candidate

    zc = _zone(_Reader([]))
    zc.model = type("M", (), {"absorb": lambda self, m: None})()  # type: ignore[attr-defined]
    old = Seen("red-8", (583.0, 245.0, 680.0, 321.0), 0.9)

    def lay(code: str, box: tuple[float, float, float, float]) -> None:
        c = Candidate(_changed((800, 500), box), 0.0, box)
        c.seen = [[Seen(code, box, 0.9)]]
        zc._decide(c, (code,))  # type: ignore[attr-defined]

    lay("red-8", old.box_mm)
    assert [o.code for o in zc.known] == ["red-8"]  # type: ignore[attr-defined]
    again = Seen("red-8", (586.0, 226.0, 653.0, 319.0), 0.86)  # a whole card's box, most of it in the old one's
    assert zc._was_there(again, share=0.6)  # type: ignore[attr-defined]  # nothing laid over it yet: the old 8
    x0, y0, x1, y1 = old.box_mm
    partly = (x0, y0, x0 + (x1 - x0) * (BURIED - 0.2), y1)  # a card laid over most of it, not enough
    lay("red-7", partly)
    assert zc._was_there(again, share=0.6)  # type: ignore[attr-defined]
    lay("red-9", (x0 - 5, y0 - 5, x1 + 5, y1 + 5))
    assert not zc._was_there(again, share=0.6)  # type: ignore[attr-defined]  # buried: its twin, laid now
    sliver = Seen("red-8", (640.0, 250.0, 678.0, 318.0), 0.5)  # a strip boxed in its place: not a whole card
    assert zc._was_there(sliver)  # type: ignore[attr-defined]


def test_a_card_laid_on_its_twins_place_is_the_card_laid_though_an_old_card_beside_it_is_boxed_faintly() -> None:
    """Fresh 73009 of stop 38: a Wild laid on the Wild on top of the pile, a little turned, its change 0.98 in its
    box; the pile's yellow 6 beside it, boxed at 0.25-0.28 with 0.31 of the change in its box, was the only card not
    read there before and was taken for the card laid. The change lies in the card laid (`TWIN_HOLDS`): that is
    the twin. A card new there that holds its change is the card laid, as before; so is a new card where no old
    one holds the change."""
    zc = _zone(_Reader([]))
    wild_before = Seen("wild", (567.0, 230.0, 667.0, 320.0), 0.9)
    zc.known = [Seen("green-6", (542.0, 230.0, 641.0, 305.0), 0.9), wild_before]  # type: ignore[attr-defined]
    wild = Seen("wild", (559.0, 248.0, 647.0, 314.0), 0.94)
    faint = Seen("yellow-6", (615.0, 267.0, 675.0, 333.0), 0.28, 0.44)
    change = _blob((565.0, 250.0, 645.0, 312.0), (800, 500))  # where the new Wild differs from the old one
    assert zc._laid_now([wild, faint], change) == [wild]  # type: ignore[attr-defined]
    assert zc._laid_now([wild], change) == [wild]  # type: ignore[attr-defined]  # the same card laid again
    # a card new there that holds the change is the card laid, an old twin's box round it or not
    laid = Seen("red-3", (560.0, 245.0, 650.0, 316.0), 0.9)
    assert zc._laid_now([wild, laid], change) == [laid]  # type: ignore[attr-defined]
    # where no old card holds the change, the faint new box stands
    elsewhere = _blob((600.0, 262.0, 672.0, 330.0), (800, 500))
    assert zc._laid_now([wild, faint], elsewhere) == [faint]  # type: ignore[attr-defined]
