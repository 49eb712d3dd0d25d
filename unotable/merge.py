"""Merging the senses' events into one log in time order.

Vision confirms a card a few frames after it comes to rest and speech fires at the end of a word, so events reach
the merger slightly out of order. The merger holds each event for a short window of table time, then releases
everything older than (newest time seen - window) sorted by `t`. An event that still arrives after a later one was
released (a stage that stalled longer than the window) keeps its place in the log but is stamped with the last
released time, with its observed time kept in `t_observed`: the log's times never go backwards (EVENTS.md).
"""

from __future__ import annotations

import heapq
import itertools
from typing import Any


class EventMerger:
    """`update(events, now)` takes new events and the table clock; returns the events now safe to log, in order."""

    def __init__(self, window: float = 1.0) -> None:
        self.window = window
        self._heap: list[tuple[float, int, dict[str, Any]]] = []
        self._order = itertools.count()
        self.last_t = 0.0
        self.late = 0  # events that arrived after the window had passed them

    def update(self, events: list[dict[str, Any]], now: float) -> list[dict[str, Any]]:
        for ev in events:
            heapq.heappush(self._heap, (float(ev["t"]), next(self._order), ev))
        return self._release(now - self.window)

    def flush(self) -> list[dict[str, Any]]:
        """Everything still held (the source ended)."""
        return self._release(float("inf"))

    def _release(self, upto: float) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        while self._heap and self._heap[0][0] <= upto:
            t, _, ev = heapq.heappop(self._heap)
            if t < self.last_t:
                ev = dict(ev, t=self.last_t, t_observed=t)
                self.late += 1
            else:
                self.last_t = t
            out.append(ev)
        return out

    def __len__(self) -> int:
        return len(self._heap)
