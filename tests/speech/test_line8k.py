"""The 8 kHz line on log-mel frames (speech.train.line8k) against the same line in the audio
(speech.realvoices.telephone: a resample to 8 kHz and back)."""

from __future__ import annotations

import numpy as np
import pytest

from speech.features import WINDOW_FRAMES, logmel


def _speechlike(seed: int) -> np.ndarray:
    """1.2 s of noise shaped like speech (falling 6 dB an octave), broken into syllables: energy in every band."""
    rng = np.random.default_rng(seed)
    n = int(1.2 * 16000)
    spec = np.fft.rfft(rng.normal(size=n))
    f = np.fft.rfftfreq(n, 1 / 16000)
    x = np.fft.irfft(spec / np.maximum(f, 100.0) ** 0.5, n)
    env = (np.sin(2 * np.pi * 4 * np.arange(n) / 16000) > 0).astype(float)
    x = x * (0.2 + env)
    return (0.3 * x / np.abs(x).max()).astype(np.float32)


def _centres() -> np.ndarray:
    from speech.train import _mel_centres

    return _mel_centres()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_line_on_frames_is_close_to_the_line_on_audio(seed: int) -> None:
    torch = pytest.importorskip("torch")
    from speech.realvoices import telephone
    from speech.train import line8k

    x = _speechlike(seed)
    clean = logmel(x)[:WINDOW_FRAMES]
    real_line = logmel(telephone(x))[:WINDOW_FRAMES]
    ours = line8k(torch.from_numpy(clean.copy())[None], np.random.default_rng(seed), share=1.0)[0].numpy()
    high = _centres() > 3000
    # the top of the spectrum falls as the real line's does; left alone it would be several nats off
    untouched = float(np.abs(clean - real_line)[:, high].mean())
    assert untouched > 2.0
    assert float(np.abs(ours - real_line)[:, high].mean()) < 0.5 * untouched
    # the bins well under the cut-off are left as they were
    low = _centres() < 2500
    assert np.abs(ours - clean)[:, low].max() < 1e-3
    # above the line nothing is left but the floor's neighbourhood
    assert (ours[:, _centres() > 5000] < clean[:, _centres() > 5000] - 3.0).all()


def test_share_picks_that_part_of_the_batch() -> None:
    torch = pytest.importorskip("torch")
    from speech.train import line8k

    x = torch.from_numpy(np.stack([logmel(_speechlike(s))[:WINDOW_FRAMES] for s in range(40)]))
    assert torch.equal(line8k(x.clone(), np.random.default_rng(0), share=0.0), x)
    out = line8k(x.clone(), np.random.default_rng(0), share=0.5)
    changed = int((out != x).flatten(1).any(1).sum())
    assert 10 <= changed <= 30
