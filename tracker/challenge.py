"""The Wild Draw Four challenge (FA-W4, MA-CHALLENGE, OL-W4-CHALLENGE): judged on the hand the challenged player
reveals, or, when no reveal reaches the log, on who pays for it.

Why the second way: Mattel's rules have the hand shown to the challenger alone (MA-CHALLENGE), and at a camera table
a hand shown for a second beside the held fan is often never read. The table then settles the challenge itself, and
the penalty draw says how: the +4 player drawing means it was found guilty, the challenger drawing means it was not.
The flag is raised the same way, and says that the hand was not seen."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .cards import Card, card
from .deck import seen
from .events import Draw, Event, Reveal
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
        # another Wild Draw Four is bound by the same restriction, so it is no "other playable card" (OL-W4): else
        # a hand of two +4s and nothing that fits could lay neither
        held = [c.code for c in hand if fits(c, prev_top, prev_color) and c.value != "wild-draw4"]
        return (not held, f"held playable card(s) {', '.join(held)}" if held else "")
    return True, ""


def _public_why(restriction: str, prev_color: str | None) -> str:
    """The reason without the cards: the hand stays in play after a challenge, and overlays are public."""
    if restriction == "no_current_color":
        return f"held a card of the colour in force ({prev_color})"
    return "held a playable card"


def judge_challenge(g: Game, ev: Reveal, w4: W4Play) -> None:
    """Judge the challenge on the revealed hand."""
    s = g.state
    r = s.ruleset
    seat = w4.seat
    held = max(0, s.counts[seat] - s.owed[seat])
    if len(ev.cards) != held:
        g.flag("count_mismatch", seat, ev,
               f"{s.name(seat)} showed {len(ev.cards)} cards for the challenge, but the log accounts for {held}.",
               detail="challenge")
    legal, why = was_legal(r.w4_restriction, ev.cards, w4.prev_top, w4.prev_color)
    _settle(g, ev, w4, legal, why, _public_why(r.w4_restriction, w4.prev_color))


def settle_by_draw(g: Game, ev: Draw, w4: W4Play, seat: int) -> None:
    """Settle a challenge whose hand never reached the log by who draws: the +4 player (guilty) or the challenger
    (not guilty). The draw itself then pays the penalty the flag charges."""
    s = g.state
    assert w4.challenger is not None
    if seat == w4.seat:
        why = (f"the hand was not seen; {s.name(seat)} drew {ev.count}, so the table found it guilty "
               f"(it was shown to {s.name(w4.challenger)})")
        _settle(g, ev, w4, False, why)
    else:
        _settle(g, ev, w4, True, f"the hand was not seen; {s.name(seat)} drew {ev.count}, so the table found it "
                                 "legal")


def _settle(g: Game, ev: Event, w4: W4Play, legal: bool, why: str, public_why: str | None = None) -> None:
    s = g.state
    r = s.ruleset
    seat, challenger = w4.seat, w4.challenger
    assert challenger is not None and w4.challenge_line is not None
    # under w4_on_w4 = "sum" the challenged card may sit on earlier ones: their cards were not challenged
    earlier = s.pending - 4 if s.pending_kind == "wild-draw4" and s.pending > 4 else 0
    s.pending, s.pending_kind = 0, None
    s.w4 = None
    if legal:
        note = f" ({why})" if why else ""
        # MA-CHALLENGE: "the challenger must draw 2 cards in addition to the 4": what it faced, and two more
        g.flag("failed_challenge", challenger, ev,
               f"{s.name(challenger)} challenged {s.name(seat)}'s Wild Draw Four, which was legal{note}: "
               f"{s.name(challenger)} draws {r.w4_wrong_draw + earlier}.", line=w4.challenge_line,
               penalty=r.w4_wrong_draw + earlier)
        g.set_turn(g.next_seat(challenger), ev.t)
        return
    g.flag("illegal_wild_draw4", seat, ev,
           f"{s.name(seat)} laid a Wild Draw Four but {why}: {s.name(seat)} draws {r.w4_guilty_draw}.",
           line=w4.line, public=None if public_why is None else
           f"{s.name(seat)} laid a Wild Draw Four but {public_why}: {s.name(seat)} draws {r.w4_guilty_draw}.")
    if r.w4_guilty_takes_back:
        s.counts[seat] += 1
        s.discard = max(0, s.discard - 1)
        seen(g, (card("wild-draw4"),), -1)
        s.top, s.color = w4.prev_top, w4.prev_color
    if r.w4_guilty_loses_turn:
        s.skip_next[seat] = True
        s.skips_pending = True
    if earlier:  # the guilty card's four are replaced by its layer's draw; the legal ones beneath are still owed
        s.pending, s.pending_kind = earlier, "wild-draw4"
    g.set_turn(challenger, ev.t)
