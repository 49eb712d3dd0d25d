"""Audio sources and the ring buffer, fed from files."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from speech.audio import (
    ArraySource,
    AudioChunk,
    FileSource,
    MicSource,
    RingBuffer,
    SpeechInputError,
    VideoSource,
    open_source,
)


def _collect(src) -> tuple[np.ndarray, list[float]]:
    chunks = list(src.chunks())
    return np.concatenate([c.samples for c in chunks]), [c.t for c in chunks]


def test_wav_16k_chunks_are_timed_and_complete(tmp_path: Path, tone: np.ndarray) -> None:
    f = tmp_path / "a.wav"
    sf.write(f, tone, 16000)
    x, ts = _collect(FileSource(f, chunk_s=0.1, t0=5.0))
    assert x.dtype == np.int16 and x.shape == (16000, 1)
    assert np.array_equal(x[:, 0], tone)
    assert ts[0] == 5.0 and ts[1] == pytest.approx(5.1)


def test_flac_at_8k_is_resampled_to_16k(tmp_path: Path) -> None:
    t = np.arange(8000) / 8000
    f = tmp_path / "a.flac"
    sf.write(f, (np.sin(2 * np.pi * 300 * t) * 0.5).astype(np.float32), 8000)
    x, _ = _collect(FileSource(f))
    assert len(x) == 16000
    spec = np.abs(np.fft.rfft(x[:, 0].astype(float)))
    assert abs(np.argmax(spec) * 16000 / len(x) - 300) < 3


def test_multichannel_file_keeps_seat_channels(tmp_path: Path, tone: np.ndarray) -> None:
    f = tmp_path / "seats.wav"
    sf.write(f, np.stack([tone, tone // 4, np.zeros_like(tone)], axis=1), 16000)
    src = FileSource(f)
    assert src.channels == 3
    x, _ = _collect(src)
    assert x.shape == (16000, 3) and np.abs(x[:, 2]).max() == 0


def test_unreadable_and_missing_files_say_so(tmp_path: Path) -> None:
    bad = tmp_path / "bad.wav"
    bad.write_bytes(b"not audio at all")
    with pytest.raises(SpeechInputError, match="not a readable audio file"):
        FileSource(bad)
    with pytest.raises(SpeechInputError, match="no such file"):
        open_source(str(tmp_path / "nope.flac"))


def test_wrong_rate_in_memory_is_refused() -> None:
    with pytest.raises(SpeechInputError, match="44100 Hz"):
        ArraySource(np.zeros(100, np.int16), rate=44100)


@pytest.mark.skipif(shutil.which("ffmpeg") is None, reason="ffmpeg not installed")
def test_video_audio_track(tmp_path: Path) -> None:
    v = tmp_path / "v.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "color=c=black:s=64x64:d=1", "-f", "lavfi", "-i",
                    "sine=frequency=500:duration=1:sample_rate=44100", "-shortest", "-c:v", "libx264", "-c:a", "aac",
                    str(v)], check=True)
    src = open_source(str(v))
    assert isinstance(src, VideoSource)
    x, ts = _collect(src)
    assert abs(len(x) - 16000) < 1600 and ts[0] == 0.0
    spec = np.abs(np.fft.rfft(x[:, 0].astype(float)))
    assert abs(np.argmax(spec) * 16000 / len(x) - 500) < 5
    silent = tmp_path / "silent.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "color=c=black:s=64x64:d=1", "-c:v", "libx264",
                    str(silent)], check=True)
    with pytest.raises(SpeechInputError, match="audio"):
        _collect(open_source(str(silent)))


def test_a_soundtrack_that_starts_late_is_timed_from_the_start_of_the_video(tmp_path: Path) -> None:
    """`t` counts from the video's start, as the camera's frames do: a soundtrack starting 1.5 s in is padded."""
    v = tmp_path / "late.mkv"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "color=c=black:s=64x64:d=3", "-f", "lavfi",
                    "-i", "sine=frequency=500:duration=1:sample_rate=16000", "-filter_complex",
                    "[1:a]adelay=1500:all=1[a]", "-map", "0:v", "-map", "[a]", "-c:v", "libx264", "-c:a", "pcm_s16le",
                    "-output_ts_offset", "0", str(v)], check=True)
    late = tmp_path / "late2.mkv"  # the same tone, its stream (not its samples) starting 1.5 s after the video's
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "color=c=black:s=64x64:d=3", "-itsoffset", "1.5",
                    "-f", "lavfi", "-i", "sine=frequency=500:duration=1:sample_rate=16000", "-map", "0:v", "-map",
                    "1:a", "-c:v", "libx264", "-c:a", "pcm_s16le", str(late)], check=True)
    for f in (v, late):
        x, _ = _collect(open_source(str(f)))
        loud = np.flatnonzero(np.abs(x[:, 0].astype(int)) > 1000)
        assert abs(loud[0] / 16000 - 1.5) < 0.1, (f.name, loud[0] / 16000)


def test_missing_microphone_is_a_clear_error() -> None:
    try:
        import sounddevice as sd

        has_input = any(d["max_input_channels"] > 0 for d in sd.query_devices())
    except (ImportError, OSError):
        has_input = False
    if has_input:
        pytest.skip("this machine has a microphone; tests never open one")
    with pytest.raises(SpeechInputError, match="microphone"):
        MicSource()


def test_ring_buffer_keeps_the_last_30_seconds() -> None:
    rb = RingBuffer(seconds=30, channels=2)
    t = 100.0
    for i in range(40):  # 40 s of 1 s chunks whose samples encode their second
        x = np.full((16000, 2), i, np.int16)
        rb.append(AudioChunk(t + i, x))
    assert rb.end_time == pytest.approx(140.0) and rb.start_time == pytest.approx(110.0)
    clip = rb.clip(125.5, 126.5)
    assert clip.shape == (16000, 2)
    assert set(np.unique(clip)) == {25, 26}
    assert rb.clip(0, 105).shape[0] == 0  # gone
    assert np.all(rb.clip(100, 111) == 10)  # clamped to what is held


def test_ring_buffer_saves_evidence(tmp_path: Path, tone: np.ndarray) -> None:
    rb = RingBuffer(seconds=5)
    rb.append(AudioChunk(0.0, tone))
    out = rb.save(tmp_path / "ev.wav", 0.25, 0.75)
    y, sr = sf.read(out, dtype="int16")
    assert sr == 16000 and np.array_equal(y, tone[4000:12000])


@pytest.mark.parametrize("subtype", ["FLOAT", "DOUBLE"])
def test_a_floating_point_wav_at_16k_is_scaled_not_truncated(tmp_path: Path, tone: np.ndarray, subtype: str) -> None:
    """libsndfile reads float samples as int16 without scaling (-1..1 -> 0): they must be scaled to full range."""
    f = tmp_path / "f.wav"
    sf.write(f, tone.astype(np.float64) / 32768.0, 16000, subtype=subtype)
    x, _ = _collect(FileSource(f))
    assert np.abs(x[:, 0].astype(int) - tone.astype(int)).max() <= 2


def test_an_empty_file_and_an_absurd_rate_are_refused(tmp_path: Path) -> None:
    f = tmp_path / "empty.wav"
    sf.write(f, np.zeros(0, np.int16), 16000)
    with pytest.raises(SpeechInputError, match="no audio"):
        FileSource(f)
    g = tmp_path / "slow.wav"
    sf.write(g, np.zeros(2000, np.int16), 1)
    with pytest.raises(SpeechInputError, match="not speech"):
        FileSource(g)


@pytest.mark.parametrize(("rate", "channels"), [(44100, 2), (48000, 1), (8000, 1), (22050, 3)])
def test_a_long_file_is_resampled_block_by_block_exactly_as_whole(tmp_path: Path, rate: int, channels: int) -> None:
    """Ten-second blocks with margins give the samples of resampling the whole file at once (memory stays flat)."""
    from speech.synth import resample

    rng = np.random.default_rng(rate)
    x = (rng.standard_normal((int(23.7 * rate), channels)) * 0.2).astype(np.float32)  # three blocks, a ragged end
    f = tmp_path / "long.wav"
    sf.write(f, x, rate, subtype="FLOAT")
    got, ts = _collect(FileSource(f, t0=2.0))
    whole = np.stack([resample(x[:, c], rate, 16000) for c in range(channels)], axis=1)
    want = (np.clip(whole, -1.0, 1.0) * 32767.0).astype(np.int16)
    assert got.shape == want.shape
    assert np.abs(got.astype(int) - want.astype(int)).max() <= 1
    assert ts[0] == 2.0 and ts[1] == pytest.approx(2.1) and ts[-1] == pytest.approx(2.0 + (len(got) - 1) // 1600 * 0.1)
