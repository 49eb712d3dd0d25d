"""Shared fixtures for the speech tests: synthesised audio files, never a microphone."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
MODEL = REPO / "models" / "kws.onnx"


def needs_model() -> pytest.MarkDecorator:
    return pytest.mark.skipif(not MODEL.exists(), reason=f"{MODEL} not built (unotable train-speech)")


def needs_espeak() -> pytest.MarkDecorator:
    import shutil

    return pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng (Debian package) not installed")


@pytest.fixture
def tone() -> np.ndarray:
    t = np.arange(16000) / 16000
    return (np.sin(2 * np.pi * 440 * t) * 8000).astype(np.int16)
