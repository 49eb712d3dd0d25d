"""The game state a log folds into.

The state is a plain mutable record for speed (the engine applies ~10^5 events a second); `Game.evolve` offers the
pure `evolve(state, event) -> state` by copying first. `to_dict` is the public, JSON-able view (EVENTS.md `--json`).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from .cards import Card
from .flags import Flag
from .ruleset import Ruleset


@dataclass(slots=True)
class UnoWatch:
    """An open UNO window: `seat` came down to one card at `t` (log line `line`) and hasn't called yet."""

    seat: int
    t: float
    line: int
    deadline: float | None  # close by time (calls must come while laying the card), or None: at the next turn
    detail: str | None = None  # "receive": the single card came by a 0/7 exchange (OL-70-UNO)
    turn_id: int = -1  # the turn the seat came down to one card in: a missed call counts with that turn's mistakes


@dataclass(slots=True)
class W4Play:
    """The last Wild Draw Four, kept so that a challenge can be judged against what was in force before it."""

    seat: int
    line: int
    t: float
    prev_top: Card | None
    prev_color: str | None
    target: int
    challenger: int | None = None
    challenge_line: int | None = None


@dataclass(slots=True)
class GameState:
    ruleset: Ruleset
    players: list[str] = field(default_factory=list)
    target: int = 500
    hand: int = 0
    dealer: int | None = None
    phase: str = "waiting"
    turn: int | None = None
    direction: int = 1
    top: Card | None = None
    color: str | None = None
    pending: int = 0
    pending_kind: str | None = None
    pending_paid: int = 0  # cards the seat owing `pending` drew towards it so far this turn (a draw in parts)
    pending_line: int | None = None  # the line and time of that seat's last draw towards it
    pending_t: float = 0.0
    short_flag: str | None = None  # the id of the flag on such a draw while the rest may still follow
    # a "pass" heard before any draw that turn: (seat, t, its flag's id, the seat's penalty turn before it), kept
    # for the next event only, which may be the draw itself logged a moment late (speech beats the camera)
    drawless_pass: tuple[int, float, str, int, int] | None = None  # seat, t, flag id, penalty turn, cards owed
    paid_pending: bool = False  # this turn's draw paid a Draw Two whose cards do not cost the turn (OL-D2)
    turn_line: int | None = None  # the log line whose event began the current turn (a turn timeout's cause)
    counts: list[int] = field(default_factory=list)
    owed: list[int] = field(default_factory=list)
    draw_pile: int = 0
    discard: int = 0
    turn_drawn: bool = False
    turn_id: int = 0
    turn_started: float | None = None
    timer_fired: bool = False
    timeouts: list[int] = field(default_factory=list)
    penalty_turn: list[int] = field(default_factory=list)  # turn_id of each seat's last penalty
    fresh_penalty: list[int] = field(default_factory=list)  # penalty cards received this turn (OL-70-PENALTY)
    uno_called: list[bool] = field(default_factory=list)
    last_uno_call: list[float] = field(default_factory=list)
    last_uno_anon: float = -1e9
    last_uno_anon_line: int | None = None
    early_uno_seen: dict[int, tuple[int, int, int]] = field(default_factory=dict)  # the hand at its early call
    # a call from a seat holding 3+ cards that its next play could still bring down to one (a pair laid, OL-INTERCEPT):
    # early unless that play, within `uno_call_lead_s`, leaves exactly one
    early_wait: dict[int, tuple[Any, int, int]] = field(default_factory=dict)  # the call, its turn, cards held
    watches: list[UnoWatch] = field(default_factory=list)
    # seat, line, deadline, detail, turn_id of the play
    awaiting_color: tuple[int, int, float | None, str | None, int] | None = None
    last_color_call: tuple[float, int | None, str] | None = None
    w4: W4Play | None = None
    skip_next: list[bool] = field(default_factory=list)
    skips_pending: bool = False
    fresh_any: bool = False
    n: int = 0  # seats at the table (len(players)), kept as a field: it is read on every turn
    starter_bad: bool = False
    plays_this_hand: int = 0
    hand_winner: int | None = None
    reveals: dict[int, tuple[Card, ...]] = field(default_factory=dict)
    faces_seen: dict[str, int] = field(default_factory=dict)  # cards face up this hand, by code (`tracker.deck`)
    hand_scored: bool = True
    hand_scores: list[list[int]] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)
    match_winner: int | None = None
    match_decided: bool = False  # a seat reached the target: later hands are replayed and flagged, never scored
    flags: list[Flag] = field(default_factory=list)
    flag_index: dict[str, Flag] = field(default_factory=dict)
    earlier_match_flags: set[str] = field(default_factory=set)  # ids of flags raised before the last match_start
    inferred_lines: list[int] = field(default_factory=list)
    inferred_how: dict[int, tuple[str, int, str]] = field(default_factory=dict)  # line: (kind, seat, why that seat)
    warnings: list[str] = field(default_factory=list)
    last_play: tuple[int, tuple[Card, ...], int | None, bool, float] | None = None  # seat, cards, line, inferred, t
    last_t: float = 0.0

    def infer(self, line: int, kind: str, seat: int, why: str) -> None:
        """Line `line`'s event (`kind`: "play", "draw" or "uno") had no seat; the engine gave it `seat` because `why`.
        """
        self.inferred_lines.append(line)
        self.inferred_how[line] = (kind, seat, why)

    def uninfer(self, line: int) -> None:
        """Line `line` turned out not to be a seat's event after all (a replacement starter)."""
        self.inferred_lines.remove(line)
        self.inferred_how.pop(line, None)

    def inferred_note(self, line: int, seat: int) -> str | None:
        """What a flag on `seat` raised at `line` must say when the engine, not a sense, put `seat` there."""
        how = self.inferred_how.get(line)
        if how is None or how[1] != seat:
            return None
        kind, _, why = how
        verb = {"play": "laid it", "draw": "drew", "uno": "called it"}.get(kind, "did it")
        return f"No sense saw who {verb}: the seat is {why}."

    def copy(self) -> GameState:
        """A deep copy, so that `evolve` can stay pure while `apply` mutates in place."""
        return copy.deepcopy(self)

    def name(self, seat: int | None) -> str:
        if seat is None:
            return "an unknown seat"
        if 0 <= seat < len(self.players):
            return f"{self.players[seat]} (seat {seat})"
        return f"seat {seat}"

    def to_dict(self) -> dict[str, Any]:
        timer = self.ruleset.turn_timer_s
        return {
            "ruleset": self.ruleset.name,
            "players": list(self.players),
            "target": self.target,
            "hand": self.hand,
            "dealer": self.dealer,
            "phase": self.phase,
            "turn": self.turn,
            "direction": self.direction,
            "top_card": self.top.code if self.top is not None else None,
            "color": self.color,
            "pending_draw": self.pending,
            "counts": list(self.counts),
            "owed": list(self.owed),
            "draw_pile": self.draw_pile,
            "discard_pile": self.discard,
            "uno": list(self.uno_called),
            "uno_open": [w.seat for w in self.watches],
            "turn_started": self.turn_started,
            "turn_deadline": (self.turn_started + timer) if timer and self.turn_started is not None
            and self.phase == "playing" else None,
            "last_event_t": self.last_t,
            "last_play": None if self.last_play is None else {
                "seat": self.last_play[0], "cards": [c.code for c in self.last_play[1]], "line": self.last_play[2],
                "inferred": self.last_play[3], "t": self.last_play[4]},
            "inferred_lines": list(self.inferred_lines),
            "warnings": list(self.warnings),
            "winner": self.match_winner,
            "hand_winner": self.hand_winner,
        }
