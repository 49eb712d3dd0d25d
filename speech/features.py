"""Log-mel features shared by training and the runtime, in plain numpy.

Why numpy and not torchaudio: the runtime must not need torch, and the exact same code must produce the training
features and the streaming features, or the model sees a shifted input. Frames sit on a fixed grid (no centre
padding), so the streaming detector can compute each 10 ms frame once and slide a window over them.
"""

from __future__ import annotations

import functools

import numpy as np

RATE = 16000
WIN = 400  # 25 ms
HOP = 160  # 10 ms
NFFT = 512
NMELS = 40
FMIN, FMAX = 40.0, 7600.0
WINDOW_S = 1.2  # model input: 1.2 s, long enough for a slow "зелёный"
WINDOW_FRAMES = 1 + (int(WINDOW_S * RATE) - WIN) // HOP  # 118
LOG_FLOOR = 1e-6


def _hz_to_mel(f: np.ndarray | float) -> np.ndarray:
    return 2595.0 * np.log10(1.0 + np.asarray(f) / 700.0)


def _mel_to_hz(m: np.ndarray) -> np.ndarray:
    return 700.0 * (10 ** (m / 2595.0) - 1.0)


@functools.cache
def mel_matrix() -> np.ndarray:
    """(NFFT/2+1, NMELS) triangular HTK-style mel filterbank."""
    mels = np.linspace(_hz_to_mel(FMIN), _hz_to_mel(FMAX), NMELS + 2)
    hz = _mel_to_hz(mels)
    bins = np.fft.rfftfreq(NFFT, 1.0 / RATE)
    fb = np.zeros((len(bins), NMELS), np.float32)
    for i in range(NMELS):
        lo, c, hi = hz[i], hz[i + 1], hz[i + 2]
        up = (bins - lo) / (c - lo)
        down = (hi - bins) / (hi - c)
        fb[:, i] = np.maximum(0.0, np.minimum(up, down))
    return fb


@functools.cache
def _window() -> np.ndarray:
    return np.hanning(WIN).astype(np.float32)


def n_frames(n_samples: int) -> int:
    """How many whole frames `n_samples` samples hold."""
    return 0 if n_samples < WIN else 1 + (n_samples - WIN) // HOP


def logmel(x: np.ndarray) -> np.ndarray:
    """Log-mel frames of a float signal at 16 kHz (scale: int16 / 32768): shape (frames, NMELS), float32."""
    x = np.asarray(x, np.float32)
    n = n_frames(len(x))
    if n == 0:
        return np.zeros((0, NMELS), np.float32)
    idx = np.arange(WIN)[None, :] + HOP * np.arange(n)[:, None]
    frames = x[idx] * _window()
    spec = np.abs(np.fft.rfft(frames, NFFT, axis=1)) ** 2
    mel = spec.astype(np.float32) @ mel_matrix()
    return np.log(mel + LOG_FLOOR).astype(np.float32)


def int16_to_float(x: np.ndarray) -> np.ndarray:
    """int16 samples -> float32 in [-1, 1)."""
    return np.asarray(x, np.float32) / 32768.0
