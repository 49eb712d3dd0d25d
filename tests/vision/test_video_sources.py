"""Frame sources: timestamps, a dropped camera, a corrupt frame, an unreadable file — never a crash."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from vision.sources import ImageFolderSource, LiveSource, SourceError, VideoFileSource, open_source


def _video(path: Path, n: int = 20, fps: float = 10.0) -> Path:
    w = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, (64, 48))
    for i in range(n):
        w.write(np.full((48, 64, 3), i * 10 % 255, np.uint8))
    w.release()
    return path


def test_video_file_frames_carry_timestamps(tmp_path: Path) -> None:
    frames = list(VideoFileSource(_video(tmp_path / "a.mp4")))
    assert len(frames) == 20
    assert frames[5].t == pytest.approx(0.5)
    assert [f.index for f in frames] == list(range(20))


def test_a_variable_frame_rate_video_keeps_each_frames_own_time(tmp_path: Path) -> None:
    """A phone records at a variable rate: 2 s of picture, a 5 s pause in which no frame was written, 2 s more. Each
    frame's t is its time in the file, so what the camera sees after the pause lines up with the soundtrack (frame
    index / rate would put it 5 s early)."""
    import shutil
    import subprocess

    if shutil.which("ffmpeg") is None:
        pytest.skip("ffmpeg is not installed (make system-deps installs it)")
    path = tmp_path / "vfr.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-t", "4", "-i", "testsrc=size=160x120:rate=10",
                    "-vf", "setpts='if(gte(N,20),PTS+5/TB,PTS)'", "-fps_mode", "passthrough", "-c:v", "libx264",
                    "-pix_fmt", "yuv420p", str(path)], check=True)
    times = [f.t for f in VideoFileSource(path)]
    assert len(times) == 40
    assert times[:2] == pytest.approx([0.0, 0.1]) and times[19] == pytest.approx(1.9)
    assert times[20] == pytest.approx(7.0) and times[-1] == pytest.approx(8.9)
    assert all(b > a for a, b in zip(times, times[1:], strict=False))


def test_unreadable_and_missing_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"this is not a video" * 100)
    with pytest.raises(SourceError, match="cannot read video file"):
        VideoFileSource(bad)
    with pytest.raises(SourceError, match="not found"):
        VideoFileSource(tmp_path / "none.mp4")
    with pytest.raises(SourceError, match="neither a camera index"):
        open_source(str(tmp_path / "none.mp4"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(SourceError, match="holds no images"):
        open_source(str(tmp_path / "empty"))


class _FakeCap:
    """A capture that yields `frames` then fails (a corrupt frame, or a camera unplugged)."""

    def __init__(self, frames: list[Any], opened: bool = True, count: int = 0) -> None:
        self.frames, self.opened, self.count = list(frames), opened, count

    def isOpened(self) -> bool:
        return self.opened

    def read(self) -> tuple[bool, Any]:
        if not self.frames:
            return False, None
        f = self.frames.pop(0)
        return (f is not None), f

    def release(self) -> None:
        pass

    def get(self, prop: int) -> float:
        return {cv2.CAP_PROP_FPS: 10.0, cv2.CAP_PROP_FRAME_COUNT: float(self.count)}.get(prop, 0.0)


def test_corrupt_frame_inside_a_file_is_skipped(tmp_path: Path) -> None:
    img = np.zeros((8, 8, 3), np.uint8)
    seq = [img, img, None, img, img]
    path = tmp_path / "x.mp4"
    path.write_bytes(b"x")
    src = VideoFileSource(path, opener=lambda p: _FakeCap(list(seq), count=len(seq)))
    frames = list(src)
    assert [f.index for f in frames] == [0, 1, 3, 4]  # timeline keeps its place
    assert any("frame 2 could not be decoded" in w for w in src.warnings)


def test_a_long_corrupt_stretch_costs_its_frames_not_the_rest_and_a_cut_file_says_where_it_ends(tmp_path: Path) -> None:
    img = np.zeros((8, 8, 3), np.uint8)
    path = tmp_path / "x.mp4"
    path.write_bytes(b"x")
    seq = [img] * 3 + [None] * 60 + [img] * 3  # six seconds of damage at 10 fps
    src = VideoFileSource(path, opener=lambda p: _FakeCap(list(seq), count=len(seq)))
    assert [f.index for f in src] == [0, 1, 2, 63, 64, 65]
    assert src.warnings == ["x.mp4: frames 3-62 could not be decoded; skipped"]
    cut = VideoFileSource(path, opener=lambda p: _FakeCap([img] * 5, count=40))
    assert len(list(cut)) == 5
    assert any("ends at frame 5 of the 40" in w for w in cut.warnings)


def test_dropped_camera_is_reopened_with_backoff_and_reported() -> None:
    img = np.zeros((8, 8, 3), np.uint8)
    clock = [0.0]
    sleeps: list[float] = []
    opens = [0]

    def opener(spec: Any) -> _FakeCap:
        opens[0] += 1
        if opens[0] == 1:
            return _FakeCap([img, img, img])  # then drops
        if opens[0] == 4:
            return _FakeCap([img, img])  # back
        return _FakeCap([], opened=False)  # unplugged

    def sleep(s: float) -> None:
        sleeps.append(s)
        clock[0] += s

    def tick() -> float:
        clock[0] += 0.01
        return clock[0]

    src = LiveSource(0, opener=opener, clock=tick, sleep=sleep, give_up_after=30)
    frames = list(src)
    assert len(frames) == 5
    assert sleeps[:3] == [0.5, 1.0, 2.0]  # back-off doubles
    assert src.gaps and src.gaps[0].reason == "camera dropped"
    gap = src.gaps[0]
    assert gap.end - gap.start >= 3.5
    assert all(not (gap.start < f.t < gap.end) for f in frames)
    assert any("camera dropped" in w for w in src.warnings)
    assert any("did not come back" in w for w in src.warnings)  # the second drop outlasts give_up_after


def test_camera_that_never_opens() -> None:
    with pytest.raises(SourceError, match="cannot open camera"):
        LiveSource(7, opener=lambda s: _FakeCap([], opened=False))


def test_an_image_cut_short_is_skipped_or_refused_naming_why(tmp_path: Path) -> None:
    """A JPEG or PNG whose copy stopped part way decodes in OpenCV with the missing part grey; a folder source skips
    it with a warning, and `detect`'s reader refuses it (a grey band is not what the camera saw)."""
    from vision.detector import DetectorError, read_image
    from vision.sources import cut_short

    img = np.random.default_rng(0).integers(0, 255, (64, 64, 3), np.uint8)
    for i, ext in enumerate((".jpg", ".png")):
        whole = tmp_path / f"{i:03d}{ext}"
        cv2.imwrite(str(whole), img)
        assert cut_short(whole) is None and read_image(whole).shape == (64, 64, 3)
    cut = tmp_path / "002.jpg"
    data = (tmp_path / "000.jpg").read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    assert cv2.imread(str(cut)) is not None  # OpenCV reads what decodes
    assert "cut short" in (cut_short(cut) or "")
    with pytest.raises(DetectorError, match="end-of-image marker is missing"):
        read_image(cut)
    src = ImageFolderSource(tmp_path, fps=5)
    assert len(list(src)) == 2 and any("002.jpg" in w and "cut short" in w for w in src.warnings)


def test_image_folder_skips_unreadable_images(tmp_path: Path) -> None:
    for i in range(3):
        cv2.imwrite(str(tmp_path / f"{i:03d}.png"), np.full((8, 8, 3), i, np.uint8))
    (tmp_path / "001b.png").write_bytes(b"garbage")
    src = ImageFolderSource(tmp_path, fps=5)
    frames = list(src)
    assert len(frames) == 3 and frames[-1].t == pytest.approx(3 / 5)
    assert any("001b.png" in w for w in src.warnings)


def test_watch_keeps_what_it_wrote_when_the_stream_breaks(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A source that dies mid-way: watch exits cleanly and the log written so far is intact JSON lines."""
    from datasets.gamevideo_draw import Camera, table_plane
    from unotable.cli import main
    from vision import pipeline, readers
    from vision.calibration import calibrate_image
    from vision.tablefile import default_table, write_table

    rng = np.random.default_rng(1)
    table = default_table(4)
    img = Camera(rng, table).shoot(table_plane(rng, table), 0, 0.0)
    write_table(tmp_path / "t.toml", calibrate_image(img, 4))
    video = tmp_path / "v.mp4"
    w = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"mp4v"), 10, (img.shape[1], img.shape[0]))
    for _ in range(6):
        w.write(img)
    w.release()

    class Reader:
        calls = 0

        def read(self, *a: Any, **k: Any) -> list[Any]:
            return []

    monkeypatch.setattr(readers, "load_reader", lambda table, weights=None: Reader())
    calls = [0]
    real = pipeline.Watcher.process

    def process(self: Any, frame: Any) -> list[dict[str, Any]]:
        real(self, frame)
        calls[0] += 1
        if calls[0] == 4:
            raise KeyboardInterrupt  # the stream is cut
        return [{"t": frame.t, "type": "draw", "seat": 0, "count": 1, "source": "vision"}]

    monkeypatch.setattr(pipeline.Watcher, "process", process)
    out = tmp_path / "events.jsonl"
    assert main(["watch", str(video), "--table", str(tmp_path / "t.toml"), "--out", str(out)]) == 0
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(lines) == 3 and lines[0]["type"] == "draw"
    assert "interrupted" in capsys.readouterr().err
    assert main(["watch", str(video), "--table", str(tmp_path / "missing.toml")]) == 2


def test_render_game_and_watch_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """`render-game` writes the video and its truth; `watch --show` writes an annotated video; a missing
    detector model is a one-line error."""
    from tracker.log import parse_event, write_log
    from unotable.cli import main
    from vision import readers

    log = tmp_path / "g.jsonl"
    rows = [{"t": 0.0, "type": "match_start", "ruleset": "mattel", "players": ["A", "B", "C", "D"]},
            {"t": 0.1, "type": "hand_start", "dealer": 0}, {"t": 0.5, "type": "starter", "card": "red-5"},
            {"t": 1.5, "type": "play", "seat": 1, "cards": ["red-7"]}]
    write_log(log, [parse_event(r, i + 1) for i, r in enumerate(rows)])
    video = tmp_path / "g.mp4"
    assert main(["render-game", str(log), "--out", str(video), "--seed", "3"]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert video.exists() and Path(out["truth_log"]).exists() and Path(out["table"]).exists()
    assert main(["render-game", str(tmp_path / "none.jsonl"), "--out", str(video)]) == 2
    assert main(["watch", str(video), "--table", out["table"], "--weights", str(tmp_path / "no.onnx")]) == 2
    assert "no.onnx" in capsys.readouterr().err

    class Reader:
        calls = 0

        def read(self, *a: Any, **k: Any) -> list[Any]:
            self.calls += 1
            return []

    monkeypatch.setattr(readers, "load_reader", lambda table, weights=None: Reader())
    show = tmp_path / "show.mp4"
    assert main(["watch", str(video), "--table", out["table"], "--show", str(show)]) == 0
    cap = cv2.VideoCapture(str(show))
    assert cap.isOpened() and int(cap.get(cv2.CAP_PROP_FRAME_COUNT)) > 30
    cap.release()


def test_a_recorded_video_behind_a_url_is_read_once_on_its_own_timeline(tmp_path: Path) -> None:
    """A URL serving a finite video is a recording, not a live camera: frame times from the file, and it ends."""
    import functools
    import http.server
    import threading

    path = tmp_path / "clip.avi"
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (32, 32))
    for i in range(20):
        out.write(np.full((32, 32, 3), i * 10, np.uint8))
    out.release()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        src = open_source(f"http://127.0.0.1:{server.server_address[1]}/clip.avi")
        assert isinstance(src, VideoFileSource)
        frames = list(src)
    finally:
        server.shutdown()
    assert len(frames) == 20 and frames[-1].t == pytest.approx(1.9)
