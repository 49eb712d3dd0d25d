"""Audio sources behind one interface, and the 30-second ring buffer that keeps evidence for flags.

Every source delivers `AudioChunk`s: 16 kHz int16 samples, shape (n, channels), stamped with the time of their first
sample on the table's clock (seconds). Why one interface: the detectors, the vosk engine and the evaluation never
care whether sound comes from a microphone, a per-seat microphone array, a WAV/FLAC file or a video's audio track,
and tests feed files through exactly the code path a live table uses.

`sounddevice` (which needs Debian's libportaudio2) is imported only when a microphone is opened, so the rest of the
table works on machines without audio hardware or PortAudio.
"""

from __future__ import annotations

import queue
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

RATE = 16000
VIDEO_EXTS = {".mp4", ".mkv", ".webm", ".mov", ".avi", ".m4v", ".ts", ".m4a", ".mpg", ".mpeg", ".flv", ".wmv"}


class SpeechInputError(RuntimeError):
    """Audio could not be had: the message says which source and why, for the user (no traceback)."""


@dataclass
class AudioChunk:
    """`samples`: int16 (n, channels) at 16 kHz; `t`: time of the first sample on the table's clock, seconds."""

    t: float
    samples: np.ndarray
    rate: int = RATE

    @property
    def duration(self) -> float:
        return len(self.samples) / self.rate

    @property
    def channels(self) -> int:
        return 1 if self.samples.ndim == 1 else int(self.samples.shape[1])

    def mono(self) -> np.ndarray:
        """The channels averaged to one int16 track."""
        if self.samples.ndim == 1:
            return self.samples
        return self.samples.astype(np.int32).mean(axis=1).astype(np.int16)


class AudioSource:
    """Base class: iterate `chunks()`; use as a context manager to release devices and pipes."""

    channels: int = 1
    name: str = "audio"

    def chunks(self) -> Iterator[AudioChunk]:
        raise NotImplementedError

    def close(self) -> None:
        """Release the device, file or pipe (idempotent)."""

    def __enter__(self) -> AudioSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _to_int16(x: np.ndarray) -> np.ndarray:
    if x.dtype == np.int16:
        return x
    return (np.clip(x, -1.0, 1.0) * 32767.0).astype(np.int16)


class ArraySource(AudioSource):
    """Samples already in memory (tests, the demo maker); int16 or float in [-1, 1], 16 kHz only."""

    def __init__(self, samples: np.ndarray, rate: int = RATE, t0: float = 0.0, chunk_s: float = 0.1,
                 name: str = "array") -> None:
        if rate != RATE:
            raise SpeechInputError(f"{name}: audio at {rate} Hz, but the speech engines take {RATE} Hz; "
                                   "resample it first (files and videos are resampled automatically)")
        x = np.asarray(samples)
        self._x = _to_int16(x if x.ndim == 2 else x[:, None])
        self.channels = int(self._x.shape[1])
        self.t0, self.chunk = t0, max(1, int(chunk_s * RATE))
        self.name = name

    def chunks(self) -> Iterator[AudioChunk]:
        for i in range(0, len(self._x), self.chunk):
            yield AudioChunk(self.t0 + i / RATE, self._x[i:i + self.chunk])


class FileSource(AudioSource):
    """A WAV/FLAC/OGG file read with soundfile, resampled to 16 kHz if recorded at another rate."""

    def __init__(self, path: str | Path, t0: float = 0.0, chunk_s: float = 0.1) -> None:
        import soundfile as sf

        self.path = Path(path)
        self.name = str(path)
        if not self.path.exists():
            raise SpeechInputError(f"{path}: no such file")
        try:
            info = sf.info(str(self.path))
        except Exception as exc:  # soundfile raises its own error types for unknown formats
            raise SpeechInputError(f"{path}: not a readable audio file ({exc}); WAV, FLAC and OGG are read "
                                   f"directly, videos through ffmpeg") from None
        self.file_rate = int(info.samplerate)
        self.channels = int(info.channels)
        if info.frames == 0:
            raise SpeechInputError(f"{path}: the file holds no audio (0 samples)")
        if self.file_rate < 4000:
            raise SpeechInputError(f"{path}: a sample rate of {self.file_rate} Hz is not speech; 8 kHz and up is read")
        # floating-point samples are read as floats and scaled: libsndfile would truncate them to -1..1 as int16
        self.floating = str(info.subtype).upper() in ("FLOAT", "DOUBLE")
        self.t0, self.chunk_s = t0, chunk_s

    def chunks(self) -> Iterator[AudioChunk]:
        import soundfile as sf

        block = max(1, int(self.chunk_s * self.file_rate))
        pos = 0  # output samples delivered
        try:
            with sf.SoundFile(str(self.path)) as fh:
                if self.file_rate == RATE and not self.floating:
                    for x in fh.blocks(blocksize=block, dtype="int16", always_2d=True):
                        yield AudioChunk(self.t0 + pos / RATE, x)
                        pos += len(x)
                elif self.file_rate == RATE:
                    for f in fh.blocks(blocksize=block, dtype="float32", always_2d=True):
                        f = np.clip(np.nan_to_num(f, nan=0.0, posinf=1.0, neginf=-1.0), -1.0, 1.0)
                        yield AudioChunk(self.t0 + pos / RATE, (f * 32767.0).astype(np.int16))
                        pos += len(f)
                else:
                    yield from self._resampled(fh)
        except RuntimeError as exc:
            raise SpeechInputError(f"{self.path}: the audio could not be decoded ({exc})") from None


    def _resampled(self, fh: Any) -> Iterator[AudioChunk]:  # fh: an open soundfile.SoundFile
        """The file resampled to 16 kHz ten seconds at a time, so that a long recording never sits whole in memory
        (a 30-minute 48 kHz stereo file took 1.5 GB read at once). Each block is resampled with a margin on both
        sides longer than the polyphase filter and the margins' output dropped, so the samples equal those of
        resampling the whole file (tested); blocks start on multiples of the decimation, so they join exactly."""
        from math import gcd

        from scipy.signal import resample_poly

        g = gcd(self.file_rate, RATE)
        up, down = RATE // g, self.file_rate // g
        total = int(fh.frames)
        step = down * max(1, round(10.0 * self.file_rate / down))  # about 10 s of input
        margin = down * (int(0.05 * self.file_rate / down) + 1)  # over 50 ms: beyond the filter's half-length
        out_total = -(-total * up // down)  # ceil: resample_poly's output length for the whole file
        chunk = max(1, int(self.chunk_s * RATE))
        pending = np.zeros((0, self.channels), np.int16)
        sent = 0
        for start in range(0, total, step):
            lo, hi = max(0, start - margin), min(total, start + step + margin)
            fh.seek(lo)
            x = np.nan_to_num(fh.read(hi - lo, dtype="float32", always_2d=True), nan=0.0, posinf=1.0, neginf=-1.0)
            y = resample_poly(x, up, down, axis=0)
            first = (start - lo) * up // down
            last = min(out_total, (start + step) * up // down) - start * up // down
            pending = np.concatenate([pending, _to_int16(y[first:first + last].astype(np.float32))])
            while len(pending) >= chunk:
                yield AudioChunk(self.t0 + sent / RATE, pending[:chunk])
                sent += chunk
                pending = pending[chunk:]
        if len(pending):
            yield AudioChunk(self.t0 + sent / RATE, pending)


class VideoSource(AudioSource):
    """The audio track of a video, decoded by ffmpeg to 16 kHz int16 through a pipe (streams, any length)."""

    def __init__(self, path: str | Path, t0: float = 0.0, chunk_s: float = 0.1, channels: int = 1) -> None:
        self.path = Path(path)
        self.name = str(path)
        if not self.path.exists():
            raise SpeechInputError(f"{path}: no such file")
        if shutil.which("ffmpeg") is None:
            raise SpeechInputError("reading a video's audio needs ffmpeg (Debian package ffmpeg)")
        self.channels, self.t0, self.chunk_s = channels, t0, chunk_s
        self._proc: subprocess.Popen[bytes] | None = None

    def chunks(self) -> Iterator[AudioChunk]:
        # aresample's first_pts=0 pads a soundtrack that starts after the video with silence, so that `t` counts
        # from the start of the video, as the camera's frames do
        cmd = ["ffmpeg", "-nostdin", "-v", "error", "-i", str(self.path), "-vn", "-af", "aresample=async=1:first_pts=0",
               "-ac", str(self.channels), "-ar", str(RATE), "-f", "s16le", "-"]
        self._proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert self._proc.stdout is not None
        nbytes = int(self.chunk_s * RATE) * 2 * self.channels
        pos = 0
        while True:
            data = self._proc.stdout.read(nbytes)
            if not data:
                break
            x = np.frombuffer(data[: len(data) // (2 * self.channels) * 2 * self.channels], np.int16)
            x = x.reshape(-1, self.channels)
            yield AudioChunk(self.t0 + pos / RATE, x)
            pos += len(x)
        rc = self._proc.wait()
        err = self._proc.stderr.read().decode(errors="replace").strip() if self._proc.stderr else ""
        if rc != 0 or (pos == 0 and err):
            raise SpeechInputError(f"{self.path}: ffmpeg could not read an audio track ({err or 'exit ' + str(rc)})")
        if pos == 0:
            raise SpeechInputError(f"{self.path}: the video has no audio track")

    def close(self) -> None:
        if self._proc and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()


class MicSource(AudioSource):
    """A live microphone (or a multi-channel interface where channel i is seat i's microphone) via sounddevice.

    Chunks are stamped with `clock()` (the table's clock, seconds) at the moment PortAudio handed them over, minus
    their duration. `max_seconds` stops the stream (None: until closed or interrupted).
    """

    def __init__(self, device: int | str | None = None, channels: int = 1, chunk_s: float = 0.05,
                 clock: Callable[[], float] | None = None, max_seconds: float | None = None) -> None:
        try:
            import sounddevice as sd
        except OSError as exc:  # the module imports, but PortAudio is missing
            raise SpeechInputError(f"no microphone: PortAudio is missing ({exc}); install Debian's libportaudio2") \
                from None
        except ImportError:
            raise SpeechInputError("no microphone: the Python package sounddevice is not installed "
                                   "(pip install 'unotable[audio]')") from None
        self._sd = sd
        self.channels, self.chunk_s, self.max_seconds = channels, chunk_s, max_seconds
        start = time.monotonic()
        self.clock = clock or (lambda: time.monotonic() - start)
        self.device = device
        self.name = f"microphone {device if device is not None else '(default)'}"
        try:
            inputs = [d for d in sd.query_devices() if d["max_input_channels"] > 0]
        except Exception as exc:
            raise SpeechInputError(f"no microphone: PortAudio lists no devices ({exc})") from None
        if not inputs:
            raise SpeechInputError("no microphone: this machine has no audio input device")
        try:
            sd.check_input_settings(device=device, channels=channels, samplerate=RATE, dtype="int16")
        except Exception as exc:
            raise SpeechInputError(f"{self.name} cannot record {channels} channel(s) at {RATE} Hz: {exc}") from None
        self._q: queue.Queue[AudioChunk] = queue.Queue()
        self._stream = None

    def _callback(self, indata: np.ndarray, frames: int, time_info: object, status: object) -> None:
        self._q.put(AudioChunk(self.clock() - frames / RATE, indata.copy()))

    def chunks(self) -> Iterator[AudioChunk]:
        sd = self._sd
        try:
            self._stream = sd.InputStream(device=self.device, channels=self.channels, samplerate=RATE,
                                          dtype="int16", blocksize=int(self.chunk_s * RATE), callback=self._callback)
            self._stream.start()
        except Exception as exc:
            raise SpeechInputError(f"{self.name} could not be opened: {exc}") from None
        got = 0.0
        while self.max_seconds is None or got < self.max_seconds:
            try:
                c = self._q.get(timeout=2.0)
            except queue.Empty:
                raise SpeechInputError(f"{self.name} stopped delivering audio") from None
            got += c.duration
            yield c

    def close(self) -> None:
        if self._stream is not None:
            self._stream.stop()
            self._stream.close()
            self._stream = None


def open_source(spec: str, chunk_s: float = 0.1, channels: int = 1, max_seconds: float | None = None) -> AudioSource:
    """`mic`, `mic:DEVICE` (index or name), a video file (by extension) or an audio file."""
    if spec == "mic" or spec.startswith("mic:"):
        dev: int | str | None = spec[4:] or None
        if isinstance(dev, str) and dev.isdigit():
            dev = int(dev)
        return MicSource(dev, channels=channels, chunk_s=min(chunk_s, 0.05), max_seconds=max_seconds)
    path = Path(spec)
    if path.suffix.lower() in VIDEO_EXTS:
        return VideoSource(path, chunk_s=chunk_s, channels=channels)
    return FileSource(path, chunk_s=chunk_s)


class RingBuffer:
    """The last `seconds` of audio (all channels) with their table-clock times, for a flag's evidence."""

    def __init__(self, seconds: float = 30.0, channels: int = 1) -> None:
        self.size = int(seconds * RATE)
        self.channels = channels
        self._buf = np.zeros((self.size, channels), np.int16)
        self._written = 0  # samples ever written
        self._t0: float | None = None  # table time of sample 0 of the stream

    def append(self, chunk: AudioChunk) -> None:
        x = chunk.samples if chunk.samples.ndim == 2 else chunk.samples[:, None]
        if x.shape[1] != self.channels:
            raise SpeechInputError(f"ring buffer holds {self.channels} channel(s), got {x.shape[1]}")
        if self._t0 is None:
            self._t0 = chunk.t
        x = x[-self.size:]
        n = len(x)
        i = self._written % self.size
        first = min(n, self.size - i)
        self._buf[i:i + first] = x[:first]
        self._buf[: n - first] = x[first:]
        self._written += len(chunk.samples)

    @property
    def end_time(self) -> float:
        return (self._t0 or 0.0) + self._written / RATE

    @property
    def start_time(self) -> float:
        return self.end_time - min(self._written, self.size) / RATE

    def clip(self, t_start: float, t_end: float) -> np.ndarray:
        """Samples between two table times (clamped to what is still held): int16 (n, channels)."""
        t_start, t_end = max(t_start, self.start_time), min(t_end, self.end_time)
        if t_end <= t_start or self._t0 is None:
            return np.zeros((0, self.channels), np.int16)
        a = int(round((t_start - self._t0) * RATE))
        b = int(round((t_end - self._t0) * RATE))
        idx = np.arange(a, b) % self.size
        return self._buf[idx]

    def save(self, path: str | Path, t_start: float, t_end: float) -> Path:
        """Write the audio between two table times to a WAV file (the evidence attached to a flag)."""
        import soundfile as sf

        sf.write(str(path), self.clip(t_start, t_end), RATE, subtype="PCM_16")
        return Path(path)
