"""In-process publish/subscribe for Server-Sent Events.

One server process holds every table's subscribers. A message is encoded once (JSON and the SSE frame) and the same
bytes are queued for every subscriber of its table, so 300 listeners cost 300 queue puts, not 300 encodings. A
subscriber that falls 2,000 messages behind (a dead or stalled client) is cut off instead of growing without bound;
its browser's EventSource reconnects and gets a fresh snapshot.
"""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass

MAX_BACKLOG = 2000


@dataclass(frozen=True, slots=True)
class Message:
    """One SSE frame: `seq` is the table's last log line it reflects, `received_at` the wall time it was stored."""

    seq: int
    received_at: float
    frame: bytes  # the full frame, for referee pages and the live page
    public_frame: bytes  # the same with every hand hidden, for overlays


class Subscriber:
    def __init__(self, table: str) -> None:
        self.table = table
        self.queue: queue.Queue[Message | None] = queue.Queue(maxsize=MAX_BACKLOG)
        self.overflowed = False
        self.closed = False

    def put(self, msg: Message | None) -> None:
        try:
            self.queue.put_nowait(msg)
        except queue.Full:
            self.overflowed = True

    def get(self, timeout: float) -> Message | None:
        """The next message, or None when none came within `timeout` (time for a keep-alive comment)."""
        try:
            return self.queue.get(timeout=timeout)
        except queue.Empty:
            return None


class Hub:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subs: dict[str, set[Subscriber]] = {}

    def subscribe(self, table: str) -> Subscriber:
        sub = Subscriber(table)
        with self._lock:
            self._subs.setdefault(table, set()).add(sub)
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        with self._lock:
            subs = self._subs.get(sub.table)
            if subs is not None:
                subs.discard(sub)

    def publish(self, table: str, msg: Message) -> int:
        """Queue `msg` for every subscriber of `table`; returns how many."""
        with self._lock:
            subs = list(self._subs.get(table, ()))
        for sub in subs:
            sub.put(msg)
        return len(subs)

    def count(self, table: str | None = None) -> int:
        with self._lock:
            if table is not None:
                return len(self._subs.get(table, ()))
            return sum(len(s) for s in self._subs.values())

    def close_all(self) -> None:
        """Wake every stream so that a stopping server's threads end."""
        with self._lock:
            subs = [s for group in self._subs.values() for s in group]
        for sub in subs:
            sub.closed = True
            sub.put(None)
