"""Rebuilding the shipped keyword model's torch members from its ONNX file (speech.onnx_members)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]


def test_rebuilt_members_give_the_shipped_posteriors(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    import onnxruntime as ort

    from speech.onnx_members import members_from_onnx, save_members
    from speech.train import build_model

    rng = np.random.default_rng(0)
    calib = rng.normal(-6, 4, (32, 118, 40)).astype(np.float32)
    members = members_from_onnx(REPO / "models" / "kws.onnx", calib)
    card = json.loads((REPO / "models" / "kws.json").read_text())
    assert len(members) == len(card["members"])
    x = rng.normal(-6, 4, (6, 118, 40)).astype(np.float32)
    want = ort.InferenceSession(str(REPO / "models" / "kws.onnx")).run(None, {"logmel": x})[0]
    with torch.no_grad():
        got = torch.stack([torch.softmax(m(torch.from_numpy(x)), -1) for m in members]).mean(0).numpy()
    np.testing.assert_allclose(got, want, atol=1e-5)
    # in train mode BatchNorm uses the batch's statistics: on the calibration windows that is still the same net
    m0 = members[0].train()
    m0.drop.p = 0.0
    with torch.no_grad():
        train_mode = torch.softmax(m0(torch.from_numpy(calib)), -1).numpy()
        m0.eval()
        eval_mode = torch.softmax(m0(torch.from_numpy(calib)), -1).numpy()
    np.testing.assert_allclose(train_mode, eval_mode, atol=1e-3)
    # saved as checkpoints the trainer warm-starts from
    paths = save_members(members, tmp_path, {"width": 64, "blocks": 5})
    fresh = build_model(width=64, blocks=5)
    fresh.load_state_dict(torch.load(paths[1], weights_only=False)["model"])


def test_a_wrong_architecture_is_named(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from speech.onnx_members import members_from_onnx

    with pytest.raises(ValueError, match="blocks"):
        members_from_onnx(REPO / "models" / "kws.onnx", np.zeros((2, 118, 40), np.float32), width=48, blocks=4)
