"""The starter card: how the card turned to open the discard pile acts, per ruleset (CH-START, MA-START, FA-START,
OL-START)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .calls import colour_heard_before
from .deck import seen
from .events import Play, Starter

if TYPE_CHECKING:
    from .engine import Game


def apply_starter(g: Game, ev: Starter) -> None:
    """A card turned to start the discard pile. After a starter the rules keep (nothing played yet), another one is
    read as a card turned on top of it (a warning: the rules turn again only after a card they send back)."""
    s = g.state
    kept = s.discard if s.phase == "playing" and not s.starter_bad and not s.plays_this_hand else 0
    if kept and ev.card is not None and s.top is not None:
        g.warn(ev, f"a starter, {ev.card.code}, after {s.top.code}, which the rules keep: read as a card turned on top")
    _turn_starter(g, ev)
    if kept and s.phase == "playing" and not s.plays_this_hand:
        s.discard += kept  # the cards turned before stay under it
    if ev.card is not None and not s.starter_bad and s.phase == "playing":
        seen(g, (ev.card,))


def _turn_starter(g: Game, ev: Starter) -> None:
    s = g.state
    r = s.ruleset
    card = ev.card
    assert card is not None
    if s.phase not in ("starting", "playing") or not s.players:
        g.warn(ev, "a starter card outside a hand; ignored")
        return
    if s.plays_this_hand:
        g.warn(ev, "a starter card after play began; ignored")
        return
    assert s.dealer is not None
    dealer = s.dealer
    g.take_from_pile(1, ev)
    s.top = card
    s.color = card.color if not card.is_wild else ev.color
    s.pending, s.pending_kind = 0, None
    s.direction = 1
    s.phase = "playing"
    s.starter_bad = False
    first = (dealer + 1) % s.n
    if r.starter == "number_only":  # CH-START: only a number card may start; others go back into the pile
        if not card.is_number:
            s.draw_pile += 1
            s.starter_bad = True
        s.discard = 0 if s.starter_bad else 1
        g.set_turn(first, ev.t)
        return
    if r.starter == "mattel":  # MA-START / FA-START
        s.discard = 1
        if card.value == "wild-draw4":
            s.draw_pile += 1
            s.discard = 0
            s.starter_bad = True
            g.set_turn(first, ev.t)
        elif card.value == "draw2":
            s.pending, s.pending_kind = 2, "draw2"
            g.set_turn(first, ev.t)
        elif card.value == "reverse":
            s.direction = -1
            g.set_turn(dealer, ev.t)
        elif card.value == "skip":
            g.set_turn((dealer + 2) % s.n, ev.t)
        else:
            g.set_turn(first, ev.t)
            if card.is_wild and s.color is None and s.turn is not None:
                _colour_heard(g, ev, s.turn)  # MA-START: the player to the dealer's left names it
        return
    # OL-START: the turned card is the dealer's own first play and its action applies
    s.discard = 1
    skips = 0
    if card.value == "reverse" and s.n == 2 and r.two_player_reverse_skips:
        skips = 1  # FA-ACTION / MA-TWO: with two players a Reverse acts as a Skip, as when played
    elif card.value == "reverse":
        s.direction = -1
    elif card.value == "skip":
        skips = 1
    elif card.value == "draw2":
        s.pending, s.pending_kind = 2, "draw2"
    elif card.value == "wild-draw4":
        s.pending, s.pending_kind = 4, "wild-draw4"
    nxt = g.next_seat(dealer, 1 + skips)
    if card.is_wild and s.color is None:
        _colour_heard(g, ev, dealer)  # OL-START: the dealer's own first play, the dealer names it
        if s.color is None:
            assert ev.line is not None
            s.awaiting_color = (dealer, ev.line, None, "starter", s.turn_id)
    if r.seven_zero and card.value in ("0", "7"):  # a turned 7 names its target as a played one (else no_target)
        from .plays import exchange

        exchange(g, Play(t=ev.t, line=ev.line, seat=dealer, cards=(card,), target=ev.target), dealer, card.value,
                 ev.target)
    g.set_turn(nxt, ev.t)



def _colour_heard(g: Game, ev: Starter, namer: int) -> None:
    """A colour `namer` was heard naming just before the camera saw the turned Wild is its colour."""
    named = colour_heard_before(g, namer, ev.t)
    if named:
        g.state.color = named
        g.state.last_color_call = None
