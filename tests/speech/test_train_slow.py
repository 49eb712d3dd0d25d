"""A miniature end-to-end `train-speech` (synthesis, windows, training, ONNX export): slow."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from .conftest import needs_espeak


@pytest.mark.slow
@pytest.mark.smoke  # a miniature run: CI keeps it
@needs_espeak()
def test_tiny_training_run_exports_a_working_onnx(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from speech.kws import KeywordDetector, load_session
    from speech.kwsdata import build_banks, build_examples, save_banks
    from speech.train import export, train

    banks = build_banks(False, 4, 1, 6, seed=3, workers=1)
    assert banks.keywords and banks.negatives and banks.sentences
    save_banks(banks, tmp_path / "b.pkl")
    x, y = build_examples(tmp_path / "b.pkl", 600, seed=1, workers=1)
    assert x.shape[1:] == (118, 40) and set(np.unique(y)) >= {0, 1}
    np.savez(tmp_path / "train.npz", x=x, y=y)
    np.savez(tmp_path / "val.npz", x=x[:100], y=y[:100])
    best = train(epochs=2, threads=1, out_dir=tmp_path / "run", data_dir=tmp_path)
    onnx = export(best, tmp_path / "kws.onnx")
    det = KeywordDetector(session=load_session(onnx))
    from speech.audio import ArraySource

    list(det.run(ArraySource(np.zeros(32000, np.int16)).chunks()))
    assert det.inferences > 5
