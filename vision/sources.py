"""Frame sources behind one interface: a video file, a camera index, an RTSP/HTTP URL, a folder of images.

Each yields `Frame(index, t, image)` with `t` in seconds since the source started (a file's own timeline, a live
camera's clock). Problems never crash the stream:
- a frame that can't be decoded is skipped with a warning;
- a live camera that drops out is reopened with back-off (0.5 s, 1 s, 2 s ... up to `max_backoff`), and the
  gap is reported as a `Gap` (an event-free interval) and a warning;
- a live stream that stalls (a network stream's read blocking for more than `STALL_S`, then going on) is the same:
  a `Gap` and a warning, since nothing was seen while it stalled;
- a live camera whose frames change size or format (reopened on its sub-stream, a webcam replugged at its default
  size) says so in a warning: the table's zones are in the calibrated frame's pixels;
- only an unreadable *start* (no such file, a camera that never opens) raises `SourceError`, with a message
  naming the source.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"}
STALL_S = 1.0
"""A live read that blocks this long (30 frame periods at 30 fps) is a stall: nothing was seen meanwhile, a `Gap`."""


class SourceError(RuntimeError):
    """A source that cannot be opened at all."""


@dataclass(frozen=True)
class Frame:
    index: int
    t: float
    image: np.ndarray


@dataclass(frozen=True)
class Gap:
    """No frames came between `start` and `end` (seconds): nothing can have been seen then."""

    start: float
    end: float
    reason: str


class Capture(Protocol):
    def isOpened(self) -> bool: ...
    def read(self) -> tuple[bool, Any]: ...
    def release(self) -> None: ...
    def get(self, prop: int) -> float: ...


@dataclass
class FrameSource:
    """Common part: `warnings` (strings) and `gaps` collected while iterating, and an `on_warning` hook."""

    name: str = ""
    warnings: list[str] = field(default_factory=list)
    gaps: list[Gap] = field(default_factory=list)
    on_warning: Callable[[str], None] | None = None
    fps: float = 30.0

    def warn(self, message: str) -> None:
        self.warnings.append(message)
        if self.on_warning is not None:
            self.on_warning(message)

    def __iter__(self) -> Iterator[Frame]:
        raise NotImplementedError


def cut_short(path: Path | str) -> str | None:
    """Why the image file at `path` is incomplete, or None: a JPEG without its end-of-image marker, a PNG without
    its last chunk (a copy or upload that stopped part way). OpenCV decodes such a file anyway, with the missing
    part grey, and a grey band is not what the camera saw."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(8)
            fh.seek(0, 2)
            size = fh.tell()
            fh.seek(max(0, size - 64))
            tail = fh.read()
    except OSError:
        return None
    if head[:2] == b"\xff\xd8" and b"\xff\xd9" not in tail.rstrip(b"\x00\r\n "):
        return "its JPEG end-of-image marker is missing: the file is cut short"
    if head == b"\x89PNG\r\n\x1a\n" and b"IEND" not in tail:
        return "its PNG end chunk is missing: the file is cut short"
    return None


def _describe(shape: tuple[int, ...], dtype: np.dtype[Any]) -> str:
    """A frame's look for a warning: `960x540`, with its channels and type where they are not 8-bit BGR."""
    size = f"{shape[1]}x{shape[0]}"
    channels = shape[2] if len(shape) == 3 else 1
    return size if channels == 3 and dtype == np.uint8 else f"{size} ({channels} channel(s), {dtype})"


def _valid(image: Any) -> bool:
    return isinstance(image, np.ndarray) and image.ndim in (2, 3) and image.size > 0 and image.shape[0] > 1


class VideoFileSource(FrameSource):
    """A video file on its own timeline: each frame's t is its presentation time in the file (a variable-frame-rate
    recording, a phone's, that paused for 5 s keeps its later frames 5 s later), from the start of the file as the
    soundtrack is (`speech.audio`); where the decoder gives no time, one frame period after the last (the file's
    rate)."""

    def __init__(self, path: Path | str, opener: Callable[[str], Capture] | None = None, max_bad: int = 30,
                 remote: bool = False) -> None:
        super().__init__(name=str(path))
        self.spec = str(path)  # what is opened: a file, or the URL of a recorded video (`remote`)
        self.path = Path(self.spec.rsplit("/", 1)[-1]) if remote else Path(path)
        if not remote and not self.path.exists():
            raise SourceError(f"video file {self.path} not found")
        self.opener = opener or (lambda p: cv2.VideoCapture(p))
        cap = self.opener(self.spec)
        if not cap.isOpened():
            raise SourceError(f"cannot read video file {self.path} (not a video OpenCV can decode)")
        ok, first = cap.read()
        cap.release()
        if not ok or not _valid(first):
            raise SourceError(f"cannot read video file {self.path}: no decodable frame")
        self.max_bad = max_bad

    def __iter__(self) -> Iterator[Frame]:
        cap = self.opener(self.spec)
        fps = cap.get(cv2.CAP_PROP_FPS) or 30.0
        self.fps = fps if 1 <= fps <= 240 else 30.0
        total = int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        # a corrupt stretch inside the file is skipped for up to ten seconds of frames (a damaged patch of a
        # recording costs its frames, not the rest of the game); one warning a stretch, not one a frame
        limit = max(self.max_bad, int(10 * self.fps))
        idx, bad = 0, 0
        last_t: float | None = None
        try:
            while True:
                ok, img = cap.read()
                if ok and _valid(img):
                    if bad:
                        which = f"frame {idx - 1}" if bad == 1 else f"frames {idx - bad}-{idx - 1}"
                        self.warn(f"{self.path.name}: {which} could not be decoded; skipped")
                    bad = 0
                    last_t = self._frame_time(cap, idx, last_t)
                    yield Frame(idx, last_t, img if img.ndim == 3 else cv2.cvtColor(img, cv2.COLOR_GRAY2BGR))
                    idx += 1
                    continue
                if total and idx < total - 1 and bad < limit:  # a corrupt frame inside the file: skip it
                    bad += 1
                    idx += 1
                    continue
                break
            if total and idx - bad < total - 1:  # stopped before the end the header announced
                self.warn(f"{self.path.name}: the video ends at frame {idx - bad} of the {total} its header "
                          f"announces (cut short, or damaged from there on)")
        finally:
            cap.release()


    def _frame_time(self, cap: Any, idx: int, last: float | None) -> float:
        """The frame just read: its presentation time where the decoder knows it and time goes forward, else one
        frame period after the last frame (and never before index / rate, so skipped frames keep their place)."""
        steady = idx / self.fps if last is None else max(last + 1.0 / self.fps, idx / self.fps)
        try:
            pos = float(cap.get(cv2.CAP_PROP_POS_MSEC)) / 1000.0
        except Exception:  # a capture without positions (a test double, an odd backend)
            return steady
        if math.isfinite(pos) and pos >= 0 and (last is None or pos > last):
            return pos
        return steady


class LiveSource(FrameSource):
    """A camera index or a stream URL, timed by the clock; reopened with back-off when it drops out."""

    def __init__(self, spec: str | int, opener: Callable[[str | int], Capture] | None = None,
                 max_backoff: float = 8.0, give_up_after: float = 60.0, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep, stall_after: float = STALL_S) -> None:
        """`stall_after`: a read that blocks longer than this (seconds) is reported as a stall (`Gap`)."""
        super().__init__(name=str(spec))
        self.spec = spec
        self.opener = opener or (lambda s: cv2.VideoCapture(s))
        self.max_backoff, self.give_up_after, self.stall_after = max_backoff, give_up_after, stall_after
        self.clock, self.sleep = clock, sleep
        self.cap = self.opener(spec)
        if not self.cap.isOpened():
            raise SourceError(f"cannot open camera/stream {spec!r} (no device at that index, or the URL is unreachable)")

    def _reopen(self, since: float) -> bool:
        delay = 0.5
        while self.clock() - since < self.give_up_after:
            self.sleep(delay)
            try:
                self.cap.release()
            except Exception:  # a dead capture may fail to release; a fresh one replaces it anyway
                pass
            self.cap = self.opener(self.spec)
            if self.cap.isOpened():
                ok, img = self.cap.read()
                if ok and _valid(img):
                    self._pending = img
                    return True
            delay = min(delay * 2, self.max_backoff)
        return False

    epoch: float | None = None
    """The clock reading that is the table's t=0 (`unotable run` sets it, so that the camera and the microphone share
    one zero); None: the moment reading began."""

    def __iter__(self) -> Iterator[Frame]:
        start = self.clock() if self.epoch is None else self.epoch
        idx = 0
        self._pending: np.ndarray | None = None
        last_t = 0.0
        look: tuple[tuple[int, ...], np.dtype[Any]] | None = None  # the frames' shape and type so far
        try:
            while True:
                asked: float | None = None  # when this read began (None: a frame read when the camera came back)
                if self._pending is not None:
                    ok, img, self._pending = True, self._pending, None
                else:
                    asked = self.clock() - start
                    ok, img = self.cap.read()
                if ok and _valid(img):
                    t = self.clock() - start
                    if idx and asked is not None and t - asked > self.stall_after:
                        # the read blocked (a network stream's packets held up) and then went on: nothing was seen
                        # since the last frame, as when the camera drops out
                        self.gaps.append(Gap(last_t, t, "stream stalled"))
                        self.warn(f"{self.name}: stream stalled for {t - asked:.1f}s; no events between "
                                  f"{last_t:.2f}s and {t:.2f}s")
                    if look is not None and (img.shape, img.dtype) != look:
                        self.warn(f"{self.name}: at t={t:.2f}s the frames changed from {_describe(*look)} to "
                                  f"{_describe(img.shape, img.dtype)}")
                    look = (img.shape, img.dtype)
                    last_t = t
                    yield Frame(idx, last_t, img if img.ndim == 3 else cv2.cvtColor(img, cv2.COLOR_GRAY2BGR))
                    idx += 1
                    continue
                lost = self.clock()
                self.warn(f"{self.name}: camera dropped at t={last_t:.2f}s; reopening")
                if not self._reopen(lost):
                    end = self.clock() - start
                    self.gaps.append(Gap(last_t, end, "camera lost"))
                    self.warn(f"{self.name}: camera did not come back within {self.give_up_after:.0f}s; stopping")
                    return
                back = self.clock() - start
                self.gaps.append(Gap(last_t, back, "camera dropped"))
                self.warn(f"{self.name}: camera back at t={back:.2f}s; no events between {last_t:.2f}s and {back:.2f}s")
        finally:
            self.cap.release()


class ImageFolderSource(FrameSource):
    """A folder of images in name order, as frames at `fps`; unreadable images are skipped with a warning."""

    def __init__(self, folder: Path, fps: float = 30.0) -> None:
        if not (math.isfinite(fps) and fps > 0):  # 0 divides by zero, a negative or NaN rate makes times run back
            raise SourceError(f"the frame rate of folder {folder} must be a positive number of frames a second, "
                              f"got {fps}")
        super().__init__(name=str(folder), fps=fps)
        self.files = sorted(p for p in Path(folder).iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise SourceError(f"folder {folder} holds no images ({', '.join(sorted(IMAGE_SUFFIXES))})")

    def __iter__(self) -> Iterator[Frame]:
        for i, p in enumerate(self.files):
            img = cv2.imread(str(p), cv2.IMREAD_COLOR)
            if not _valid(img):
                self.warn(f"{p.name}: not a readable image; skipped")
                continue
            why = cut_short(p)
            if why:
                self.warn(f"{p.name}: {why}; skipped")
                continue
            yield Frame(i, i / self.fps, img)


def open_source(spec: str, fps: float = 30.0) -> FrameSource:
    """The right source for `spec`: a digit string is a camera index, a URL is a stream, a folder is images, a file
    is a video."""
    if spec.isdigit():
        return LiveSource(int(spec))
    if "://" in spec:
        if spec.split("://", 1)[0].lower() in ("http", "https", "file") and _is_recording(spec):
            # a recorded video behind a URL has an end and its own timeline: replaying it as a live camera would
            # time it by the clock and start it again at its end, inventing the same plays over and over
            return VideoFileSource(spec, remote=True)
        return LiveSource(spec)
    p = Path(spec)
    if p.is_dir():
        return ImageFolderSource(p, fps=fps)
    if not p.exists():
        raise SourceError(f"source {spec!r} is neither a camera index, a URL, a folder nor an existing file")
    if p.suffix.lower() in IMAGE_SUFFIXES:
        raise SourceError(f"{spec} is a single image; give its folder (a source is a stream of frames)")
    return VideoFileSource(p)


def _is_recording(url: str) -> bool:
    """True when the URL serves a finite video (a frame count), not a live stream."""
    cap = cv2.VideoCapture(url)
    try:
        return bool(cap.isOpened()) and float(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0) > 0
    finally:
        cap.release()
