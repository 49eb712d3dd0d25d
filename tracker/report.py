"""A replayed game as text a referee can read at the table: the plays, the flags where they happened, the scores."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from .corrections import corrected_entries
from .engine import Replay
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
from .flags import Flag


def _seat(players: list[str], seat: int | None) -> str:
    if seat is None:
        return "?"
    return players[seat] if 0 <= seat < len(players) else f"seat {seat}"


def _line(ev: Event, players: list[str]) -> str:
    if isinstance(ev, MatchStart):
        return f"match: {ev.ruleset}, players {', '.join(ev.players)}" + (f", to {ev.target}" if ev.target else "")
    if isinstance(ev, HandStart):
        return f"--- new hand, {_seat(players, ev.dealer)} deals ---"
    if isinstance(ev, Starter):
        assert ev.card is not None
        return f"starter {ev.card.code}" + (f" ({ev.color})" if ev.color else "")
    if isinstance(ev, Play):
        who = _seat(players, ev.seat) if ev.seat is not None else "(unseen seat)"
        extra = f" -> {ev.color}" if ev.color else ""
        extra += f", swaps with {_seat(players, ev.target)}" if ev.target is not None else ""
        return f"{who} plays {' + '.join(c.code for c in ev.cards)}{extra}"
    if isinstance(ev, Draw):
        return f"{_seat(players, ev.seat)} draws {ev.count}"
    if isinstance(ev, Pass):
        return f"{_seat(players, ev.seat)} passes"
    if isinstance(ev, Uno):
        return f"{_seat(players, ev.seat)}: \"UNO!\""
    if isinstance(ev, ColorCall):
        return f"{_seat(players, ev.seat)} names {ev.color}"
    if isinstance(ev, Challenge):
        return f"{_seat(players, ev.seat)} challenges the Wild Draw Four"
    if isinstance(ev, Reveal):
        return f"{_seat(players, ev.seat)} shows {', '.join(c.code for c in ev.cards) or 'no cards'}"
    if isinstance(ev, Ruling):
        return f"referee {'upholds' if ev.decision == 'upheld' else 'dismisses'} flag {ev.flag}" + (
            f": {ev.note}" if ev.note else "")
    if isinstance(ev, Correction):
        return f"referee {'strikes' if ev.event is None else 'corrects'} line {ev.target_line}"
    if isinstance(ev, Insertion):
        return f"referee inserts a missed event after line {ev.after_line}"
    return ev.type


def render_game(events: Sequence[Event], result: Replay) -> str:
    """The game as the referee's corrections left it (what `replay` scored): a corrected line is shown as
    corrected, a struck one as struck, so the text and the flags tell the same story."""
    state = result.state
    players = state.players
    by_line: dict[int, list[Flag]] = defaultdict(list)
    for f in result.flags:
        by_line[f.line].append(f)
    raw_t = {raw.line: raw.t for raw in events}
    marks = {"corrected": "  (corrected by the referee)", "inserted": "  (inserted by the referee)"}
    out: list[str] = []
    for entry in corrected_entries(events):
        ev = entry.event
        if ev is None:
            out.append(f"{raw_t.get(entry.line, 0.0):8.1f}s  (line {entry.line} struck by the referee)")
            continue
        if isinstance(ev, Insertion):  # its event is shown where it was put
            continue
        out.append(f"{ev.t:8.1f}s  {_line(ev, players)}{marks.get(entry.how, '')}")
        for f in by_line.get(entry.line, []):
            if f.penalty and f.status == "dismissed":
                pen = f" Penalty of {f.penalty} card(s) taken back."
            else:
                pen = f" Penalty: {f.penalty} card(s)." if f.penalty else ""
            out.append(f"{'':10}  ! {f.code} [{f.rule}] {f.message}{pen} ({f.status})")
    out.append("")
    out.append(f"flags: {len(result.flags)}")
    for w in state.warnings:
        out.append(f"warning: {w}")
    out.append(score_sheet(result.scores, players))
    return "\n".join(out)


def score_sheet(scores: dict[str, Any], players: list[str]) -> str:
    """The hand-by-hand score sheet, as the table's scorekeeper would write it (CH-GAME)."""
    if not scores or not players:
        return "scores: none yet"
    width = max(len(p) for p in players) + 2
    rule = "lowest wins" if scores.get("lowest_wins") else "winner takes the others' hands"
    out = [f"scores ({rule}, target {scores.get('target')}):", "  hand  " + "".join(p.rjust(width) for p in players)]
    for i, hand in enumerate(scores.get("hands", []), start=1):
        out.append(f"  {i:>4}  " + "".join(str(v).rjust(width) for v in hand))
    out.append("  total " + "".join(str(v).rjust(width) for v in scores.get("totals", [])))
    winner = scores.get("winner")
    totals, target = scores.get("totals") or [0], scores.get("target")
    if isinstance(winner, int):
        out.append("winner: " + _seat(players, winner))
    elif isinstance(target, int) and max(totals) >= target:  # OL-GOAL: the lowest totals tied; no tie-break given
        out.append("winner: none, a tie (the match is over; the rules name no tie-break)")
    else:
        out.append("winner: none yet")
    return "\n".join(out)
