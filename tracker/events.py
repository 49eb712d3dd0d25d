"""The event types of EVENTS.md as frozen dataclasses.

Events are values: the engine folds them into state and never changes them. Every event keeps the `extra` fields
it was read with, so that writing a log back out loses nothing a newer tool added (EVENTS.md: extend, never break).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .cards import Card

SOURCES = ("vision", "speech", "referee", "manual")
EMPTY: dict[str, Any] = {}


@dataclass(frozen=True, slots=True)
class Event:
    """Fields common to every event. `line` is the 1-based log line it was read from (None when built in code)."""

    t: float
    source: str = "manual"
    confidence: float | None = None
    line: int | None = field(default=None, compare=False)
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    type = "event"


@dataclass(frozen=True, slots=True)
class MatchStart(Event):
    ruleset: str = "mattel"
    players: tuple[str, ...] = ()
    target: int | None = None
    type = "match_start"


@dataclass(frozen=True, slots=True)
class HandStart(Event):
    dealer: int | None = None
    type = "hand_start"


@dataclass(frozen=True, slots=True)
class Starter(Event):
    card: Card | None = None
    color: str | None = None
    target: int | None = None  # extension: the seat the dealer swaps with when a 7 is turned under 7-0
    type = "starter"


@dataclass(frozen=True, slots=True)
class Play(Event):
    seat: int | None = None
    cards: tuple[Card, ...] = ()
    color: str | None = None
    target: int | None = None
    type = "play"


@dataclass(frozen=True, slots=True)
class Draw(Event):
    seat: int | None = None
    count: int = 1
    type = "draw"


@dataclass(frozen=True, slots=True)
class Pass(Event):
    seat: int | None = None
    type = "pass"


@dataclass(frozen=True, slots=True)
class Uno(Event):
    seat: int | None = None
    type = "uno"


@dataclass(frozen=True, slots=True)
class ColorCall(Event):
    seat: int | None = None
    color: str | None = None
    type = "color"


@dataclass(frozen=True, slots=True)
class Challenge(Event):
    seat: int | None = None
    type = "challenge"


@dataclass(frozen=True, slots=True)
class Reveal(Event):
    seat: int | None = None
    cards: tuple[Card, ...] = ()
    type = "reveal"


@dataclass(frozen=True, slots=True)
class Ruling(Event):
    flag: str = ""
    decision: str = "upheld"
    note: str | None = None
    type = "ruling"


@dataclass(frozen=True, slots=True)
class Correction(Event):
    target_line: int = 0
    event: Event | None = None
    type = "correction"


@dataclass(frozen=True, slots=True)
class Insertion(Event):
    """An extension of EVENTS.md (`insert`): a referee adds an event that no sense logged (a draw the camera missed)
    at its place in the game, right after line `after_line` (0: before the first line). A correction can only
    rewrite a line that exists; a missed event has no line, and appending it at the end would put it after plays
    that in fact came later. The inserted event takes this event's own line, so its flags point at a line the
    referee sees in the raw log (and a later `correction` of that line rewrites or strikes the insertion)."""

    after_line: int = 0
    event: Event | None = None
    type = "insert"


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (MatchStart, HandStart, Starter, Play, Draw, Pass, Uno, ColorCall, Challenge, Reveal, Ruling, Correction,
                Insertion)
}
"""Every event type EVENTS.md defines, by its `type` string, and the extension `insert`."""

REFEREE_TYPES = ("ruling", "correction", "insert")
"""The event types only a referee writes: they change how earlier lines are read, so a table replays its log."""
