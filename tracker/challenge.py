"""The Wild Draw Four challenge, judged on the hand the challenged player reveals (FA-W4, MA-CHALLENGE,
OL-W4-CHALLENGE)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .cards import Card
from .events import Reveal
from .plays import fits
from .state import W4Play

if TYPE_CHECKING:
    from .engine import Game


def was_legal(restriction: str, hand: tuple[Card, ...], prev_top: Card | None,
              prev_color: str | None) -> tuple[bool, str]:
    """Whether the +4 respected the restriction, judged on the hand held when it was laid; and the reason."""
    if restriction == "no_current_color":
        held = [c.code for c in hand if prev_color is not None and c.color == prev_color]
        return (not held, f"held {', '.join(held)} of the colour in force ({prev_color})" if held else "")
    if restriction == "no_playable":
        held = [c.code for c in hand if fits(c, prev_top, prev_color)]
        return (not held, f"held playable card(s) {', '.join(held)}" if held else "")
    return True, ""


def judge_challenge(g: Game, ev: Reveal, w4: W4Play) -> None:
    s = g.state
    r = s.ruleset
    seat, challenger = w4.seat, w4.challenger
    assert challenger is not None and w4.challenge_line is not None
    held = max(0, s.counts[seat] - s.owed[seat])
    if len(ev.cards) != held:
        g.flag("count_mismatch", seat, ev,
               f"{s.name(seat)} showed {len(ev.cards)} cards for the challenge, but the log accounts for {held}.")
    legal, why = was_legal(r.w4_restriction, ev.cards, w4.prev_top, w4.prev_color)
    s.pending, s.pending_kind = 0, None
    s.w4 = None
    if legal:
        g.flag("failed_challenge", challenger, ev,
               f"{s.name(challenger)} challenged {s.name(seat)}'s Wild Draw Four, which was legal: "
               f"{s.name(challenger)} draws {r.w4_wrong_draw}.", line=w4.challenge_line)
        g.set_turn(g.next_seat(challenger), ev.t)
        return
    g.flag("illegal_wild_draw4", seat, ev,
           f"{s.name(seat)} laid a Wild Draw Four but {why}: {s.name(seat)} draws {r.w4_guilty_draw}.",
           line=w4.line)
    if r.w4_guilty_takes_back:
        s.counts[seat] += 1
        s.discard = max(0, s.discard - 1)
        s.top, s.color = w4.prev_top, w4.prev_color
    if r.w4_guilty_loses_turn:
        s.skip_next[seat] = True
        s.skips_pending = True
    g.set_turn(challenger, ev.t)
