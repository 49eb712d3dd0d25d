"""How a carry's reads become one count (`vision.carry_counts`): each rule on the numbers the reads gave."""

from __future__ import annotations

from vision.carry_counts import settled_count
from vision.tablefile import CARD_H_MM


def test_the_count_is_the_largest_read_on_two_frames() -> None:
    """Fingers hide a different card on each frame, so the count is the most the frames showed; but a box seen on
    one frame only (a card's corner boxed twice) does not add a card."""
    assert settled_count([1, 2, 2, 1, 0]) == 2
    assert settled_count([4, 3, 4, 3, 3]) == 4
    assert settled_count([1, 1, 2, 1, 1]) == 1
    assert settled_count([0, 0, 0]) == 0
    assert settled_count([3]) == 3
    assert settled_count([]) == 0


def test_a_carry_whose_count_is_still_rising_is_read_on() -> None:
    """A card dragged off the pile is boxed with the pile until it clears it: the reads go on while the last one
    saw more than the reads settle on, up to `EXTRA_READS` more."""
    from vision.carry_counts import EXTRA_READS, still_rising

    assert not still_rising([0, 0, 0], 5)  # fewer than the usual reads: the caller reads on anyway
    assert still_rising([0, 0, 0, 0, 1], 5)  # the card just cleared the pile
    assert not still_rising([0, 0, 0, 0, 1, 1], 5)  # seen twice: settled at 1
    assert not still_rising([1, 1, 1, 1, 1], 5)
    assert not still_rising([0] * (4 + EXTRA_READS) + [1], 5)  # read long enough


def test_a_carried_fan_with_one_card_unseen_between_two_pitches_counts_it() -> None:
    from vision.carry_counts import hidden_in_fan

    def fan(lefts: list[float], width: float = 57.0) -> list[tuple[float, float, float]]:
        """Boxes of a fan spread towards +u: the last card, on top, shows whole; the others' boxes end where
        the next card covers them, give or take (the detector's boxes of strips are not exact)."""
        boxes = [(u, u + width * 0.8, width * 0.8 * CARD_H_MM) for u in lefts[:-1]]
        return boxes + [(lefts[-1], lefts[-1] + width, width * CARD_H_MM)]

    cases = [
        ("four cards at a 27 mm pitch, the third unseen", fan([0, 27, 81]), 1),
        ("boxes wandering a few millimetres", fan([0, 31, 90]), 1),
        ("five cards, the second unseen", fan([0, 52, 80, 107]), 1),
        ("three cards seen, none missing", fan([0, 27, 55]), 0),
        ("uneven gaps: no steady pitch", fan([0, 21, 50, 90]), 0),
        ("two cards say nothing of the pitch", fan([0, 54]), 0),
        ("cards laid apart, no overlap", fan([0, 60, 180]), 0),
    ]
    mirrored = [(-u1, -u0, a) for u0, u1, a in fan([0, 27, 81])]  # spread the other way: the top card at -u
    cases.append(("a fan spread the other way", mirrored, 1))
    # all four seen; the top card's far edge lies a card's width off the strips' pitch, which is no hidden card
    cases.append(("the top card's far edge", [(0, 92, 4400), (19, 111, 4400), (39, 135, 4700), (68, 182, 6800)], 0))
    # fresh 33013, a fan of four read whole: its end cards' boxes within 2 % in area, so no end is surely the top
    # card, and the gap measured on the side the larger picked was no card (`FAN_ENDS_ALIKE`)
    cases.append(("ends alike", [(-90.0, 25.5, 6028), (-68.8, 43.2, 5248), (-45.5, 59.7, 4461), (-15.3, 97.2, 5935)],
                  0))
    # fresh 41005, a fan of four held tight: strips 13-19 mm apart, the top card 33 mm on; at such a pitch the
    # boxes' wander makes a gap of two pitches out of one (`FAN_MIN_PITCH_MM`)
    cases.append(("a tight fan", [(-475.0, -349.0, 7705), (-540.0, -439.0, 4310), (-527.0, -419.0, 5480),
                                  (-508.0, -401.0, 5412)], 0))
    cases.append(("the same gap at a pitch the boxes' wander cannot fake", fan([0, 24, 72]), 1))
    for why, backs, hidden in cases:
        assert hidden_in_fan(backs) == hidden, why


def test_a_hidden_fan_card_counts_when_most_reads_find_it() -> None:
    from vision.carry_counts import carry_count

    assert carry_count([3, 3, 3, 3, 3], [1, 1, 1, 1, 0]) == 4  # missed on every read, the gap on most
    assert carry_count([4, 4, 4, 4, 4], [0, 0, 1, 1, 0]) == 4  # boxes wandering on two reads
    assert carry_count([0, 0, 0], [0, 0, 0]) == 0
    assert carry_count([4, 4, 3, 3, 3], [0, 0, 1, 1, 1]) == 4  # the reads that missed one found its gap: four
    # held-out 35016: four seen on one read, three on the rest, two of which found the gap: four, not three
    assert carry_count([4, 3, 3, 3, 3], [0, 1, 0, 1, 0]) == 4
    assert carry_count([4, 3, 3, 3, 3], [0, 0, 0, 1, 0]) == 3  # one read's gap and one read's extra card: three
