"""One tiny epoch of real training from a model YAML, offline, then ONNX export and the runtime detector on it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from datasets.export import CLASS_NAMES, build_dataset

pytestmark = [pytest.mark.slow, pytest.mark.smoke]  # one tiny epoch: CI keeps it


@pytest.mark.skipif(importlib.util.find_spec("ultralytics") is None, reason="needs the train extra (ultralytics)")
def test_one_tiny_epoch_then_onnx(tmp_path: Path) -> None:
    from models.train import export_onnx, train
    from vision.detector import OnnxDetector

    data = build_dataset(tmp_path / "data", 12, seed=3, val_fraction=0.25, workers=1)
    best = train(data, tmp_path / "runs", "smoke", imgsz=128, epochs=1, batch=4, threads=1, workers=0)
    assert best.exists()
    onnx = export_onnx(best, tmp_path / "smoke.onnx", 128)
    det = OnnxDetector(onnx, conf=0.0)
    assert det.names == CLASS_NAMES and det.imgsz == 128
    dets = det.detect(np.zeros((120, 160, 3), np.uint8))
    assert (dets.xyxy[:, 2] <= 160).all() and (dets.xyxy[:, 3] <= 120).all()
