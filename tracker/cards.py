"""Cards and the 108-card deck, spelled as in EVENTS.md (`red-7`, `blue-reverse`, `wild-draw4`).

Cards are interned strings wrapped in a small frozen dataclass so that the engine can compare them by identity
and look their properties up in O(1): replaying 100,000 events must not re-parse card text on every check.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

COLORS: tuple[str, ...] = ("red", "yellow", "green", "blue")
NUMBERS: tuple[str, ...] = tuple(str(i) for i in range(10))
ACTIONS: tuple[str, ...] = ("skip", "reverse", "draw2")
WILDS: tuple[str, ...] = ("wild", "wild-draw4")


class CardError(ValueError):
    """An unknown card code; the message names the code and what would have been valid."""


@dataclass(frozen=True, slots=True)
class Card:
    """One face of the deck. `color` is None for the two black cards.

    The kind flags are plain fields computed once, not properties: the engine reads them on every play.
    """

    code: str
    color: str | None
    value: str  # "0".."9", "skip", "reverse", "draw2", "wild", "wild-draw4"
    is_number: bool = field(init=False, compare=False)
    is_action: bool = field(init=False, compare=False)  # a coloured action card: Skip, Reverse, Draw Two
    is_wild: bool = field(init=False, compare=False)  # a black card: Wild or Wild Draw Four
    is_draw: bool = field(init=False, compare=False)
    points: int = field(init=False, compare=False)  # CH-SCORE, MA-SCORE, OL-SCORE

    def __post_init__(self) -> None:
        number = self.value in NUMBERS
        action = self.value in ACTIONS
        object.__setattr__(self, "is_number", number)
        object.__setattr__(self, "is_action", action)
        object.__setattr__(self, "is_wild", self.color is None)
        object.__setattr__(self, "is_draw", self.value in ("draw2", "wild-draw4"))
        object.__setattr__(self, "points", int(self.value) if number else 20 if action else 50)

    def __str__(self) -> str:
        return self.code

    def __copy__(self) -> Card:
        return self  # cards are interned: the engine compares them by identity

    def __deepcopy__(self, memo: dict[int, object]) -> Card:
        return self


def _build() -> dict[str, Card]:
    table: dict[str, Card] = {}
    for color in COLORS:
        for value in NUMBERS + ACTIONS:
            code = f"{color}-{value}"
            table[code] = Card(code, color, value)
    for value in WILDS:
        table[value] = Card(value, None, value)
    return table


CARDS: dict[str, Card] = _build()
"""All 54 faces by code."""

ALL_CODES: tuple[str, ...] = tuple(CARDS)


def card(code: str) -> Card:
    """The card for `code`; raises CardError naming the code when there is no such card."""
    try:
        return CARDS[code]
    except (KeyError, TypeError):
        raise CardError(
            f"unknown card {code!r}: expected e.g. 'red-7', 'blue-skip', 'green-reverse', 'yellow-draw2', "
            f"'wild' or 'wild-draw4'"
        ) from None


@lru_cache(maxsize=1)
def deck() -> tuple[Card, ...]:
    """The 108-card deck: per colour one 0, two each of 1-9, Skip, Reverse, Draw Two; four Wild, four Wild Draw Four."""
    cards: list[Card] = []
    for color in COLORS:
        cards.append(CARDS[f"{color}-0"])
        for value in NUMBERS[1:] + ACTIONS:
            cards.extend([CARDS[f"{color}-{value}"]] * 2)
    for value in WILDS:
        cards.extend([CARDS[value]] * 4)
    return tuple(cards)


def hand_points(cards: list[Card] | tuple[Card, ...]) -> int:
    """The points a hand is worth under the common scoring values."""
    return sum(c.points for c in cards)
