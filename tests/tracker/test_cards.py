"""The 108-card deck and card codes."""

from collections import Counter

import pytest

from tracker.cards import ALL_CODES, CardError, card, deck, hand_points


def test_deck_has_108_cards_with_the_right_counts() -> None:
    d = deck()
    assert len(d) == 108
    counts = Counter(c.code for c in d)
    assert counts["red-0"] == 1 and counts["blue-7"] == 2 and counts["green-skip"] == 2
    assert counts["wild"] == 4 and counts["wild-draw4"] == 4
    assert len(ALL_CODES) == 54 and set(counts) == set(ALL_CODES)


def test_points_follow_the_common_scoring() -> None:
    assert hand_points([card("red-7"), card("blue-skip"), card("wild-draw4"), card("green-0")]) == 77


@pytest.mark.parametrize("bad", ["red-10", "purple-3", "Red-7", "wild-draw2", "", None, 7])
def test_unknown_cards_are_named_in_the_error(bad: object) -> None:
    with pytest.raises(CardError, match="unknown card"):
        card(bad)  # type: ignore[arg-type]
