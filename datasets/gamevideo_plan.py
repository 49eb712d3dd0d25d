"""The game-video script: from a simulated log to timed actions of hands and cards, with the truth beside it.

Why retime: the simulator spaces events by 0.6-2.5 s, but a hand needs about half a second to reach a pile and
half a second to leave it, so visual events are pushed apart to at least `min_gap` seconds (later events shift
with them; non-visual events keep their offset to the visual event before them, so UNO windows and the like keep
their meaning). The retimed log is the truth the video is judged against.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tracker.engine import Game
from tracker.events import Event
from tracker.log import event_to_dict, parse_event

VISUAL = ("starter", "play", "draw", "reveal")
REACH = 0.5   # seconds for a hand to reach a pile
LEAVE = 0.42  # seconds for it to leave again
REVEAL_GAP = 2.5
"""Seconds from a revealed hand coming to rest to the next thing the hands do. A hand is shown so that the others
(and the camera) can read it: a challenged player shows it for a moment before the penalty is drawn, and at the end
of a hand each player's cards lie open while the scores are counted. With the one-second gap of other events a
challenge reveal was picked up 0.45 s after it was laid, while the hand that laid it was still leaving it."""
RETURN_GAP = 2.3
"""Seconds from a starter to the next one when the ruleset sends the first back (CH-START: any action or black card;
MA-START, FA-START: a Wild Draw Four): the dealer reaches the discard pile, carries the card back into the draw pile
and turns the next (`Action.lead`), which takes three reaches, and starts after the first starter's hand has left."""


@dataclass
class Action:
    """One thing the hands do. `t` is when the card(s) come to rest (play/starter/reveal) or leave the pile (draw)."""

    kind: str  # "play" | "starter" | "draw" | "reveal" | "feint" | "clear" (the discard pile gathered for a deal)
    t: float
    seat: int
    cards: list[str] = field(default_factory=list)
    count: int = 0
    poses: list[tuple[float, float, float]] = field(default_factory=list)  # (x, y, angle) landing poses
    hide_at: float | None = None  # a challenge reveal is taken back up
    counts_after: list[int] = field(default_factory=list)  # cards held per seat after the event
    lead: float = REACH  # seconds from the hand setting off to `t`
    taken_at: float | None = None  # a starter sent back leaves the discard pile then
    takes: tuple[str, tuple[float, float, float]] | None = None  # a starter carries the one sent back, first

    @property
    def start(self) -> float:
        return self.t - self.lead

    @property
    def end(self) -> float:
        return self.t + (REACH if self.kind == "draw" else LEAVE)


def retime(events: list[Event], min_gap: float = 1.0, lead: float = 1.0,
           reveal_gap: float = REVEAL_GAP) -> list[dict[str, Any]]:
    """The log as dicts with visual events at least `min_gap` apart (`reveal_gap` after a reveal), the first at
    least `lead` s in."""
    out: list[dict[str, Any]] = []
    shift = 0.0
    last_visual: float | None = None
    last_gap = min_gap
    last_type = ""
    prev_t = 0.0
    for ev in events:
        d = event_to_dict(ev)
        t = float(d["t"]) + shift
        if d["type"] in VISUAL:
            gap = RETURN_GAP if d["type"] == "starter" and last_type == "starter" else last_gap
            need = lead if last_visual is None else last_visual + gap
            if t < need:
                shift += need - t
                t = need
            last_visual = t
            last_gap = reveal_gap if d["type"] == "reveal" else min_gap
            last_type = d["type"]
        t = max(t, prev_t)
        d["t"] = round(t, 3)
        prev_t = d["t"]
        out.append(d)
    return out


def plan_actions(log: list[dict[str, Any]], rng: np.random.Generator, discard_centre: np.ndarray,
                 feint_rate: float = 0.3) -> tuple[list[Action], list[int], int]:
    """Actions for the visual events of `log` (retimed dicts), the initial cards held per seat, and the seat count.

    Seats of plays logged with `seat: null` are resolved the way the engine resolves them (its inference)."""
    game = Game()
    actions: list[Action] = []
    initial: list[int] | None = None
    seats = 0
    hand_began = False
    for line, d in enumerate(log, start=1):
        ev = parse_event(d, line)
        game.apply(ev)
        st = game.state
        if d["type"] == "match_start":
            seats = len(d["players"])
        if d["type"] == "hand_start" and initial is None:
            initial = list(st.counts)
        if d["type"] == "hand_start":
            hand_began = True
            if any(a.kind in ("play", "starter") for a in actions):  # the old pile is gathered for the deal
                actions.append(Action("clear", float(d["t"]), 0, lead=0.0))
        if d["type"] not in VISUAL:
            continue
        t = float(d["t"])
        if d["type"] == "play":
            seat = d.get("seat")
            if seat is None:
                seat = st.last_play[0] if st.last_play is not None else 0
            cards = list(d["cards"])
            base = discard_centre + np.clip(rng.normal(0, 16, 2), -32, 32)
            ang = float(rng.uniform(0, 360))
            poses = [(float(base[0]), float(base[1]), ang)]
            for k in range(1, len(cards)):  # a pair: fanned so both show
                off = np.array([np.cos(np.radians(ang)), np.sin(np.radians(ang))]) * 24 * k
                poses.insert(0, (float(base[0] - off[0]), float(base[1] - off[1]), ang - 16 * k))
            actions.append(Action("play", t, int(seat), cards, poses=poses, counts_after=list(st.counts)))
        elif d["type"] == "starter":
            dealer = st.dealer if st.dealer is not None else 0
            base = discard_centre + np.clip(rng.normal(0, 10, 2), -20, 20)
            starter = Action("starter", t, int(dealer), [d["card"]],
                             poses=[(float(base[0]), float(base[1]), float(rng.uniform(0, 360)))],
                             counts_after=list(st.counts), lead=2 * REACH)
            laid = [a for a in actions if a.kind in ("play", "starter")]
            if laid and laid[-1].kind == "starter" and not hand_began:  # the last starter goes back first
                sent_back = laid[-1]
                sent_back.taken_at = t - 2 * REACH
                starter.lead, starter.takes = 3 * REACH, (sent_back.cards[0], sent_back.poses[0])
            hand_began = False
            actions.append(starter)
        elif d["type"] == "draw":
            actions.append(Action("draw", t, int(d["seat"]), count=int(d.get("count", 1)),
                                  counts_after=list(st.counts)))
        elif d["type"] == "reveal":
            if not d.get("cards"):
                continue  # an empty hand shows nothing
            hand_over = st.phase in ("hand_over", "match_over")
            actions.append(Action("reveal", t, int(d["seat"]), list(d["cards"]), counts_after=list(st.counts),
                                  hide_at=None if hand_over else t + 2.0))
    # a challenge reveal is picked up before the next hand moves
    for a, b in zip(actions, actions[1:], strict=False):
        if a.hide_at is not None:
            a.hide_at = min(a.hide_at, b.start - 0.05)
    actions += _feints(actions, rng, seats, discard_centre, feint_rate)
    actions.sort(key=lambda a: a.start)
    if initial is None:
        initial = [7] * seats
    return actions, initial, seats


def _feints(actions: list[Action], rng: np.random.Generator, seats: int, discard_centre: np.ndarray,
            rate: float) -> list[Action]:
    """Hands that carry a card over the discard pile and take it back: a glimpse that is not a play."""
    from tracker.cards import ALL_CODES

    out: list[Action] = []
    for a, b in zip(actions, actions[1:], strict=False):
        lo, hi = a.end + 0.3, b.start - 0.3
        if hi - lo < 1.5 or rng.random() >= rate or seats == 0:
            continue
        t = float(rng.uniform(lo + REACH, hi - LEAVE - 0.3))
        c = discard_centre + rng.normal(0, 12, 2)
        out.append(Action("feint", t, int(rng.integers(0, seats)), [str(rng.choice(ALL_CODES))],
                          poses=[(float(c[0]), float(c[1]), float(rng.uniform(0, 360)))]))
    return out


def visual_truth(log: list[dict[str, Any]], actions: list[Action]) -> list[dict[str, Any]]:
    """What the camera can know: the plays (with their true seats), draws and non-empty reveals, in time order."""
    out: list[dict[str, Any]] = []
    for a in actions:
        if a.kind == "play":
            out.append({"type": "play", "t": a.t, "seat": a.seat, "cards": a.cards})
        elif a.kind == "draw":
            out.append({"type": "draw", "t": a.t, "seat": a.seat, "count": a.count})
        elif a.kind == "reveal":
            out.append({"type": "reveal", "t": a.t, "seat": a.seat, "cards": a.cards})
        elif a.kind == "starter":
            out.append({"type": "starter", "t": a.t, "card": a.cards[0]})
    return sorted(out, key=lambda e: e["t"])
