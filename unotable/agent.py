"""A table rig's agent: queue the table's events on disk and post them to the central server, in order, exactly once.

The agent numbers every event it sends (`rig`: this rig's id, `rig_seq`: 1, 2, ...), writes it to an append-only spool
file (fsynced) before trying to send it, and records how far the server has acknowledged. If the server is down, the
spool grows; when it returns, the agent sends from the first unacknowledged event. The server stores an event whose
number it already holds only once, so a batch resent after a crash (the agent's or the server's) is never doubled.
"""

from __future__ import annotations

import json
import os
import secrets
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

BATCH = 200


class AgentError(RuntimeError):
    """Something the operator must fix: a wrong token, an unknown table, an unwritable spool."""


class Spool:
    """The on-disk queue: `events.jsonl` (every event, numbered), `acked` (the last number the server stored)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        try:
            folder.mkdir(parents=True, exist_ok=True)
            id_file = folder / "rig-id"
            if not id_file.exists():
                id_file.write_text(f"rig-{secrets.token_hex(4)}\n", encoding="utf-8")
            self.rig = id_file.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise AgentError(f"can't use spool folder {folder}: {exc.strerror or exc}") from None
        self.path = folder / "events.jsonl"
        self.ack_path = folder / "acked"
        self.rejected_path = folder / "rejected.jsonl"
        self.lock = threading.Lock()
        self.next_seq = self._count_lines() + 1
        self.acked = self._read_acked()

    def _count_lines(self) -> int:
        if not self.path.exists():
            return 0
        last = 0
        with self.path.open("rb") as fh:
            for raw in fh:
                try:
                    last = int(json.loads(raw)["rig_seq"])
                except (ValueError, KeyError, TypeError):
                    break  # a torn last line from a crash mid-write: everything before it is intact
        return last

    def _read_acked(self) -> int:
        try:
            return int(self.ack_path.read_text(encoding="utf-8").strip() or 0)
        except (OSError, ValueError):
            return 0

    def append(self, events: Iterable[dict[str, Any]]) -> int:
        """Number the events and make them durable; returns how many were queued."""
        n = 0
        with self.lock, self.path.open("a", encoding="utf-8") as fh:
            for ev in events:
                obj = dict(ev, rig=self.rig, rig_seq=self.next_seq)
                fh.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")
                self.next_seq += 1
                n += 1
            fh.flush()
            os.fsync(fh.fileno())
        return n

    def pending(self, limit: int = BATCH) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if not self.path.exists():
            return out
        with self.lock, self.path.open("rb") as fh:
            for raw in fh:
                try:
                    obj = json.loads(raw)
                    seq = int(obj["rig_seq"])
                except (ValueError, KeyError, TypeError):
                    break
                if seq > self.acked:
                    out.append(obj)
                    if len(out) >= limit:
                        break
        return out

    def ack(self, seq: int) -> None:
        tmp = self.ack_path.with_suffix(".tmp")
        tmp.write_text(f"{seq}\n", encoding="utf-8")
        os.replace(tmp, self.ack_path)
        self.acked = seq

    def reject(self, obj: dict[str, Any], reason: str) -> None:
        with self.rejected_path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps({"event": obj, "reason": reason}, ensure_ascii=False) + "\n")
        self.ack(int(obj["rig_seq"]))

    @property
    def backlog(self) -> int:
        return self.next_seq - 1 - self.acked


@dataclass
class Sender:
    """Posts the spool to `server`; backs off while the server is unreachable (1 s doubling to 30 s)."""

    spool: Spool
    server: str
    table: str
    token: str
    timeout: float = 10.0
    log: IO[str] = sys.stderr

    def send_once(self) -> int:
        """Send what is pending; returns events acknowledged. Raises OSError while the server can't be reached."""
        batch = self.spool.pending()
        if not batch:
            return 0
        try:
            self._post(batch)
        except urllib.error.HTTPError as exc:
            body = exc.read().decode("utf-8", "replace")
            if exc.code in (401, 403, 404):
                raise AgentError(f"the server refused this rig ({exc.code}): {body.strip()}") from None
            if exc.code == 400:
                return self._bisect_bad(batch, body)
            raise OSError(f"server error {exc.code}") from None
        self.spool.ack(int(batch[-1]["rig_seq"]))
        return len(batch)

    def _post(self, body: object) -> None:
        url = f"{self.server.rstrip('/')}/api/tables/{self.table}/events"
        req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers={
            "Authorization": f"Bearer {self.token}", "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=self.timeout) as resp:
            resp.read()

    def _bisect_bad(self, batch: list[dict[str, Any]], body: str) -> int:
        """A 400 rejects the whole batch: send one by one, keeping every good event and setting aside the bad."""
        sent = 0
        for obj in batch:
            try:
                self._post(obj)
                self.spool.ack(int(obj["rig_seq"]))
                sent += 1
            except urllib.error.HTTPError as exc:
                if exc.code != 400:
                    raise OSError(f"server error {exc.code}") from None
                reason = exc.read().decode("utf-8", "replace").strip()
                print(f"agent: the server refused event {obj.get('rig_seq')}: {reason}", file=self.log)
                self.spool.reject(obj, reason)
        return sent

    def run(self, stop: threading.Event, idle: float = 0.2) -> None:
        delay = 1.0
        while not stop.is_set():
            try:
                sent = self.send_once()
                delay = 1.0
                if not sent:
                    stop.wait(idle)
            except OSError as exc:
                print(f"agent: server {self.server} unreachable ({exc}); {self.spool.backlog} event(s) queued, "
                      f"retrying in {delay:.0f} s", file=self.log)
                stop.wait(delay)
                delay = min(delay * 2, 30.0)

    def drain(self, deadline: float) -> bool:
        """Send until the spool is empty or the deadline passes; True if everything was acknowledged."""
        delay = 0.5
        while self.spool.backlog and time.monotonic() < deadline:
            try:
                self.send_once()
            except OSError:
                time.sleep(delay)
                delay = min(delay * 2, 5.0)
        return self.spool.backlog == 0


def read_events(stream: IO[str]) -> Iterator[dict[str, Any]]:
    """EVENTS.md JSON lines from a pipe (e.g. `unotable watch ... | unotable agent ...`); bad lines are reported."""
    for number, line in enumerate(stream, start=1):
        line = line.strip()
        if not line:
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            print(f"agent: input line {number} is not JSON ({exc.msg}); skipped", file=sys.stderr)
            continue
        if isinstance(obj, dict):
            yield obj


def register(sub: Any) -> None:
    p = sub.add_parser("agent", help="a table rig: queue this table's events on disk and post them to the server")
    p.add_argument("--server", required=True, help="the central server, e.g. http://10.0.0.5:5000")
    p.add_argument("--token", required=True, help="the table's token (from `unotable table add`)")
    p.add_argument("--table", required=True, help="the table's name on the server")
    p.add_argument("--spool", default="data/agent", help="folder for the on-disk queue (default data/agent)")
    p.add_argument("--events", default="-", help="EVENTS.md JSON lines to send: a file, or - for standard input")
    p.add_argument("--drain-timeout", type=float, default=30.0,
                   help="after the input ends, keep trying this many seconds to empty the queue")
    p.set_defaults(func=_agent)


def _agent(args: Any) -> int:
    try:
        spool = Spool(Path(args.spool) / args.table)
    except AgentError as exc:
        print(f"unotable agent: {exc}", file=sys.stderr)
        return 2
    sender = Sender(spool, args.server, args.table, args.token)
    stop = threading.Event()
    failure: list[AgentError] = []

    def send() -> None:
        try:
            sender.run(stop)
        except AgentError as exc:
            failure.append(exc)
            stop.set()

    thread = threading.Thread(target=send, name="agent-sender", daemon=True)
    thread.start()
    try:
        stream = sys.stdin if args.events == "-" else open(args.events, encoding="utf-8")  # noqa: SIM115
    except OSError as exc:
        print(f"unotable agent: can't read {args.events}: {exc.strerror or exc}", file=sys.stderr)
        stop.set()
        return 2
    try:
        for obj in read_events(stream):
            if stop.is_set():
                break
            spool.append([obj])
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        thread.join()
    if failure:
        print(f"unotable agent: {failure[0]}", file=sys.stderr)
        return 2
    try:
        done = sender.drain(time.monotonic() + args.drain_timeout)
    except AgentError as exc:  # the input ended before the thread's first post: the refusal comes from here
        print(f"unotable agent: {exc}", file=sys.stderr)
        return 2
    print(f"agent: {spool.acked} event(s) stored on the server, {spool.backlog} still queued in {spool.folder}",
          file=sys.stderr)
    return 0 if done else 1
