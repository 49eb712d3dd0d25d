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


def test_more_spec_parses_path_and_copies() -> None:
    from models.train_classifier import parse_more

    assert parse_more("data/close:3") == (Path("data/close"), 3)
    assert parse_more("data/close") == (Path("data/close"), 1)
    assert parse_more("/mnt/a:b/close") == (Path("/mnt/a:b/close"), 1)  # a colon inside the path is no count
    with pytest.raises(ValueError, match="at least 1"):
        parse_more("data/close:0")


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="needs the train extra (torch)")
def test_one_tiny_classifier_epoch_on_mixed_and_closeup_sets(tmp_path: Path) -> None:
    """Crops come from both sets (close-ups weighted by their copies), the export loads in onnxruntime."""
    from models.train_classifier import extract_crops, train_classifier
    from vision.classifier import OnnxClassifier

    build_dataset(tmp_path / "mixed", 6, seed=5, val_fraction=0.34, workers=1)
    build_dataset(tmp_path / "close", 6, seed=6, val_fraction=0.34, workers=1, kind="closeup")
    n_close = len(extract_crops(tmp_path / "close", "train", 0, 1)[1])
    assert len(extract_crops(tmp_path / "close", "train", 0, 3)[1]) == 3 * n_close
    out = tmp_path / "cls.onnx"
    history = train_classifier(tmp_path / "mixed", out, list(CLASS_NAMES), epochs=1, batch=8,
                               more=((tmp_path / "close", 3),))
    assert 0.0 <= history["epoch1_val_acc"] <= 1.0
    cls = OnnxClassifier(out)
    probs = cls.probabilities(np.full((200, 200, 3), 128, np.uint8), np.array([[20, 20, 120, 170]], np.float32))
    assert probs.shape == (1, len(CLASS_NAMES)) and abs(float(probs.sum()) - 1.0) < 1e-4


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="needs the train extra (torch)")
def test_crops_are_the_same_with_worker_processes_and_a_wider_net_trains(tmp_path: Path) -> None:
    """Each image's jitter has its own seed, so a pool cuts the same crops as one process; `load_crops` cuts
    them once for several runs, and `width` widens every layer (the export still loads)."""
    from models.train_classifier import extract_crops, load_crops, make_net, train_classifier
    from vision.classifier import OnnxClassifier

    build_dataset(tmp_path / "mixed", 5, seed=7, val_fraction=0.4, workers=1)
    one = extract_crops(tmp_path / "mixed", "train", 3, 2)
    pool = extract_crops(tmp_path / "mixed", "train", 3, 2, workers=2)
    assert len(one[1]) > 0 and np.array_equal(one[0], pool[0]) and np.array_equal(one[1], pool[1])
    assert not np.array_equal(one[0], extract_crops(tmp_path / "mixed", "train", 4, 2)[0])  # the seed matters
    narrow = sum(p.numel() for p in make_net(21).parameters())
    assert sum(p.numel() for p in make_net(21, 1.5).parameters()) > 2 * narrow
    crops = load_crops(tmp_path / "mixed", seed=3)
    out = tmp_path / "wide.onnx"
    history = train_classifier(tmp_path / "unused", out, list(CLASS_NAMES), epochs=1, batch=8, width=1.5,
                               crops=crops)
    assert 0.0 <= history["epoch1_val_acc"] <= 1.0
    probs = OnnxClassifier(out).probabilities(np.full((120, 90, 3), 200, np.uint8),
                                              np.array([[10, 10, 80, 110]], np.float32))
    assert probs.shape == (1, len(CLASS_NAMES))


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="needs the train extra (torch)")
def test_an_ensemble_export_gives_the_mean_of_its_parts_log_probabilities(tmp_path: Path) -> None:
    """The shipped classifier is two nets in one ONNX graph: its softmax is the normalised geometric mean of the
    parts' probabilities, and a wrong set of weights is refused by name."""
    import onnxruntime as ort
    import torch

    from models.train_classifier import Factorised, export, export_ensemble

    names = list(CLASS_NAMES)
    torch.manual_seed(0)
    narrow, wide = Factorised.build(names), Factorised.build(names, 1.5)
    for net, path in ((narrow, tmp_path / "narrow.pth"), (wide, tmp_path / "wide.pth")):
        net.eval()
        torch.save(net.state_dict(), path)
    out = export_ensemble([str(tmp_path / "narrow.pth"), f"{tmp_path / 'wide.pth'}:1.5"], tmp_path / "ens.onnx",
                          names)
    export(narrow, tmp_path / "n.onnx", names)
    export(wide, tmp_path / "w.onnx", names)
    x = np.random.default_rng(1).random((3, 3, 96, 96), dtype=np.float32)

    def run(p: Path) -> np.ndarray:
        return ort.InferenceSession(str(p)).run(None, {"crops": x})[0]

    assert np.allclose(run(out), (run(tmp_path / "n.onnx") + run(tmp_path / "w.onnx")) / 2, atol=1e-4)
    with pytest.raises(ValueError, match="one weight per part"):
        export_ensemble([str(tmp_path / "narrow.pth")], tmp_path / "bad.onnx", names, weights=[0.5, 0.5])


def test_the_lower_card_classifier_trains_and_exports_in_one_tiny_epoch(tmp_path: Path) -> None:
    """`models/train_lower.py` end to end on a few crops: renders them, fine-tunes, exports, scores on onnxruntime."""
    from models.train_lower import main
    from vision.classifier import OnnxClassifier

    out = tmp_path / "lower.onnx"
    report = main(["--data", str(tmp_path / "crops"), "--train", "32", "--val", "16", "--epochs", "1",
                   "--batch", "16", "--workers", "1", "--threads", "1", "--out", str(out)])
    assert (tmp_path / "crops" / "train.npz").exists() and out.exists()
    assert OnnxClassifier(out).names == CLASS_NAMES
    assert 0.0 <= report["val_accuracy"] <= 1.0 and report["train_crops"] == 32
    assert "baseline_val_accuracy" in report


def test_the_lower_card_classifier_trains_on_turned_crops_with_single_cards(tmp_path: Path) -> None:
    """`--canonical --singles --identical`: the crops are rendered turned, a share of them are single cards
    labelled "no lower card" (`datasets.pairs.NO_LOWER`) and a share of the pairs identical cards; the exported
    model's JSON says it learnt turned crops, so the tracker turns its crops for it."""
    import json

    import numpy as np

    from datasets.pairs import NO_LOWER
    from models.train_lower import main
    from vision.classifier import OnnxClassifier

    out = tmp_path / "lower.onnx"
    main(["--data", str(tmp_path / "crops"), "--train", "32", "--val", "16", "--epochs", "1", "--canonical",
          "--singles", "0.5", "--identical", "0.5", "--batch", "16", "--workers", "1", "--threads", "1", "--out", str(out)])
    labels = np.load(tmp_path / "crops" / "train.npz")["labels"]
    singles = int((labels == CLASS_NAMES.index(NO_LOWER)).sum())
    assert 0 < singles < len(labels)
    assert json.loads(out.with_suffix(".json").read_text())["canonical"] is True
    assert OnnxClassifier(out).canonical


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="needs the train extra (torch)")
def test_a_grid_head_weighs_where_a_feature_lies_and_starts_from_a_pooled_nets_trunk() -> None:
    """The "grid" head (`HEADS`) gives each cell of the last feature map its own weights, so the same glyph at
    the crop's left (a lower card's strip) and at its right (the top card) count differently; a pooled net's
    trunk loads into it and only the head's weights start afresh (`load_trunk` names them)."""
    import torch

    from models.train_classifier import Factorised, load_trunk, make_net

    with pytest.raises(ValueError, match="unknown head"):
        make_net(21, head="max")
    names = list(CLASS_NAMES)
    torch.manual_seed(0)
    pooled, grid = Factorised.build(names, 1.5), Factorised.build(names, 1.5, "grid", 96)
    fresh = load_trunk(grid, pooled.state_dict())
    assert fresh == ["trunk.24.weight"]
    assert torch.equal(grid.state_dict()["trunk.0.weight"], pooled.state_dict()["trunk.0.weight"])
    x = torch.zeros(1, 3, 96, 96)
    x[:, :, 30:60, 8:30] = 1.0  # a bright patch on the left
    mirrored = x.flip(3)  # the same patch on the right
    grid.eval()
    pooled.eval()
    with torch.no_grad():
        assert not torch.allclose(grid(x), grid(mirrored), atol=1e-4)
        # the pooled net sees a mirrored patch alike up to its filters' own asymmetry, far less than the grid's
        assert (pooled(x) - pooled(mirrored)).abs().max() < (grid(x) - grid(mirrored)).abs().max()
