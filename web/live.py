"""Each table's game kept warm in memory, in step with its stored log.

Posting an event must not replay the whole match: for plain appends the table's `tracker.engine.Game` takes the new
events with `apply` (fast), and only a referee's `correction` or `insert` (which rewrite the log before their own
line) or `ruling` (which may change what an earlier mistake cost: `tracker.engine.fold`) costs a full replay of the
stored log. Every change is
committed to the store *before* it is published or acknowledged, and published while the table's lock is held, so
that subscribers see a table's updates in log order.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from tracker.corrections import corrected_entries
from tracker.engine import fold, replay
from tracker.events import REFEREE_TYPES
from tracker.log import LogError, MatchSeats, check_seats, event_to_dict, parse_event
from tracker.ruleset import RULESET_NAMES, RulesetError

from .hub import Hub, Message
from .store import Store, TableInfo

RECENT_EVENTS = 60  # events a snapshot carries for the scrolling log


class PostError(ValueError):
    """A post the table refuses; `status` is the HTTP status, the message names the problem."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class RulingConflict(PostError):
    """A ruling made from a page that showed the flag in another state than it now has (409)."""

    def __init__(self, status: str, message: str) -> None:
        super().__init__(message, 409)
        self.current = status


@dataclass
class TableLive:
    info: TableInfo
    lock: threading.RLock = field(default_factory=threading.RLock)
    events: list[Any] = field(default_factory=list)  # parsed tracker events, in log order
    bodies: list[dict[str, Any]] = field(default_factory=list)  # their EVENTS.md dicts, "line" added
    game: Any = None  # tracker.engine.Game holding every event so far (corrections applied)
    state: dict[str, Any] = field(default_factory=dict)
    scores: dict[str, Any] = field(default_factory=dict)
    flags: list[dict[str, Any]] = field(default_factory=list)
    last_received: float = 0.0
    rig_stored: dict[str, set[int]] = field(default_factory=dict)  # every event number stored from each rig agent
    lines: tuple[int, GameLines] | None = None  # game_lines' answer, and the seq it is of

    @property
    def seq(self) -> int:
        return len(self.events)

    @property
    def last_t(self) -> float:
        return float(self.events[-1].t) if self.events else 0.0


def _note_rig_seq(tl: TableLive, bodies: Sequence[dict[str, Any]]) -> None:
    for b in bodies:
        rig, seq = b.get("rig"), b.get("rig_seq")
        if isinstance(rig, str) and isinstance(seq, int) and not isinstance(seq, bool):
            tl.rig_stored.setdefault(rig, set()).add(seq)


def _result_dicts(result: Any) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    return result.state.to_dict(), dict(result.scores), [f.to_dict() for f in result.flags]


@dataclass(frozen=True)
class GameLines:
    """A table's log as the referee's corrections and inserts leave the game, by raw log line: the event each game
    line now holds (None: struck), and which match it belongs to: the match's number (0 for the first
    `match_start`, -1 before any) and its players. An inserted event takes the insert's line and belongs to the
    match of the place it was inserted at."""

    events: dict[int, Any]
    matches: dict[int, tuple[int, list[str]]]


def game_lines(tl: TableLive) -> GameLines:
    """The table's GameLines (kept until the log grows). A second `match_start` starts a new match and keeps the
    earlier match's flags (README), and seat numbers stay fixed for the match (EVENTS.md): a flag's seat is a seat
    of the match its line was played in, not of the match now in force."""
    with tl.lock:
        if tl.lines is not None and tl.lines[0] == tl.seq:
            return tl.lines[1]
        events: dict[int, Any] = {}
        matches: dict[int, tuple[int, list[str]]] = {}
        number, players = -1, []
        for entry in corrected_entries(tl.events):
            ev = entry.event
            if entry.line in events or (ev is not None and ev.type in REFEREE_TYPES):
                continue  # a referee's event where it was written (an insert's own line: its event came first)
            events[entry.line] = ev
            if ev is None:
                continue
            if ev.type == "match_start":
                number, players = number + 1, list(ev.players)
            matches[entry.line] = (number, players)
        out = GameLines(events, matches)
        tl.lines = (tl.seq, out)
        return out


def flag_player(flag: dict[str, Any], lines: GameLines) -> str | None:
    """The player a flag's seat names, in the match the flag's line was played in (None when it names none)."""
    seat, line = flag.get("seat"), flag.get("line")
    if isinstance(seat, bool) or not isinstance(seat, int) or not isinstance(line, int) or line not in lines.matches:
        return None
    players = lines.matches[line][1]
    return players[seat] if 0 <= seat < len(players) else None


def public_flags(flags: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Flags as spectators may see them: a message naming cards of a hand still in play (a Wild Draw Four
    challenge's) is replaced by the engine's public one."""
    out = []
    for f in flags:
        if "public_message" in f:
            shown = {k: v for k, v in f.items() if k != "public_message"}
            shown["message"] = f["public_message"]
            f = shown
        out.append(f)
    return out


_CARD_CODE = re.compile(r"\b(?:(?:red|yellow|green|blue)-(?:[0-9]|skip|reverse|draw2)|wild-draw4|wild)\b")


def public_state(state: dict[str, Any]) -> dict[str, Any]:
    """The state as spectators may see it: a warning never names a card (one about a challenged hand would name a
    card of a hand still in play); everything else is public already (the state holds counts, never hands)."""
    warnings = state.get("warnings")
    if not warnings or not any(_CARD_CODE.search(w) for w in warnings):
        return state
    return dict(state, warnings=[_CARD_CODE.sub("a card", w) for w in warnings])


def public_event(body: dict[str, Any]) -> dict[str, Any]:
    """An event as an overlay may see it: a revealed hand becomes a count, never the cards."""
    if body.get("type") == "reveal":
        out = dict(body)
        out["cards"] = len(body.get("cards") or [])
        return out
    if body.get("type") in ("correction", "insert") and isinstance(body.get("event"), dict):
        out = dict(body)
        out["event"] = public_event(body["event"])
        return out
    return body


def sse_frame(kind: str, seq: int, payload: dict[str, Any]) -> bytes:
    data = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
    return f"id: {seq}\nevent: {kind}\ndata: {data}\n\n".encode()


class LiveTables:
    """The warm games of every table, the only writer of events."""

    def __init__(self, store: Store, hub: Hub) -> None:
        self.store = store
        self.hub = hub
        self._lock = threading.Lock()
        self._tables: dict[str, TableLive] = {}

    # -- loading ------------------------------------------------------------------------------------------
    def get(self, name: str) -> TableLive | None:
        with self._lock:
            tl = self._tables.get(name)
            if tl is not None:
                return tl
        info = self.store.table(name)
        if info is None:
            return None
        tl = TableLive(info=info)
        with tl.lock:
            self._load(tl)
        with self._lock:
            return self._tables.setdefault(name, tl)

    def refresh_info(self, name: str) -> None:
        """Re-read a table's settings (broadcast delay) after they changed."""
        info = self.store.table(name)
        with self._lock:
            tl = self._tables.get(name)
        if tl is not None and info is not None:
            tl.info = info

    def _load(self, tl: TableLive) -> None:
        stored = self.store.events(tl.info.id)
        tl.events = [parse_event(s.body, s.seq) for s in stored]
        tl.bodies = [dict(s.body, log_line=s.seq) for s in stored]
        tl.rig_stored = {}
        tl.lines = None
        _note_rig_seq(tl, tl.bodies)
        tl.last_received = stored[-1].received_at if stored else 0.0
        self._rebuild(tl)
        # the flags as this engine raises them: a store written by an earlier version may hold others, and the
        # referee queue reads the store
        self.store.save_flags(tl.info.id, tl.flags)

    def _rebuild(self, tl: TableLive, events: list[Any] | None = None) -> Any:
        """Full replay: a fresh Game folds the log as corrected (what `tracker.engine.replay` does), and stays warm
        for the plain appends that follow, since a later event can't change how an earlier line was corrected."""
        game = fold(tl.events if events is None else events, tl.info.ruleset)
        tl.game = game
        result = game.result()
        if events is None:
            tl.state, tl.scores, tl.flags = _result_dicts(result)
        return result

    # -- reading ------------------------------------------------------------------------------------------
    def snapshot(self, tl: TableLive, public: bool = False) -> dict[str, Any]:
        with tl.lock:
            recent = tl.bodies[-RECENT_EVENTS:]
            return {
                "table": tl.info.name, "seq": tl.seq, "state": public_state(tl.state) if public else tl.state,
                "scores": tl.scores, "flags": public_flags(tl.flags) if public else tl.flags,
                "events": [public_event(b) for b in recent] if public else list(recent),
                "received_at": tl.last_received, "server_time": time.time(),
            }

    def delayed_snapshot(
        self, tl: TableLive, before: float, public: bool = True, recent: int | None = RECENT_EVENTS
    ) -> dict[str, Any]:
        """The table as it stood at wall time `before` (for a broadcast delay): a replay of what was stored by then,
        with its last `recent` events (all with None)."""
        stored = self.store.events(tl.info.id, received_before=before)
        events = [parse_event(s.body, s.seq) for s in stored]
        result = replay(events, tl.info.ruleset)
        state, scores, flags = _result_dicts(result)
        shown = [dict(s.body, log_line=s.seq) for s in (stored if recent is None else stored[len(stored) - recent:])]
        return {
            "table": tl.info.name, "seq": len(stored), "state": public_state(state) if public else state,
            "scores": scores, "flags": public_flags(flags) if public else flags,
            "events": [public_event(b) for b in shown] if public else shown,
            "received_at": stored[-1].received_at if stored else 0.0, "server_time": time.time(),
        }

    # -- writing ------------------------------------------------------------------------------------------
    def post(self, name: str, objs: Sequence[Any], *, referee: str | None = None) -> list[int]:
        """Validate, store, fold in and publish events from a rig (referee=None) or a referee; returns their lines.

        All or nothing: a bad event anywhere in the list leaves the log as it was.
        A rig agent numbers its events (`rig`: its id, `rig_seq`: 1, 2, ...); an event whose number that rig has
        already had stored is skipped, so a batch resent after a lost acknowledgement is never stored twice."""
        tl = self.get(name)
        if tl is None:
            raise PostError(f"no table named {name!r}", 404)
        if not objs:
            raise PostError("no events: post one event object or a non-empty list of them")
        with tl.lock:
            objs = [o for o in objs if not self._already_stored(tl, o)]
            if not objs:
                return []
            many = len(objs) > 1
            parsed = []
            last_t = tl.last_t
            players = self._players(tl)
            seqs: set[tuple[str, int]] = set()
            for i, obj in enumerate(objs):
                where = f"event {i + 1} of {len(objs)}" if many else "event"
                line = tl.seq + i + 1
                self._check_rig_seq(obj, seqs, where)
                try:
                    ev = parse_event(obj, line)
                    if ev.type == "match_start":
                        players = len(ev.players)
                    check_seats(ev, players, self._book(tl) if ev.type in ("correction", "insert") else None)
                except LogError as exc:
                    raise PostError(f"{where}: {exc.reason}") from None
                self._check_ruleset(tl, ev, where)
                if ev.type == "hand_start" and players is None:  # `replay` warns; a rig is told at once
                    raise PostError(f"{where}: a hand_start before any match_start: post the match_start first")
                if ev.type in REFEREE_TYPES and referee is None:
                    raise PostError(f"{where}: a table rig can't post {ev.type!r} events; only a referee can", 403)
                if ev.t < last_t:
                    raise PostError(
                        f"{where}: out of order: t={ev.t:g} is earlier than the table's last event (t={last_t:g}); "
                        "events must never go back in time"
                    )
                if ev.type in ("correction", "insert"):
                    self._check_correction(tl, ev, where)
                last_t = ev.t
                parsed.append(ev)
            return self._commit(tl, parsed, ruling=None)

    @staticmethod
    def _book(tl: TableLive) -> MatchSeats:
        """The seats of each match on the table (a correction or insert names its own match's seats)."""
        book = MatchSeats()
        for ev in tl.events:
            book.update(ev)
        return book

    @staticmethod
    def _players(tl: TableLive) -> int | None:
        """Seats at the table's current match (None before its match_start)."""
        n = len(tl.state.get("players") or [])
        return n or None

    @staticmethod
    def _check_rig_seq(obj: Any, seen: set[tuple[str, int]], where: str) -> None:
        """A rig's event numbers are whole numbers a rig can reach, once each in a batch."""
        if not isinstance(obj, dict) or "rig_seq" not in obj:
            return
        rig, seq = obj.get("rig"), obj.get("rig_seq")
        if isinstance(seq, bool) or not isinstance(seq, int) or not 0 < seq <= MAX_RIG_SEQ:
            raise PostError(f"{where}: 'rig_seq' must be a whole number from 1 to {MAX_RIG_SEQ}, got {seq!r}")
        if isinstance(rig, str):
            if (rig, seq) in seen:
                raise PostError(f"{where}: rig {rig!r} numbered two events of this batch {seq}")
            seen.add((rig, seq))

    @staticmethod
    def _check_ruleset(tl: TableLive, ev: Any, where: str) -> None:
        """A dashboard plays the built-in rulesets and the table's own; it never opens a file a rig names."""
        named = getattr(ev, "ruleset", None) if ev.type == "match_start" else None
        if ev.type in ("correction", "insert") and ev.event is not None and ev.event.type == "match_start":
            named = ev.event.ruleset
        if named is None or named in RULESET_NAMES or tl.info.ruleset:  # a table's forced ruleset overrides the log's
            return
        raise PostError(f"{where}: ruleset {named!r} is not one this dashboard plays: use one of "
                        f"{', '.join(RULESET_NAMES)}, or register the table with its own ruleset file "
                        f"(`unotable table add {tl.info.name} --ruleset FILE.toml` on the server)")

    @staticmethod
    def _already_stored(tl: TableLive, obj: Any) -> bool:
        if not isinstance(obj, dict):
            return False
        rig, seq = obj.get("rig"), obj.get("rig_seq")
        if not isinstance(rig, str) or isinstance(seq, bool) or not isinstance(seq, int):
            return False
        # a number stored before is a resend; one below the highest that never was stored is a late event, which
        # the time-order check then refuses (to the agent's rejected.jsonl), never acknowledged as stored
        return seq in tl.rig_stored.get(rig, ())

    def _check_correction(self, tl: TableLive, ev: Any, where: str) -> None:
        if ev.type == "insert":
            if ev.after_line > tl.seq:
                raise PostError(f"{where}: line {ev.after_line} doesn't exist yet (the log has {tl.seq} lines)")
            return
        target = ev.target_line
        if target > tl.seq:
            raise PostError(f"{where}: line {target} doesn't exist yet (the log has {tl.seq} lines)")
        if tl.events[target - 1].type in ("ruling", "correction"):  # an insert's line is its event: correctable
            raise PostError(f"{where}: line {target} is a referee's decision; rule again instead of correcting it")

    def _commit(self, tl: TableLive, parsed: list[Any], ruling: dict[str, Any] | None) -> list[int]:
        first = tl.seq + 1
        bodies = [event_to_dict(ev) for ev in parsed]
        old_flags = tl.flags
        try:
            # a correction rewrites an earlier line; a ruling may change what an earlier mistake cost (`fold`)
            if any(ev.type in REFEREE_TYPES for ev in parsed):
                result = self._rebuild(tl, tl.events + parsed)
            else:
                for ev in parsed:
                    tl.game.apply(ev)
                result = tl.game.result()
            state, scores, flags = _result_dicts(result)
            received = self.store.append_events(
                tl.info.id, first, bodies, flags=flags if flags != old_flags else None, ruling=ruling
            )
        except RulesetError as exc:  # the engine refused the log (e.g. a ruleset file it cannot read)
            self._load(tl)
            raise PostError(str(exc)) from None
        except Exception:
            self._load(tl)  # the game may have taken events the store refused: start again from the store
            raise
        tl.events.extend(parsed)
        tl.bodies.extend(dict(b, log_line=first + i) for i, b in enumerate(bodies))
        _note_rig_seq(tl, bodies)
        tl.state, tl.scores, tl.flags = state, scores, flags
        tl.last_received = received
        self._publish(tl, tl.bodies[-len(parsed):], received)
        return list(range(first, first + len(parsed)))

    def _publish(self, tl: TableLive, new: list[dict[str, Any]], received: float) -> None:
        payload = {
            "table": tl.info.name, "seq": tl.seq, "events": new, "state": tl.state, "scores": tl.scores,
            "flags": tl.flags, "received_at": received,
        }
        frame = sse_frame("update", tl.seq, payload)
        hidden = any("public_message" in f for f in tl.flags) or public_state(tl.state) is not tl.state
        if hidden or any(b.get("type") in ("reveal", "correction", "insert") for b in new):
            public = sse_frame("update", tl.seq, dict(payload, events=[public_event(b) for b in new],
                                                      flags=public_flags(tl.flags), state=public_state(tl.state)))
        else:
            public = frame
        self.hub.publish(tl.info.name, Message(tl.seq, received, frame, public))

    # -- referee decisions --------------------------------------------------------------------------------
    def _table(self, name: str) -> TableLive:
        tl = self.get(name)
        if tl is None:
            raise PostError(f"no table named {name!r}", 404)
        return tl

    def _append_referee(self, tl: TableLive, fields: dict[str, Any], username: str, note: str | None,
                        audit: dict[str, Any]) -> int:
        """Append one referee event (stamped with the table's last time, `by` and `at`), its line in the audit
        trail beside it; the table is replayed at once. Call with the table's lock held."""
        obj: dict[str, Any] = {"t": tl.last_t, **fields, "source": "referee", "by": username, "at": _iso_now()}
        if note:
            obj["note"] = note
        ev = self._parse_referee(tl, obj)
        if ev.type in ("correction", "insert"):
            self._check_correction(tl, ev, ev.type)
        audit = {**audit, "note": note, "username": username, "event_seq": tl.seq + 1}
        return self._commit(tl, [ev], ruling=audit)[0]

    def rule(self, name: str, flag_id: str, decision: str, username: str, note: str | None = None,
             seen: str | None = None) -> int:
        """Append a `ruling` on a flag; returns its log line. `seen`: the flag's status on the referee's page; if it
        changed since (another referee ruled), nothing is appended and a RulingConflict (409) says so."""
        if decision not in ("upheld", "dismissed"):
            raise PostError(f"bad decision {decision!r}: expected 'upheld' or 'dismissed'")
        tl = self._table(name)
        with tl.lock:
            flag = next((f for f in tl.flags if str(f["id"]) == flag_id), None)
            if flag is None:
                raise PostError(f"table {name!r} has no flag {flag_id!r} (was its event corrected away?)", 404)
            if seen is not None and flag.get("status") != seen:
                raise RulingConflict(str(flag.get("status")), f"flag {flag_id} on {name!r} is already "
                                     f"{flag.get('status')}, not {seen} as your page showed: another referee ruled "
                                     "on it meanwhile; your decision was not recorded")
            return self._append_referee(
                tl, {"type": "ruling", "flag": flag_id, "decision": decision}, username, note,
                {"kind": "ruling", "flag_id": flag_id, "decision": decision, "line": flag.get("line"),
                 "detail": json.dumps({"flag": flag})})

    def correct(
        self, name: str, line: int, new_event: dict[str, Any] | None, username: str, note: str | None = None
    ) -> int:
        """Append a `correction` of log line `line` (None strikes it); the table is replayed at once."""
        tl = self._table(name)
        with tl.lock:
            if not 1 <= line <= tl.seq:
                raise PostError(f"line {line} doesn't exist: table {name!r} has lines 1-{tl.seq}")
            return self._append_referee(
                tl, {"type": "correction", "line": line, "event": new_event}, username, note,
                {"kind": "correction", "flag_id": None, "decision": "struck" if new_event is None else "corrected",
                 "line": line, "detail": json.dumps({"was": tl.bodies[line - 1], "now": new_event})})

    def insert(
        self, name: str, after: int, new_event: dict[str, Any], username: str, note: str | None = None
    ) -> int:
        """Append an `insert`: an event no sense logged, put right after log line `after` (0: before the first);
        without its own `t` it happens when line `after` did. The table is replayed at once."""
        tl = self._table(name)
        with tl.lock:
            if not 0 <= after <= tl.seq:
                raise PostError(f"line {after} doesn't exist: table {name!r} has lines 1-{tl.seq} (0: before line 1)")
            if "t" not in new_event:
                new_event = {**new_event, "t": tl.events[after - 1].t if after else 0.0}
            return self._append_referee(
                tl, {"type": "insert", "after": after, "event": new_event}, username, note,
                {"kind": "insert", "flag_id": None, "decision": "inserted", "line": after,
                 "detail": json.dumps({"after": after, "now": new_event})})

    def _parse_referee(self, tl: TableLive, obj: dict[str, Any]) -> Any:
        try:
            ev = parse_event(obj, tl.seq + 1)
            check_seats(ev, self._players(tl), self._book(tl))
        except LogError as exc:
            raise PostError(exc.reason) from None
        self._check_ruleset(tl, ev, "correction")
        return ev


MAX_RIG_SEQ = 2**53  # a rig numbering ten events a second for thirty million years stays below it


def _iso_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
