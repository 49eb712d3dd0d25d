"""The 108 cards themselves: the draw pile, the faces seen this hand, and reveals the deck can't hold.

Why a module of its own: the engine counts cards (hands, the draw pile, the discard pile) to know who owes what, and
a log written by senses can account for cards the deck doesn't have (a draw larger than both piles, the only red 0
revealed while it lies on the discard pile, five Wilds shown). No player broke a rule there, a sense misread, so the
engine keeps the log's numbers and warns (README: what it had to ignore or guess goes to `warning:` lines); the
referee's correction of the misread line then gives the right game.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from .cards import Card, deck
from .events import Event

if TYPE_CHECKING:
    from .engine import Game

COPIES: Counter[str] = Counter(c.code for c in deck())


def take_from_pile(g: Game, count: int, event: Event | None = None) -> None:
    """Cards leave the draw pile; an empty pile is restocked from the discard pile minus its top card (which then
    is the only face of the discard pile still seen). More cards than both piles hold: the log is believed, with a
    warning when the event is known."""
    s = g.state
    s.draw_pile -= count
    if s.draw_pile < 0 and s.discard > 1:
        s.draw_pile += s.discard - 1
        s.discard = 1
        s.faces_seen = {s.top.code: 1} if s.top is not None else {}
    if s.draw_pile < 0:
        if event is not None:
            g.warn(event, f"{count} card(s) drawn, {count + s.draw_pile} left in the draw pile and the discard "
                          "pile: the log accounts for more cards than the 108-card deck")
        s.draw_pile = 0


def seen(g: Game, cards: tuple[Card, ...] | list[Card], sign: int = 1) -> None:
    """Faces laid face up this hand (a kept starter, cards played); `sign` -1 takes one back (OL-W4-CHALLENGE)."""
    faces = g.state.faces_seen
    if sign > 0:
        for c in cards:
            faces[c.code] = faces.get(c.code, 0) + 1
        return
    for c in cards:
        faces[c.code] = max(0, faces.get(c.code, 0) - 1)  # a card taken back into a hand


def check_reveal(g: Game, ev: Event, seat: int, cards: tuple[Card, ...]) -> None:
    """Warn when a revealed hand, with the faces on the discard pile and the other hands shown this hand, holds more
    copies of a card than the deck has (one 0 a colour, two of each other coloured card, four of each black one)."""
    s = g.state
    shown = Counter(s.faces_seen)
    for other, hand in s.reveals.items():
        if other != seat:
            shown.update(c.code for c in hand)
    shown.update(c.code for c in cards)
    over = sorted(code for code in {c.code for c in cards} if shown[code] > COPIES[code])
    if over:
        g.warn(ev, f"{s.name(seat)} revealed {', '.join(over)}: with the cards seen this hand that is more than the "
                   "deck has (a misread card?)")


def revealed_again(g: Game, ev: Event, seat: int, cards: tuple[Card, ...]) -> bool:
    """A seat shows its hand a second time, differently: the later reveal is the one scored (MA-LAST: the cards
    drawn after the last Draw Two or +4 count), and a hand already scored is scored again. True when it was."""
    s = g.state
    before = s.reveals.get(seat)
    if before is None or sorted(c.code for c in before) == sorted(c.code for c in cards):
        return False
    g.warn(ev, f"{s.name(seat)} revealed its hand again, differently: the later reveal is scored")
    if s.hand_scored and s.hand_scores:
        from .scoring import unscore_last_hand

        unscore_last_hand(g)
    return True
