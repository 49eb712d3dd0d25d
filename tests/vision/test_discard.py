"""The discard tracker's test that a lower card of a reading is new: its own visible part must be change."""

from __future__ import annotations

import numpy as np

from vision.discard import with_own_change
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

    def read(self, *a: object, presence: float | None = None) -> list[Seen]:
        self.calls += 1
        return [s for s in self.seen if presence is not None and s.card_score >= presence]


def _zone(reader: _Reader) -> object:
    from vision.discard import ZoneCandidates

    zc = ZoneCandidates.__new__(ZoneCandidates)  # only what _second_card reads
    zc.reader, zc.region, zc.scale, zc.known = reader, (0.0, 0.0, 300.0, 300.0), 1.5, []  # type: ignore[assignment]
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
