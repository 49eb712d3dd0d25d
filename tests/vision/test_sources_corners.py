"""The camera sense under bad and real-world input (audit of stop 64): video files that are not videos or hold no
frame, timestamps that repeat or go backwards, image folders with other files and odd images, a camera that
vanishes or stalls, frames of another size or type in the middle of a stream, bad command-line requests, detector
models whose class names are not card codes, and the `Detections` arrays.

The brief these tests hold the code to: "Bad input (a malformed log line, an unknown card, a camera that vanishes, a
corrupt frame, a bad request) gets a clear error that names what is wrong, and loses nothing." Time comes from frame
timestamps, never the wall clock; the senses only produce events (EVENTS.md: `t` "never decreasing through the log").
The audit's nine findings (h5_vision.md) are all fixed at stop 64: findings 1 (every frame is checked; a later odd frame is skipped with
a warning naming it), 3 (a stalled live stream is a gap), 4 (`--fps` must be a positive number), 5 (a detector's
class names must be card codes, one a model output), 6 (`calibrate` names the images it skipped), 7 (`detect
FOLDER` reads .tif/.tiff), 8 (`Detections.merge` refuses parts with other class names) and 9 (events decided on one
frame are sorted before they are clamped), and 2 (`unotable run` times a live camera and a live microphone from one
zero, the moment it starts)."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
import threading
import time
import types
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from vision.detections import Detections
from vision.sources import Frame, ImageFolderSource, LiveSource, SourceError, VideoFileSource, open_source

MODELS = Path(__file__).resolve().parents[2] / "models"


# ---------------------------------------------------------------------------------------------------- helpers
class _Reader:
    """A card reader that sees nothing (the trackers' logic runs, no model)."""

    calls = 0

    def read(self, *a: Any, **k: Any) -> list[Any]:
        self.calls += 1
        return []


@pytest.fixture(scope="module")
def scene(tmp_path_factory: pytest.TempPathFactory) -> tuple[np.ndarray, Path]:
    """A rendered 960x540 table frame with its four markers, and the table file calibrated on it."""
    from datasets.gamevideo_draw import Camera, table_plane
    from vision.calibration import calibrate_image
    from vision.tablefile import default_table, write_table

    rng = np.random.default_rng(1)
    table = default_table(4)
    img = Camera(rng, table).shoot(table_plane(rng, table), 0, 0.0)
    path = tmp_path_factory.mktemp("scene") / "t.toml"
    write_table(path, calibrate_image(img, 4))
    return img, path


class _Cap:
    """A capture double: `frames` (None: a frame that fails to decode), with an optional presentation time per
    frame (`pos_ms`, read through CAP_PROP_POS_MSEC after each read), and a `count` in its header."""

    def __init__(self, frames: list[Any], pos_ms: list[float] | None = None, opened: bool = True, count: int = 0,
                 fps: float = 10.0, on_read: Any = None) -> None:
        self.frames, self.pos, self.opened, self.count, self.fps = list(frames), list(pos_ms or []), opened, count, fps
        self.cur = 0.0
        self.on_read = on_read

    def isOpened(self) -> bool:
        return self.opened

    def read(self) -> tuple[bool, Any]:
        if self.on_read is not None:
            self.on_read(len(self.frames))
        if not self.frames:
            return False, None
        f = self.frames.pop(0)
        if self.pos:
            self.cur = self.pos.pop(0)
        return (f is not None), f

    def release(self) -> None:
        pass

    def get(self, prop: int) -> float:
        if prop == cv2.CAP_PROP_POS_MSEC:
            return self.cur
        return {cv2.CAP_PROP_FPS: self.fps, cv2.CAP_PROP_FRAME_COUNT: float(self.count)}.get(prop, 0.0)


# ---------------------------------------------------------------------------------------------------- files
def test_a_zero_byte_file_a_video_without_frames_and_a_text_file_are_refused_naming_the_file(tmp_path: Path) -> None:
    """sources.py: "only an unreadable *start* (no such file, a camera that never opens) raises `SourceError`, with
    a message naming the source"."""
    empty = tmp_path / "empty.mp4"
    empty.write_bytes(b"")
    frameless = tmp_path / "frameless.avi"
    w = cv2.VideoWriter(str(frameless), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (32, 32))
    w.release()  # a header and no frame (a recorder stopped at once)
    notes = tmp_path / "notes.txt"
    notes.write_text("seat 2 owes two cards\n")
    for path in (empty, frameless, notes):
        with pytest.raises(SourceError, match=path.name):
            open_source(str(path))


def test_a_header_only_mp4_from_ffmpeg_is_refused(tmp_path: Path) -> None:
    """A recording that was started and stopped before its first frame: ffmpeg writes a valid MP4 with a video
    stream and no sample. Refused at open (no decodable frame), never an empty stream of events."""
    if shutil.which("ffmpeg") is None:
        pytest.skip("ffmpeg is not installed")
    path = tmp_path / "zero.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=64x48:rate=10",
                    "-frames:v", "0", "-c:v", "libx264", "-pix_fmt", "yuv420p", str(path)], check=True)
    with pytest.raises(SourceError, match="zero.mp4"):
        VideoFileSource(path)


def test_timestamps_that_repeat_go_backwards_or_are_missing_still_give_an_increasing_timeline(tmp_path: Path) -> None:
    """EVENTS.md: `t` is "never decreasing through the log"; sources.py: a frame's t is "its presentation time where
    the decoder knows it and time goes forward, else one frame period after the last frame (and never before
    index / rate, so skipped frames keep their place)". A damaged file whose demuxer repeats a time, goes back, or
    answers NaN or a negative number keeps its frames in step."""
    path = tmp_path / "x.mp4"
    path.write_bytes(b"x")
    img = np.zeros((8, 8, 3), np.uint8)
    pos = [0.0, 100.0, 100.0, 50.0, float("nan"), -40.0, 900.0, 1000.0]
    src = VideoFileSource(path, opener=lambda p: _Cap([img] * 8, pos_ms=list(pos), count=8))
    times = [f.t for f in src]
    assert times == pytest.approx([0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.9, 1.0])
    assert all(b > a for a, b in zip(times, times[1:], strict=False))


def test_an_mkv_recorded_to_a_pipe_with_no_frame_count_reads_whole_on_its_own_timeline(tmp_path: Path) -> None:
    """OBS and ffmpeg writing to a pipe leave an MKV without duration: OpenCV reports a negative frame count. The
    file still reads whole, on its own timeline, with no false "cut short" warning."""
    if shutil.which("ffmpeg") is None:
        pytest.skip("ffmpeg is not installed")
    path = tmp_path / "pipe.mkv"
    with open(path, "wb") as fh:
        subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-t", "2", "-i", "testsrc=size=64x48:rate=10",
                        "-c:v", "libx264", "-pix_fmt", "yuv420p", "-f", "matroska", "-"], check=True, stdout=fh)
    src = VideoFileSource(path)
    times = [f.t for f in src]
    assert len(times) == 20 and times[-1] == pytest.approx(1.9) and src.warnings == []


def test_an_image_folder_with_other_files_and_odd_images(tmp_path: Path) -> None:
    """sources.py: "A folder of images in name order ... unreadable images are skipped with a warning". Files that
    are not images by name (a camera's sidecar files, notes) are not frames; a grey, an RGBA and a 16-bit PNG
    are read as 8-bit BGR; a 1x1 image is skipped naming it; every frame keeps its place on the timeline."""
    base = np.random.default_rng(0).integers(0, 255, (48, 64, 3), np.uint8)
    cv2.imwrite(str(tmp_path / "000.png"), base)
    cv2.imwrite(str(tmp_path / "001.png"), cv2.cvtColor(base, cv2.COLOR_BGR2GRAY))
    cv2.imwrite(str(tmp_path / "002.png"), cv2.cvtColor(base, cv2.COLOR_BGR2BGRA))
    cv2.imwrite(str(tmp_path / "003.png"), base.astype(np.uint16) * 257)
    cv2.imwrite(str(tmp_path / "004.png"), base[:1, :1])
    cv2.imwrite(str(tmp_path / "005.JPG"), base)
    (tmp_path / "notes.txt").write_text("hand 3\n")
    (tmp_path / ".DS_Store").write_bytes(b"\x00\x01")
    (tmp_path / "Thumbs.db").write_bytes(b"\x00\x01")
    src = ImageFolderSource(tmp_path, fps=10)
    frames = list(src)
    assert [f.index for f in frames] == [0, 1, 2, 3, 5]
    assert [f.t for f in frames] == pytest.approx([0.0, 0.1, 0.2, 0.3, 0.5])
    assert all(f.image.dtype == np.uint8 and f.image.shape == (48, 64, 3) for f in frames)
    assert len(src.warnings) == 1 and "004.png" in src.warnings[0]


def test_a_folder_of_sidecar_files_only_is_refused_naming_what_it_wants(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x")
    (tmp_path / "clip.mp4.part").write_bytes(b"x")
    with pytest.raises(SourceError, match="holds no images"):
        open_source(str(tmp_path))


# ---------------------------------------------------------------------------------------------------- cameras
def test_an_unknown_camera_index_is_a_one_line_error_from_watch(scene: tuple[np.ndarray, Path],
                                                                capsys: pytest.CaptureFixture[str],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """video_commands.py: "User errors (a missing file, a camera that never opens, ...) print one line naming the
    problem and exit 2"."""
    from unotable.cli import main
    from vision import readers

    monkeypatch.setattr(readers, "load_reader", lambda table, weights=None: _Reader())
    assert main(["watch", "97", "--table", str(scene[1])]) == 2
    err = capsys.readouterr().err
    assert "cannot open camera/stream 97" in err and "Traceback" not in err


def test_a_camera_that_vanishes_mid_watch_keeps_every_event_and_reports_the_gap(
        scene: tuple[np.ndarray, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """sources.py: "a live camera that drops out is reopened with back-off ... the gap is reported as a `Gap` ... and
    a warning". A camera unplugged for good: `watch` ends cleanly, the events decided before are all in the log,
    and standard error says from when nothing was seen."""
    from unotable.cli import main
    from vision import pipeline, readers, sources

    img = scene[0]
    clock = [0.0]
    opens = [0]

    def opener(spec: Any) -> _Cap:
        opens[0] += 1
        return _Cap([img] * 4) if opens[0] == 1 else _Cap([], opened=False)

    def tick() -> float:
        clock[0] += 0.1
        return clock[0]

    def sleep(s: float) -> None:
        clock[0] += s

    monkeypatch.setattr(readers, "load_reader", lambda table, weights=None: _Reader())
    monkeypatch.setattr(sources, "open_source",
                        lambda spec, fps=30.0: LiveSource(0, opener=opener, clock=tick, sleep=sleep, give_up_after=5))
    real = pipeline.Watcher.process

    def process(self: Any, frame: Frame) -> list[dict[str, Any]]:
        real(self, frame)
        return [{"t": round(frame.t, 3), "type": "draw", "seat": 0, "count": 1, "source": "vision"}]

    monkeypatch.setattr(pipeline.Watcher, "process", process)
    out = tmp_path / "ev.jsonl"
    assert main(["watch", "0", "--table", str(scene[1]), "--out", str(out)]) == 0
    logged = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(logged) == 4
    ts = [e["t"] for e in logged]
    assert ts == sorted(ts)
    err = [json.loads(x) for x in capsys.readouterr().err.splitlines()]
    gaps = [e for e in err if e.get("warning") == "no frames"]
    assert len(gaps) == 1 and gaps[0]["reason"] == "camera lost" and gaps[0]["from_t"] == pytest.approx(ts[-1], abs=0.2)


def test_a_live_stream_that_stalls_twenty_seconds_and_resumes_reports_the_gap() -> None:
    """sources.py: a `Gap` is "No frames came between `start` and `end` (seconds): nothing can have been seen then";
    "a live camera that drops out is ... reported as a `Gap` (an event-free interval) and a warning". An RTSP/HTTP
    camera whose network stalls does not fail its read: FFmpeg blocks in `read()` until the packets come back
    (20 s here), then returns the next frame. Nothing was seen for 20 s, and the pipeline must be told (the
    watcher restarts its background on a gap) and the referee warned."""
    img = np.zeros((8, 8, 3), np.uint8)
    clock = [0.0]

    def on_read(left: int) -> None:
        clock[0] += 20.0 if left == 3 else 0.1  # the fourth read blocks 20 s

    caps = iter([_Cap([img] * 6, on_read=on_read)])

    def sleep(s: float) -> None:
        clock[0] += s

    src = LiveSource("rtsp://cam", opener=lambda s: next(caps, _Cap([], opened=False)),
                     clock=lambda: clock[0], sleep=sleep, give_up_after=1)
    frames = list(src)
    assert len(frames) == 6
    before, after = frames[2].t, frames[3].t
    assert after - before > 19  # the frames' own times show the stall
    assert any(g.start <= before + 1e-6 and g.end >= after - 1e-6 for g in src.gaps)
    assert any("20" in w or "stall" in w for w in src.warnings)


# ---------------------------------------------------------------------------------------------------- odd frames
def _odd(img: np.ndarray, kind: str) -> tuple[np.ndarray, str]:
    if kind == "640x360":
        return cv2.resize(img, (640, 360)), "640x360"
    if kind == "1920x1080":
        return cv2.resize(img, (1920, 1080)), "1920x1080"
    if kind == "bgra":
        return cv2.cvtColor(img, cv2.COLOR_BGR2BGRA), "(540, 960, 4)"
    return img.astype(np.uint16) * 257, "uint16"


def test_an_odd_first_frame_is_refused_naming_it(scene: tuple[np.ndarray, Path]) -> None:
    """pipeline.py `check_frame`: "Refuse a frame the zones can't be read on, naming why"."""
    from vision.pipeline import FrameMismatchError, Watcher
    from vision.tablefile import read_table

    img, path = scene
    for kind in ("640x360", "1920x1080", "bgra", "uint16"):
        bad, named = _odd(img, kind)
        with pytest.raises(FrameMismatchError, match=re_escape(named)):
            Watcher(read_table(path), _Reader()).process(Frame(0, 0.0, bad))


def re_escape(s: str) -> str:
    import re

    return re.escape(s)


@pytest.mark.parametrize("kind", ["640x360", "1920x1080", "bgra", "uint16"])
def test_an_odd_frame_in_the_middle_of_a_stream_is_refused_or_skipped_naming_it(scene: tuple[np.ndarray, Path],
                                                                                 kind: str) -> None:
    """pipeline.py `check_frame`: "the homography and zones are in the calibrated image's pixels, so another
    resolution would put every zone in the wrong place, silently". A folder of images with one photo of another
    size, an IP camera that drops to its sub-stream, a capture that hands over BGRA: the frame is refused
    (FrameMismatchError) or skipped with a warning, naming what is wrong, and the frames after it are still read."""
    from vision.pipeline import FrameMismatchError, Watcher
    from vision.tablefile import read_table

    img, path = scene
    w = Watcher(read_table(path), _Reader())
    for i in range(3):
        w.process(Frame(i, i / 10, img))
    bad, named = _odd(img, kind)
    try:
        out = w.process(Frame(3, 0.3, bad))
        assert out == []
        msg = " ".join(w.stats.warnings)
    except FrameMismatchError as exc:
        msg = str(exc)
    assert named in msg
    w.process(Frame(4, 0.4, img))  # the stream goes on


def test_watch_of_a_folder_with_one_image_of_another_size_says_so(scene: tuple[np.ndarray, Path], tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The brief: bad input "gets a clear error that names what is wrong". A folder of frames with one picture of
    another size (a phone photo dropped among the webcam's frames): `watch` names it on standard error (as an
    error, exit 2, or as a warning while skipping it)."""
    from unotable.cli import main
    from vision import readers

    img, table = scene
    folder = tmp_path / "frames"
    folder.mkdir()
    for i in range(6):
        cv2.imwrite(str(folder / f"{i:03d}.png"), img if i != 3 else cv2.resize(img, (640, 360)))
    monkeypatch.setattr(readers, "load_reader", lambda table, weights=None: _Reader())
    main(["watch", str(folder), "--table", str(table)])
    assert "640x360" in capsys.readouterr().err


class _Sink:
    exit_code = 0

    def __init__(self) -> None:
        self.got: list[dict[str, Any]] = []

    def begin(self, runner: Any) -> None:
        pass

    def events(self, runner: Any, evs: list[dict[str, Any]]) -> None:
        self.got += evs

    def idle(self, runner: Any) -> None:
        pass

    def end(self, runner: Any) -> None:
        pass


def test_run_warns_when_the_camera_comes_back_at_another_resolution(scene: tuple[np.ndarray, Path],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """An IP camera that drops out and reconnects on its 640x360 sub-stream (or a webcam replugged at its default
    size): `unotable run` reopens it (sources.py) and must not read the new frames on zones calibrated at 960x540
    without a word (pipeline.py: "another resolution would put every zone in the wrong place, silently")."""
    from unotable.run import RunConfig, TableRunner
    from vision import readers, sources

    img, table = scene
    small = cv2.resize(img, (640, 360))
    opens = [0]
    clock = [0.0]

    def opener(spec: Any) -> _Cap:
        opens[0] += 1
        if opens[0] == 1:
            return _Cap([img] * 5)
        if opens[0] == 2:
            return _Cap([small] * 5)
        return _Cap([], opened=False)

    def tick() -> float:
        clock[0] += 0.05
        return clock[0]

    def sleep(s: float) -> None:
        clock[0] += s

    monkeypatch.setattr(readers, "load_reader", lambda table, weights=None: _Reader())
    monkeypatch.setattr(sources, "open_source",
                        lambda spec, fps=30.0: LiveSource(0, opener=opener, clock=tick, sleep=sleep, give_up_after=3))
    runner = TableRunner(RunConfig(video="0", audio=None, table_file=str(table), realtime=False))
    runner.run(_Sink())
    assert any("640x360" in w for w in runner.stats.warnings), runner.stats.warnings


# ---------------------------------------------------------------------------------------------------- one clock
class _FakeStream:
    """sounddevice.InputStream double: calls back with 50 ms of silence in real time for `seconds`, noting the wall
    clock at which each block was "captured" (`captured`)."""

    def __init__(self, seconds: float, captured: list[float], **kw: Any) -> None:
        self.kw, self.seconds, self.captured = kw, seconds, captured
        self.halt = threading.Event()

    def start(self) -> None:
        def feed() -> None:
            n = self.kw["blocksize"]
            t_end = time.monotonic() + self.seconds
            while time.monotonic() < t_end and not self.halt.is_set():
                time.sleep(n / 16000)
                self.captured.append(time.monotonic())  # the block's last sample, on the wall clock
                self.kw["callback"](np.zeros((n, self.kw["channels"]), np.int16), n, None, None)

        threading.Thread(target=feed, daemon=True).start()

    def stop(self) -> None:
        self.halt.set()

    def close(self) -> None:
        pass


def test_run_times_a_live_camera_and_a_live_microphone_on_one_clock(scene: tuple[np.ndarray, Path],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """unotable/run.py: "one process runs a table — camera, microphone, rules and dashboard — on one clock" and "The
    table clock is the media clock (frame and audio timestamps), never the wall clock". README: a UNO call counts
    for the play it comes just before, a colour heard just before a black card is its colour: the senses' times
    are compared to the tenth of a second. A block of sound captured at the moment a frame is read must get
    (about) that frame's t. Here the microphone's zero is when `TableRunner` opens it (MicSource's constructor)
    and the camera's when `run()` starts reading it (LiveSource.__iter__); between the two `unotable run` builds
    the dashboard (`DashboardSink`: 0.57 s on this machine, stood in for by the sleep)."""
    from unotable.run import RunConfig, TableRunner
    from vision import readers, sources

    img, table = scene
    captured: list[float] = []
    fake_sd = types.ModuleType("sounddevice")
    fake_sd.query_devices = lambda: [{"max_input_channels": 1, "name": "fake"}]  # type: ignore[attr-defined]
    fake_sd.check_input_settings = lambda **kw: None  # type: ignore[attr-defined]
    fake_sd.InputStream = lambda **kw: _FakeStream(1.5, captured, **kw)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sounddevice", fake_sd)

    heard: list[float] = []  # each block's end on the table clock, as the keyword spotter gets it

    class Kws:
        def process(self, chunk: Any) -> list[dict[str, Any]]:
            heard.append(chunk.t + chunk.duration)
            return []

        def flush(self) -> list[dict[str, Any]]:
            return []

    import speech.kws

    monkeypatch.setattr(speech.kws, "KeywordDetector", Kws)
    caps = iter([_Cap([img] * 45, on_read=lambda left: time.sleep(1 / 30))])
    monkeypatch.setattr(readers, "load_reader", lambda table, weights=None: _Reader())
    monkeypatch.setattr(sources, "open_source",
                        lambda spec, fps=30.0: LiveSource(0, opener=lambda s: next(caps, _Cap([], opened=False)),
                                                          give_up_after=0.2))
    runner = TableRunner(RunConfig(video="0", audio="mic", table_file=str(table), realtime=True))
    seen: list[tuple[float, float]] = []  # (wall clock just after the read, the frame's t)
    assert runner.watcher is not None
    real = runner.watcher.process

    def process(frame: Frame) -> list[dict[str, Any]]:
        seen.append((time.monotonic(), frame.t))
        return real(frame)

    runner.watcher.process = process  # type: ignore[method-assign]
    time.sleep(0.6)  # `unotable run` builds the dashboard here (DashboardSink), after the senses are opened
    runner.run(_Sink())
    assert len(seen) > 20 and len(heard) > 10
    cam_zero = float(np.median([w - t for w, t in seen]))
    mic_zero = float(np.median([w - t for w, t in zip(captured, heard, strict=False)]))
    assert abs(cam_zero - mic_zero) < 0.15, f"the microphone's t runs {cam_zero - mic_zero:+.2f} s off the camera's"


# ---------------------------------------------------------------------------------------------------- requests
@pytest.mark.parametrize("fps", ["0", "-5", "nan"])
def test_watch_refuses_a_frame_rate_that_is_not_a_positive_number(fps: str, scene: tuple[np.ndarray, Path],
                                                                  tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """video_commands.py: "User errors ... print one line naming the problem and exit 2"; EVENTS.md: `t` "a number;
    never decreasing". `--fps 0` divides by zero (a traceback), `--fps -5` stamps the folder's frames 0, -0.2,
    -0.4 s ..., `--fps nan` stamps them NaN."""
    from unotable.cli import main
    from vision import readers

    img, table = scene
    folder = tmp_path / "frames"
    folder.mkdir()
    for i in range(3):
        cv2.imwrite(str(folder / f"{i:03d}.png"), img)
    monkeypatch.setattr(readers, "load_reader", lambda table, weights=None: _Reader())
    try:
        rc = main(["watch", str(folder), "--table", str(table), "--fps", fps])
    except ZeroDivisionError:
        rc = -1
    assert rc == 2 and "--fps" in capsys.readouterr().err


def test_image_folder_times_follow_the_given_rate(tmp_path: Path) -> None:
    for i in range(3):
        cv2.imwrite(str(tmp_path / f"{i:03d}.png"), np.zeros((8, 8, 3), np.uint8))
    assert [f.t for f in ImageFolderSource(tmp_path, fps=4)] == pytest.approx([0.0, 0.25, 0.5])


def test_calibrate_on_a_folder_of_unreadable_images_names_them(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """The brief: bad input "gets a clear error that names what is wrong"; sources.py: "unreadable images are
    skipped with a warning". `calibrate` collects those warnings and never shows them: the operator reads "the
    source gave no frames" about a folder that holds two image files."""
    from unotable.cli import main

    folder = tmp_path / "shots"
    folder.mkdir()
    (folder / "IMG_0001.jpg").write_bytes(b"\xff\xd8 not really a jpeg")
    (folder / "IMG_0002.png").write_bytes(b"garbage")
    assert main(["calibrate", str(folder), "--out", str(tmp_path / "t.toml")]) == 2
    err = capsys.readouterr().err
    assert "IMG_0001.jpg" in err and "IMG_0002.png" in err


def test_detect_reads_a_folder_of_tiff_images(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """vision/sources.py reads `.tif`/`.tiff` frames (IMAGE_SUFFIXES) and `detect a.tif` reads the file, but
    `detect FOLDER` answers "no images found in the given paths" for a folder of them (vision/commands.py has its
    own shorter list)."""
    from unotable.cli import main
    from vision import detector

    class Det:
        names = ("back",)

        def detect(self, image: np.ndarray) -> Detections:
            return Detections.empty(self.names)

    monkeypatch.setattr(detector, "load_detector", lambda *a, **k: Det())
    cv2.imwrite(str(tmp_path / "a.tif"), np.zeros((16, 16, 3), np.uint8))
    assert main(["detect", str(tmp_path / "a.tif"), "--json"]) == 0
    capsys.readouterr()
    assert main(["detect", str(tmp_path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["image"].endswith("a.tif")


# ---------------------------------------------------------------------------------------------------- unknown cards
@pytest.mark.skipif(not (MODELS / "card_detector.onnx").exists(), reason="the shipped detector is not in models/")
def test_a_detector_whose_class_names_are_not_card_codes_is_refused_at_load(tmp_path: Path) -> None:
    """EVENTS.md: "Cards are written `red-7`, `yellow-0`, ... `wild`, `wild-draw4`"; the brief: "an unknown card
    gets a clear error". `--weights` loads a club's own model: its JSON's names become the cards of `play` events
    (vision/discard.py), so a name that is no card code ("red-one") would reach the log, refused there (the
    headless sink skips the play: lost), and a names list shorter than the model's outputs crashes the watcher on
    the first box of the missing class. Both are refused when the model is loaded, naming the problem."""
    from vision.detector import DetectorError, load_detector

    meta = json.loads((MODELS / "card_detector.json").read_text())
    meta.pop("classifier", None)
    shutil.copy(MODELS / "card_detector.onnx", tmp_path / "club.onnx")
    renamed = dict(meta, names=[n.replace("red-1", "red-one") for n in meta["names"]])
    (tmp_path / "club.json").write_text(json.dumps(renamed))
    with pytest.raises(DetectorError, match="red-one"):
        load_detector(tmp_path / "club.onnx", classifier=False)
    short = dict(meta, names=meta["names"][:-1])
    (tmp_path / "club.json").write_text(json.dumps(short))
    with pytest.raises(DetectorError, match="54"):
        load_detector(tmp_path / "club.onnx", classifier=False)


def test_the_shipped_detector_names_only_card_codes_and_back() -> None:
    from tracker.cards import card

    meta = json.loads((MODELS / "card_detector.json").read_text())
    for name in meta["names"]:
        if name != "back":
            card(name)  # raises on an unknown code
    assert len(meta["names"]) == 55 and meta["names"].count("back") == 1


# ---------------------------------------------------------------------------------------------------- Detections
NAMES = ("red-1", "blue-2", "back")


def _dets() -> Detections:
    return Detections(np.array([[0, 0, 10, 10], [5, 5, 15, 15], [20, 20, 30, 40]], np.float32),
                      np.array([0, 1, 2]), np.array([0.5, 0.9, 0.7], np.float32), NAMES)


def test_detections_selections_at_the_edges() -> None:
    """detections.py: "a boolean mask or an index array applied to every field at once"; a single index "still
    returns a `Detections`"."""
    d = _dets()
    none = d[np.zeros(3, bool)]
    assert len(none) == 0 and none.xyxy.shape == (0, 4) and none.names == NAMES and none.to_list() == []
    assert d[-1].cards == ["back"] and d[np.int64(1)].cards == ["blue-2"]
    assert d[np.array([2, 0])].cards == ["back", "red-1"]
    with pytest.raises(IndexError):
        d[np.zeros(2, bool)]  # a mask of another length never selects silently
    e = Detections.empty(NAMES)
    assert e.sorted().xyxy.shape == (0, 4) and e.center.shape == (0, 2) and e.area.shape == (0,)
    assert len(e.with_class("back")) == 0 and len(Detections.merge([e, d])) == 3


def test_merging_detections_named_by_different_class_lists_never_relabels_a_card() -> None:
    """detections.py: `names`, "the class names that `class_id` indexes". Parts from two models (two class lists)
    merged keep each box's own card, or are refused: a blue 2 must never come out as a red 1."""
    a = Detections(np.array([[0, 0, 1, 1]], np.float32), np.array([0]), np.array([0.9], np.float32),
                   ("red-1", "back"))
    b = Detections(np.array([[2, 2, 3, 3]], np.float32), np.array([0]), np.array([0.8], np.float32),
                   ("blue-2", "back"))
    try:
        merged = Detections.merge([a, b])
    except ValueError:
        return
    assert sorted(merged.cards) == ["blue-2", "red-1"]


def test_watcher_never_stamps_an_event_before_the_last(scene: tuple[np.ndarray, Path]) -> None:
    """pipeline.py: "never go back in time: a late decision is stamped no earlier than the last event"; EVENTS.md:
    `t` never decreasing. Trackers that decide out of order give events whose `t` never decreases."""
    from vision.pipeline import Watcher
    from vision.tablefile import read_table

    img, table = scene
    w = Watcher(read_table(table), _Reader())
    plan = iter([[{"t": 1.0, "type": "draw", "seat": 0, "count": 1}],
                 [{"t": 0.4, "type": "play", "seat": 1, "cards": ["red-1"]},
                  {"t": 1.2, "type": "draw", "seat": 2, "count": 1}],
                 [{"t": 0.9, "type": "draw", "seat": 3, "count": 1}]])
    w.discard.step = lambda image, t: next(plan)  # type: ignore[method-assign]
    out: list[dict[str, Any]] = []
    for i in range(3):
        out += w.process(Frame(i, 1.0 + i / 10, img))
    ts = [e["t"] for e in out]
    assert all(math.isfinite(t) for t in ts) and ts == sorted(ts) and ts[0] == 1.0


def test_two_events_decided_on_one_frame_keep_their_order(scene: tuple[np.ndarray, Path]) -> None:
    """pipeline.py: "Time order: events are released in order of `t`"; EVENTS.md: `t` "never decreasing through the
    log". Seat 1's draw (its hand back home at 0.5 s) and seat 2's card (laid at 0.8 s) are both decided on the
    frame at 1.1 s: the log must say the draw came first, else seat 2 played before seat 1 had drawn (an
    `out_of_turn` the table never saw). The watcher clamps each event to the last one *before* sorting, in the
    order of its trackers (discard pile first): the draw is stamped 0.8 and logged after the play."""
    from vision.pipeline import Watcher
    from vision.tablefile import read_table

    img, table = scene
    w = Watcher(read_table(table), _Reader())
    w.process(Frame(0, 1.0, img))
    w.discard.step = lambda image, t: [{"t": 0.8, "type": "play", "seat": 2, "cards": ["red-1"]}]  # type: ignore[method-assign]
    w.draws.step = lambda image, t: [{"t": 0.5, "type": "draw", "seat": 1, "count": 1}]  # type: ignore[method-assign]
    out = w.process(Frame(1, 1.1, img))
    assert [e["type"] for e in out] == ["draw", "play"]
    assert [e["t"] for e in out] == [0.5, 0.8]
