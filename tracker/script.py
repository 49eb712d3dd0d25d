"""A compact notation for hand-written logs: rule tests and referees' dispute cases are short and readable in it.

One step a token string, time advancing by `step` seconds each (or `+N` to let N seconds pass):

    H3            hand_start, seat 3 deals          T red-5 [blue] [>2]  starter (colour, 7-0 target)
    P0 red-7      seat 0 plays red-7                P? red-7             a play no sense could attribute
    P1 wild blue  a Wild naming blue                P2 blue-7 >0         a 7 swapped with seat 0
    P0 red-skip+red-skip   two cards laid together
    D1 / D1 4     seat 1 draws 1 / 4                S1                   seat 1 says "pass"
    U1 / U?       seat 1 / someone calls UNO        C0 red / C? red      a colour named aloud
    X1            seat 1 challenges the +4          R0 red-1,blue-2      seat 0 shows a hand (R0 - : empty)
    !up 12-missed_uno-1 / !dis ID   a referee's ruling     !fix 7 P0 red-8 / !fix 7 -   a correction of line 7
    !ins 7 D1 / !ins 7 D1 @6.5      a missed event inserted after line 7 (at its neighbours' time, or at t=6.5)
    ~5 / ~5@2     five rounds of red number cards from seat 0 (seat 2) round the table, each calling UNO at one card
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .engine import Replay, replay
from .events import Event
from .log import parse_event

ROUND_NUMBERS = ("1", "2", "3", "4", "5", "6", "8", "9")  # no 0 or 7: they pass hands under 7-0


def _seat(text: str) -> int | None:
    return None if text == "?" else int(text)


def parse_step(token: str, t: float) -> dict[str, Any]:
    head, *rest = token.split()
    kind, who = head[0], head[1:]
    if kind == "H":
        return {"type": "hand_start", "dealer": int(who), "t": t}
    if kind in ("T", "P"):
        obj: dict[str, Any] = ({"type": "starter", "card": rest[0], "t": t} if kind == "T" else
                               {"type": "play", "seat": _seat(who), "cards": rest[0].split("+"), "t": t})
        for r in rest[1:]:  # a colour named, or ">seat" for a 7's swap
            if r.startswith(">"):
                obj["target"] = int(r[1:])
            else:
                obj["color"] = r
        return obj
    if kind == "D":
        return {"type": "draw", "seat": _seat(who), "count": int(rest[0]) if rest else 1, "t": t}
    if kind == "S":
        return {"type": "pass", "seat": _seat(who), "t": t}
    if kind == "U":
        return {"type": "uno", "seat": _seat(who), "t": t}
    if kind == "C":
        return {"type": "color", "seat": _seat(who), "color": rest[0], "t": t}
    if kind == "X":
        return {"type": "challenge", "seat": int(who), "t": t}
    if kind == "R":
        cards = [] if not rest or rest[0] == "-" else rest[0].split(",")
        return {"type": "reveal", "seat": int(who), "cards": cards, "t": t}
    if kind == "!":
        if head in ("!up", "!dis"):
            return {"type": "ruling", "flag": rest[0], "decision": "upheld" if head == "!up" else "dismissed",
                    "source": "referee", "t": t}
        if head == "!fix":
            line = int(rest[0])
            fixed = None if rest[1] == "-" else parse_step(" ".join(rest[1:]), t)
            if fixed is not None:
                fixed.pop("t")
                fixed["t"] = t
            return {"type": "correction", "line": line, "event": fixed, "source": "referee", "t": t}
        if head == "!ins":  # "!ins 5 D1" / "!ins 5 D1 @4.5": a missed draw after line 5 (at t=4.5)
            when = t
            if rest[-1].startswith("@"):
                when = float(rest.pop()[1:])
            missed = parse_step(" ".join(rest[1:]), when)
            return {"type": "insert", "after": int(rest[0]), "event": missed, "source": "referee", "t": t}
    raise ValueError(f"can't read step {token!r}")


def script(ruleset: str, steps: list[str] | str, *, players: int = 4, step: float = 1.0,
           target: int | None = None) -> list[Event]:
    """A whole log from the notation, starting with match_start; line numbers are the log's (match_start = 1)."""
    if isinstance(steps, str):
        steps = [s for s in steps.split(";")]
    start: dict[str, Any] = {"type": "match_start", "t": 0.0, "ruleset": ruleset,
                             "players": [f"P{i}" for i in range(players)]}
    if target:
        start["target"] = target
    objs = [start]
    t = 0.0
    for token in (s.strip() for s in steps):
        if not token:
            continue
        if token.startswith("+"):
            t += float(token[1:])
            continue
        if token.startswith("~"):
            rounds, _, first = token[1:].partition("@")
            held = [7] * players
            k = 0
            for _ in range(int(rounds)):
                for j in range(players):
                    seat = (int(first or 0) + j) % players
                    t = round(t + step, 3)
                    objs.append(parse_step(f"P{seat} red-{ROUND_NUMBERS[k % len(ROUND_NUMBERS)]}", t))
                    k += 1
                    held[seat] -= 1
                    if held[seat] == 1:
                        t = round(t + step / 4, 3)
                        objs.append(parse_step(f"U{seat}", t))
            continue
        t = round(t + step, 3)
        objs.append(parse_step(token, t))
    return [parse_event(o, i) for i, o in enumerate(objs, start=1)]


@dataclass(frozen=True)
class RuleCase:
    """One rule, one situation, the verdict the rulebook gives: a row of a rule table.

    `flags` lists what must be raised, each "code@seat", optionally "/penalty" and ":CLAUSE" ("missed_uno@0/2:FA-UNO");
    nothing else may be raised. `state` and `scores` name keys of the replayed state / scores and their values.
    Steps that don't begin with a hand get "H<last seat>; T red-5" first, so seat 0 plays first, clockwise.
    """

    clause: str
    ruleset: str
    steps: str
    flags: tuple[str, ...] = ()
    state: dict[str, Any] = field(default_factory=dict)
    scores: dict[str, Any] = field(default_factory=dict)
    players: int = 4
    target: int | None = None
    why: str = ""

    def events(self) -> list[Event]:
        steps = self.steps if self.steps.lstrip().startswith("H") else f"H{self.players - 1}; T red-5; {self.steps}"
        return script(self.ruleset, steps, players=self.players, target=self.target)

    def run(self) -> Replay:
        return replay(self.events())

    def problems(self) -> list[str]:
        """What the engine got wrong in this case (empty: it follows the rule)."""
        result = self.run()
        out: list[str] = []
        got = sorted(f"{f.code}@{f.seat}" for f in result.flags)
        want = sorted(spec.split("/")[0].split(":")[0] for spec in self.flags)
        if got != want:
            out.append(f"flags {got}, expected {want}: " + "; ".join(f.message for f in result.flags))
        by_key: dict[str, list[Any]] = {}
        for f in result.flags:
            by_key.setdefault(f"{f.code}@{f.seat}", []).append(f)
        for spec in self.flags:
            key, _, rule = spec.partition(":")
            key, _, pen = key.partition("/")
            if not by_key.get(key):
                continue
            f = by_key[key].pop(0)
            if pen and f.penalty != int(pen):
                out.append(f"{key}: penalty {f.penalty}, expected {pen}")
            if rule and f.rule != rule:
                out.append(f"{key}: cites {f.rule}, expected {rule}")
        state = result.state.to_dict()
        for key, value in self.state.items():
            if state.get(key) != value:
                out.append(f"state {key} = {state.get(key)!r}, expected {value!r}")
        for key, value in self.scores.items():
            if result.scores.get(key) != value:
                out.append(f"scores {key} = {result.scores.get(key)!r}, expected {value!r}")
        return out
