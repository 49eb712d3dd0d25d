"""The evaluation's streams of words said one at a time (`speech.evaluate.isolated_words`, the real digits' layout)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import soundfile as sf

from speech.evaluate import digits_clips, digits_stream, isolated_words
from speech.features import RATE


def test_isolated_words_lays_each_clip_at_half_peak_with_a_pause_and_says_where_it_starts() -> None:
    clips = [np.full(800, 0.2, np.float32), np.full(1600, -0.9, np.float32), np.full(400, 0.05, np.float32)]
    y, starts = isolated_words(clips, gap_s=0.1)
    gap = int(0.1 * RATE)
    assert starts.tolist() == [0.0, (800 + gap) / RATE, (800 + 1600 + 2 * gap) / RATE]
    assert len(y) == 800 + 1600 + 400 + 3 * gap and y.dtype == np.float32
    assert abs(float(np.max(np.abs(y))) - 0.7) < 1e-6  # the whole stream at peak 0.7
    for s, c in zip(starts, clips, strict=True):  # each clip at the same level (0.5 before the stream's scaling)
        i = int(round(s * RATE))
        assert np.allclose(np.abs(y[i:i + len(c)]), 0.7)
        assert not np.any(y[i + len(c):i + len(c) + gap])  # then silence


def test_digits_stream_is_the_sorted_files_laid_as_isolated_words(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    for name, n in (("1_a_0.wav", 4000), ("0_b_1.wav", 2400)):
        sf.write(str(tmp_path / name), (0.3 * rng.standard_normal(n)).astype(np.float32), 8000)
    clips, names = digits_clips(tmp_path)
    assert names == ["0_b_1.wav", "1_a_0.wav"] and [len(c) for c in clips] == [4800, 8000]  # 8 kHz -> 16 kHz
    y, got = digits_stream(tmp_path)
    assert got == names and np.array_equal(y, isolated_words(clips)[0])
