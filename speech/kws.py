"""The default speech engine: the project's own keyword spotter (ONNX, onnxruntime) run as a streaming detector.

Why streaming this way: log-mel frames are computed once each (10 ms grid), and the 1.2 s model window slides by a
short hop (80 ms), so the model answers soon after a word ends. Posteriors are smoothed over a few hops, an event
fires when a keyword's smoothed posterior crosses the threshold, and that keyword is latched until its posterior
falls again: one event per utterance. With per-seat microphones the detector listens to the mix and names the seat
whose channel was loudest over the word.

A model card (`models/kws.json`) may list `parts`: models with their own front ends (log-mel frames for the DS-CNN,
speech embeddings for the head of `speech.head`) and weights. Each part ticks every 80 ms; at each tick of the last
part the detector averages every part's latest posterior, in time order, so chunk sizes never change the events.
A part may say `delay`: its posterior enters the mean that many of its ticks late, to line its peak up with the
other parts' (a part that hears a word early waits for the one that hears it late; live, so only a delay, never a
look-ahead).
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from speech.audio import RATE, AudioChunk, SpeechInputError, StreamClock
from speech.features import HOP, NMELS, WIN, WINDOW_FRAMES, int16_to_float, logmel
from speech.vocab import CLASSES, COLORS

MODEL_PATH = Path(__file__).resolve().parents[1] / "models" / "kws.onnx"


class ModelMissingError(SpeechInputError):
    """The keyword model file is absent or unreadable."""


def load_session(path: Path | None = None, threads: int = 1) -> Any:
    """An onnxruntime session, on one thread unless asked (live, the table shares its CPU with the camera; batch
    work such as a teacher's posteriors for training may take more)."""
    path = Path(path or MODEL_PATH)
    if not path.exists():
        raise ModelMissingError(f"keyword model {path} is missing; rebuild it with `unotable train-speech`")
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    try:
        return ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])
    except Exception as exc:
        raise ModelMissingError(f"keyword model {path} could not be loaded: {exc}") from None


DEFAULT_THRESHOLD = 0.7


def _model_meta(path: Path | None) -> dict[str, Any]:
    meta = Path(path or MODEL_PATH).with_suffix(".json")
    try:
        value = json.loads(meta.read_text())
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def model_threshold(path: Path | None = None) -> float:
    """The firing threshold the model's card chose (`threshold` in the JSON beside it), else `DEFAULT_THRESHOLD`:
    each trained model has its own trade-off between recall and false alarms (see its DET curve)."""
    value = _model_meta(path).get("threshold", DEFAULT_THRESHOLD)
    return float(value) if isinstance(value, (int, float)) and 0.0 < value < 1.0 else DEFAULT_THRESHOLD


def model_rule(path: Path | None = None) -> dict[str, Any]:
    """The firing rule stored beside the model (chosen on training-voice validation streams, see the card):
    `threshold`, per-class `class_thresholds` (overrides of the threshold), `smooth` (hops averaged) and `persist`
    (hops in a row at or above the threshold before a keyword fires). Missing or bad values take the defaults
    (the model's threshold, no overrides, 3, 1)."""
    meta = _model_meta(path)
    rule: dict[str, Any] = {"threshold": model_threshold(path), "class_thresholds": {}, "smooth": 3, "persist": 1}
    ct = meta.get("class_thresholds")
    if isinstance(ct, dict):
        rule["class_thresholds"] = {k: float(v) for k, v in ct.items()
                                    if k in CLASSES[1:] and isinstance(v, (int, float)) and 0.0 < v < 1.0}
    for key, hi in (("smooth", 10), ("persist", 10)):
        v = meta.get(key)
        if isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= hi:
            rule[key] = v
    return rule


def event_for(cls: str, t: float, confidence: float, seat: int | None) -> dict[str, Any]:
    """An EVENTS.md event dict for a detected keyword class."""
    ev: dict[str, Any] = {"t": round(t, 3), "type": "uno", "seat": seat, "source": "speech",
                          "confidence": round(float(confidence), 3)}
    if cls in COLORS:
        ev["type"] = "color"
        ev["color"] = cls
    elif cls == "pass":
        ev["type"] = "pass"
    return ev


def decide_step(sm: np.ndarray, latched: np.ndarray, threshold: float | np.ndarray, release: float,
                run: np.ndarray | None = None, persist: int = 1) -> tuple[int, float] | None:
    """One hop of the firing rule, updating `latched` (and `run`) in place; returns (class index, confidence) or None.

    A keyword fires when its smoothed posterior has reached `threshold` (one value, or one per class) for `persist`
    hops in a row (counted in `run`, which the caller keeps between hops; without it, one hop is enough) and it is
    not latched; it (and any keyword then above `release`, the same utterance) stays latched until its posterior
    falls below `release`.
    """
    thr = np.broadcast_to(np.asarray(threshold, dtype=float), sm.shape)
    latched &= sm >= release
    above = sm >= thr
    if run is not None:
        run[:] = np.where(above, run + 1, 0)
        ready = run >= persist
    else:
        ready = above
    best, conf = 0, 0.0
    for c in range(1, len(sm)):
        if ready[c] and not latched[c] and sm[c] > conf:
            best, conf = c, float(sm[c])
    if best == 0:
        return None
    latched[1:] |= sm[1:] >= release
    latched[best] = True
    return best, conf


def replay_posteriors(times: np.ndarray, posts: np.ndarray, threshold: float | np.ndarray, release: float = 0.3,
                      smooth: int = 3, persist: int = 1) -> list[tuple[float, int, float]]:
    """The firing rule over recorded raw posteriors: (time, class index, confidence) per event.

    Lets the evaluation sweep thresholds (the DET curve) without running the network again. A recording shorter
    than one window has no posteriors, and so no events.
    """
    if len(posts) == 0:
        return []
    latched = np.zeros(posts.shape[1], bool)
    run = np.zeros(posts.shape[1], np.int64)
    kernel = np.ones(smooth) / smooth
    sm = np.stack([np.convolve(posts[:, c], kernel)[: len(posts)] for c in range(posts.shape[1])], axis=1)
    for i in range(min(smooth - 1, len(sm))):  # the first hops average over fewer posteriors, as live
        sm[i] = posts[: i + 1].mean(axis=0)
    out = []
    for i in range(len(sm)):
        fired = decide_step(sm[i], latched, threshold, release, run, persist)
        if fired:
            out.append((float(times[i]), fired[0], fired[1]))
    return out


class LogMelFront:
    """The DS-CNN's input: 40-bin log-mel frames every 10 ms, a 1.2 s window every `hop_frames` frames."""

    input_name = "logmel"

    def __init__(self, hop_frames: int) -> None:
        self.hop_frames = hop_frames
        self.reset()

    def reset(self) -> None:
        self._pending = np.zeros(0, np.float32)  # samples not yet in a whole frame
        self._frames: deque[np.ndarray] = deque(maxlen=WINDOW_FRAMES)
        self._n_frames = 0  # frames computed since the start
        self._since_hop = 0

    def push(self, mono: np.ndarray) -> list[tuple[int, np.ndarray]]:
        """(the sample at which the window ends, the model's input) for every window that became whole."""
        buf = np.concatenate([self._pending, mono])
        n = 0 if len(buf) < WIN else 1 + (len(buf) - WIN) // HOP
        out: list[tuple[int, np.ndarray]] = []
        if n == 0:
            self._pending = buf
            return out
        feats = logmel(buf[: (n - 1) * HOP + WIN])
        for i in range(n):
            self._frames.append(feats[i])
            self._n_frames += 1
            self._since_hop += 1
            if len(self._frames) == WINDOW_FRAMES and self._since_hop >= self.hop_frames:
                self._since_hop = 0
                out.append(((self._n_frames - 1) * HOP + WIN, np.stack(self._frames)[None].astype(np.float32)))
        self._pending = buf[n * HOP:]
        return out


class EmbeddingFront:
    """The embedding head's input: the last `context` speech embeddings (`speech.embedding`), one every 80 ms."""

    input_name = "emb"

    def __init__(self, context: int) -> None:
        from speech.embedding import EmbeddingStream, SpeechEmbedder

        self.context = context
        self.stream = EmbeddingStream(SpeechEmbedder(threads=1))
        self.reset()

    def reset(self) -> None:
        self.stream.reset()
        self._embs: deque[np.ndarray] = deque(maxlen=self.context)

    def push(self, mono: np.ndarray) -> list[tuple[int, np.ndarray]]:
        out: list[tuple[int, np.ndarray]] = []
        embs, ends = self.stream.push(mono)
        for e, end in zip(embs, ends, strict=True):
            if not self._embs:  # the first 1.2 s of a source: its first embedding stands for what came before
                self._embs.extend([e] * (self.context - 1))
            self._embs.append(e)
            out.append((int(end), np.stack(self._embs)[None].astype(np.float32)))
        return out


def _front_key(card: dict[str, Any], hop_frames: int) -> tuple[str, int]:
    """What makes two parts' inputs the same: the front end's kind and its window (context or hop)."""
    if card.get("front_end") == "speech_embedding":
        return ("speech_embedding", int(card.get("context", 16)))
    return ("logmel", hop_frames)


def _front(key: tuple[str, int]) -> LogMelFront | EmbeddingFront:
    """The front end `_front_key` describes."""
    kind, size = key
    return EmbeddingFront(size) if kind == "speech_embedding" else LogMelFront(size)


class KeywordDetector:
    """Feed `AudioChunk`s to `process`; it returns the events that became certain in them.

    The model's card (`kws.json`) names its front end: `speech_embedding` (a head over frozen speech embeddings,
    `speech.head`) or log-mel frames (the DS-CNN, the default). threshold: smoothed posterior needed to fire, for
    every class (default: the model's own rule, `model_rule`, with its per-class overrides); release: a latched
    keyword re-arms below this; hop_s: model stride (log-mel models; embeddings come every 80 ms); smooth: number of
    hops averaged; persist: hops in a row at or above the threshold before a keyword fires (default: the model's);
    end_offset_s: how far before the firing moment the word is taken to have ended (the event's `t`), measured on
    training voices.
    """

    def __init__(self, model_path: Path | None = None, threshold: float | None = None, release: float = 0.3,
                 hop_s: float = 0.08, smooth: int | None = None, end_offset_s: float = 0.1,
                 session: Any = None, persist: int | None = None) -> None:
        self.session = session or load_session(model_path)
        meta = _model_meta(model_path) if session is None else {}
        rule = model_rule(model_path) if session is None else {"threshold": DEFAULT_THRESHOLD,
                                                                "class_thresholds": {}, "smooth": 3, "persist": 1}
        # an explicit threshold applies to every class; otherwise the model's, with its per-class overrides
        self.threshold = float(rule["threshold"] if threshold is None else threshold)
        self.thresholds = np.full(len(CLASSES), self.threshold)
        if threshold is None:
            for cls, v in rule["class_thresholds"].items():
                self.thresholds[CLASSES.index(cls)] = v
        self.release = release
        self.smooth = int(rule["smooth"] if smooth is None else smooth)
        self.persist = int(rule["persist"] if persist is None else persist)
        # the parts whose posteriors are averaged: one unless the card lists `parts`
        main = Path(model_path or MODEL_PATH)
        parts = meta.get("parts")
        cards = [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) and parts else [dict(meta)]
        if any(c.get("front_end") == "speech_embedding" for c in cards):
            hop_s = 0.08  # embeddings come every 80 ms; the other parts tick with them
        hop_frames = max(1, int(round(hop_s * RATE / HOP)))
        self.hop_s = hop_frames * HOP / RATE
        self.members: list[tuple[LogMelFront | EmbeddingFront, Any, float]] = []  # (front end, session, weight)
        self._delays: list[int] = []  # ticks each part's posterior waits before it is averaged
        # parts that read the same input share one front end: each log-mel frame (or embedding) is computed once
        # however many parts read it (the two DS-CNN parts of the shipped card: 0.2% of a core saved)
        self._fronts: dict[tuple[str, int], LogMelFront | EmbeddingFront] = {}
        self._member_keys: list[tuple[str, int]] = []
        for card in cards:
            path = main.parent / str(card["model"]) if "model" in card else main
            sess = self.session if path.resolve() == main.resolve() else load_session(path)
            key = _front_key(card, hop_frames)
            if key not in self._fronts:
                self._fronts[key] = _front(key)
            self._member_keys.append(key)
            self.members.append((self._fronts[key], sess, float(card.get("weight", 1.0))))
            delay = card.get("delay", 0)
            if not isinstance(delay, int) or isinstance(delay, bool) or delay < 0:
                raise ModelMissingError(f"keyword model card: part {card.get('model', path.name)!r} has delay "
                                        f"{delay!r}; a delay is a whole number of ticks, 0 or more")
            self._delays.append(delay)
        total = sum(w for _, _, w in self.members)
        self._weights = np.array([w / total for _, _, w in self.members])
        # a keyword that must persist fires (persist - 1) hops after its first crossing
        self.end_offset_s = end_offset_s + (self.persist - 1) * self.hop_s
        self.reset()

    @property
    def hop_frames(self) -> int:
        """The hop in 10 ms frames (kept for reports that print it)."""
        return int(round(self.hop_s * RATE / HOP))

    def reset(self) -> None:
        """Forget all audio (a new source)."""
        for front in self._fronts.values():
            front.reset()
        # each part's last `delay` + 1 posteriors: the oldest is the one averaged, once there are that many
        self._recent: list[deque[np.ndarray]] = [deque(maxlen=d + 1) for d in self._delays]
        self._clock = StreamClock()  # sample offsets -> table time, following the chunks' stamps across stalls
        self._channels = 1  # the last chunk's, for the padding `flush` feeds
        self._last_t = float("-inf")  # the last event's time: EVENTS.md times never decrease
        self._posts: deque[np.ndarray] = deque(maxlen=self.smooth)
        self._latched = np.zeros(len(CLASSES), bool)
        self._run = np.zeros(len(CLASSES), np.int64)
        # per-channel energy (variance: a microphone's DC offset is not sound) of each 10 ms block, for the
        # loudest-channel vote (the last 0.8 s)
        self._channel_energy: deque[tuple[int, np.ndarray]] = deque(maxlen=200)
        self.inferences = 0
        self.record: list[tuple[float, np.ndarray]] | None = None  # (time, raw posterior) when evaluating

    def posteriors(self, x: np.ndarray, member: int = 0) -> np.ndarray:
        """Run one part's model on one input window."""
        front, session, _ = self.members[member]
        self.inferences += 1
        return np.asarray(session.run(None, {front.input_name: x})[0][0])

    def process(self, chunk: AudioChunk) -> list[dict[str, Any]]:
        if chunk.rate != RATE:
            raise SpeechInputError(f"audio at {chunk.rate} Hz; the keyword spotter takes {RATE} Hz")
        samples = chunk.samples if chunk.samples.ndim == 2 else chunk.samples[:, None]
        start = self._clock.samples
        self._clock.feed(chunk.t, len(samples))
        self._channels = samples.shape[1]
        mono = int16_to_float(samples.astype(np.float32).mean(axis=1))
        if samples.shape[1] > 1:
            per_ch = int16_to_float(samples).astype(np.float64)
            for a in range(0, len(per_ch), HOP):
                self._channel_energy.append((start + a, np.var(per_ch[a:a + HOP], axis=0)))
        # every part's new posteriors, in time order; a decision at each of the last part's (the clock), on the
        # weighted mean of every part's latest posterior (parts tick every 80 ms, a few ms apart)
        windows = {key: front.push(mono) for key, front in self._fronts.items()}
        ticks = [(end, m, x) for m, key in enumerate(self._member_keys) for end, x in windows[key]]
        clock = len(self.members) - 1
        events: list[dict[str, Any]] = []
        for end, m, x in sorted(ticks, key=lambda e: (e[0], e[1])):
            self._recent[m].append(self.posteriors(x, m))
            if m != clock or any(len(q) < q.maxlen for q in self._recent):
                continue
            ev = self._decide(self._weights @ np.stack([q[0] for q in self._recent]), end)
            if ev is not None:
                events.append(ev)
        return events

    def _decide(self, post: np.ndarray, end: int) -> dict[str, Any] | None:
        t_end = self._clock.time_at(end)
        self._posts.append(post)
        if self.record is not None:
            self.record.append((t_end, post))
        sm = np.mean(self._posts, axis=0)
        fired = decide_step(sm, self._latched, self.thresholds, self.release, self._run, self.persist)
        if fired is None:
            return None
        c, conf = fired
        t = max(t_end - self.end_offset_s, self._last_t)  # a clock set back at a stall can't reorder events
        self._last_t = t
        return event_for(CLASSES[c], t, conf, self._seat(end))

    def _seat(self, end: int) -> int | None:
        """With several channels: the one loudest over the 0.8 s before `end` (the word just heard)."""
        recent = [e for a, e in self._channel_energy if end - int(0.8 * RATE) <= a < end]
        if not recent or len(recent[-1]) < 2:
            return None
        return int(np.argmax(np.sum(recent, axis=0)))

    def flush(self) -> list[dict[str, Any]]:
        """The events of a word at the very end of a stream, once it has ended.

        The rule decides a hop or more after a word (`smooth` posteriors averaged, `persist` hops above the
        threshold, each part's `delay`), so a recording that stops right after a call would lose it. Silence as long
        as those hops (plus one window hop) is fed after the last chunk, stamped where the stream ended; a word's
        event keeps its time, as if the recording had gone on in silence. Call it once, when the source has ended.
        """
        if self._clock.samples == 0:
            return []
        hops = self.smooth + self.persist + max(self._delays, default=0) + 1
        pad = np.zeros((int(round(hops * self.hop_s * RATE)), self._channels), np.int16)
        return self.process(AudioChunk(self._clock.time_at(self._clock.samples), pad))

    def run(self, chunks: Iterable[AudioChunk], flush: bool = True) -> Iterator[dict[str, Any]]:
        """All events of a stream of chunks, as they become certain, and (`flush`) those the stream's end decides."""
        for c in chunks:
            yield from self.process(c)
        if flush:
            yield from self.flush()


def model_info(path: Path | None = None) -> dict[str, Any]:
    """The metadata written next to the model (classes, window), or {} if absent."""
    meta = Path(path or MODEL_PATH).with_suffix(".json")
    return json.loads(meta.read_text()) if meta.exists() else {}


def _check_one(path: Path, card: dict[str, Any]) -> None:
    s = load_session(path)
    if card.get("front_end") == "speech_embedding":
        from speech.embedding import SpeechEmbedder

        emb = SpeechEmbedder().embed(np.zeros(3 * RATE, np.float32))  # the front end loads and runs
        ctx = int(card.get("context", 16))
        out = s.run(None, {"emb": np.repeat(emb[:1], ctx, axis=0)[None]})[0]
    else:
        out = s.run(None, {"logmel": np.zeros((1, WINDOW_FRAMES, NMELS), np.float32) - 10})[0]
    if out.shape != (1, len(CLASSES)):
        raise ModelMissingError(f"keyword model {path.name} gives {out.shape[1]} outputs, expected {len(CLASSES)}")


def check_model(path: Path | None = None) -> str:
    """Load the model (every part the card lists) and run each once; returns a one-line description, raises
    ModelMissingError (or FrontEndMissingError) if unusable."""
    path = Path(path or MODEL_PATH)
    meta = _model_meta(path)
    parts = meta.get("parts") if isinstance(meta.get("parts"), list) else None
    files = [(path.parent / str(p.get("model", "")), p) for p in parts] if parts else [(path, meta)]
    for f, card in files:
        _check_one(f, card)
    size = sum(f.stat().st_size for f, _ in files)
    desc = " + ".join(f"{f.name} ({c.get('front_end', 'logmel')})" for f, c in files)
    return f"{desc}: {size / 1024:.0f} KiB, classes {', '.join(CLASSES)}"
