"""Acoustic conditions of a card table, made from nothing: rooms, table noise, music, babble, cheap microphones.

Why synthetic: no noise or room-impulse data set may be downloaded, and what a keyword spotter must survive at a
table is well described by a few generators: a room's reverberation (exponentially decaying noise), card slaps
and shuffles (short filtered bursts), background music (tones with harmonics and beats), other people talking
(babble: several overlapping streams of non-keyword speech) and band-limited microphones.
"""

from __future__ import annotations

import numpy as np
from scipy.signal import butter, fftconvolve, lfilter, sosfilt

RATE = 16000


def rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(x, dtype=np.float64)) + 1e-12))


def room_ir(rng: np.random.Generator, rt60: float | None = None) -> np.ndarray:
    """A synthetic room impulse response: a direct path plus exponentially decaying noise with RT60 `rt60` s."""
    rt60 = float(rng.uniform(0.15, 0.8)) if rt60 is None else rt60
    n = int(rt60 * RATE)
    t = np.arange(n) / RATE
    tail = rng.standard_normal(n) * np.exp(-6.9 * t / rt60)
    # rooms absorb highs faster: low-pass the tail a little
    b, a = butter(1, rng.uniform(2500, 7000) / (RATE / 2))
    tail = lfilter(b, a, tail)
    pre = int(rng.uniform(0.002, 0.02) * RATE)
    ir = np.zeros(n + pre)
    ir[0] = 1.0
    ir[pre:] += tail * rng.uniform(0.05, 0.4)
    return (ir / np.sqrt(np.sum(ir ** 2))).astype(np.float32)


def reverberate(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Convolve with a random room, keeping the length and the level."""
    y = fftconvolve(x, room_ir(rng))[: len(x)]
    return (y * (rms(x) / max(rms(y), 1e-9))).astype(np.float32)


def coloured_noise(n: int, rng: np.random.Generator, exponent: float | None = None) -> np.ndarray:
    """1/f^exponent noise (0 white, 1 pink, 2 brown): room tone, fans, traffic."""
    exponent = float(rng.uniform(0.0, 2.0)) if exponent is None else exponent
    spec = np.fft.rfft(rng.standard_normal(n))
    f = np.fft.rfftfreq(n, 1.0 / RATE)
    f[0] = f[1] if n > 1 else 1.0
    y = np.fft.irfft(spec / f ** (exponent / 2), n)
    return (y / max(rms(y), 1e-9)).astype(np.float32)


def table_noise(n: int, rng: np.random.Generator) -> np.ndarray:
    """Card slaps, shuffles and knocks on a table over a low room tone."""
    y = 0.05 * coloured_noise(n, rng)
    for _ in range(rng.poisson(max(1, n / RATE * 3))):
        length = int(rng.uniform(0.01, 0.25) * RATE)
        start = int(rng.integers(0, max(1, n - 1)))
        burst = rng.standard_normal(length) * np.exp(-np.arange(length) / (rng.uniform(0.003, 0.06) * RATE))
        lo = rng.uniform(100, 2000)
        hi = min(7900.0, lo * rng.uniform(1.5, 6))
        sos = butter(2, [lo / (RATE / 2), hi / (RATE / 2)], btype="band", output="sos")
        burst = sosfilt(sos, burst) * rng.uniform(0.2, 1.5)
        end = min(n, start + length)
        y[start:end] += burst[: end - start]
    return (y / max(rms(y), 1e-9)).astype(np.float32)


def music(n: int, rng: np.random.Generator) -> np.ndarray:
    """Background music: notes of harmonic tones on a beat, with some drum-like noise hits."""
    y = np.zeros(n, np.float32)
    bpm = rng.uniform(70, 150)
    beat = int(60.0 / bpm * RATE)
    pos = 0
    while pos < n:
        length = beat * int(rng.integers(1, 3))
        f0 = 110.0 * 2 ** (int(rng.integers(0, 36)) / 12)
        t = np.arange(length) / RATE
        note = sum((0.6 ** k) * np.sin(2 * np.pi * f0 * (k + 1) * t + rng.uniform(0, 6.28)) for k in range(5))
        note = note * np.exp(-t * rng.uniform(1, 6))
        end = min(n, pos + length)
        y[pos:end] += note[: end - pos]
        if rng.random() < 0.5:
            hit = rng.standard_normal(min(2000, n - pos)) * np.exp(-np.arange(min(2000, n - pos)) / 300)
            y[pos:pos + len(hit)] += 0.7 * hit
        pos += beat
    return (y / max(rms(y), 1e-9)).astype(np.float32)


def band_limit(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A cheaper microphone or an 8 kHz recording: random low-pass (and sometimes high-pass) filtering."""
    hi = rng.uniform(3400, 7600)
    sos = butter(4, hi / (RATE / 2), output="sos")
    y = sosfilt(sos, x)
    if rng.random() < 0.5:
        sos = butter(2, rng.uniform(80, 300) / (RATE / 2), btype="high", output="sos")
        y = sosfilt(sos, y)
    return y.astype(np.float32)


def mix_snr(speech: np.ndarray, noise: np.ndarray, snr_db: float, ref_rms: float | None = None) -> np.ndarray:
    """speech + noise scaled so that (reference speech level) / noise is `snr_db`.

    `ref_rms` is the level of the speech itself (measured on the word, not on the silence around it); if absent,
    the rms of the non-silent part of `speech` is used.
    """
    if ref_rms is None:
        active = speech[np.abs(speech) > 0.02 * max(1e-9, float(np.max(np.abs(speech))))]
        ref_rms = rms(active) if active.size else rms(speech)
    g = ref_rms / (10 ** (snr_db / 20)) / max(rms(noise), 1e-9)
    return (speech + g * noise[: len(speech)]).astype(np.float32)
