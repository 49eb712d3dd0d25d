"""Audio sources behind one interface, and the 30-second ring buffer that keeps evidence for flags.

Every source delivers `AudioChunk`s: 16 kHz int16 samples, shape (n, channels), stamped with the time of their first
sample on the table's clock (seconds). Why one interface: the detectors, the vosk engine and the evaluation never
care whether sound comes from a microphone, a per-seat microphone array, a WAV/FLAC file or a video's audio track,
and tests feed files through exactly the code path a live table uses.

`sounddevice` (which needs Debian's libportaudio2) is imported only when a microphone is opened, so the rest of the
table works on machines without audio hardware or PortAudio.
"""

from __future__ import annotations

import json
import queue
import shutil
import subprocess
import threading
import time
from collections import deque
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


class StreamClock:
    """Sample offsets of one stream <-> table time, following the chunks' stamps across stalls.

    Why: a live microphone that stalls (a USB hiccup, blocks PortAudio drops on an input overflow) resumes with
    chunks stamped later than the samples counted so far say, and a sound card's clock drifts from the table's
    (about 100 ppm: 0.7 s over two hours). Counting samples from the first chunk would put every later event early
    by the gap. Each chunk's stamp is compared with the time the count gives; beyond `resync_s` (well above a
    callback's jitter) the stamp wins and becomes a new anchor. A gapless source (a file, a video) never re-anchors,
    so its times are exactly the first stamp plus the samples counted.
    """

    def __init__(self, resync_s: float = 0.1, keep: int = 64) -> None:
        self.resync_s = resync_s
        self._anchors: deque[tuple[int, float]] = deque(maxlen=keep)  # (sample offset, table time), in order
        self.samples = 0  # samples fed so far

    def feed(self, t: float, n: int) -> None:
        """A chunk of `n` samples stamped `t` (its first sample) follows what was fed before."""
        if not self._anchors or abs(t - self.time_at(self.samples)) > self.resync_s:
            self._anchors.append((self.samples, t))
        self.samples += n

    def time_at(self, sample: int) -> float:
        """The table time of a sample offset (the anchor before it, plus the samples since)."""
        if not self._anchors:
            return sample / RATE
        for s, t in reversed(self._anchors):
            if s <= sample:
                return t + (sample - s) / RATE
        s, t = self._anchors[0]
        return t + (sample - s) / RATE

    def offset_at(self, sample: int) -> float:
        """Table time minus stream time (samples / RATE) around a sample: add it to a time a decoder counts in
        seconds of audio fed (vosk's word ends). Before any stall, simply the first chunk's stamp."""
        if not self._anchors:
            return 0.0
        for s, t in reversed(self._anchors):
            if s <= sample:
                return t - s / RATE
        s, t = self._anchors[0]
        return t - s / RATE

    def sample_at(self, t: float) -> int:
        """The sample offset at a table time; a time inside a stall maps to the first sample after it."""
        if not self._anchors:
            return int(round(t * RATE))
        anchors = list(self._anchors)
        for k in range(len(anchors) - 1, -1, -1):
            s, ta = anchors[k]
            if ta <= t or k == 0:
                x = s + int(round((t - ta) * RATE))
                return min(x, anchors[k + 1][0]) if k + 1 < len(anchors) else x
        return 0  # unreachable: k == 0 returns


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
        if self.file_rate < 4000:
            raise SpeechInputError(f"{path}: a sample rate of {self.file_rate} Hz is not speech; 8 kHz and up is read")
        self.t0, self.chunk_s = t0, chunk_s
        # a WAV whose recorder lost power before it wrote its sizes (RIFF and data sizes 0): libsndfile sees no
        # frames although the samples are there; ffmpeg reads a data chunk to the end of the file
        self._ffmpeg: VideoSource | None = None
        if info.frames == 0:
            if not _unfinished_wav(self.path):
                raise SpeechInputError(f"{path}: the file holds no audio (0 samples)")
            if shutil.which("ffmpeg") is None:
                raise SpeechInputError(f"{path}: the WAV header was never finished (its sizes are 0: the recorder "
                                       "stopped before writing them), so libsndfile can't read its samples; "
                                       "install ffmpeg (Debian package ffmpeg), which reads them")
            self._ffmpeg = VideoSource(self.path, t0=t0, chunk_s=chunk_s, channels=self.channels)
        # floating-point samples are read as floats and scaled: libsndfile would truncate them to -1..1 as int16
        self.floating = str(info.subtype).upper() in ("FLOAT", "DOUBLE")

    def chunks(self) -> Iterator[AudioChunk]:
        import soundfile as sf

        if self._ffmpeg is not None:
            yield from self._ffmpeg.chunks()
            return
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

    def close(self) -> None:
        if self._ffmpeg is not None:
            self._ffmpeg.close()

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


def _unfinished_wav(path: Path) -> bool:
    """A RIFF/WAVE file whose `data` chunk is followed by samples although libsndfile counted none."""
    try:
        with path.open("rb") as fh:
            head = fh.read(65536)
        size = path.stat().st_size
    except OSError:
        return False
    i = head.find(b"data", 12)
    return head[:4] == b"RIFF" and head[8:12] == b"WAVE" and i > 0 and size > i + 8


def _probe_audio(path: Path) -> tuple[int, int] | None:
    """(index among the audio streams, channels) of the track ffmpeg would pick by default (the most channels, the
    first of equals), or None when ffprobe is missing or can't read the file (ffmpeg then says why)."""
    if shutil.which("ffprobe") is None:
        return None
    try:
        out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "a", "-show_entries", "stream=channels",
                              "-of", "json", str(path)], capture_output=True, text=True, timeout=60, check=False)
        streams = json.loads(out.stdout or "{}").get("streams", [])
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return None
    chans = [int(s.get("channels") or 0) for s in streams if isinstance(s, dict)]
    if out.returncode != 0 or not chans or max(chans) <= 0:
        return None
    return chans.index(max(chans)), max(chans)


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
        probed = _probe_audio(self.path)
        self._track = probed[0] if probed else None
        self.track_channels = probed[1] if probed else None  # None: unknown (no ffprobe; ffmpeg will say why)
        if channels > 1 and self.track_channels is not None and self.track_channels != channels:
            # channel i is seat i's microphone: ffmpeg would pad or remix the track, naming calls to seats whose
            # microphones aren't there
            raise SpeechInputError(f"{path}: its audio track has {self.track_channels} channel(s), but "
                                   f"{channels} per-seat channels were asked: one channel a seat")

    def chunks(self) -> Iterator[AudioChunk]:
        # aresample's first_pts=0 pads a soundtrack that starts after the video with silence, so that `t` counts
        # from the start of the video, as the camera's frames do
        cmd = ["ffmpeg", "-nostdin", "-v", "error", "-i", str(self.path), "-vn"]
        if self._track is not None:
            cmd += ["-map", f"0:a:{self._track}"]  # the track probed, so its channel count is the one checked
        cmd += ["-af", "aresample=async=1:first_pts=0"]
        if self.channels == 1 or self.track_channels != self.channels:
            # the mix (or, where ffprobe couldn't tell, whatever ffmpeg makes of the track). Per-seat channels
            # are left as the track holds them, in its order: `-ac N` maps by layout, not index (a quad track asked
            # for 4 channels is re-laid as 4.0, FL FR FC BC: seat 2's channel silent, folded into seat 3's)
            cmd += ["-ac", str(self.channels)]
        cmd += ["-ar", str(RATE), "-f", "s16le", "-"]
        self._proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert self._proc.stdout is not None and self._proc.stderr is not None
        # ffmpeg writes an error line per damaged packet: a pipe read only at the end fills (64 KiB) and blocks it
        # while this reads stdout, so stderr is drained on a thread keeping its last lines for the message
        tail: deque[bytes] = deque(maxlen=20)
        stderr = self._proc.stderr

        def keep_tail() -> None:
            tail.extend(stderr)

        drain = threading.Thread(target=keep_tail, name="ffmpeg-stderr", daemon=True)
        drain.start()
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
        drain.join(5.0)
        err = b"".join(tail).decode(errors="replace").strip()
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
    """The last `seconds` of audio (all channels) with their table-clock times, for a flag's evidence.

    Times follow the chunks' stamps (`StreamClock`): after a microphone stalls, a clip of the minutes around a flag
    is still the audio of those minutes, not audio shifted by the stall.
    """

    def __init__(self, seconds: float = 30.0, channels: int = 1) -> None:
        self.size = int(seconds * RATE)
        self.channels = channels
        self._buf = np.zeros((self.size, channels), np.int16)
        self._clock = StreamClock()

    @property
    def _written(self) -> int:
        """Samples ever written."""
        return self._clock.samples

    def append(self, chunk: AudioChunk) -> None:
        x = chunk.samples if chunk.samples.ndim == 2 else chunk.samples[:, None]
        if x.shape[1] != self.channels:
            raise SpeechInputError(f"ring buffer holds {self.channels} channel(s), got {x.shape[1]}")
        x = x[-self.size:]
        n = len(x)
        i = (self._written + len(chunk.samples) - n) % self.size  # where the kept tail's first sample goes
        first = min(n, self.size - i)
        self._buf[i:i + first] = x[:first]
        self._buf[: n - first] = x[first:]
        self._clock.feed(chunk.t, len(chunk.samples))

    @property
    def end_time(self) -> float:
        return self._clock.time_at(self._written)

    @property
    def start_time(self) -> float:
        return self._clock.time_at(max(0, self._written - self.size))

    def clip(self, t_start: float, t_end: float) -> np.ndarray:
        """Samples between two table times (clamped to what is still held): int16 (n, channels)."""
        if self._written == 0:
            return np.zeros((0, self.channels), np.int16)
        lo = max(self._written - self.size, 0)
        a = max(self._clock.sample_at(t_start), lo)
        b = min(self._clock.sample_at(t_end), self._written)
        if b <= a:
            return np.zeros((0, self.channels), np.int16)
        idx = np.arange(a, b) % self.size
        return self._buf[idx]

    def save(self, path: str | Path, t_start: float, t_end: float) -> Path:
        """Write the audio between two table times to a WAV file (the evidence attached to a flag)."""
        import soundfile as sf

        sf.write(str(path), self.clip(t_start, t_end), RATE, subtype="PCM_16")
        return Path(path)
