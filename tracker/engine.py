"""The rules engine: the log folded into state, flags and scores.

`Game.apply(event)` is the fold's step; it mutates one working state for speed (a 100,000-event log replays in well
under a second). `evolve(state, event)` is the same step as a pure function, and `replay(events)` is the fold of a
whole log with the referee's corrections applied first, so replaying a log always gives the corrected game.

Conventions a referee can rely on:
- A flag's `line` is the offending act (the play, the draw, the challenge); its `t` is when it became certain (e.g. the
  end of the UNO window).
- A play that breaks a rule is flagged and still applied: the card is on the pile, and the game goes on from what is
  on the table. At most one of the "how it was laid" flags is raised per play, the first of: out of turn / jump-in,
  bad starter, pending draw, too many cards, illegal card.
- A penalty is added to the seat's card count at once and owed until the seat draws it; the seat's next draws pay
  what it owes before anything else. A `ruling` that dismisses a flag takes its penalty back.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .calls import close_windows, hear_color, hear_uno, settle_early_call
from .cards import Card, hand_points
from .corrections import apply_corrections
from .deck import check_reveal, revealed_again, take_from_pile
from .draws import (
    after_last_card,
    draw_after_pass,
    null_draw_seat,
    part_draw,
    reveal_without_last_draw,
    short_draw,
    withdraw_short_flag,
)
from .events import (
    Challenge,
    ColorCall,
    Correction,
    Draw,
    Event,
    HandStart,
    Insertion,
    MatchStart,
    Pass,
    Play,
    Reveal,
    Ruling,
    Starter,
    Uno,
)
from .flags import Flag, flag_id
from .plays import apply_play
from .ruleset import Ruleset, RulesetError, load_ruleset
from .state import GameState
from .timer import check_timer

DECK_SIZE = 108


@dataclass
class Replay:
    """The result of replaying a log."""

    state: GameState

    @property
    def flags(self) -> list[Flag]:
        return self.state.flags

    @property
    def scores(self) -> dict[str, Any]:
        s = self.state
        return {
            "hands": [list(h) for h in s.hand_scores],
            "totals": list(s.totals),
            "winner": s.match_winner,
            "over": s.match_decided,  # a seat reached the target: over even with no winner (a tie, OL-GOAL)
            "target": s.target,
            "lowest_wins": s.ruleset.scoring == "lowest_wins",
        }

    def to_json(self) -> dict[str, Any]:
        return {"flags": [f.to_dict() for f in self.flags], "state": self.state.to_dict(), "scores": self.scores}


class Game:
    """One table's game, advanced event by event."""

    def __init__(self, ruleset: str | Ruleset | None = None, base_dir: str | Path | None = None,
                 dismissed: frozenset[str] = frozenset()) -> None:
        self.base_dir = base_dir  # where a log's relative ruleset path is looked up
        # flags the referee dismissed later in the log (`fold`'s second pass): they never count towards what depends
        # on earlier mistakes (OL-PENALTY's one penalty a turn, FA-TIMER's warning before a cost)
        self.dismissed = dismissed
        # a ruleset given here (a command's --ruleset, a table's own file) is the caller's: a relative path means
        # the working directory first, then beside the log
        given_here = isinstance(ruleset, str | Path) and Path(ruleset).exists()
        self.override = (load_ruleset(ruleset, None if given_here else base_dir) if ruleset is not None else None)
        self.state = GameState(ruleset=self.override or load_ruleset("mattel"))
        self._index = 0
        self._pre = False  # True while flags this event closes are charged, before the event itself acts
        self._line: int | None = None  # the line of the event being applied
        self._pre_charges: dict[int, int] = {}

    # ------------------------------------------------------------------ the fold's step
    def apply(self, event: Event) -> GameState:
        s = self.state
        self._index += 1
        if event.line is None:
            object.__setattr__(event, "line", self._index)
        self._line = event.line
        handler = _HANDLERS.get(type(event))
        if handler is None:
            return s
        if not s.players and not isinstance(event, MatchStart | HandStart):  # (hand_start warns on its own)
            self.warn(event, f"a {event.type} event before match_start; ignored")
            return s
        if self._pre_charges:
            self._pre_charges = {}
        if s.drawless_pass is not None and not isinstance(event, Draw | Ruling | Correction | Insertion):
            # only the very next game event can be the pass's own draw (a referee's decision written between the
            # word and the camera's draw is no move at the table)
            s.drawless_pass = None
        # a new deal or match ends the hand, timed or not: the shuffle is nobody's turn (FA-TIMER)
        # nor is a Wild Draw Four challenge being judged: the referee reading the hand is no one's turn (FA-W4,
        # FA-TIMER "once the previous player has finished"); the settling hands the turn on and restarts the clock
        challenged = s.w4 is not None and s.w4.challenger is not None
        timer = (s.ruleset.turn_timer_s and s.phase == "playing" and not challenged
                 and not isinstance(event, HandStart | MatchStart))
        if (s.watches or s.awaiting_color is not None or timer) and s.players:
            self._pre = True
            if s.watches or s.awaiting_color is not None:
                close_windows(self, event, self.resolve_seat(event))
            if timer:
                check_timer(self, event)
            self._pre = False
        if s.early_wait:
            settle_early_call(self, event)
        if event.t > s.last_t:
            s.last_t = event.t
        handler(self, event)
        return s

    def result(self) -> Replay:
        return Replay(self.state)

    # ------------------------------------------------------------------ helpers shared with plays.py
    def next_seat(self, seat: int, steps: int = 1) -> int:
        s = self.state
        return (seat + s.direction * steps) % s.n

    def set_turn(self, seat: int, t: float) -> None:
        """Hand the turn to `seat`, passing over a seat that must miss its turn (OL-W4-CHALLENGE)."""
        s = self.state
        if s.skips_pending:
            for _ in range(s.n):
                if not s.skip_next[seat]:
                    break
                s.skip_next[seat] = False
                seat = self.next_seat(seat)
            s.skips_pending = any(s.skip_next)
        s.turn = seat
        s.turn_id += 1
        s.turn_started = t
        s.turn_line = self._line
        s.turn_drawn = False
        s.paid_pending = False
        s.pending_paid = 0
        s.short_flag = None  # a short draw's flag stays as it is once the turn has moved on
        s.timer_fired = False
        if s.fresh_any:
            s.fresh_penalty = [0] * len(s.fresh_penalty)
            s.fresh_any = False

    def pending_detail(self, kind: str | None = None) -> str:
        """The detail a mistake about a pending draw cites: a Wild Draw Four's own clause where the ruleset has one
        (CH-W4, OL-W4), else the Draw Two's (`wrong_draw.pending.w4` falls back to `wrong_draw.pending`)."""
        return "pending.w4" if (kind or self.state.pending_kind) == "wild-draw4" else "pending"

    def warn(self, event: Event, text: str) -> None:
        self.state.warnings.append(f"line {event.line}: {text}")

    def flag(self, code: str, seat: int, event: Event, message: str, *, t: float | None = None,
             line: int | None = None, detail: str | None = None, penalty: int | None = None,
             turn_id: int | None = None, public: str | None = None) -> Flag:
        """Raise a flag citing the ruleset's clause, and charge its penalty (capped per turn where the rules say).

        `turn_id`: the turn the mistake was made in, where the flag is raised later (a colour not named is found
        when the next turn begins, but belongs with the play's other mistakes: OL-PENALTY, one penalty a turn)."""
        s = self.state
        r = s.ruleset
        cards = r.penalty_for(code) if penalty is None else penalty
        line = event.line if line is None else line
        assert line is not None
        turn = s.turn_id if turn_id is None else turn_id
        fid = flag_id(line, code, seat)
        if fid in s.flag_index:
            return s.flag_index[fid]
        stands = fid not in self.dismissed
        capped = False
        if cards and r.max_penalties_per_turn and code not in ("illegal_wild_draw4", "failed_challenge") and stands:
            if s.penalty_turn[seat] == turn:
                capped, cards = True, 0
        if capped:
            message += " (no penalty: already penalised this turn)"
            public = None if public is None else public + " (no penalty: already penalised this turn)"
        note = s.inferred_note(line, seat)
        if note:
            message += f" ({note})"
            public = None if public is None else f"{public} ({note})"
        f = Flag(fid, event.t if t is None else t, code, seat, r.clause(code, detail), message, line, cards,
                 hand=s.hand, public=public)
        s.flags.append(f)
        s.flag_index[fid] = f
        if cards:
            self.charge(seat, cards, counts_for_turn=False)
            if stands:
                s.penalty_turn[seat] = turn  # the turn the mistake was made in
        return f

    def let_draw_pay(self, seat: int, cards: int) -> None:
        """A penalty charged while checking an event that the event itself pays (a caught seat drawing it): it is
        not the turn's own draw's doing, so the draw may pay it (`on_draw`)."""
        if seat in self._pre_charges:
            self._pre_charges[seat] = max(0, self._pre_charges[seat] - cards)

    def charge(self, seat: int, cards: int, counts_for_turn: bool = True) -> None:
        """Penalty cards owed by `seat`; `counts_for_turn`: the turn has had its penalty (OL-PENALTY)."""
        s = self.state
        s.counts[seat] += cards
        s.owed[seat] += cards
        if self._pre:
            self._pre_charges[seat] = self._pre_charges.get(seat, 0) + cards
        if counts_for_turn:
            s.penalty_turn[seat] = s.turn_id
        s.uno_called[seat] = False

    def take_from_pile(self, count: int, event: Event | None = None) -> None:
        """Cards leave the draw pile (`tracker.deck.take_from_pile`: restocked when empty; too many is warned)."""
        take_from_pile(self, count, event)

    # ------------------------------------------------------------------ seats the senses couldn't name
    def resolve_seat(self, event: Event) -> int | None:
        s = self.state
        seat: int | None = getattr(event, "seat", None)
        if seat is not None or isinstance(event, MatchStart | HandStart | Starter | Ruling | Correction | Insertion):
            return seat
        if isinstance(event, Draw):
            return null_draw_seat(self, event)
        if isinstance(event, Uno):  # an unattributed call answers the open window, or the next one (lead)
            return s.watches[-1].seat if s.watches else None
        if isinstance(event, ColorCall):
            return s.awaiting_color[0] if s.awaiting_color else s.turn
        return s.turn

    # ------------------------------------------------------------------ handlers
    def on_match_start(self, ev: MatchStart) -> None:
        try:
            ruleset = self.override or load_ruleset(ev.ruleset, self.base_dir)
        except RulesetError as exc:
            raise RulesetError(f"line {ev.line}: {exc}") from None
        n = len(ev.players)
        target = ev.target or ruleset.target
        if self.override is not None and "target" in self.override.file_knobs and target != ruleset.target:
            # the table's own ruleset file (an organiser's) names the target; a rig's match_start doesn't change it
            self.warn(ev, f"the match names target {ev.target}; the table's ruleset {ruleset.name!r} plays to "
                          f"{ruleset.target}")
            target = ruleset.target
        s = GameState(ruleset=ruleset, players=list(ev.players), target=target, n=n)
        s.totals = [0] * n
        s.counts = [0] * n
        s.owed = [0] * n
        s.timeouts = [0] * n
        s.penalty_turn = [-1] * n
        s.fresh_penalty = [0] * n
        s.uno_called = [False] * n
        s.last_uno_call = [-1e9] * n
        s.skip_next = [False] * n
        s.last_t = ev.t
        s.warnings = list(self.state.warnings)  # what was ignored before this match started stays reported
        if not ruleset.players_min <= n <= ruleset.players_max:
            s.warnings.append(
                f"line {ev.line}: {ruleset.name} seats {ruleset.players_min}-{ruleset.players_max} players, "
                f"this match has {n}"
            )
        # so do the flags of a match before it on this table (the referee may still rule on them; ids are lines)
        s.flags, s.flag_index = list(self.state.flags), dict(self.state.flag_index)
        s.earlier_match_flags = set(self.state.flag_index)
        self.state = s

    def on_hand_start(self, ev: HandStart) -> None:
        s = self.state
        if not s.players:  # like any event before match_start (README): the deal of a match nobody began
            self.warn(ev, "a hand_start event before match_start; ignored (the log must begin a match first)")
            return
        # a deal before any starter was turned is the same hand dealt again (FA-MISDEAL: "the dealer reshuffles and
        # starts again"): the same dealer, no score, no new hand
        redeal = s.phase == "starting" and s.hand > 0
        if redeal:
            self.warn(ev, f"hand {s.hand} dealt again before a starter was turned: read as a redeal")
        if not s.hand_scored and not redeal:
            from .scoring import score_hand

            score_hand(self, ev, final=True)
        expected = ((s.dealer if redeal else (s.dealer + 1) % s.n) if s.dealer is not None else None)
        dealer = ev.dealer if ev.dealer is not None else (expected if expected is not None else s.n - 1)
        if dealer >= s.n:
            self.warn(ev, f"dealer seat {dealer} does not exist at a {s.n}-seat table; seat 0 deals")
            dealer = 0
        s.hand += 0 if redeal else 1
        if expected is not None and dealer != expected and (s.ruleset.dealer_rotates or redeal):
            why = "the dealer deals again" if redeal else "the deal passes to"
            self.flag("wrong_dealer", dealer, ev, f"{s.name(dealer)} dealt hand {s.hand}, but {why} {s.name(expected)}.")
        s.dealer = dealer
        n, size = s.n, s.ruleset.hand_size
        s.phase = "starting"
        s.turn, s.direction, s.top, s.color = None, 1, None, None
        s.pending, s.pending_kind = 0, None
        s.counts = [size] * n
        s.owed = [0] * n
        s.fresh_penalty = [0] * n
        s.uno_called = [False] * n
        s.last_uno_call = [-1e9] * n
        s.last_uno_anon = -1e9
        s.skip_next = [False] * n
        s.skips_pending = False
        s.fresh_any = False
        s.watches = []
        s.awaiting_color = None
        s.last_color_call = None
        s.w4 = None
        s.draw_pile = max(0, DECK_SIZE - n * size)
        s.discard = 0
        s.turn_drawn = False
        s.turn_started = None
        s.starter_bad = False
        s.plays_this_hand = 0
        s.hand_winner = None
        s.reveals = {}
        s.faces_seen = {}
        s.hand_scored = False
        s.last_play = None

    def on_starter(self, ev: Starter) -> None:
        from .starter import apply_starter

        apply_starter(self, ev)

    def on_play(self, ev: Play) -> None:
        apply_play(self, ev)

    def on_draw(self, ev: Draw) -> None:
        s = self.state
        seat = self.resolve_seat(ev)
        if seat is None or seat >= s.n or not s.players:
            self.warn(ev, "a draw no seat can be found for (a challenge whose two sides draw the same number, or no "
                          "turn yet); ignored: a referee's correction can name the seat")
            return
        if ev.seat is None:
            assert ev.line is not None
            s.infer(ev.line, "draw", seat, "the one whose turn it was" if seat == s.turn
                    else "the one the number of cards drawn fits")
        if s.phase == "hand_over":
            self.take_from_pile(ev.count, ev)
            s.counts[seat] += ev.count
            paid = min(s.owed[seat], ev.count)
            s.owed[seat] -= paid
            s.counts[seat] -= paid
            after_last_card(self, ev, seat, ev.count - paid)
            return
        if s.drawless_pass is not None:
            if draw_after_pass(self, ev, seat):
                return
        if s.phase != "playing":
            self.warn(ev, f"{s.name(seat)} drew before the hand started")
            s.counts[seat] += ev.count
            self.take_from_pile(ev.count, ev)
            return
        w4 = s.w4
        if w4 is not None and w4.challenger is not None and seat in (w4.seat, w4.challenger):
            from .challenge import settle_by_draw

            settle_by_draw(self, ev, w4, seat)  # the hand was never revealed: who draws says how it was settled
        self.take_from_pile(ev.count, ev)
        payable = s.owed[seat]
        if seat == s.turn and seat in self._pre_charges:  # the turn's own draw can't be the penalty it just caused
            payable -= self._pre_charges[seat]
        paid = min(payable, ev.count)
        s.owed[seat] -= paid
        if paid:
            s.fresh_penalty[seat] += paid  # penalty cards received this turn stay in a 0/7 exchange
            s.fresh_any = True
        rest = ev.count - paid
        if rest == 0:
            return
        s.counts[seat] += rest
        s.uno_called[seat] = False
        s.last_uno_call[seat] = -1e9  # a call made before drawing is not a call for the card laid after it
        assert s.turn is not None
        if s.pending_paid and seat != s.turn:
            short_draw(self, ev)  # another seat draws: the turn that owed a draw was left short
        if seat != s.turn and s.turn_drawn and seat == self.next_seat(s.turn):
            self.set_turn(seat, ev.t)  # the previous seat drew and kept it without saying "pass"
        if seat != s.turn:
            self.flag("wrong_draw", seat, ev,
                      f"{s.name(seat)} drew {rest} card(s) when it was {s.name(s.turn)}'s turn and nothing was owed.")
            return
        s.w4 = None if s.w4 is not None and s.w4.challenger is None else s.w4
        if s.pending:
            if rest < s.pending:  # part of it: the rest may follow in further draws before the table moves on
                part_draw(self, ev, seat, rest)
                return
            withdraw_short_flag(self)
            kind, owed, drawn = s.pending_kind, s.pending + s.pending_paid, rest + s.pending_paid
            s.pending, s.pending_kind, s.pending_paid = 0, None, 0
            if drawn != owed:
                self.flag("wrong_draw", seat, ev, f"{s.name(seat)} drew {drawn} card(s) but had to draw {owed}.",
                          detail=self.pending_detail(kind))
            if kind == "wild-draw4" or s.ruleset.d2_costs_turn:
                self.set_turn(self.next_seat(seat), ev.t)
            else:
                s.turn_drawn = True
                s.paid_pending = True  # OL-D2: "draws 2 cards can play" (a pair of identical cards too)
            return
        if s.ruleset.draw_until_playable:
            s.turn_drawn = True
            return
        if s.turn_drawn:
            self.flag("wrong_draw", seat, ev, f"{s.name(seat)} drew again in the same turn: one card a turn.",
                      detail="renege")
        elif rest > 1:
            self.flag("wrong_draw", seat, ev, f"{s.name(seat)} drew {rest} cards; a turn draws exactly one.")
        s.turn_drawn = True

    def on_pass(self, ev: Pass) -> None:
        s = self.state
        if s.phase != "playing" or s.turn is None:
            return
        seat = ev.seat if ev.seat is not None else s.turn
        if seat != s.turn:
            self.warn(ev, f"{s.name(seat)} said pass when it was {s.name(s.turn)}'s turn; ignored")
            return
        if s.pending_paid:
            short_draw(self, ev)
            if s.turn == seat:  # a Draw Two that did not cost the turn (OL-D2): the pass ends it
                self.set_turn(self.next_seat(seat), ev.t)
            return
        if s.pending:
            before = s.penalty_turn[seat]
            owed = s.pending
            f = self.flag("wrong_draw", seat, ev,
                          f"{s.name(seat)} passed without drawing the {s.pending} card(s) owed.",
                          detail=self.pending_detail())
            s.counts[seat] += s.pending
            s.owed[seat] += s.pending
            s.pending, s.pending_kind = 0, None
            # the camera may log the draw of those cards just after the word (README): then it was the pass after
            # drawing them (`draw_after_pass`)
            s.drawless_pass = (seat, ev.t, f.id, before, owed)
        elif not s.turn_drawn:
            before = s.penalty_turn[seat]
            f = self.flag("wrong_draw", seat, ev, f"{s.name(seat)} passed without drawing a card first.")
            s.drawless_pass = (seat, ev.t, f.id, before, 0)
        self.set_turn(self.next_seat(seat), ev.t)

    def on_uno(self, ev: Uno) -> None:
        hear_uno(self, ev)

    def on_color(self, ev: ColorCall) -> None:
        hear_color(self, ev)

    def on_challenge(self, ev: Challenge) -> None:
        s = self.state
        w4 = s.w4
        r = s.ruleset
        if (s.phase == "hand_over" and r.w4_challenge and s.pending_kind == "wild-draw4" and ev.seat is not None
                and ev.seat == s.turn and not s.pending_paid and r.last_card_draw_counts):
            # MA-LAST / MA-CHALLENGE: a Wild Draw Four laid as the last card left an empty hand, so it was legal;
            # the challenger draws the four and the two more, and they count in the score
            s.pending, s.pending_kind = 0, None
            self.flag("failed_challenge", ev.seat, ev,
                      f"{s.name(ev.seat)} challenged the Wild Draw Four laid as the last card; a player with no cards "
                      f"left held nothing playable: {s.name(ev.seat)} draws {r.w4_wrong_draw}.")
            return
        if not r.w4_challenge or w4 is None or w4.challenger is not None or s.pending_kind != "wild-draw4":
            self.warn(ev, f"{s.name(ev.seat)} challenged, but there is no Wild Draw Four to challenge; ignored")
            return
        if ev.seat != w4.target:
            self.warn(ev, f"only {s.name(w4.target)}, who must draw four, may challenge; ignored")
            return
        w4.challenger = ev.seat
        w4.challenge_line = ev.line

    def on_reveal(self, ev: Reveal) -> None:
        s = self.state
        if ev.seat is None or ev.seat >= s.n:
            return
        w4 = s.w4
        if w4 is not None and w4.challenger is not None and ev.seat == w4.seat and s.phase == "playing":
            from .challenge import judge_challenge

            check_reveal(self, ev, ev.seat, ev.cards)
            judge_challenge(self, ev, w4)
            return
        if s.phase == "hand_over" or (s.phase == "match_over" and ev.seat in s.reveals):
            from .scoring import score_hand

            again = revealed_again(self, ev, ev.seat, ev.cards)
            reveal_without_last_draw(self, ev)
            held = max(0, s.counts[ev.seat] - s.owed[ev.seat])
            if len(ev.cards) != held:
                self.flag("count_mismatch", ev.seat, ev,
                          f"{s.name(ev.seat)} revealed {len(ev.cards)} cards, but the log accounts for {held}.")
            check_reveal(self, ev, ev.seat, ev.cards)
            s.reveals[ev.seat] = ev.cards
            if again or not s.hand_scored:
                score_hand(self, ev, final=False)
            return
        self.warn(ev, f"{s.name(ev.seat)} revealed a hand with no challenge and no hand to score; ignored")

    def on_ruling(self, ev: Ruling) -> None:
        s = self.state
        f = s.flag_index.get(ev.flag)
        if f is None:
            self.warn(ev, f"ruling on unknown flag {ev.flag!r}; ignored")
            return
        self.rule_flag(f, ev.decision, ev.t, ev.note)

    def rule_flag(self, f: Flag, decision: str, t: float, note: str | None) -> None:
        """A referee's decision on flag `f`: a dismissal takes its penalty back (within its hand), an upheld flag
        that was dismissed is charged again. Also carries a decision over to a flag raised anew under the same id
        (a short draw's flag made final when the table moves on: `draws.short_draw`)."""
        s = self.state
        if f.status == decision:
            return
        # an earlier hand's (or match's) cards are gone (EVENTS.md hand_start: 7 each again)
        same_hand = f.hand == s.hand and f.id not in s.earlier_match_flags
        if same_hand and f.penalty and decision == "dismissed":
            back = f.penalty
            s.draw_pile += back - min(back, s.owed[f.seat])  # cards already drawn go back to the pile
            s.counts[f.seat] = max(0, s.counts[f.seat] - back)
            s.owed[f.seat] = max(0, s.owed[f.seat] - back)
        elif same_hand and f.penalty and f.status == "dismissed":
            self.charge(f.seat, f.penalty)
        f.status = decision
        f.ruled_at = t
        f.note = note

    def on_correction(self, ev: Correction | Insertion) -> None:
        """Corrections and insertions are applied by `replay` before the fold; in the fold itself they change
        nothing."""


_HANDLERS: dict[type, Any] = {
    MatchStart: Game.on_match_start,
    HandStart: Game.on_hand_start,
    Starter: Game.on_starter,
    Play: Game.on_play,
    Draw: Game.on_draw,
    Pass: Game.on_pass,
    Uno: Game.on_uno,
    ColorCall: Game.on_color,
    Challenge: Game.on_challenge,
    Reveal: Game.on_reveal,
    Ruling: Game.on_ruling,
    Correction: Game.on_correction,
    Insertion: Game.on_correction,
}


def fold(events: Sequence[Event], ruleset: str | Ruleset | None = None,
         base_dir: str | Path | None = None) -> Game:
    """The game after the whole log, corrections applied first.

    Where the referee dismissed flags, the log is folded a second time knowing which: a mistake that did not happen
    must not be the one penalty of its turn that spares the next mistake (OL-PENALTY), nor the warning that makes
    the next timeout cost (FA-TIMER). Both passes give the same flag ids, so the rulings find their flags again."""
    corrected = apply_corrections(events)
    game = Game(ruleset, base_dir)
    for ev in corrected:
        game.apply(ev)
    dismissed = frozenset(f.id for f in game.state.flags if f.status == "dismissed")
    if dismissed:
        game = Game(ruleset, base_dir, dismissed)
        for ev in corrected:
            game.apply(ev)
    return game


def replay(events: Iterable[Event], ruleset: str | Ruleset | None = None,
           base_dir: str | Path | None = None) -> Replay:
    """Fold a whole log (corrections applied first) into state, flags and scores."""
    evs = list(events)
    for i, ev in enumerate(evs, start=1):
        if ev.line is None:
            object.__setattr__(ev, "line", i)
    game = fold(evs, ruleset, base_dir)
    fixes = [ev for ev in evs if isinstance(ev, Correction)]
    if fixes:
        lines = {ev.line for ev in evs}
        for c in fixes:
            if c.target_line not in lines:
                game.warn(c, f"a correction of line {c.target_line}, which holds no event (a blank line?); ignored")
    inserts = [ev for ev in evs if isinstance(ev, Insertion)]
    known = {ev.line for ev in evs} if inserts else set()
    for ins in inserts:
        if ins.after_line and ins.after_line not in known:
            game.warn(ins, f"an insert after line {ins.after_line}, which holds no event (a blank line?); its "
                      "event was put after the last event before it")
    return game.result()


def evolve(state: GameState, event: Event) -> GameState:
    """The pure step: a new state, the old one untouched."""
    game = Game()
    game.state = state.copy()
    game.apply(event)
    return game.state


def hand_value(cards: Sequence[Card]) -> int:
    return hand_points(tuple(cards))
