"""A frozen speech-embedding front end: Google's `speech_embedding` network, as shipped in ONNX by openWakeWord.

Why a pretrained front end: the project's own DS-CNN learnt log-mel patterns from a few dozen synthetic voices and
heard new speakers badly (an unheard Italian speaker: 10% of her keywords; English "uno" at 10 dB babble: 50%).
`speech_embedding` (Lin et al. 2020, "Training Keyword Spotters with Limited and Synthesized Speech Data") was
trained by Google on a large corpus of real speech and turns 0.775 s of audio into a 96-number vector every 80 ms
that says which sounds were spoken, not who spoke them; a small classifier on top of those vectors can then be
trained on synthetic speech alone. The two ONNX files (log-mel front end and embedding network, Apache-2.0, by
Google, re-implemented by openWakeWord) come from the pinned PyPI package `openwakeword==0.4.0`, the last release
that ships them inside the wheel; the project installs it with `pip` like any dependency and downloads nothing at
run time. Only these two files are used; openWakeWord's own wake-word models (CC BY-NC-SA) are not.

Framing (measured on the ONNX graphs): log-mel frames of 512 samples every 160 samples (32 bins, no padding), so
frame j covers samples [160 j, 160 j + 512); an embedding reads 76 frames and one is made every 8 frames (80 ms).
Embedding i therefore ends at sample 1280 i + 12512. Batch (`embed`) and streaming (`EmbeddingStream`) give the same
numbers: every frame and every embedding depends only on its own samples.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import numpy as np

from speech.audio import RATE, SpeechInputError

MEL_WIN, MEL_HOP, N_BINS = 512, 160, 32
EMB_FRAMES, EMB_STEP, EMB_DIM = 76, 8, 96
HOP_SAMPLES = EMB_STEP * MEL_HOP  # 1280 samples = 80 ms between embeddings
FIRST_END = (EMB_FRAMES - 1) * MEL_HOP + MEL_WIN  # embedding 0 ends at sample 12512
PACKAGE = "openwakeword==0.4.0"


class FrontEndMissingError(SpeechInputError):
    """The speech-embedding ONNX files (package openwakeword 0.4.0) are not installed or cannot be loaded."""


def model_dir() -> Path:
    """Where the pinned package keeps the two ONNX files (found without importing the package's own code)."""
    spec = importlib.util.find_spec("openwakeword")
    if spec is None or not spec.submodule_search_locations:
        raise FrontEndMissingError(f"the speech-embedding front end needs the package {PACKAGE} "
                                   f"(pip install '{PACKAGE}'; `make` installs it)")
    d = Path(list(spec.submodule_search_locations)[0]) / "resources" / "models"
    for name in ("melspectrogram.onnx", "embedding_model.onnx"):
        if not (d / name).is_file():
            raise FrontEndMissingError(f"{d / name} is missing: the speech-embedding front end needs {PACKAGE} "
                                       "exactly (later releases no longer ship the ONNX files)")
    return d


def _session(path: Path, threads: int) -> Any:
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    try:
        return ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])
    except Exception as exc:  # a corrupt or truncated file
        raise FrontEndMissingError(f"{path} could not be loaded: {exc}") from None


def end_sample(i: np.ndarray | int) -> np.ndarray | int:
    """The sample (from the start of the audio) at which embedding `i` ends."""
    return i * HOP_SAMPLES + FIRST_END


def warp_bins(mel: np.ndarray, factor: float) -> np.ndarray:
    """Scale the frequency axis of log-mel frames by `factor` (vocal tract length perturbation): bin b takes the
    value found at b / factor, interpolated; beyond the top bin the top bin's value is repeated.

    Why: it turns one speaker into a shorter or longer vocal tract (a man, a woman, a child) for training only."""
    src = np.arange(mel.shape[-1], dtype=np.float32) / factor
    lo = np.clip(np.floor(src).astype(int), 0, mel.shape[-1] - 1)
    hi = np.clip(lo + 1, 0, mel.shape[-1] - 1)
    w = np.clip(src - lo, 0.0, 1.0).astype(np.float32)
    return (mel[..., lo] * (1 - w) + mel[..., hi] * w).astype(np.float32)


class SpeechEmbedder:
    """The two frozen networks: audio (float, -1..1, 16 kHz) to log-mel frames to 96-number embeddings."""

    def __init__(self, threads: int = 1) -> None:
        d = model_dir()
        self.threads = threads
        self.mel_session = _session(d / "melspectrogram.onnx", threads)
        self._emb_path = d / "embedding_model.onnx"
        self._emb_session: Any = None
        self._batch_stream: Any = None

    @property
    def emb_session(self) -> Any:
        """The network as shipped, one 76-frame window an input (loaded when first asked for)."""
        if self._emb_session is None:
            self._emb_session = _session(self._emb_path, self.threads)
        return self._emb_session

    def streaming(self) -> Any:
        """A new `speech.embedding_stream.StreamingEmbedder` of this network: the same embeddings for a fraction of
        the work (each frame through each layer once)."""
        from speech.embedding_stream import StreamingEmbedder

        try:
            return StreamingEmbedder(self._emb_path, self.threads)
        except Exception as exc:  # a corrupt file, or a graph of another shape than this code knows
            raise FrontEndMissingError(f"{self._emb_path} could not be run as a stream: {exc}") from None

    def mel(self, audio: np.ndarray) -> np.ndarray:
        """Log-mel frames (n, 32) of float audio, scaled as openWakeWord feeds them to the embedding network."""
        if len(audio) < MEL_WIN:
            return np.zeros((0, N_BINS), np.float32)
        x = (np.asarray(audio, np.float32) * 32767.0)[None]
        spec = self.mel_session.run(None, {"input": x})[0]
        return (np.squeeze(spec, axis=(1,)).reshape(-1, N_BINS) / 10.0 + 2.0).astype(np.float32)

    def embed_windows(self, windows: np.ndarray, batch: int = 64) -> np.ndarray:
        """Embeddings (B, 96) of log-mel windows (B, 76, 32)."""
        out = [self.emb_session.run(None, {"input_1": windows[i:i + batch, :, :, None].astype(np.float32)})[0]
               for i in range(0, len(windows), batch)]
        return np.concatenate(out).reshape(-1, EMB_DIM) if out else np.zeros((0, EMB_DIM), np.float32)

    def embed_mel(self, mel: np.ndarray, block: int = 4000) -> np.ndarray:
        """Every embedding of a run of log-mel frames: one per 8 frames once 76 are there (the network streamed
        over them, `block` frames a call so that memory stays small; the same numbers as window by window)."""
        if self._batch_stream is None:
            self._batch_stream = self.streaming()
        stream = self._batch_stream
        stream.reset()
        out = [stream.push(mel[a:a + block]) for a in range(0, len(mel), block)]
        stream.reset()
        return np.concatenate(out) if out else np.zeros((0, EMB_DIM), np.float32)

    def embed(self, audio: np.ndarray, warp: float | None = None, block_s: float = 60.0) -> np.ndarray:
        """All embeddings of an audio array (n, 96); `warp` scales the mel axis first (training only).

        Long audio is cut into overlapping blocks so that memory stays small; the result is the same as one pass.
        """
        mel_parts = []
        step = int(block_s * RATE) // MEL_HOP * MEL_HOP
        for a in range(0, max(1, len(audio)), step):
            seg = audio[a:a + step + MEL_WIN - MEL_HOP]
            m = self.mel(seg)
            mel_parts.append(m[: step // MEL_HOP] if a + step < len(audio) else m)
        mel = np.concatenate(mel_parts) if mel_parts else np.zeros((0, N_BINS), np.float32)
        if warp is not None and warp != 1.0:
            mel = warp_bins(mel, warp)
        return self.embed_mel(mel)


class EmbeddingStream:
    """Streaming embeddings: feed float audio in any chunk sizes; `push` returns the new embeddings and the sample
    (from the stream's start) at which each ends. Keeps only what the next frames need."""

    def __init__(self, embedder: SpeechEmbedder) -> None:
        self.embedder = embedder
        self._frames = embedder.streaming()  # the network streamed: keeps what its layers need of past frames
        self.reset()

    def reset(self) -> None:
        self._pending = np.zeros(0, np.float32)  # samples from the start of the next frame
        self._frames.reset()
        self._n_emb = 0

    def push(self, audio: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        buf = np.concatenate([self._pending, np.asarray(audio, np.float32)])
        n = 0 if len(buf) < MEL_WIN else 1 + (len(buf) - MEL_WIN) // MEL_HOP
        mel = np.zeros((0, N_BINS), np.float32)
        # frames are made only when they complete an embedding (a call costs more than a frame does): every
        # frame depends only on its own samples, so when it is made changes nothing
        if n and n >= self._frames.needed():
            mel = self.embedder.mel(buf[: (n - 1) * MEL_HOP + MEL_WIN])[:n]
            buf = buf[n * MEL_HOP:]
        self._pending = buf
        embs = self._frames.push(mel)
        ends = np.asarray(end_sample(self._n_emb + np.arange(len(embs))), np.int64)
        self._n_emb += len(embs)
        return embs.astype(np.float32), ends
