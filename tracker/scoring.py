"""Scoring a hand from the revealed hands, and the match to its target (CH-GAME, FA-WIN, MA-SCORE, OL-GOAL)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .cards import hand_points
from .events import Event

if TYPE_CHECKING:
    from .engine import Game


def score_hand(g: Game, ev: Event, *, final: bool) -> None:
    """Score the hand once every losing seat has revealed (or, with `final`, with what was revealed)."""
    s = g.state
    if s.match_decided and not s.hand_scored:
        if s.hand_winner is not None or final:
            g.warn(ev, f"hand {s.hand} was played after the match was won; its flags stand, its points don't count")
            s.hand_scored = True
        return
    if s.hand_scored or s.hand_winner is None:
        if final and not s.hand_scored:
            g.warn(ev, f"hand {s.hand} ended with nobody out; it scores nothing")
            s.hand_scores.append([0] * s.n)  # one row a hand, so that hands[i] is hand i + 1
            s.hand_scored = True
        return
    winner = s.hand_winner
    losers = [i for i in range(s.n) if i != winner]
    missing = [i for i in losers if i not in s.reveals]
    if missing and not final:
        return
    if missing:
        g.warn(ev, f"hand {s.hand} scored without reveals from seats {missing}")
    points = [0] * s.n
    if s.ruleset.scoring == "lowest_wins":  # OL-GOAL: each keeps the points in their own hand; going out scores 0
        for i in losers:
            points[i] = hand_points(s.reveals.get(i, ()))
    else:  # the winner takes the others' hands
        points[winner] = sum(hand_points(s.reveals.get(i, ())) for i in losers)
    s.hand_scores.append(points)
    s.totals = [a + b for a, b in zip(s.totals, points, strict=True)]
    s.hand_scored = True
    target = s.target
    if max(s.totals) >= target:
        if s.ruleset.scoring == "lowest_wins":
            s.match_winner = _lowest(s.totals, {i: s.counts[i] for i in missing})
            if s.match_winner is None and missing:
                g.warn(ev, f"the match is over but its winner can't be told: the hands of seats {missing} were not "
                           "seen, and their points decide it")
        else:
            s.match_winner = max(range(s.n), key=lambda i: s.totals[i])
        s.phase = "match_over"
        s.match_decided = True


def _lowest(totals: list[int], unseen: dict[int, int]) -> int | None:
    """The seat with the fewest points (OL-GOAL), or None on a tie or where it depends on hands nobody saw.

    `unseen`: seats whose hand was not revealed this hand, and how many cards they held. Each such total is known only
    to lie between what was counted (a 0 scores nothing) and that plus 50 a card (a Wild); a seat wins only if its
    highest possible total is below every other seat's lowest."""
    lo = list(totals)
    hi = [v + 50 * unseen.get(i, 0) for i, v in enumerate(totals)]
    best = [i for i in range(len(totals)) if all(hi[i] < lo[j] for j in range(len(totals)) if j != i)]
    return best[0] if len(best) == 1 else None


def unscore_last_hand(g: Game) -> None:
    """Take back the score of the hand just scored (a seat revealed again, differently), so that it is scored anew;
    the match it decided is undecided again. A hand played after the match was won had no row: nothing to undo."""
    s = g.state
    if not s.hand_scored or len(s.hand_scores) != s.hand:
        return
    row = s.hand_scores.pop()
    s.totals = [a - b for a, b in zip(s.totals, row, strict=True)]
    s.hand_scored = False
    if s.match_decided:
        s.match_decided, s.match_winner = False, None
        s.phase = "hand_over"
