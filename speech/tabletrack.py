"""Synthesised table audio for demos: players calling "UNO" and colours at given times over table noise.

Why here: the demo maker needs a soundtrack whose calls line up with a scripted game, in English and Russian, made
offline with the same voices the keyword spotter was tested on. Each call can come from a seat's own microphone
(one channel per seat, the others hearing it fainter) so that the per-seat path can be demonstrated too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from speech import augment
from speech.synth import RATE, Voice, list_voices, synthesize_float, to_int16


@dataclass(frozen=True)
class Call:
    """One spoken call: at table time `t` (s), `text` ("UNO", "красный", ...) by `seat`, in `lang`."""

    t: float
    text: str
    seat: int = 0
    lang: str = "en"
    voice: Voice | None = None


def default_voice(seat: int, lang: str) -> Voice:
    """A distinct, stable voice per seat and language (espeak-ng variants, so nothing but espeak-ng is needed)."""
    variants = ("m3", "f2", "m7", "f4", "klatt2", "f5", "m1", "f1")
    base = "en-us" if lang == "en" else "ru"
    return Voice("espeak", base, lang, variants[seat % len(variants)])


def make_track(calls: Sequence[Call], duration: float, seats: int = 0, noise_db: float = -20.0,
               seed: int = 0) -> tuple[np.ndarray, list[dict[str, float | str | int]]]:
    """Mix the calls over table noise; returns int16 audio ((n,) or (n, seats)) and the true call end times.

    noise_db: table noise level relative to the calls, about (-20 = calls some 20 dB above the noise).
    seats > 0 makes one channel per seat: the caller's channel at full level, the others 12 dB down.
    """
    rng = np.random.default_rng(seed)
    n = int(duration * RATE)
    ch = max(1, seats)
    y = np.zeros((n, ch), np.float32)
    truth = []
    for c in calls:
        v = c.voice or default_voice(c.seat, c.lang)
        if v.engine == "espeak" and not list_voices(v.lang):
            raise RuntimeError("espeak-ng is needed to synthesise table audio")
        x = synthesize_float(c.text, v) * 0.5
        a = int(c.t * RATE)
        b = min(n, a + len(x))
        if b <= a:
            continue
        for k in range(ch):
            gain = 1.0 if (seats == 0 or k == c.seat) else 0.25
            y[a:b, k] += x[: b - a] * gain
        truth.append({"t_start": c.t, "t_end": b / RATE, "text": c.text, "seat": c.seat})
    bed = augment.table_noise(n, rng) * 0.08 * 10 ** (noise_db / 20)  # 0.08: rms of a call at this level
    y += bed[:, None]
    out = to_int16(y)
    return (out[:, 0] if seats == 0 else out), truth
