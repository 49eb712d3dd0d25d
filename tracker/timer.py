"""The turn timer (FA-TIMER: "15 seconds for a turn, counted from the end of the previous player's turn ... The
first time is a warning; the second time costs"), checked by the engine before each event while a hand is played."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .events import Event
from .flags import flag_id

if TYPE_CHECKING:
    from .engine import Game


def check_timer(g: Game, event: Event) -> None:
    """FA-TIMER: a turn that ran past the ruleset's timer, flagged once at the first event after the deadline: a
    warning the first times (`timer_warnings`), then a penalty card and the turn ends."""
    s = g.state
    r = s.ruleset
    if s.turn is None or s.turn_started is None or s.timer_fired:
        return
    deadline = s.turn_started + r.turn_timer_s
    if event.t <= deadline:
        return
    seat = s.turn
    s.timer_fired = True
    # the flag belongs to the turn: its line is the event that began it, so that its id stays the same whatever
    # event (a referee's ruling or correction among them) happens to come after the deadline
    line = s.turn_line if s.turn_line is not None else event.line
    assert line is not None
    nth = s.timeouts[seat] + 1
    if flag_id(line, "turn_timeout", seat) not in g.dismissed:  # a dismissed timeout was never the warning
        s.timeouts[seat] = nth
    if nth <= r.timer_warnings:
        g.flag("turn_timeout", seat, event,
                  f"{s.name(seat)} took longer than {r.turn_timer_s:g} s for a turn: a warning, no penalty.",
                  t=deadline, penalty=0, line=line)
        return
    if s.pending:  # the turn ends: what was owed to the draw pile is still owed
        s.counts[seat] += s.pending
        s.owed[seat] += s.pending
        s.pending, s.pending_kind = 0, None
    g.flag("turn_timeout", seat, event,
              f"{s.name(seat)} took longer than {r.turn_timer_s:g} s for a turn again: "
              f"{r.timer_penalty} penalty card and the turn ends.", t=deadline, line=line)
    g.set_turn(g.next_seat(seat), deadline)
    # the next seat's fifteen seconds ran from that deadline ("once the previous player has finished"): it may
    # have run out too before this event
    if s.turn != seat:
        check_timer(g, event)
