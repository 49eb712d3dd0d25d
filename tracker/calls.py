"""UNO calls and colour calls: the windows in which a seat must call, and what a heard call answers (CH-UNO, FA-UNO,
MA-UNO, OL-UNO, OL-70-UNO, FA-EARLY; the colour of a black card: FA-ACTION, OL-WILD, OL-W4, OL-START).

Why a module of its own: the calls come from the microphone, not the camera, and arrive a little before or after the
play they belong to; how long each may lead or trail its play is the one thing here the senses' timing decides.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .draws import is_pass_draw
from .events import ColorCall, Draw, Event, HandStart, MatchStart, Play, Uno
from .state import UnoWatch

if TYPE_CHECKING:
    from .engine import Game


def close_windows(g: Game, event: Event, seat: int | None) -> None:
    """Flag every UNO / colour window this event closes: by time, or because the next turn began."""
    s = g.state
    # the next turn began: a card laid (even out of turn: the table goes on from it, as `resolve` does), or a
    # draw by the seat whose turn it is (MA-UNO: "after the next player begins his turn"); another seat drawing
    # out of turn starts nothing
    turn_start = isinstance(event, Play) or (
        isinstance(event, Draw) and seat is not None and seat == s.turn and s.owed[seat] == 0) or (
        is_pass_draw(s, event, seat))  # the turn's draw, logged just after the "pass" that moved the turn on
    if s.watches:
        r = s.ruleset
        # a seat on one uncalled card that draws exactly the missed call's penalty was caught and pays it (MA-UNO
        # "you having to pick two cards ... if you get caught"): not a turn's draw, nor a draw out of turn
        paying = (isinstance(event, Draw) and seat is not None and r.uno_penalty > 0 and event.count == r.uno_penalty
                  and not (s.pending and seat == s.turn) and not s.uno_called[seat]
                  and any(w.seat == seat for w in s.watches))
        keep: list[UnoWatch] = []
        for w in s.watches:
            if paying and w.seat == seat:
                f = g.flag("missed_uno", seat, event, f"{s.name(seat)} came down to one card without calling UNO, "
                           "was caught and drew the penalty.", t=event.t, line=w.line, detail=w.detail,
                           turn_id=w.turn_id)
                g.let_draw_pay(seat, f.penalty)
                continue
            by_time = w.deadline is not None and event.t > w.deadline
            by_turn = turn_start  # the next turn began (the seat's own, after a Skip at a two-seat table)
            if (by_time or by_turn) and not s.uno_called[w.seat]:
                when = w.deadline if by_time and w.deadline is not None else event.t
                what = ("received a single card in a 0/7 exchange" if w.detail == "receive"
                        else "came down to one card")
                g.flag("missed_uno", w.seat, event, f"{s.name(w.seat)} {what} and did not call UNO in time.",
                       t=when, line=w.line, detail=w.detail, turn_id=w.turn_id)
            elif not (by_time or by_turn):
                keep.append(w)
        s.watches = keep
    if s.awaiting_color is not None:
        who, line, deadline, detail, made_in = s.awaiting_color
        by_time = deadline is not None and event.t > deadline
        if by_time or turn_start:
            s.awaiting_color = None
            r = s.ruleset
            if s.color is None and (r.color_must_announce or (detail == "w4" and r.w4_color_must_announce)):
                g.flag("no_color", who, event, f"{s.name(who)} laid a black card without naming a colour.",
                       t=deadline if by_time and deadline is not None else event.t, line=line, detail=detail,
                       turn_id=made_in)


def open_uno_watch(g: Game, seat: int, event: Event, detail: str | None = None) -> None:
    """A seat came down to one card: a call just before counts (CH-UNO, MA-UNO...), else its window opens."""
    s = g.state
    r = s.ruleset
    last = max(s.last_uno_call[seat], s.last_uno_anon)
    if detail is None and event.t - last <= r.uno_call_lead_s:
        s.uno_called[seat] = True
        if s.last_uno_anon > s.last_uno_call[seat] and s.last_uno_anon_line is not None:
            s.infer(s.last_uno_anon_line, "uno", seat, "the one that laid the card just after")
        s.last_uno_call[seat] = s.last_uno_anon = -1e9  # a call answers one play only
        return
    s.uno_called[seat] = False
    deadline = event.t + r.uno_call_grace_s if (r.uno_call_deadline == "release" and detail is None) else None
    assert event.line is not None
    s.watches.append(UnoWatch(seat, event.t, event.line, deadline, detail, s.turn_id))


def hear_uno(g: Game, ev: Uno) -> None:
    """An UNO heard: it closes the seat's open window, is early (FA-EARLY), or waits for the play it precedes."""
    s = g.state
    if not s.players:
        return
    seat = g.resolve_seat(ev)
    if seat is None:
        s.last_uno_anon, s.last_uno_anon_line = ev.t, ev.line
        return
    if seat >= s.n:
        return
    if ev.seat is None:  # the seat whose window is open
        assert ev.line is not None
        s.infer(ev.line, "uno", seat, "the one whose UNO window was open")
    for w in s.watches:
        if w.seat == seat:
            s.watches = [x for x in s.watches if x is not w]
            s.uno_called[seat] = True
            return
    held = max(0, s.counts[seat] - s.owed[seat])
    r = s.ruleset
    caught = [w for w in s.watches if w.seat != seat and not s.uno_called[w.seat]]
    if held >= 3 and ev.seat is not None and s.phase == "playing" and caught:
        # another seat sits on one card it didn't call, and this seat's own UNO can't be due yet: this "UNO" is the
        # catch (FA-UNO "another player ... catches you"; CH-UNO's friends "напомнить «УНО!»"), not an early call.
        # Where the call is due before the next turn (MA-UNO), the caught seat is no longer safe: "catches himself
        # before any other player catches him"
        if r.uno_call_deadline == "next_turn":
            s.watches = [w for w in s.watches if w not in caught]
            for w in caught:
                g.flag("missed_uno", w.seat, ev, f"{s.name(w.seat)} came down to one card without calling UNO and "
                       f"was caught by {s.name(seat)}.", t=ev.t, line=w.line, detail=w.detail, turn_id=w.turn_id)
        return
    if held >= 3 and ev.seat is not None and s.phase == "playing" and r.early_uno_penalty:
        if r.multi_play != "none" and held - r.multi_max <= 1:
            # several cards may be laid at once: the call is right if the seat's next play leaves it one card
            # (OL-UNO "Before playing your next to last card"), early otherwise (`settle_early_call`)
            s.early_wait[seat] = (ev, s.turn_id, held)
            s.last_uno_call[seat] = ev.t
            return
        _early(g, ev, seat, held)
        return
    if held == 1:
        s.uno_called[seat] = True
    s.last_uno_call[seat] = ev.t


def _early(g: Game, ev: Event, seat: int, held: int, turn_id: int | None = None) -> None:
    """FA-EARLY: "one penalty card" (OL-PENALTY: a mistake, 2); "UNO! UNO!" heard as two words is one early call
    while the hand is the same."""
    s = g.state
    if s.early_uno_seen.get(seat) != (s.hand, held, s.plays_this_hand):
        s.early_uno_seen[seat] = (s.hand, held, s.plays_this_hand)
        g.flag("early_uno", seat, ev, f"{s.name(seat)} called UNO holding {held} cards.", turn_id=turn_id)


def settle_early_call(g: Game, event: Event) -> None:
    """A call that waited for the seat's next play (`hear_uno`): that play leaving exactly one card made it right;
    any other play of that seat, or the lead time running out first, makes it early."""
    s = g.state
    lead = s.ruleset.uno_call_lead_s
    for seat, (call, turn_id, held_then) in list(s.early_wait.items()):
        own_play = isinstance(event, Play) and event.seat == seat
        if not own_play and event.t - call.t <= lead and not isinstance(event, HandStart | MatchStart):
            continue
        del s.early_wait[seat]
        held = max(0, s.counts[seat] - s.owed[seat])
        if isinstance(event, Play) and own_play and held - len(event.cards) == 1:
            continue
        _early(g, call, seat, held_then, turn_id)


def colour_heard_before(g: Game, seat: int, t: float) -> str | None:
    """The colour heard just before a black card `seat` laid or turned at `t` (from that seat or an unattributed
    voice, within `uno_call_lead_s`): speech can decide a word before the camera decides the card."""
    s = g.state
    if s.last_color_call is None:
        return None
    heard_t, who, named = s.last_color_call
    return named if (who is None or who == seat) and 0 <= t - heard_t <= s.ruleset.uno_call_lead_s else None


def hear_color(g: Game, ev: ColorCall) -> None:
    """A colour named: by the seat that laid the black card, or kept for the play it precedes."""
    s = g.state
    if s.awaiting_color is not None:  # the colour is the layer's to name (OL-WILD: "before releasing")
        layer = s.awaiting_color[0]
        if ev.seat is None or ev.seat == layer:
            s.color = ev.color
            s.awaiting_color = None
        else:
            g.warn(ev, f"{s.name(ev.seat)} named {ev.color}, but {s.name(layer)} laid the black card and names "
                       f"its colour; ignored")
        return
    if s.top is not None and s.top.is_wild and s.color is None and (ev.seat is None or ev.seat == s.turn):
        s.color = ev.color  # e.g. a turned Wild whose colour the first player names (MA-START), no one else
        return
    s.last_color_call = (ev.t, ev.seat, ev.color or "")
