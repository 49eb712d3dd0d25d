"""The video pipeline: frames in, table events (EVENTS.md dicts) out.

`Watcher(table, reader).process(frame)` runs, per frame: the foreground model on the low-resolution table raster
(`vision.motion`), then the discard-pile, draw and reveal trackers, which call the card reader only when something
has come to rest. Events carry `source: "vision"`, a `confidence`, and `seen_t` (the frame time at which the event
was decided; `seen_t - t` is the pipeline's latency in video time). Time order: events are released in order of
`t` (a later-decided event never goes out before an earlier one is final).

Every frame is checked against the calibration (size, 8-bit colour): the first frame that doesn't fit refuses the
stream (`FrameMismatchError`), a later one is skipped with a warning (a phone photo among a folder's frames, an IP
camera back on its sub-stream), so one odd frame never stops the camera side for the rest of the match; a stretch
of skipped frames longer than `STALL_S` is a gap (nothing was seen then) and restarts the trackers as one does.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from vision.discard import DiscardTracker
from vision.draws import DrawTracker
from vision.motion import LOW, ForegroundModel
from vision.readers import CardReader
from vision.reveals import RevealTracker
from vision.sources import STALL_S, Frame, Gap
from vision.tablefile import Table


@dataclass
class WatchStats:
    frames: int = 0
    frames_skipped: int = 0  # frames the calibration can't read (another size, not 8-bit colour): never processed
    frames_read: int = 0  # frames on which the card reader ran at least once
    reads: int = 0
    seconds: float = 0.0
    events: int = 0
    warnings: list[str] = field(default_factory=list)

    @property
    def fps(self) -> float:
        return self.frames / self.seconds if self.seconds > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"frames": self.frames, "frames_skipped": self.frames_skipped, "frames_read": self.frames_read,
                "reads": self.reads, "read_share": round(self.frames_read / max(1, self.frames), 4), "fps": round(self.fps, 1),
                "events": self.events}


class FrameMismatchError(ValueError):
    """A frame the table's calibration can't read: another size than it was calibrated at, or not a colour image."""


@dataclass
class _OddStretch:
    """Frames skipped in a row since the last readable one (at `after_t`), and why the latest of them was."""

    after_t: float
    why: str
    count: int = 0


class Watcher:
    """`process(frame)` turns one frame into the events decided on it; `gap(gap)` tells it nothing was seen for a
    while. Warnings (skipped frames, gaps it finds itself) go to `stats.warnings` and to `on_warning` when set: a
    text, or for a gap the same object `gap` returns ({"warning": "no frames", ...})."""

    def __init__(self, table: Table, reader: CardReader, hold_s: float = 0.0) -> None:
        self.table, self.reader = table, reader
        self.model = ForegroundModel(table)
        self.discard = DiscardTracker(self.model, reader)
        self.draws = DrawTracker(self.model, reader, pile_faces=lambda: self.discard.cands.known,
                                 pile_started=lambda: bool(self.discard.top))
        self.reveals = RevealTracker(self.model, reader)
        self.stats = WatchStats()
        self.last_event: dict[str, Any] | None = None
        self.last_t = 0.0
        self.on_warning: Callable[[str | dict[str, Any]], None] | None = None
        self.last_frame_t: float | None = None  # the last frame processed (None before the first)
        self._odd: _OddStretch | None = None

    def warn(self, message: str | dict[str, Any]) -> None:
        """Note a warning (a gap object is already in `stats.warnings`, by `gap`) and pass it to `on_warning`."""
        if isinstance(message, str):
            self.stats.warnings.append(message)
        if self.on_warning is not None:
            self.on_warning(message)

    def check_frame(self, image: np.ndarray) -> None:
        """Refuse a frame the zones can't be read on, naming why: the homography and zones are in the calibrated
        image's pixels, so another resolution would put every zone in the wrong place, silently."""
        if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
            raise FrameMismatchError(f"a frame of shape {image.shape} and type {image.dtype}: the camera side reads "
                                     f"8-bit colour (BGR) frames")
        size = self.table.image_size
        if size is not None and (image.shape[1], image.shape[0]) != tuple(size):
            raise FrameMismatchError(f"the frames are {image.shape[1]}x{image.shape[0]} but the table was calibrated "
                                     f"at {size[0]}x{size[1]}: calibrate again at this resolution "
                                     f"(`unotable calibrate`), or set the camera to {size[0]}x{size[1]}")

    def _skip(self, frame: Frame, why: str) -> None:
        """A frame after the first that the zones can't be read on: skipped, warned once per stretch of them (again
        only if the reason changes: a camera that came back at another size, then in another format)."""
        self.stats.frames_skipped += 1
        odd = self._odd
        if odd is None or why != odd.why:
            self.warn(f"frame {frame.index} (t={frame.t:.2f}s) skipped: {why}; skipping such frames until they fit")
        if odd is None:
            assert self.last_frame_t is not None
            odd = self._odd = _OddStretch(self.last_frame_t, why)
        odd.why = why
        odd.count += 1

    def _resume(self, frame: Frame) -> None:
        """The first readable frame after a stretch of skipped ones: a stretch longer than `STALL_S` is a gap (the
        trackers restart); a short one (a stray image in a folder) is like a frame the decoder dropped."""
        odd, self._odd = self._odd, None
        assert odd is not None
        if frame.t - odd.after_t > STALL_S:
            self.warn(self.gap(Gap(odd.after_t, frame.t, f"{odd.count} frame(s) the table can't be read on")))
        else:
            self.warn(f"frame {frame.index} (t={frame.t:.2f}s) fits the table again; {odd.count} frame(s) skipped")

    def process(self, frame: Frame) -> list[dict[str, Any]]:
        """The events decided on `frame`, in order of `t`. The first frame must fit the calibration (else
        `FrameMismatchError`: the stream can't be read at all); a later one that doesn't is skipped (no events)."""
        try:
            self.check_frame(frame.image)
        except FrameMismatchError as exc:
            if self.last_frame_t is None:
                raise
            self._skip(frame, str(exc))
            return []
        if self._odd is not None:
            self._resume(frame)
        start = time.perf_counter()
        before = self.reader.calls
        self.model.update(frame.image, frame.t)
        events = self.discard.step(frame.image, frame.t)
        events += self.draws.step(frame.image, frame.t)
        events += self.reveals.step(frame.image, frame.t)
        # in order of t first, then never back in time: a late decision is stamped no earlier than the last event.
        # Sorting after the clamp would stamp an earlier event decided on this frame with a later one's t and log
        # it after that one (a draw behind the next seat's play: an out-of-turn the table never saw)
        events.sort(key=lambda e: float(e["t"]))
        for ev in events:
            ev["t"] = max(float(ev["t"]), self.last_t)
            self.last_t = ev["t"]
        self.last_frame_t = frame.t
        calls = self.reader.calls - before
        self.stats.frames += 1
        self.stats.reads += calls
        self.stats.frames_read += 1 if calls else 0
        self.stats.events += len(events)
        self.stats.seconds += time.perf_counter() - start
        if events:
            self.last_event = events[-1]
        return events

    def gap(self, gap: Gap) -> dict[str, Any]:
        """A camera gap: reported as a warning; the trackers restart so nothing half-seen is carried across it."""
        self.model.bg = None
        self.model.prev = None
        self.discard.forget_empty_look()
        msg = {"warning": "no frames", "from_t": round(gap.start, 3), "to_t": round(gap.end, 3), "reason": gap.reason}
        self.stats.warnings.append(f"gap {gap.start:.2f}-{gap.end:.2f}s: {gap.reason}")
        return msg

    def annotate(self, image: np.ndarray, t: float) -> np.ndarray:
        """The frame with zones, hands, candidates, the top card and the last event drawn (for `watch --show`)."""
        from vision.calibration import draw_zones

        out = draw_zones(image, self.table, 1)
        t2i = self.table.table_to_image
        for hnd in self.model.hands:
            tip = cv2.perspectiveTransform(hnd.tip[None, None].astype(np.float64), t2i)[0, 0]
            cv2.circle(out, (int(tip[0]), int(tip[1])), 6, (0, 0, 255), 2)
            cv2.putText(out, f"seat {hnd.seat}", (int(tip[0]) + 8, int(tip[1])), cv2.FONT_HERSHEY_SIMPLEX, 0.5,
                        (0, 0, 255), 1, cv2.LINE_AA)
        for b in self.model.blobs:
            x0, y0, x1, y1 = b.bbox_mm
            quad = np.array([[[x0, y0], [x1, y0], [x1, y1], [x0, y1]]], np.float64)
            pts = cv2.perspectiveTransform(quad, t2i)[0]
            cv2.polylines(out, [np.round(pts).astype(np.int32)], True, (255, 0, 255), 2, cv2.LINE_AA)
        top = " + ".join(self.discard.top) or "-"
        lines = [f"t={t:6.2f}s  top: {top}"]
        if self.last_event is not None:
            e = self.last_event
            what = e.get("cards") or e.get("card") or e.get("count")
            lines.append(f"last: {e['type']} seat={e.get('seat')} {what} @ {e['t']:.2f}s")
        for i, line in enumerate(lines):
            y = 24 + 24 * i
            cv2.putText(out, line, (10, y), cv2.FONT_HERSHEY_SIMPLEX, 0.65, (0, 0, 0), 4, cv2.LINE_AA)
            cv2.putText(out, line, (10, y), cv2.FONT_HERSHEY_SIMPLEX, 0.65, (255, 255, 255), 1, cv2.LINE_AA)
        return out


__all__ = ["Watcher", "WatchStats", "LOW"]
