"""Draws the engine checks beyond one card a turn: a pending Draw Two / Wild Draw Four drawn in parts, the cards
the next player draws after a last Draw Two or Wild Draw Four (MA-LAST), whose a draw no sense placed is, and a draw
logged just after the "pass" it belongs to.

Why a module of its own: the camera reports each trip to the draw pile as a `draw`, so a +4 often arrives as four
events, and the rules set how many cards, never that they come in one handful (MA-D2, OL-W4, CH-D2, FA-ACTION)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .events import Draw, Event, Reveal

if TYPE_CHECKING:
    from .engine import Game
    from .state import GameState


def short_draw(g: Game, event: Event) -> None:
    """The seat owing a Draw Two or Wild Draw Four drew only part of it and the table moved on (another seat
    acted, or it passed): the short draw's flag becomes final, with its penalty; the cards not drawn stay owed.

    Why it waits: the rules set how many cards, not that they come in one handful, and the camera reports each
    trip to the pile as a draw (MA-D2, OL-W4, CH-D2, FA-ACTION). Until the table moves on, the flag is raised
    without a penalty and is withdrawn if the rest is drawn (`part_draw`)."""
    s = g.state
    seat, kind = s.turn, s.pending_kind
    assert seat is not None
    left, drawn = s.pending, s.pending_paid
    shown = s.flag_index.get(s.short_flag) if s.short_flag is not None else None
    ruled = (shown.status, shown.ruled_at, shown.note) if shown is not None and shown.status != "open" else None
    withdraw_short_flag(g)
    s.pending, s.pending_kind, s.pending_paid = 0, None, 0
    f = g.flag("wrong_draw", seat, event,
               f"{s.name(seat)} drew {drawn} card(s) but had to draw {drawn + left}; the other {left} are still "
               "owed.", line=s.pending_line, t=s.pending_t, detail=g.pending_detail(kind))
    s.counts[seat] += left
    s.owed[seat] += left
    if ruled is not None:  # the referee already ruled on the flag shown at once: the same flag, the same decision
        status, at, note = ruled
        g.rule_flag(f, status, at if at is not None else event.t, note)
    if kind == "wild-draw4" or s.ruleset.d2_costs_turn:
        g.set_turn(g.next_seat(seat), event.t)
    else:
        s.turn_drawn = True
        s.paid_pending = True


def part_draw(g: Game, ev: Draw, seat: int, rest: int) -> None:
    """`rest` cards towards a pending draw that asks for more: flagged at once (a log may end here), without a
    penalty, and the flag is withdrawn if the rest follows before the table moves on (`short_draw`)."""
    s = g.state
    s.pending -= rest
    s.pending_paid += rest
    s.pending_line, s.pending_t = ev.line, ev.t
    withdraw_short_flag(g)
    f = g.flag("wrong_draw", seat, ev, f"{s.name(seat)} drew {s.pending_paid} card(s) but had to draw "
               f"{s.pending_paid + s.pending}.", detail=g.pending_detail(), penalty=0)
    s.short_flag = f.id


def withdraw_short_flag(g: Game) -> None:
    """Take back the penalty-free flag `part_draw` raised (the rest was drawn, or the flag is raised anew)."""
    s = g.state
    if s.short_flag is not None:
        f = s.flag_index.pop(s.short_flag, None)
        if f is not None:
            s.flags.remove(f)
        s.short_flag = None


def after_last_card(g: Game, ev: Draw, seat: int, rest: int) -> None:
    """MA-LAST: after a last Draw Two or Wild Draw Four the next player still draws its cards, which count in
    the score; drawing more, or another seat drawing while they are owed, is flagged like a draw in the hand (the
    cards stay and are scored). Where the hand simply ends (OL-SCORE), or once they are drawn, nothing is checked."""
    s = g.state
    if not rest or not s.ruleset.last_card_draw_counts or s.hand_scored:
        return
    detail = "last.w4" if s.pending_kind == "wild-draw4" else "last"
    if s.pending and seat == s.turn:
        if rest > s.pending:
            g.flag("wrong_draw", seat, ev, f"{s.name(seat)} drew {s.pending_paid + rest} card(s) after the "
                   f"last card, but had to draw {s.pending_paid + s.pending}.", detail=detail, penalty=0)
        s.pending_paid += min(rest, s.pending)
        s.pending = max(0, s.pending - rest)
        if not s.pending:
            s.pending_kind, s.pending_paid = None, 0
        return
    if not s.pending:  # nothing owed: cards taken after the hand are the next deal or a tidy-up, not a move
        return
    g.flag("wrong_draw", seat, ev, f"{s.name(seat)} drew {rest} card(s) after the hand ended, when it had none to "
           f"draw; {s.name(s.turn)} owes the {s.pending} card(s).", detail=detail, penalty=0)


def reveal_without_last_draw(g: Game, ev: Reveal) -> None:
    """MA-LAST: the next player showed its hand without drawing (all of) the last card's Draw Two / Four."""
    s = g.state
    if not (s.pending and ev.seat is not None and ev.seat == s.turn and s.ruleset.last_card_draw_counts):
        return
    drawn, due = s.pending_paid, s.pending_paid + s.pending
    g.flag("wrong_draw", ev.seat, ev, f"{s.name(ev.seat)} showed its hand having drawn {drawn} of the {due} "
           "card(s) the last card made it draw; they count in the score but were not seen.",
           detail="last.w4" if s.pending_kind == "wild-draw4" else "last", penalty=0)
    s.pending, s.pending_kind, s.pending_paid = 0, None, 0


def null_draw_seat(g: Game, ev: Draw) -> int | None:
    """Whose a draw no sense placed is: the one reading the cards' number allows, else the turn's (see README).

    A challenged Wild Draw Four: the +4 player draws the guilty count, the challenger the wrong one; where the
    two are equal (OL-W4C) the count can't tell, and the seat stays unknown rather than settle it either way.
    A pending Draw Two / +4 is the turn seat's to draw. A seat owing penalty cards is the drawer only when the
    count is what it owes."""
    s = g.state
    w4 = s.w4
    if w4 is not None and w4.challenger is not None:
        r = s.ruleset
        if r.w4_guilty_draw == r.w4_wrong_draw:
            return None
        if ev.count == r.w4_guilty_draw:
            return w4.seat
        if ev.count == r.w4_wrong_draw:
            return w4.challenger
    if s.pending and s.turn is not None:
        return s.turn
    owing = [i for i in range(s.n) if s.owed[i] == ev.count]
    if len(owing) == 1 and ev.count > 0:
        return owing[0]
    return s.turn


def is_pass_draw(s: GameState, ev: Event, seat: int | None) -> bool:
    """Whether `ev` is the draw a "pass" heard just before it was about (`draw_after_pass`): the same seat, the very
    next game event, within the speech timing tolerance, of one card or of the Draw Two's / +4's cards owed."""
    p = s.drawless_pass
    return (isinstance(ev, Draw) and p is not None and seat == p[0] and ev.t - p[1] <= s.ruleset.uno_call_lead_s
            and ev.count == (p[4] or 1))


def draw_after_pass(g: Game, ev: Draw, seat: int) -> bool:
    """The draw a "pass" just before it was about: the same seat, within the speech timing tolerance, the very
    next event (the word is decided before the camera decides the draw), of one card, or of exactly the Draw Two's
    or Wild Draw Four's cards the seat owed when it passed. The pass's flag is withdrawn and its penalty given back,
    and the cards count as that turn's draw; the turn stays where the pass moved it.
    Returns False (nothing done) for any other draw."""
    s = g.state
    assert s.drawless_pass is not None
    who, _t, fid, before, owed = s.drawless_pass
    if not is_pass_draw(s, ev, seat):
        s.drawless_pass = None
        return False
    s.drawless_pass = None
    f = s.flag_index.pop(fid, None)
    if f is not None:
        s.flags.remove(f)
        if f.penalty:
            s.counts[who] -= f.penalty
            s.owed[who] -= min(f.penalty, s.owed[who])
            s.penalty_turn[who] = before
    g.take_from_pile(ev.count, ev)
    if owed:  # the pass charged the owed cards to the hand: this draw is them
        s.owed[who] -= min(owed, s.owed[who])
    else:
        s.counts[who] += ev.count
    return True
