"""Vocal tract length perturbation on log-mel frames (speech.train.vtlp)."""

from __future__ import annotations

import numpy as np
import pytest

from speech.features import WINDOW_FRAMES, logmel


def _tone(hz: float) -> np.ndarray:
    t = np.arange(16000) / 16000
    return (0.3 * np.sin(2 * np.pi * hz * t)).astype(np.float32)


def _peak_hz(frames: np.ndarray) -> float:
    from speech.train import _mel_centres

    return float(_mel_centres()[int(frames.mean(axis=0).argmax())])


@pytest.mark.parametrize("factor", [0.87, 1.15])
def test_a_warped_window_moves_its_formant_by_the_factor(monkeypatch: pytest.MonkeyPatch, factor: float) -> None:
    torch = pytest.importorskip("torch")
    import speech.train as train

    monkeypatch.setattr(train, "VTLP_RANGE", (factor, factor))
    x = torch.from_numpy(logmel(_tone(1500.0))[None, :WINDOW_FRAMES].copy())
    warped = train.vtlp(x.clone(), np.random.default_rng(0), share=1.0)
    # the nearest mel bin to 1500 Hz x factor (bins are ~100-150 Hz apart here)
    assert abs(_peak_hz(warped[0].numpy()) - 1500.0 * factor) < 110.0
    assert abs(_peak_hz(x[0].numpy()) - 1500.0) < 80.0


def test_no_share_leaves_the_windows_alone() -> None:
    torch = pytest.importorskip("torch")
    from speech.train import vtlp

    x = torch.from_numpy(logmel(_tone(800.0))[None, :WINDOW_FRAMES].copy())
    assert torch.equal(vtlp(x.clone(), np.random.default_rng(0), share=0.0), x)
