"""A referee's corrections applied to a log: each `correction` replaces (or strikes) the event on its line, and each
`insert` (an extension of EVENTS.md) adds a missed event at its place in the game.

EVENTS.md: a correction names the 1-based line it corrects and the corrected event (or `null` to strike it); lines
keep their numbers, so flag ids still point at the line a referee sees in the raw log. An inserted event takes the
line of the `insert` that wrote it, for the same reason."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from .events import Correction, Event, Insertion, Ruling


@dataclass(frozen=True)
class Entry:
    """One place in the corrected game: `event` as the fold sees it (None: struck), the raw log `line` it comes
    from, and `how` it got there: "as logged", "corrected", "struck" or "inserted"."""

    event: Event | None
    line: int
    how: str


def _line(i: int, ev: Event) -> int:
    return ev.line if ev.line is not None else i


def _retimed(event: Event, t: float, line: int) -> Event:
    fixed = dataclasses.replace(event, t=t)
    object.__setattr__(fixed, "line", line)
    return fixed


def corrected_entries(events: Sequence[Event]) -> list[Entry]:
    """The log as the referee corrected it, in game order, struck lines kept as places (for `--pretty`).

    A later correction of the same line wins; a correction that is itself struck by a later one no longer applies.
    Inserted events follow the line they name, several after one line in the order they were written, and an
    insertion after an inserted event follows it. Referee events (rulings, corrections, insertions) stay where they
    were written: the fold takes them as no-ops, stamped when they were written."""
    fixes = [ev for ev in events if isinstance(ev, Correction)]
    inserts = [ev for ev in events if isinstance(ev, Insertion) and ev.event is not None]
    if not fixes and not inserts:
        return [Entry(ev, _line(i, ev), "as logged") for i, ev in enumerate(events, start=1)]
    by_line: dict[int, Event] = {_line(i, ev): ev for i, ev in enumerate(events, start=1)}
    struck: set[int] = set()
    for c in reversed(fixes):
        if c.line in struck:
            continue
        if isinstance(by_line.get(c.target_line), Correction):  # a correction struck or replaced: it corrects nothing
            struck.add(c.target_line)
    replaced: dict[int, Event | None] = {}
    written: dict[int, float] = {}  # when each replacement was written
    for c in fixes:
        if c.line in struck:
            continue
        replaced[c.target_line] = c.event
        written[c.target_line] = c.t
    for ins in inserts:
        assert ins.line is not None and ins.event is not None
        if ins.line not in replaced:
            replaced[ins.line] = ins.event
            written[ins.line] = ins.t
    lines = sorted(by_line)
    after: dict[int, list[Insertion]] = {}
    for ins in inserts:  # after a blank line (no event): after the last event before it
        anchor = ins.after_line if ins.after_line in by_line else max(
            (n for n in lines if n < ins.after_line), default=0)
        after.setdefault(anchor, []).append(ins)
    referee = (Correction, Ruling, Insertion)

    # the raw time of the next game line after each raw position: what bounds a corrected or inserted event
    next_game_t: list[float | None] = [None] * (len(events) + 1)
    for i in range(len(events) - 1, -1, -1):
        ev = events[i]
        next_game_t[i] = next_game_t[i + 1] if isinstance(ev, referee) else ev.t
    pos = {_line(i, ev): i - 1 for i, ev in enumerate(events, start=1)}

    out: list[Entry] = []

    def last_t() -> float:
        return next((e.event.t for e in reversed(out) if e.event is not None), 0.0)

    def place(line: int, fixed: Event | None, fallback: float, hi: float | None, how: str) -> None:
        if fixed is None:
            out.append(Entry(None, line, "struck"))
            return
        # the event happens when the original did (an insertion: right after its line), unless the referee gave it
        # another time that still lies between its neighbours: a correction written later must not make time run
        # backwards (a turn timer would fire); an event stamped with the moment it was written was not moved on
        # purpose
        lo = last_t()
        # never later than when the referee wrote it: a line appended later can't move the event (the dashboard
        # folds appends onto the game as it stands)
        top = min(hi if hi is not None else float("inf"), written.get(line, float("inf")))
        stamped_late = fixed.t == written.get(line) and fixed.t > fallback
        if stamped_late or not lo <= fixed.t <= top:
            fixed = _retimed(fixed, max(fallback, lo) if how == "inserted" else fallback, line)
        elif fixed.line != line:
            fixed = _retimed(fixed, fixed.t, line)
        out.append(Entry(fixed, line, how))

    def insert_after(line: int, hi: float | None) -> None:
        for ins in after.get(line, ()):
            assert ins.line is not None
            place(ins.line, replaced.get(ins.line), last_t(), hi, "inserted")
            insert_after(ins.line, hi)

    insert_after(0, next_game_t[0])
    for i, ev in enumerate(events, start=1):
        line = _line(i, ev)
        hi = next_game_t[pos[line] + 1]
        if isinstance(ev, Insertion):
            out.append(Entry(ev, line, "as logged"))  # its event, and inserts after it, were placed after its anchor
            continue
        if line in replaced:
            fixed = replaced[line]
            place(line, fixed, ev.t, hi, "corrected" if fixed is not None else "struck")
        else:
            out.append(Entry(ev, line, "as logged"))
        insert_after(line, hi)
    return out


def apply_corrections(events: Sequence[Event]) -> list[Event]:
    """The log as the referee corrected it, in game order: each `correction` replaces (or strikes) the event on its
    line, each `insert` puts its event after the line it names (`corrected_entries`)."""
    if not any(isinstance(ev, Correction | Insertion) for ev in events):
        return list(events)  # the common log: nothing to place (and no place objects made for 100,000 lines)
    return [e.event for e in corrected_entries(events) if e.event is not None]
