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
