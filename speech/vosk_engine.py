"""The vosk engine: a grammar-restricted Kaldi recogniser over the same words, for rigs with vosk models installed.

Why a grammar: a full large-vocabulary decode is slow and its errors are unbounded; restricting the decoder to the
keywords plus near-miss filler words (and `[unk]` where the model has it) makes it a keyword spotter whose
alternatives absorb other speech. The model directory comes from `--vosk-model`, the `UNOTABLE_VOSK_MODEL`
environment variable or `[speech] vosk_model` in the config file; `vosk.Model(lang=...)` is never used because it
downloads.
"""

from __future__ import annotations

import json
import os
import tomllib
from collections import deque
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from speech.audio import RATE, AudioChunk, SpeechInputError, StreamClock
from speech.kws import event_for
from speech.vocab import KEYWORDS, NEGATIVE_WORDS


class VoskUnavailable(SpeechInputError):
    """vosk or its model is missing: the message says what to install or configure."""


def config_path() -> Path:
    """The config file: `UNOTABLE_CONFIG`, else ./unotable.toml."""
    return Path(os.environ.get("UNOTABLE_CONFIG", "unotable.toml"))


def vosk_model_dir(explicit: str | Path | None = None) -> Path:
    """Where the vosk model is: the explicit argument, UNOTABLE_VOSK_MODEL, or the config's [speech] vosk_model."""
    if explicit:
        return Path(explicit)
    env = os.environ.get("UNOTABLE_VOSK_MODEL")
    if env:
        return Path(env)
    cfg = config_path()
    if cfg.exists():
        try:
            data = tomllib.loads(cfg.read_text())
        except (tomllib.TOMLDecodeError, OSError) as exc:
            raise VoskUnavailable(f"config {cfg} could not be read: {exc}") from None
        value = data.get("speech", {}).get("vosk_model")
        if value:
            return Path(value)
    raise VoskUnavailable("no vosk model configured: pass --vosk-model DIR, set UNOTABLE_VOSK_MODEL, or put "
                          f"`vosk_model = \"DIR\"` under [speech] in {cfg} (models from alphacephei.com/vosk/models, "
                          "e.g. vosk-model-small-en-us and vosk-model-small-ru, unpacked)")


def default_words() -> dict[str, str]:
    """Spoken word -> keyword class, for English and Russian (ё and е both)."""
    words: dict[str, str] = {}
    for cls, by_lang in KEYWORDS.items():
        for texts in by_lang.values():
            for t in texts:
                words[t] = cls
                words[t.replace("ё", "е")] = cls
    return words


def default_fillers() -> list[str]:
    """Single near-miss words that give the decoder somewhere else to go."""
    return sorted({w for lang in NEGATIVE_WORDS.values() for w in lang if " " not in w and w.isalpha()})


def load_model(model_dir: str | Path | None = None) -> Any:
    """Load a vosk model from a directory, with clear errors for a missing library or directory."""
    try:
        import vosk
    except ImportError:
        raise VoskUnavailable("the Python package vosk is not installed (pip install vosk)") from None
    path = vosk_model_dir(model_dir)
    if not path.is_dir():
        raise VoskUnavailable(f"vosk model directory {path} does not exist")
    if not (path / "am").is_dir() and not (path / "final.mdl").exists():
        raise VoskUnavailable(f"{path} does not look like a vosk model (no am/ folder)")
    vosk.SetLogLevel(-1)
    try:
        return vosk.Model(str(path))
    except Exception as exc:
        raise VoskUnavailable(f"vosk could not load the model in {path}: {exc}") from None


class VoskDetector:
    """Streaming keyword events from vosk; same `process`/`run` interface as the keyword spotter.

    words: spoken word -> class ("uno", a colour, "pass"); fillers: extra grammar words that never fire.
    With per-seat microphones (several channels, channel i = seat i's) vosk hears the mix, and a word is given to
    the channel loudest between its start and end (as the keyword spotter does); times follow the chunks' stamps.
    """

    BLOCK = 160  # 10 ms: the loudness of each channel is kept per block

    def __init__(self, model: Any = None, model_dir: str | Path | None = None, words: dict[str, str] | None = None,
                 fillers: Iterable[str] | None = None, min_conf: float = 0.6) -> None:
        self.model = model if model is not None else load_model(model_dir)  # clear errors: no vosk, no model
        import vosk

        self.words = words if words is not None else default_words()
        self.fillers = list(fillers) if fillers is not None else default_fillers()
        grammar = sorted(set(self.words) | set(self.fillers)) + ["[unk]"]
        self._rec = vosk.KaldiRecognizer(self.model, RATE, json.dumps(grammar, ensure_ascii=False))
        self._rec.SetWords(True)
        self.min_conf = min_conf
        self._clock = StreamClock()  # samples fed -> table time, across a microphone's stalls
        # (first sample, per-channel variance) of each 10 ms block: the last minute, longer than an utterance vosk
        # reports (its words come when the utterance ends); variance, as a microphone's DC offset is not sound
        self._energy: deque[tuple[int, np.ndarray]] = deque(maxlen=6000)

    def _events(self, result_json: str) -> list[dict[str, Any]]:
        res = json.loads(result_json)
        out = []
        for w in res.get("result", []):
            cls = self.words.get(w.get("word", ""))
            if cls and float(w.get("conf", 0)) >= self.min_conf:
                end = float(w["end"])
                t = self._clock.offset_at(int(end * RATE)) + end
                seat = self._seat(int(float(w.get("start", end)) * RATE), int(end * RATE))
                out.append(event_for(cls, t, float(w.get("conf", 0)), seat))
        return out

    def _seat(self, start: int, end: int) -> int | None:
        """With several channels: the one loudest between a word's first and last sample (None with one)."""
        got = [e for a, e in self._energy if start - self.BLOCK < a < end]
        return int(np.argmax(np.sum(got, axis=0))) if got else None

    def _keep_energy(self, samples: np.ndarray, first: int) -> None:
        x = samples.astype(np.float64)
        n = len(x) // self.BLOCK * self.BLOCK
        if n:
            var = x[:n].reshape(-1, self.BLOCK, x.shape[1]).var(axis=1)
            self._energy.extend((first + i * self.BLOCK, v) for i, v in enumerate(var))
        if n < len(x):
            self._energy.append((first + n, x[n:].var(axis=0)))

    def process(self, chunk: AudioChunk) -> list[dict[str, Any]]:
        if chunk.rate != RATE:
            raise SpeechInputError(f"audio at {chunk.rate} Hz; vosk is set up for {RATE} Hz")
        first = self._clock.samples
        self._clock.feed(chunk.t, len(chunk.samples))
        if chunk.channels > 1:
            self._keep_energy(chunk.samples, first)
        if self._rec.AcceptWaveform(chunk.mono().tobytes()):
            return self._events(self._rec.Result())
        return []

    def finish(self) -> list[dict[str, Any]]:
        """Flush the decoder at the end of a stream."""
        return self._events(self._rec.FinalResult())

    def run(self, chunks: Iterable[AudioChunk]) -> Iterator[dict[str, Any]]:
        for c in chunks:
            yield from self.process(c)
        yield from self.finish()
