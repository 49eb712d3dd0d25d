"""A table simulator: whole matches under any ruleset, with seeded randomness and planted mistakes.

It plays real hands from a shuffled 108-card deck and writes the log a perfect camera and microphone would, plus the
flags a perfect referee would raise: one for every mistake it planted, on the line where it planted it. Legal moves
are chosen by the simulator's own reading of the rulebooks (`_fits`, `_w4_legal`), not by the engine's checks, so
comparing the engine's flags with the planted ones tests one against the other. The engine is used only to know
whose turn it is after each event and what penalties the referee has called, exactly as players at a table follow
the referee.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .cards import COLORS, Card, deck
from .engine import Game
from .events import Event
from .log import parse_event
from .ruleset import RULESET_NAMES, Ruleset, load_ruleset

MISTAKES: tuple[str, ...] = (
    "illegal_card", "out_of_turn", "illegal_jump_in", "illegal_stack", "too_many_cards", "wrong_draw",
    "missed_uno", "early_uno", "no_color", "turn_timeout", "illegal_wild_draw4", "failed_challenge",
    "count_mismatch", "bad_starter", "no_target", "wrong_dealer",
)
NAMES = ("Anna", "Boris", "Vera", "Gleb", "Dasha", "Egor", "Zoya", "Ilya", "Kira", "Lev")


@dataclass
class SimConfig:
    ruleset: str | Ruleset = "mattel"
    players: int = 4
    seed: int = 0
    mistakes: tuple[str, ...] = MISTAKES
    rate: float = 0.03
    max_hands: int = 0  # 0: play the match to its target
    target: int | None = None
    max_events: int = 20000


@dataclass
class SimResult:
    events: list[Event] = field(default_factory=list)
    truth: list[dict[str, Any]] = field(default_factory=list)
    hands: int = 0

    def truth_keys(self) -> list[tuple[str, int, int]]:
        return sorted((f["code"], f["seat"], f["line"]) for f in self.truth)


def _fits(card: Card, top: Card | None, color: str | None) -> bool:
    if card.color is None or top is None or color is None:
        return True
    if card.color == color:
        return True
    return top.color is not None and card.value == top.value


class Simulator:
    def __init__(self, cfg: SimConfig) -> None:
        self.cfg = cfg
        self.r = load_ruleset(cfg.ruleset)
        self.rng = random.Random(cfg.seed)
        self.game = Game()
        self.out = SimResult()
        self.t = 0.0
        self.n = cfg.players
        self.hands: list[list[Card]] = [[] for _ in range(self.n)]
        self.fresh: list[list[Card]] = [[] for _ in range(self.n)]
        self.fresh_turn = -1
        self.pile: list[Card] = []
        self.discard: list[Card] = []
        self.w4_legal: bool | None = True
        self.mistake_kinds = set(cfg.mistakes)
        self.early_at: tuple[int, int, int, int] | None = None  # (seat, cards, hand, plays) of the last early call

    # ------------------------------------------------------------------ plumbing
    @property
    def s(self) -> Any:
        return self.game.state

    def chance(self, kind: str) -> bool:
        return kind in self.mistake_kinds and self.rng.random() < self.cfg.rate

    def tick(self, low: float = 0.6, high: float = 2.5) -> float:
        self.t = round(self.t + self.rng.uniform(low, high), 3)
        return self.t

    def emit(self, obj: dict[str, Any]) -> int:
        obj.setdefault("t", self.t)
        line = len(self.out.events) + 1
        ev = parse_event(obj, line)
        self.sync_fresh()
        self.out.events.append(ev)
        self.game.apply(ev)
        return line

    def sync_fresh(self) -> None:
        """Forget which cards came as penalties once the turn has moved on (OL-70-PENALTY)."""
        if self.s.turn_id != self.fresh_turn:
            self.fresh_turn = self.s.turn_id
            self.fresh = [[] for _ in range(self.n)]

    def expect(self, code: str, seat: int, line: int) -> None:
        self.out.truth.append({"code": code, "seat": seat, "line": line})

    def take(self, seat: int, count: int, penalty: bool = False) -> list[Card]:
        got: list[Card] = []
        self.sync_fresh()
        for _ in range(count):
            if not self.pile:
                self.restock()
            if not self.pile:
                raise _Exhausted
            got.append(self.pile.pop())
        self.hands[seat].extend(got)
        if penalty:
            self.fresh[seat].extend(got)
        return got

    def restock(self) -> None:
        if len(self.discard) <= 1:
            return
        keep = self.discard[-1]
        rest = self.discard[:-1]
        if self.r.restock != "no_shuffle":
            self.rng.shuffle(rest)
        self.pile = rest[::-1] + self.pile
        self.discard = [keep]

    def pay_penalties(self) -> None:
        """The referee makes every penalised seat draw what it owes, at once."""
        for seat in range(self.n):
            owed = self.s.owed[seat]
            if owed:
                self.take(seat, owed, penalty=True)
                self.emit({"type": "draw", "seat": seat, "count": owed, "t": self.tick(0.3, 0.8)})

    # ------------------------------------------------------------------ a match
    def run(self) -> SimResult:
        names = list(NAMES[: self.n]) if self.n <= len(NAMES) else [f"P{i}" for i in range(self.n)]
        # the log names what a replay can load: a built-in by name, a ruleset file by its absolute path
        spec = self.cfg.ruleset
        if isinstance(spec, str | Path):
            named = str(spec) if str(spec) in RULESET_NAMES else str(Path(spec).resolve())
        else:
            named = self.r.name
        start: dict[str, Any] = {"type": "match_start", "t": 0.0, "ruleset": named, "players": names}
        if self.cfg.target:
            start["target"] = self.cfg.target
        self.game = Game(self.r)
        self.emit(start)
        dealer = self.rng.randrange(self.n)
        try:
            while self.s.match_winner is None and self.s.phase != "match_over":
                if self.cfg.max_hands and self.out.hands >= self.cfg.max_hands:
                    break
                if len(self.out.events) > self.cfg.max_events:
                    break
                dealer = self.play_hand(dealer)
                self.out.hands += 1
                dealer = (dealer + 1) % self.n
        except _Exhausted:
            # the log ends here: a window still open (a colour not named yet, an UNO not called yet) is not a
            # mistake the log can show, so a perfect referee raises nothing for it
            open_ = {("missed_uno", w.seat, w.line) for w in self.s.watches}
            if self.s.awaiting_color is not None:
                open_.add(("no_color", self.s.awaiting_color[0], self.s.awaiting_color[1]))
            self.out.truth = [x for x in self.out.truth if (x["code"], x["seat"], x["line"]) not in open_]
        return self.out

    def play_hand(self, dealer: int) -> int:
        """Play one hand; returns the seat that actually dealt (the rotation goes on from it)."""
        cards = list(deck())
        self.rng.shuffle(cards)
        self.pile = cards
        self.discard = []
        self.hands = [[] for _ in range(self.n)]
        self.fresh = [[] for _ in range(self.n)]
        for _ in range(self.r.hand_size):
            for seat in range(self.n):
                self.hands[seat].append(self.pile.pop())
        shown = dealer
        if self.out.hands and self.r.dealer_rotates and self.chance("wrong_dealer"):
            shown = (dealer + 1 + self.rng.randrange(self.n - 1)) % self.n
        line = self.emit({"type": "hand_start", "dealer": shown, "t": self.tick(3, 6)})
        if shown != dealer:
            self.expect("wrong_dealer", shown, line)
        self.turn_starter(dealer if shown == dealer else shown)
        while self.s.phase == "playing" and len(self.out.events) < self.cfg.max_events:
            self.step()
            self.pay_penalties()
        if self.s.phase in ("hand_over", "match_over"):
            self.finish_hand()
        return shown

    def turn_starter(self, dealer: int) -> None:
        r = self.r
        while True:
            top = self.pile.pop()
            obj: dict[str, Any] = {"type": "starter", "card": top.code, "t": self.tick(1, 2)}
            if top.is_wild and r.starter == "dealer_play":
                obj["color"] = self._best_color(self.hands[dealer])
            if r.seven_zero and r.starter == "dealer_play" and top.value == "7":
                obj["target"] = (dealer + 1 + self.rng.randrange(self.n - 1)) % self.n
            self.emit(obj)
            bad = (r.starter == "number_only" and not top.is_number) or (
                r.starter == "mattel" and top.value == "wild-draw4")
            if not bad:
                self.discard.append(top)
                if r.seven_zero and r.starter == "dealer_play" and top.value in ("0", "7"):
                    self.exchange(dealer, top.value, obj.get("target"))
                if top.is_wild and r.starter == "mattel":
                    first = (dealer + 1) % self.n
                    self.emit({"type": "color", "seat": first, "color": self._best_color(self.hands[first]),
                               "t": self.tick(0.3, 1)})
                return
            if self.chance("bad_starter"):
                self.discard.append(top)
                seat = self.s.turn
                card = self.hands[seat][0]
                self.play(seat, [card], expect="bad_starter")
                return
            self.pile.insert(len(self.pile) // 2, top)

    # ------------------------------------------------------------------ one decision
    def step(self) -> None:
        s = self.s
        seat = s.turn
        if self.maybe_out_of_turn():
            return
        if s.pending:
            self.face_pending(seat)
            return
        if s.turn_drawn:  # drew on this turn already: play a fitting card or pass
            fitting = self.legal_cards(seat)
            if fitting and self.rng.random() < 0.8:
                self.play(seat, [fitting[0]])
            else:
                self.emit({"type": "pass", "seat": seat, "t": self.tick(0.3, 1.2)})
            return
        if self.r.turn_timer_s and self.chance("turn_timeout"):
            self.time_out(seat)
            return
        catch = any(w.seat != seat and not s.uno_called[w.seat] for w in s.watches)  # an "UNO" now is a catch
        # the engine hears "UNO! UNO!" with the hand unchanged as one early call (a capped penalty draws nothing)
        again = self.early_at == (seat, len(self.hands[seat]), s.hand, s.plays_this_hand)
        # planted only where the verdict is immediate: with several cards laid at once (OL-INTERCEPT) the engine
        # waits for the seat's next play (`tracker.calls.settle_early_call`; its rule cases check that)
        if (self.r.early_uno_penalty and self.r.multi_play == "none" and len(self.hands[seat]) >= 3 and not catch
                and not again
                and self.chance("early_uno")):
            self.early_at = (seat, len(self.hands[seat]), s.hand, s.plays_this_hand)
            line = self.emit({"type": "uno", "seat": seat, "t": self.tick(0.2, 0.6)})
            self.expect("early_uno", seat, line)
            self.pay_penalties()
            return
        if self.chance("illegal_card"):
            bad = [c for c in self.hands[seat] if not c.is_wild and not _fits(c, s.top, s.color)]
            if bad:
                self.play(seat, [bad[0]], expect="illegal_card")
                return
        if self.chance("too_many_cards") and len(self.hands[seat]) >= 3:
            pair = self.forbidden_pair(seat)
            if pair:
                self.play(seat, pair, expect="too_many_cards")
                return
        if self.chance("wrong_draw") and not self.r.draw_until_playable:  # there, drawing several is the rule
            # a seat on one uncalled card drawing just the missed call's penalty is read as caught and paying it
            caught = any(w.seat == seat for w in s.watches) and not s.uno_called[seat]
            self.draw(seat, 3 if caught and self.r.uno_penalty == 2 else 2, expect="wrong_draw")
            return
        if self.chance("illegal_wild_draw4") and self.r.w4_challenge:
            w4 = [c for c in self.hands[seat] if c.value == "wild-draw4"]
            if w4 and not self._w4_legal(seat):
                self.play(seat, [w4[0]], illegal_w4=True)
                return
        fitting = self.legal_cards(seat)
        if fitting:
            self.play(seat, self.with_partners(seat, fitting[0]))
        else:
            self.draw(seat, 1)

    def legal_cards(self, seat: int) -> list[Card]:
        s = self.s
        hand = self.hands[seat]
        out = [c for c in hand if _fits(c, s.top, s.color) and (c.value != "wild-draw4" or self._w4_legal(seat))]
        self.rng.shuffle(out)
        out.sort(key=lambda c: c.color is None)  # keep black cards for later, as people do
        return out

    def _w4_legal(self, seat: int) -> bool:
        s = self.s
        rest = [c for c in self.hands[seat] if c.value != "wild-draw4"]
        if self.r.w4_restriction == "no_current_color":
            return s.color is None or not any(c.color == s.color for c in rest)
        if self.r.w4_restriction == "no_playable":  # another +4 is bound the same way: not "playable" (OL-W4)
            return not any(_fits(c, s.top, s.color) for c in rest)
        return True

    def with_partners(self, seat: int, card: Card) -> list[Card]:
        """Lay a legal pair now and then, where the ruleset allows it (CH-PAIR, OL-INTERCEPT)."""
        r = self.r
        if r.multi_play == "none" or self.rng.random() > 0.5:
            return [card]
        hand = list(self.hands[seat])
        hand.remove(card)  # one copy: cards are interned, so a second copy of `card` is the same object
        if r.multi_play == "same_color_actions" and card.is_action:
            mates = [c for c in hand if c.is_action and c.color == card.color]
        elif r.multi_play == "identical" and not card.is_wild and not (r.seven_zero and card.value in ("0", "7")):
            mates = [c for c in hand if c is card]
        else:
            mates = []
        if mates and len(hand) >= 2:
            return [card, mates[0]]
        return [card]

    def forbidden_pair(self, seat: int) -> list[Card] | None:
        r = self.r
        s = self.s
        hand = self.hands[seat]
        first = next((c for c in hand if _fits(c, s.top, s.color) and not c.is_wild), None)
        if first is None:
            return None
        for c in hand:
            if c is first and hand.count(c) < 2:
                continue
            if c.is_wild:
                continue
            pair = [first, c]
            if r.multi_play == "none":
                return pair
            if r.multi_play == "same_color_actions" and not (first.is_action and c.is_action and
                                                             first.color == c.color):
                return pair
            if r.multi_play == "identical" and (c is not first or (r.seven_zero and c.value in ("0", "7"))):
                return pair
        return None

    def face_pending(self, seat: int) -> None:
        s = self.s
        r = self.r
        if s.pending_kind == "wild-draw4" and s.w4 is not None and r.w4_challenge and self.w4_legal is not None:
            if not self.w4_legal or self.chance("failed_challenge"):
                self.challenge(seat)
                return
        if s.pending_kind == "draw2":
            d2 = [c for c in self.hands[seat] if c.value == "draw2"]
            if d2 and r.d2_chain and self.rng.random() < 0.7:
                self.play(seat, [d2[0]])
                return
            if d2 and not r.d2_chain and self.chance("illegal_stack"):
                self.play(seat, [d2[0]], expect="illegal_stack")
                return
        if s.pending_kind == "wild-draw4" and r.w4_on_w4 != "forbid":
            w4 = [c for c in self.hands[seat] if c.value == "wild-draw4"]
            if w4 and self.rng.random() < 0.7:
                self.play(seat, [w4[0]])
                return
        if self.chance("wrong_draw"):
            self.draw(seat, s.pending + 1, expect="wrong_draw")
            return
        self.draw(seat, s.pending)

    def challenge(self, seat: int) -> None:
        w4 = self.s.w4
        player = w4.seat
        line = self.emit({"type": "challenge", "seat": seat, "t": self.tick(0.5, 1.5)})
        w4_line = w4.line
        self.emit({"type": "reveal", "seat": player, "cards": [c.code for c in self.hands[player]],
                   "t": self.tick(1, 2)})
        if self.w4_legal:
            self.expect("failed_challenge", seat, line)
        else:
            self.expect("illegal_wild_draw4", player, w4_line)
            if self.r.w4_guilty_takes_back:
                self.hands[player].append(self.discard.pop())
        self.w4_legal = True

    def time_out(self, seat: int) -> None:
        s = self.s
        deadline = s.turn_started + self.r.turn_timer_s
        self.t = round(deadline + self.rng.uniform(0.5, 2.0), 3)
        warned = s.timeouts[seat] < self.r.timer_warnings
        start = s.turn_line  # a timeout's flag is on the line that began the turn (`tracker.timer.check_timer`)
        assert start is not None
        if warned:
            fitting = self.legal_cards(seat)
            if fitting:
                self.play(seat, [fitting[0]], keep_time=True)
            else:
                self.draw(seat, 1, keep_time=True)
            self.expect("turn_timeout", seat, start)
            return
        # the engine ends the turn at the deadline, so the penalty card arrives in the next seat's turn: taken after
        # the draw is logged, it is marked as received in that turn (OL-70-PENALTY, were a 7 or 0 laid in it)
        self.emit({"type": "draw", "seat": seat, "count": 1})
        self.take(seat, 1, penalty=True)
        self.expect("turn_timeout", seat, start)

    def maybe_out_of_turn(self) -> bool:
        """Jump-ins (legal or not) and plays out of turn, by a seat other than the one whose turn it is."""
        s = self.s
        r = self.r
        top = s.top
        if top is None or s.starter_bad:
            return False
        turn = s.turn
        nxt = self.game.next_seat(turn)
        others = [i for i in range(self.n) if i != turn and not (s.turn_drawn and i == nxt)]
        self.rng.shuffle(others)
        for seat in others:
            same = [c for c in self.hands[seat] if c is top]
            if not same:
                continue
            legal = (r.jump_in == "identical_numbers" and top.is_number) or (
                r.jump_in == "identical_non_wild" and not top.is_wild)
            if legal and self.rng.random() < 0.35:
                self.play(seat, [same[0]])
                return True
            if not legal and not top.is_wild and self.chance("illegal_jump_in"):
                self.play(seat, [same[0]], expect="illegal_jump_in")
                return True
        if others and self.chance("out_of_turn"):
            seat = others[0]
            cards = [c for c in self.hands[seat] if c is not top and (top.color is None or c.value != top.value)]
            if cards:
                self.play(seat, [cards[0]], expect="out_of_turn")
                return True
        return False

    # ------------------------------------------------------------------ acts
    def draw(self, seat: int, count: int, expect: str | None = None, keep_time: bool = False) -> None:
        was_pending = self.s.pending
        got = self.take(seat, count)
        obj: dict[str, Any] = {"type": "draw", "seat": seat, "count": count}
        if not keep_time:
            obj["t"] = self.tick()
        line = self.emit(obj)
        if expect:
            self.expect(expect, seat, line)
        if was_pending or expect == "wrong_draw":
            return
        card = got[-1]
        if self.s.turn == seat and _fits(card, self.s.top, self.s.color) and card.value != "wild-draw4" \
                and self.rng.random() < 0.7:
            self.play(seat, [card])
        elif self.s.turn == seat and self.rng.random() < 0.7:
            self.emit({"type": "pass", "seat": seat, "t": self.tick(0.3, 1.0)})

    def play(self, seat: int, cards: list[Card], expect: str | None = None, illegal_w4: bool = False,
             keep_time: bool = False) -> None:
        r = self.r
        hand = self.hands[seat]
        if cards[-1].value == "wild-draw4":  # None: a flagged play, whose penalty would blur a challenge
            self.w4_legal = None if expect else (not illegal_w4 and self._w4_legal(seat))
        for c in cards:
            hand.remove(c)
        t = self.t if keep_time else self.tick()
        obj: dict[str, Any] = {"type": "play", "seat": seat, "cards": [c.code for c in cards], "t": t}
        last = cards[-1]
        color_later: str | None = None
        missed_color = False
        if last.is_wild:
            color = self._best_color(hand)
            if r.color_must_announce and hand and self.chance("no_color"):
                missed_color = True
            elif self.rng.random() < 0.5:
                obj["color"] = color
            else:
                color_later = color
        if r.seven_zero and last.value == "7":
            if self.n > 2 and self.chance("no_target"):  # at two seats the other player is the partner, named or not
                expect = expect or "no_target"
                if expect != "no_target":
                    obj["target"] = (seat + 1) % self.n
            else:
                obj["target"] = (seat + 1 + self.rng.randrange(self.n - 1)) % self.n
        if self.rng.random() < 0.1 and not expect:
            obj["seat"] = None if self.s.turn == seat else seat  # a play the camera couldn't attribute
        call_uno = len(hand) == 1
        missed = call_uno and self.chance("missed_uno")
        call_before = call_uno and not missed and len(cards) == 1 and not keep_time and self.rng.random() < 0.4
        if call_before:
            anonymous = not self.s.watches and self.rng.random() < 0.3  # a mic that can't tell who spoke
            self.emit({"type": "uno", "seat": None if anonymous else seat, "t": round(t - 0.2, 3)})
            obj["t"] = t
        line = self.emit(obj)
        self.discard.extend(cards)
        if expect:
            self.expect(expect, seat, line)
        if missed:
            self.expect("missed_uno", seat, line)
        if missed_color:
            self.expect("no_color", seat, line)
        swap = r.seven_zero and last.value in ("0", "7") and (last.value == "0" or "target" in obj)
        receivers = self.exchange(seat, last.value, obj.get("target")) if swap else []
        if swap and len(self.hands[seat]) == 1 and not call_uno and seat not in receivers:
            receivers.append(seat)  # OL-70-UNO: a layer that had no call to make for laying it calls on receiving
        if color_later:
            self.emit({"type": "color", "seat": seat, "color": color_later, "t": self.tick(0.1, 0.6)})
        if call_uno and not missed and not call_before:
            self.emit({"type": "uno", "seat": seat, "t": self.tick(0.1, 0.5)})
        over = any(not h for h in self.hands)  # a hand emptied by the exchange ends the deal: nobody calls
        for i in receivers:  # OL-70-UNO: whoever receives a single card must call too
            if over:
                break
            if self.chance("missed_uno"):
                self.expect("missed_uno", i, line)
            else:
                self.emit({"type": "uno", "seat": i, "t": self.tick(0.2, 0.6)})

    def exchange(self, seat: int, value: str, target: int | None) -> list[int]:
        """Pass or swap the hands (OL-ZERO, OL-SEVEN); returns the seats now holding a single card."""
        n = self.n
        kept: list[list[Card]] = []
        moving: list[list[Card]] = []
        for i in range(n):  # as many cards stay as came as penalties this turn (OL-70-PENALTY)
            hand = list(self.hands[i])
            stay = []
            for c in self.fresh[i]:
                if c in hand:
                    hand.remove(c)
                    stay.append(c)
            while len(stay) < min(len(self.fresh[i]), len(self.hands[i])):
                stay.append(hand.pop())
            kept.append(stay)
            moving.append(hand)
        before = [len(h) for h in self.hands]
        if value == "0":
            d = self.s.direction
            new = [list(k) for k in kept]
            for i in range(n):
                new[(i + d) % n].extend(moving[i])
            self.hands = new
        else:
            assert target is not None
            self.hands[seat] = kept[seat] + moving[target]
            self.hands[target] = kept[target] + moving[seat]
        if any(len(self.hands[i]) == 0 and not self.s.owed[i] for i in range(n)):
            return []  # the hand is over (a seat left empty-handed but owing penalty cards is not out)
        return [i for i in range(n) if len(self.hands[i]) == 1 and i != seat
                and (value == "0" or i == target or len(self.hands[i]) != before[i])]

    def finish_hand(self) -> None:
        s = self.s
        if s.pending and s.turn is not None and self.r.last_card_draw_counts:
            seat = s.turn
            self.take(seat, s.pending)
            self.emit({"type": "draw", "seat": seat, "count": s.pending, "t": self.tick()})
        self.pay_penalties()
        winner = s.hand_winner
        for seat in range(self.n):
            if seat == winner:
                continue
            cards = [c.code for c in self.hands[seat]]
            if cards and self.chance("count_mismatch"):
                line = self.emit({"type": "reveal", "seat": seat, "cards": cards[:-1], "t": self.tick(0.5, 1.5)})
                self.expect("count_mismatch", seat, line)
            else:
                self.emit({"type": "reveal", "seat": seat, "cards": cards, "t": self.tick(0.5, 1.5)})

    def _best_color(self, hand: list[Card]) -> str:
        counts = {c: 0 for c in COLORS}
        for card in hand:
            if card.color:
                counts[card.color] += 1
        return max(COLORS, key=lambda c: (counts[c], -COLORS.index(c)))


class _Exhausted(Exception):
    """Every card is in someone's hand: the simulated hand can't go on."""


def simulate_match(cfg: SimConfig) -> SimResult:
    return Simulator(cfg).run()
