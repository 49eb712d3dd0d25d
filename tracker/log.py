"""Reading and writing the event log (JSON Lines, EVENTS.md).

Every bad line is rejected with its 1-based line number and the reason; a reader that fails on line N has already
returned nothing wrong about lines 1..N-1 (`read_log(..., strict=False)` keeps them and reports the errors), so a
corrupt tail never loses the game before it.
"""

from __future__ import annotations

import bisect
import json
import math
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from .cards import CARDS, COLORS, Card
from .events import (
    EVENT_TYPES,
    SOURCES,
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

COMMON = frozenset({"t", "type", "source", "confidence"})
MAX_SEAT = 63


class LogError(ValueError):
    """A log line that can't be read. `line` is 1-based (None for an event built outside a file)."""

    def __init__(self, line: int | None, reason: str) -> None:
        self.line = line
        self.reason = reason
        super().__init__(f"line {line}: {reason}" if line is not None else reason)


def _seat(obj: dict[str, Any], key: str, line: int | None, *, required: bool, nullable: bool) -> int | None:
    if key not in obj:
        if required:
            raise LogError(line, f"{obj.get('type')} event needs a {key!r} field")
        return None
    value = obj[key]
    if value is None:
        if not nullable:
            raise LogError(line, f"{key!r} must be a seat number, not null")
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SEAT:
        raise LogError(line, f"{key!r} must be a seat number 0..{MAX_SEAT}, got {value!r}")
    return value


def _card(value: Any, line: int | None, key: str) -> Card:
    if isinstance(value, str):
        found = CARDS.get(value)
        if found is not None:
            return found
    raise LogError(
        line,
        f"unknown card {value!r} in {key!r}: cards are written like 'red-7', 'blue-skip', 'green-reverse', "
        f"'yellow-draw2', 'wild', 'wild-draw4'",
    )


def _cards(obj: dict[str, Any], line: int | None) -> tuple[Card, ...]:
    raw = obj.get("cards")
    if raw is None and "card" in obj:  # a single `card` is accepted as a convenience
        raw = [obj["card"]]
    if not isinstance(raw, list) or not raw:
        raise LogError(line, f"{obj.get('type')} event needs 'cards', a non-empty list of card codes")
    return tuple(_card(c, line, "cards") for c in raw)


def _color(obj: dict[str, Any], line: int | None, *, required: bool) -> str | None:
    value = obj.get("color")
    if value is None:
        if required:
            raise LogError(line, "color event needs a 'color': one of red, yellow, green, blue")
        return None
    if value not in COLORS:
        raise LogError(line, f"unknown colour {value!r}: expected one of red, yellow, green, blue")
    return str(value)


def parse_event(obj: Any, line: int | None = None) -> Event:
    """Turn one decoded JSON object into an Event, or raise LogError naming the line and what is wrong."""
    if not isinstance(obj, dict):
        raise LogError(line, f"an event must be a JSON object, got {type(obj).__name__}")
    kind = obj.get("type")
    if not isinstance(kind, str) and kind is not None:
        raise LogError(line, f"'type' must be text, one of {', '.join(EVENT_TYPES)}; got {kind!r}")
    if kind not in EVENT_TYPES:
        if kind is None:
            raise LogError(line, "event has no 'type'")
        raise LogError(line, f"unknown event type {kind!r}: expected one of {', '.join(EVENT_TYPES)}")
    t = obj.get("t")
    if "t" not in obj:
        raise LogError(line, "'t' must be a number of seconds >= 0 (since the match started); the event has none")
    try:
        good_t = not isinstance(t, bool) and isinstance(t, int | float) and math.isfinite(t) and t >= 0
    except OverflowError:  # an integer too large for a float
        good_t = False
    if not good_t or not isinstance(t, int | float):
        shown = repr(t) if len(repr(t)) <= 40 else repr(t)[:37] + "..."
        raise LogError(line, f"'t' must be a number of seconds >= 0, got {shown}")
    source = obj.get("source", "manual")
    if source not in SOURCES:
        raise LogError(line, f"unknown source {source!r}: expected one of {', '.join(SOURCES)}")
    confidence = obj.get("confidence")
    if confidence is not None and (
        isinstance(confidence, bool) or not isinstance(confidence, int | float) or not 0 <= confidence <= 1
    ):
        raise LogError(line, f"'confidence' must be a number from 0 to 1, got {confidence!r}")
    extra = {k: v for k, v in obj.items() if k not in COMMON and k not in _KNOWN[kind]}
    if extra:  # the known fields are checked against their own vocabularies (cards, colours, seats) or below
        _check_json_safe(extra, line)
    common: dict[str, Any] = {
        "t": float(t), "source": source, "confidence": confidence, "line": line, "extra": extra,
    }
    try:
        event: Event = _BUILDERS[kind](obj, line, common)
        return event
    except LogError:
        raise
    except (TypeError, ValueError) as exc:
        raise LogError(line, f"bad {kind} event: {exc}") from None


def _match_start(obj: dict[str, Any], line: int | None, common: dict[str, Any]) -> Event:
    ruleset = obj.get("ruleset")
    if not isinstance(ruleset, str) or not ruleset:
        raise LogError(line, "match_start needs 'ruleset': a ruleset name or a path to a ruleset file")
    players = obj.get("players")
    if not isinstance(players, list) or not 2 <= len(players) <= MAX_SEAT + 1:
        raise LogError(line, "match_start needs 'players': a list of at least two names, in seat order")
    if not all(isinstance(p, str) for p in players):
        raise LogError(line, "'players' must be a list of names (strings)")
    _check_json_safe([ruleset, *players], line)
    target = obj.get("target")
    if target is not None and (isinstance(target, bool) or not isinstance(target, int) or target <= 0):
        raise LogError(line, f"'target' must be a positive whole number of points, got {target!r}")
    return MatchStart(ruleset=ruleset, players=tuple(players), target=target, **common)


def _hand_start(obj: dict[str, Any], line: int | None, common: dict[str, Any]) -> Event:
    return HandStart(dealer=_seat(obj, "dealer", line, required=False, nullable=True), **common)


def _starter(obj: dict[str, Any], line: int | None, common: dict[str, Any]) -> Event:
    if "card" not in obj:
        raise LogError(line, "starter event needs a 'card'")
    return Starter(
        card=_card(obj["card"], line, "card"),
        color=_color(obj, line, required=False),
        target=_seat(obj, "target", line, required=False, nullable=True),
        **common,
    )


def _play(obj: dict[str, Any], line: int | None, common: dict[str, Any]) -> Event:
    return Play(
        seat=_seat(obj, "seat", line, required=True, nullable=True),
        cards=_cards(obj, line),
        color=_color(obj, line, required=False),
        target=_seat(obj, "target", line, required=False, nullable=True),
        **common,
    )


def _draw(obj: dict[str, Any], line: int | None, common: dict[str, Any]) -> Event:
    count = obj.get("count", 1)
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 108:
        raise LogError(line, f"'count' must be a whole number of cards from 1 to 108, got {count!r}")
    return Draw(seat=_seat(obj, "seat", line, required=True, nullable=True), count=count, **common)


def _seat_only(cls: type[Event]) -> Any:
    def build(obj: dict[str, Any], line: int | None, common: dict[str, Any]) -> Event:
        nullable = cls in (Uno, Pass)
        return cls(seat=_seat(obj, "seat", line, required=not nullable, nullable=nullable), **common)  # type: ignore[call-arg]

    return build


def _color_call(obj: dict[str, Any], line: int | None, common: dict[str, Any]) -> Event:
    return ColorCall(
        seat=_seat(obj, "seat", line, required=False, nullable=True), color=_color(obj, line, required=True), **common
    )


def _reveal(obj: dict[str, Any], line: int | None, common: dict[str, Any]) -> Event:
    raw = obj.get("cards")
    if not isinstance(raw, list):
        raise LogError(line, "reveal event needs 'cards': the list of card codes laid open (may be empty)")
    cards = tuple(_card(c, line, "cards") for c in raw)
    return Reveal(seat=_seat(obj, "seat", line, required=True, nullable=False), cards=cards, **common)


def _ruling(obj: dict[str, Any], line: int | None, common: dict[str, Any]) -> Event:
    flag = obj.get("flag")
    if not isinstance(flag, str) or not flag:
        raise LogError(line, "ruling event needs 'flag': the id of the flag ruled on")
    decision = obj.get("decision")
    if decision not in ("upheld", "dismissed"):
        raise LogError(line, f"ruling 'decision' must be 'upheld' or 'dismissed', got {decision!r}")
    note = obj.get("note")
    if note is not None and not isinstance(note, str):
        raise LogError(line, "ruling 'note' must be text")
    _check_json_safe([flag, note], line)
    return Ruling(flag=flag, decision=decision, note=note, **common)


def _correction(obj: dict[str, Any], line: int | None, common: dict[str, Any]) -> Event:
    target = obj.get("line")
    if isinstance(target, bool) or not isinstance(target, int) or target < 1:
        raise LogError(line, f"correction needs 'line': the 1-based line of the event corrected, got {target!r}")
    if line is not None and target >= line:
        raise LogError(line, f"a correction can only correct an earlier line, not line {target}")
    if "event" not in obj:
        raise LogError(line, "correction needs 'event': the corrected event, or null to strike the line")
    raw = obj["event"]
    replacement = None
    if raw is not None:
        try:
            replacement = parse_event(raw, target)
        except LogError as exc:
            raise LogError(line, f"corrected event is invalid: {exc.reason}") from None
        if isinstance(replacement, Correction | Insertion):
            raise LogError(line, f"a correction can't replace an event with another {replacement.type!r}")
    return Correction(target_line=target, event=replacement, **common)


def _insert(obj: dict[str, Any], line: int | None, common: dict[str, Any]) -> Event:
    """The extension `insert` (README): an event no sense logged, put right after line `after` (0: first)."""
    after = obj.get("after")
    if isinstance(after, bool) or not isinstance(after, int) or after < 0:
        raise LogError(line, "insert needs 'after': the 1-based line the missed event follows (0: before the first "
                       f"line), got {after!r}")
    if line is not None and after >= line:
        raise LogError(line, f"an insert can only follow an earlier line, not line {after}")
    raw = obj.get("event")
    if not isinstance(raw, dict):
        raise LogError(line, "insert needs 'event': the missed event, an object")
    try:
        inserted = parse_event(raw, line)
    except LogError as exc:
        raise LogError(line, f"inserted event is invalid: {exc.reason}") from None
    if isinstance(inserted, Correction | Insertion | Ruling):
        raise LogError(line, f"an insert adds a game event the senses missed, not a referee's {inserted.type!r}")
    return Insertion(after_line=after, event=inserted, **common)


_BUILDERS: dict[str, Any] = {
    "match_start": _match_start,
    "hand_start": _hand_start,
    "starter": _starter,
    "play": _play,
    "draw": _draw,
    "pass": _seat_only(Pass),
    "uno": _seat_only(Uno),
    "color": _color_call,
    "challenge": _seat_only(Challenge),
    "reveal": _reveal,
    "ruling": _ruling,
    "correction": _correction,
    "insert": _insert,
}
_KNOWN: dict[str, frozenset[str]] = {
    "match_start": frozenset({"ruleset", "players", "target"}),
    "hand_start": frozenset({"dealer"}),
    "starter": frozenset({"card", "color", "target"}),
    "play": frozenset({"seat", "cards", "card", "color", "target"}),
    "draw": frozenset({"seat", "count"}),
    "pass": frozenset({"seat"}),
    "uno": frozenset({"seat"}),
    "color": frozenset({"seat", "color"}),
    "challenge": frozenset({"seat"}),
    "reveal": frozenset({"seat", "cards"}),
    "ruling": frozenset({"flag", "decision", "note"}),
    "correction": frozenset({"line", "event"}),
    "insert": frozenset({"after", "event"}),
}


def _check_json_safe(obj: Any, line: int | None) -> None:
    """Refuse what Python decodes but can't write back out: a lone surrogate (from a "\\ud800" escape) or a number
    that isn't finite (1e999). Kept, either would break every later writer: the flags on standard output, the
    dashboard's store and live streams."""
    try:
        json.dumps(obj, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except UnicodeEncodeError:
        raise LogError(line, "text that is not valid Unicode (a lone surrogate)") from None
    except ValueError:
        raise LogError(line, "a number that is not finite (NaN or Infinity) is not JSON") from None


def _seats_of(event: Event) -> list[tuple[str, int]]:
    """The seat numbers an event names, with their field names."""
    out = []
    keys = ("seat", "target") if isinstance(event, Play | Starter) else ("seat", "dealer")  # match_start's target is points
    for key in keys:
        v = getattr(event, key, None)
        if isinstance(v, int) and not isinstance(v, bool):
            out.append((key, v))
    if isinstance(event, Correction | Insertion) and event.event is not None:
        out += [(f"event.{k}", v) for k, v in _seats_of(event.event)]
    return out


class MatchSeats:
    """How many seats each match of a log has, by line: a correction or insert of an earlier match's line names that
    match's seats (EVENTS.md: "seat numbers stay fixed for the match"), not the seats of the match in force when
    the referee wrote it."""

    def __init__(self) -> None:
        self._starts: list[tuple[int, int]] = []  # (line of a match_start, its players), in log order

    def update(self, event: Event) -> None:
        if isinstance(event, MatchStart) and event.line is not None:
            self._starts.append((event.line, len(event.players)))

    def now(self) -> int | None:
        return self._starts[-1][1] if self._starts else None

    def at(self, line: int) -> int | None:
        """The seats of the match line `line` belongs to (None before any match_start)."""
        i = bisect.bisect_right(self._starts, (line, 1 << 30)) - 1
        return self._starts[i][1] if i >= 0 else None


def check_seats(event: Event, players: int | None, book: MatchSeats | None = None) -> None:
    """Refuse a seat that the match's `players` list does not have (the engine would have to guess whose it is).
    `book`: the log's matches so far, so that a correction's or insert's event is checked against the match of the
    line it rewrites or follows."""
    inner: Event | None = None
    where = players
    if isinstance(event, Correction | Insertion) and event.event is not None:
        inner = event.event
        if book is not None:
            anchor = event.target_line if isinstance(event, Correction) else event.after_line
            where = book.at(anchor) or players
    checks = [(k, v, players) for k, v in _seats_of(event) if not k.startswith("event.")]
    if inner is not None:
        checks += [(f"event.{k}", v, where) for k, v in _seats_of(inner)]
    for key, seat, n in checks:
        if n is not None and seat >= n:
            raise LogError(event.line, f"{key!r} is seat {seat}, but the match has {n} players "
                                       f"(seats 0-{n - 1})")


class _NotJson(ValueError):
    pass


def _no_constant(name: str) -> Any:
    """NaN and Infinity are Python's, not JSON's: a log carrying them can't be read by other tools."""
    raise _NotJson(f"{name} is not a JSON number")


def parse_line(text: str, line: int) -> Event:
    """Decode and parse one JSON Lines line."""
    try:
        obj = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise LogError(line, f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    except _NotJson as exc:
        raise LogError(line, f"not valid JSON ({exc})") from None
    except (UnicodeDecodeError, RecursionError) as exc:
        raise LogError(line, f"not valid JSON ({type(exc).__name__})") from None
    except ValueError as exc:  # an integer of thousands of digits: Python's json refuses to convert it
        raise LogError(line, f"not valid JSON here ({exc})") from None
    return parse_event(obj, line)


def iter_log(lines: Iterable[str | bytes], *, check_order: bool = True) -> Iterator[Event]:
    """Parse lines one by one; blank lines are skipped but still counted, so line numbers match an editor's."""
    last_t = 0.0
    book = MatchSeats()
    for number, raw in enumerate(lines, start=1):
        if isinstance(raw, bytes):
            try:
                raw = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise LogError(number, "not valid UTF-8") from None
        if not raw.strip():
            continue
        event = parse_line(raw, number)
        if check_order and event.t < last_t:
            raise LogError(number, f"time goes backwards: t={event.t:g} after t={last_t:g}")
        book.update(event)
        check_seats(event, book.now(), book)
        last_t = event.t
        yield event


def read_log(path: str | os.PathLike[str], *, strict: bool = True) -> list[Event]:
    """Read a whole log. strict: raise on the first bad line. Otherwise keep every good line (`read_log_lenient`)."""
    if strict:
        with open(path, "rb") as fh:
            return list(iter_log(fh))
    events, _errors = read_log_lenient(path)
    return events


def read_log_lenient(path: str | os.PathLike[str]) -> tuple[list[Event], list[LogError]]:
    """Every good event and every bad line's error: what a dashboard shows for a damaged log."""
    events: list[Event] = []
    errors: list[LogError] = []
    last_t = 0.0
    book = MatchSeats()
    with open(path, "rb") as fh:
        for number, raw in enumerate(fh, start=1):
            try:
                text = raw.decode("utf-8")
                if not text.strip():
                    continue
                event = parse_line(text, number)
                if event.t < last_t:
                    raise LogError(number, f"time goes backwards: t={event.t:g} after t={last_t:g}")
                book.update(event)
                check_seats(event, book.now(), book)
            except UnicodeDecodeError:
                errors.append(LogError(number, "not valid UTF-8"))
                continue
            except LogError as exc:
                errors.append(exc)
                continue
            last_t = event.t
            events.append(event)
    return events, errors


def event_to_dict(event: Event) -> dict[str, Any]:
    """The EVENTS.md object for an event, with any extra fields it was read with."""
    out: dict[str, Any] = {"t": event.t, "type": event.type}
    if isinstance(event, MatchStart):
        out["ruleset"] = event.ruleset
        out["players"] = list(event.players)
        if event.target is not None:
            out["target"] = event.target
    elif isinstance(event, HandStart):
        if event.dealer is not None:
            out["dealer"] = event.dealer
    elif isinstance(event, Starter):
        assert event.card is not None
        out["card"] = event.card.code
        if event.color is not None:
            out["color"] = event.color
        if event.target is not None:
            out["target"] = event.target
    elif isinstance(event, Play):
        out["seat"] = event.seat
        out["cards"] = [c.code for c in event.cards]
        if event.color is not None:
            out["color"] = event.color
        if event.target is not None:
            out["target"] = event.target
    elif isinstance(event, Draw):
        out["seat"] = event.seat
        out["count"] = event.count
    elif isinstance(event, Pass | Uno | Challenge):
        out["seat"] = event.seat
    elif isinstance(event, ColorCall):
        out["seat"] = event.seat
        out["color"] = event.color
    elif isinstance(event, Reveal):
        out["seat"] = event.seat
        out["cards"] = [c.code for c in event.cards]
    elif isinstance(event, Ruling):
        out["flag"] = event.flag
        out["decision"] = event.decision
        if event.note is not None:
            out["note"] = event.note
    elif isinstance(event, Correction):
        out["line"] = event.target_line
        out["event"] = None if event.event is None else event_to_dict(event.event)
    elif isinstance(event, Insertion):
        out["after"] = event.after_line
        out["event"] = None if event.event is None else event_to_dict(event.event)
    if event.source != "manual":
        out["source"] = event.source
    if event.confidence is not None:
        out["confidence"] = event.confidence
    out.update(event.extra)
    return out


def dumps(event: Event) -> str:
    return json.dumps(event_to_dict(event), ensure_ascii=False, separators=(", ", ": "))


def write_log(dest: str | os.PathLike[str] | IO[str], events: Iterable[Event]) -> None:
    """Write events as JSON Lines (UTF-8), one object a line."""
    if isinstance(dest, str | os.PathLike):
        with Path(dest).open("w", encoding="utf-8") as fh:
            write_log(fh, events)
        return
    for event in events:
        dest.write(dumps(event) + "\n")
