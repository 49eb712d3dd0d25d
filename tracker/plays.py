"""Laying cards: who may, what fits, and what the cards do (matching, stacking, jump-ins, pairs, 7-0)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .calls import colour_heard_before, open_uno_watch
from .cards import Card
from .deck import seen
from .draws import short_draw, withdraw_short_flag
from .events import Play, Starter

if TYPE_CHECKING:
    from .engine import Game


def fits(card: Card, top: Card | None, color: str | None) -> bool:
    """CH-MATCH / FA-TURN / MA-MATCH / OL-MATCH: same colour, same number or symbol, or a black card."""
    if card.is_wild or top is None or color is None:
        return True
    return card.color == color or (not top.is_wild and card.value == top.value)


def jump_in_allowed(jump_in: str, top: Card) -> bool:
    if jump_in == "identical_numbers":
        return top.is_number
    if jump_in == "identical_non_wild":
        return not top.is_wild
    return False


def _multi_ok(g: Game, cards: tuple[Card, ...]) -> tuple[bool, str | None]:
    r = g.state.ruleset
    k = len(cards)
    if r.multi_play == "none" or k > r.multi_max:
        return False, None
    first = cards[0]
    if r.multi_play == "same_color_actions":
        return all(c.is_action and c.color == first.color for c in cards), None
    # identical: self-interception (OL-INTERCEPT), never 0 or 7 under 7-0 (OL-70-ONE), never black cards
    if r.seven_zero and first.value in ("0", "7"):
        return False, "seven_zero"
    return all(c is first for c in cards) and not first.is_wild, None


def _stack_ok(g: Game, cards: tuple[Card, ...]) -> bool:
    s = g.state
    r = s.ruleset
    if s.pending_kind == "draw2":
        return r.d2_chain and all(c.value == "draw2" for c in cards)
    if s.pending_kind == "wild-draw4":
        return r.w4_on_w4 != "forbid" and all(c.value == "wild-draw4" for c in cards)
    return False


def _describe(cards: tuple[Card, ...]) -> str:
    return " + ".join(c.code for c in cards)


def check_play(g: Game, ev: Play, seat: int, is_turn: bool) -> None:
    """Raise at most one flag about how the cards were laid (see the engine's module docstring for the order)."""
    s = g.state
    r = s.ruleset
    cards = ev.cards
    top = s.top
    if is_turn and not s.starter_bad and not s.pending and len(cards) == 1 and fits(cards[0], top, s.color):
        return  # the common case: one fitting card on your turn
    who = s.name(seat)
    laid = _describe(cards)
    if not is_turn:
        identical = top is not None and all(c is top for c in cards)
        if identical and jump_in_allowed(r.jump_in, top):  # type: ignore[arg-type]
            if len(cards) > 1 and not _multi_ok(g, cards)[0]:
                g.flag("too_many_cards", seat, ev, f"{who} jumped in with {laid}: more cards than the rules allow.")
            return
        same_value = top is not None and not top.is_wild and all(c.value == top.value for c in cards)
        if identical or (r.jump_in != "none" and same_value):
            why = "jumping in is not allowed" if r.jump_in == "none" or identical else "the card is not identical"
            if identical and r.jump_in != "none":
                why = f"no jump-in on {top.code}"  # type: ignore[union-attr]
            g.flag("illegal_jump_in", seat, ev, f"{who} jumped in with {laid} on {top.code}: {why}.")  # type: ignore[union-attr]
        else:
            # the first play of a hand whose action starter chose who begins cites the starter's clause (MA-START)
            starter = s.plays_this_hand == 0 and top is not None and top.is_action
            g.flag("out_of_turn", seat, ev, f"{who} laid {laid} when it was {s.name(s.turn)}'s turn.",
                   detail="starter" if starter else None)
        return
    if s.starter_bad:
        g.flag("bad_starter", seat, ev,
               f"{who} played on the starter {top.code if top else '?'}, which the rules send back to the deck.")
        return
    if s.pending:
        if _stack_ok(g, cards):
            if len(cards) > 1 and not _multi_ok(g, cards)[0]:  # a stack of several is still a multi-play
                g.flag("too_many_cards", seat, ev, f"{who} laid {laid} together, which the rules don't allow.")
            return
        if cards[0].is_draw:
            detail = "w4" if "wild-draw4" in (cards[0].value, s.pending_kind) else None
            g.flag("illegal_stack", seat, ev,
                   f"{who} laid {laid} on a pending draw of {s.pending}: stacking that is not allowed here.",
                   detail=detail)
        else:
            g.flag("wrong_draw", seat, ev, f"{who} laid {laid} instead of drawing the {s.pending} card(s) owed.",
                   detail=g.pending_detail())
        return
    if len(cards) > 1 and s.turn_drawn and not r.draw_until_playable and not s.paid_pending:
        # CH-DRAW / MA-DRAW / OL-MATCH: after drawing, only the drawn card may be laid; two came partly from the hand
        g.flag("too_many_cards", seat, ev, f"{who} drew and then laid {laid}: only the drawn card may follow a draw.",
               detail="after_draw")
        return
    if len(cards) > 1:
        ok, detail = _multi_ok(g, cards)
        if not ok:
            g.flag("too_many_cards", seat, ev, f"{who} laid {laid} together, which the rules don't allow.",
                   detail=detail)
            return
    if not fits(cards[0], top, s.color):
        g.flag("illegal_card", seat, ev,
               f"{who} laid {cards[0].code} on {top.code if top else '?'} with {s.color} in force: "
               f"it matches neither colour nor number or symbol.")


def apply_play(g: Game, ev: Play) -> None:
    s = g.state
    if not s.players:
        g.warn(ev, "a play before match_start; ignored")
        return
    seat = ev.seat
    inferred = False
    if seat is None:
        seat = s.turn
        inferred = True
        if seat is None:
            g.warn(ev, "a play no seat can be found for (no turn yet); ignored")
            return
        assert ev.line is not None
        s.infer(ev.line, "play", seat, "the one whose turn it was")
    if seat >= s.n:
        g.warn(ev, f"seat {seat} does not exist at a {s.n}-seat table; play ignored")
        return
    if s.phase == "hand_over":
        g.warn(ev, f"{s.name(seat)} played after the hand ended; ignored")
        return
    if (s.starter_bad and not s.plays_this_hand and len(ev.cards) == 1
            and (inferred or (seat == s.dealer and seat != s.turn))):
        # CH-START / MA-START: a returned starter is replaced by the dealer turning the next card. A camera sees
        # the dealer's hand put a card on the pile and reports a play; read it as the replacement starter (the
        # dealer laying a card from the hand here is not a move any ruleset has). A card no sense placed is read
        # so too: it is the one reading that breaks no rule, and a hand the camera can't place is the usual case.
        from .starter import apply_starter

        if inferred:
            assert ev.line is not None
            s.uninfer(ev.line)  # read as a starter: no seat laid it
            g.warn(ev, f"a card no sense placed, {ev.cards[0].code}, laid on a returned starter: read as the "
                       "replacement starter")
        else:
            g.warn(ev, f"{s.name(seat)} (the dealer) laid {ev.cards[0].code} on a returned starter: read as the "
                       "replacement starter")
        apply_starter(g, Starter(t=ev.t, line=ev.line, source=ev.source, card=ev.cards[0], color=ev.color,
                                 target=ev.target))
        return
    if s.phase != "playing" or s.turn is None:
        g.warn(ev, f"{s.name(seat)} played before a starter card was turned")
        if s.turn is None:
            return
    if s.pending_paid and seat != s.turn and s.turn is not None:  # another seat plays on a draw made in part
        if _intercepts_pending_draw2(g, ev):
            # OL-D2-INTERCEPT: "As soon as he/she has seen them he/she needs to keep them": the seat owing the Draw
            # Two keeps what it drew and still draws the rest, with no flag; the interceptor's card starts a new 2
            withdraw_short_flag(g)
            s.counts[s.turn] += s.pending
            s.owed[s.turn] += s.pending
            s.pending, s.pending_kind, s.pending_paid = 0, None, 0
        else:
            short_draw(g, ev)  # the turn that owed a draw was left short
    if seat != s.turn and s.turn_drawn and not s.pending and seat == g.next_seat(s.turn):
        g.set_turn(seat, ev.t)  # the previous seat drew and kept the card without saying "pass"
    is_turn = seat == s.turn
    flags_before = len(s.flags)
    # a pending draw is the owing seat's (CH-D2, OL-D2, MA-W4, FA-ACTION): a mistaken card doesn't take it away,
    # another seat's nor the owing seat's own laid instead of drawing (flagged); the table goes on from that card as
    # ever, and the owing seat still draws the cards (owed, as after a "pass" instead of drawing)
    owing = (s.turn, s.pending) if s.pending and s.turn is not None else None
    check_play(g, ev, seat, is_turn)
    mistaken = owing is not None and any(f.seat == seat for f in s.flags[flags_before:])
    resolve(g, ev, seat, inferred, flags_before)
    if owing is not None and mistaken and not any(c.is_draw for c in ev.cards):
        s.counts[owing[0]] += owing[1]
        s.owed[owing[0]] += owing[1]
        if is_turn:  # what it drew of it stands (its penalty-free short flag too); the rest is owed now
            s.pending_paid, s.short_flag = 0, None


def _intercepts_pending_draw2(g: Game, ev: Play) -> bool:
    """The card laid out of turn is a legal interception of the Draw Two being drawn (OL-D2-INTERCEPT)."""
    s = g.state
    top = s.top
    return (s.pending_kind == "draw2" and top is not None and all(c is top for c in ev.cards)
            and jump_in_allowed(s.ruleset.jump_in, top))


def resolve(g: Game, ev: Play, seat: int, inferred: bool, flags_before: int) -> None:
    """Move the cards and carry out what they do. `flags_before`: how many flags there were before the play was
    checked (a play that raised one on its own seat was not legal)."""
    s = g.state
    r = s.ruleset
    cards = ev.cards
    k = len(cards)
    before = s.counts[seat]
    if before < k:
        g.warn(ev, f"{s.name(seat)} laid {k} card(s) but the log accounts for only {before}")
    s.counts[seat] = max(0, before - k)
    s.discard += k
    seen(g, cards)
    s.plays_this_hand += 1
    s.starter_bad = False
    prev_top, prev_color = s.top, s.color
    last = cards[-1]
    s.top = last
    s.awaiting_color = None
    if last.is_wild:
        color = ev.color if ev.color is not None else colour_heard_before(g, seat, ev.t)
        s.color = color
        if color is None:
            deadline = ev.t + r.color_grace_s if r.color_release else None
            assert ev.line is not None
            s.awaiting_color = (seat, ev.line, deadline, "w4" if last.value == "wild-draw4" else None, s.turn_id)
    else:
        s.color = last.color
    s.last_color_call = None
    s.last_play = (seat, cards, ev.line, inferred, ev.t)
    s.w4 = None
    owed = s.owed[seat]  # penalty cards not drawn yet are not in the hand
    if s.counts[seat] - owed == 1 and before - owed > 1:
        open_uno_watch(g, seat, ev)
        s.last_uno_anon = -1e9
    elif s.counts[seat] - owed != 1:
        s.uno_called[seat] = False
        # a call before a play that leaves two or more cards answered nothing, the seat's own or an unattributed one
        s.last_uno_call[seat] = s.last_uno_anon = -1e9

    skips = 0
    for i, c in enumerate(cards):
        if c.is_number:
            continue
        if c.value == "reverse":
            if s.n == 2 and r.two_player_reverse_skips:
                skips += 1
            else:
                s.direction = -s.direction
        elif c.value == "skip":
            skips += 1
        elif c.value == "draw2":
            # two laid together add up (CH-PAIR: "их действия суммируются"), chains or not; `d2_chain` says
            # whether a Draw Two laid on a pending one adds
            if s.pending and s.pending_kind == "draw2" and (r.d2_chain or i > 0):
                s.pending += 2
            else:
                s.pending = 2
            s.pending_kind = "draw2"
        elif c.value == "wild-draw4":
            if s.pending and s.pending_kind == "wild-draw4" and r.w4_on_w4 == "sum":
                s.pending += 4
            else:
                s.pending = 4
            s.pending_kind = "wild-draw4"
    made_draw = any(c.is_draw for c in cards)  # a pair of a Draw Two and a Skip or Reverse (CH-PAIR): both act
    if s.pending and not made_draw:  # a non-draw card laid on a pending draw (flagged): that draw is gone
        s.pending, s.pending_kind = 0, None
    nxt = g.next_seat(seat, 1 + skips)
    if made_draw and s.pending and nxt == seat:  # (a Skip with it at two seats) the Draw Two is the other's
        nxt = g.next_seat(seat, 1)
    winner = seat if s.counts[seat] == 0 else None
    if (winner is None and r.uno_call_deadline == "next_turn" and s.counts[seat] <= s.owed[seat]
            and not any(f.seat == seat for f in s.flags[flags_before:])):
        # the seat laid its last card while penalty cards it never drew were still charged to it (a missed UNO
        # closed by this very play, its own next turn at two seats, when MA-UNO allows no catch any more; or one
        # the table never made it draw): its hand is empty, so the hand is over (MA-SCORE "Once a player has no
        # cards left", FA-WIN); the flags stand. Where UNO is said while laying the card (CH-UNO, OL-UNO), laying
        # the last card without it is the catch itself, and the penalty keeps the seat in the hand.
        g.warn(ev, f"{s.name(seat)} laid its last card still owing {s.owed[seat]} penalty card(s) it never drew: "
                   "it is out, and those cards are not charged")
        s.counts[seat] = s.owed[seat] = 0
        winner = seat
    if r.seven_zero and last.value in ("0", "7"):
        exchange(g, ev, seat, last.value, ev.target, inferred)
        winner = next((i for i in range(s.n) if s.counts[i] == 0), None)
    if winner is not None:
        end_hand(g, ev, winner)
        if s.pending and r.last_card_draw_counts:
            s.turn = nxt
        else:
            s.pending, s.pending_kind = 0, None
        return
    g.set_turn(nxt, ev.t)
    if last.value == "wild-draw4":  # kept so that the seat that must draw four can challenge it
        from .state import W4Play

        assert ev.line is not None and s.turn is not None
        s.w4 = W4Play(seat, ev.line, ev.t, prev_top, prev_color, s.turn)


def exchange(g: Game, ev: Play, seat: int, value: str, target: int | None, inferred: bool = False) -> None:
    """OL-ZERO / OL-SEVEN: hands pass round or swap; penalty cards received this turn stay (OL-70-PENALTY).

    `inferred`: no sense placed the 7, and the seat given it is the turn's. If the 7 names that very seat, the guess
    is what is wrong (a seat doesn't name itself): no penalty and no swap, a warning for the referee."""
    s = g.state
    if value == "7" and inferred and target == seat:
        g.warn(ev, f"a 7 naming {s.name(seat)} was laid by a seat no sense placed (the turn was {s.name(seat)}'s): "
                   "hands not swapped; a referee's correction can name the seat")
        return
    n = s.n
    kept = [s.fresh_penalty[i] + s.owed[i] for i in range(n)]  # penalty cards (drawn this turn, or still owed)
    moving = [s.counts[i] - min(kept[i], s.counts[i]) for i in range(n)]
    stays = [s.counts[i] - moving[i] for i in range(n)]
    new = list(stays)
    if value == "0":
        for i in range(n):
            new[(i + s.direction) % n] += moving[i]
    else:
        if target is None and n == 2:  # the only other player: nobody need be named (OL-SEVEN "must exchange")
            target = 1 - seat
        if target is None or target >= n or target == seat:
            g.flag("no_target", seat, ev, f"{s.name(seat)} laid a 7 without naming whose hand to swap with.")
            return
        new = list(s.counts)
        new[seat] = stays[seat] + moving[target]
        new[target] = stays[target] + moving[seat]
    changed = list(range(n)) if value == "0" or target is None else [seat, target]  # seats with a new hand
    s.counts = new
    # the layer's call for laying its next-to-last 0 or 7 (made, or its window still open for it) answers what it
    # receives too; a layer that laid it from more cards and receives a single one calls like anyone (OL-70-UNO)
    layer_called = s.uno_called[seat] or any(w.seat == seat for w in s.watches)
    for i in changed:
        single = new[i] - s.owed[i] == 1
        if i == seat and layer_called and single:
            continue
        s.uno_called[i] = False
        if single:
            open_uno_watch(g, i, ev, detail="receive")


def end_hand(g: Game, ev: Play, winner: int) -> None:
    s = g.state
    s.phase = "hand_over"
    s.hand_winner = winner
    s.watches = []
    s.awaiting_color = None
    s.reveals = {}
