"""The keyword head's networks (`speech.head`): every kind learns, exports and runs in the live detector."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from speech.audio import RATE, ArraySource
from speech.embedding import EMB_DIM
from speech.vocab import CLASSES

torch = pytest.importorskip("torch")


def _planted(n_rec: int, length: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Embeddings of noise in which a 'word' (three hops of a fixed pattern) stands for `uno`; the hops just after
    it are labelled uno, every other hop other: the head must find the pattern wherever it lies."""
    rng = np.random.default_rng(seed)
    pattern = rng.standard_normal((3, EMB_DIM)).astype(np.float32)
    embs, labs = [], []
    for _ in range(n_rec):
        e = rng.standard_normal((length, EMB_DIM)).astype(np.float32) * 0.5
        lab = np.zeros(length, np.int8)
        for start in range(20, length - 8, int(rng.integers(18, 30))):
            e[start:start + 3] += pattern * 1.5
            lab[start + 2:start + 5] = CLASSES.index("uno")
        embs.append(e)
        labs.append(lab)
    return np.concatenate(embs).astype(np.float16), np.concatenate(labs), np.full(n_rec, length, np.int64)


@pytest.mark.parametrize("kind", ["mlp", "conv"])
def test_every_kind_gives_one_logit_a_class(kind: str) -> None:
    from speech.head import build_head

    for context in (8, 16):
        net = build_head(kind=kind, context=context, hidden=32)
        assert tuple(net(torch.zeros(3, context, EMB_DIM)).shape) == (3, len(CLASSES))


def test_an_unknown_kind_is_named() -> None:
    from speech.head import build_head

    with pytest.raises(ValueError, match="transformer"):
        build_head(kind="transformer")


@pytest.mark.parametrize("kind,context,epochs", [("conv", 8, 3), ("mlp", 12, 3)])
def test_a_head_learns_a_planted_word_and_runs_live_at_its_context(tmp_path: Path, kind: str, context: int,
                                                                   epochs: int) -> None:
    from speech.head import export_head, gather, train_head, window_index
    from speech.kws import EmbeddingFront, KeywordDetector

    train, val = _planted(30, 200, seed=1), _planted(6, 200, seed=1)
    best = train_head(train, val, tmp_path / "run", epochs=epochs, threads=1, kind=kind, context=context, hidden=48,
                      lr=3e-3)
    saved = torch.load(best, map_location="cpu", weights_only=False)
    assert saved["arch"]["kind"] == kind and saved["arch"]["context"] == context
    onnx = export_head(best, tmp_path / "head.onnx", {"threshold": 0.5})
    card = json.loads(onnx.with_suffix(".json").read_text())
    assert card["context"] == context and card["members"][0]["arch"]["kind"] == kind
    # it learnt the word: validation windows ending just after it say uno, the others mostly other
    from speech.kws import load_session

    emb, lab, lengths = val
    idx = window_index(lab, lengths, context)
    probs = load_session(onnx).run(None, {"emb": gather(emb, idx, context)})[0]
    pred = probs.argmax(1)
    pos = lab[idx] == CLASSES.index("uno")
    assert (pred[pos] == CLASSES.index("uno")).mean() > 0.8 and (pred[~pos] == 0).mean() > 0.9
    # and the live detector reads its context from the card
    det = KeywordDetector(onnx)
    front = det.members[0][0]
    assert isinstance(front, EmbeddingFront) and front.context == context
    list(det.run(ArraySource(np.zeros(3 * RATE, np.int16)).chunks()))
    assert det.inferences > 10


def test_old_checkpoints_load_as_the_mlp_over_16(tmp_path: Path) -> None:
    from speech.head import _arch, build_head

    old = {"hidden": 64, "layers": 2, "context": 16}  # a stop-19 checkpoint's arch: no kind, no dropout
    net = build_head(hidden=64, layers=2)
    rebuilt = build_head(**_arch(old))
    rebuilt.load_state_dict(net.state_dict())  # same modules, same names
    assert _arch(old)["kind"] == "mlp"


def _random_head(tmp_path: Path, name: str, context: int, seed: int, kind: str = "mlp") -> Path:
    """An exported head of random weights (what matters here is the arithmetic of averaging, not what it learnt)."""
    from speech.head import build_head, export_head

    torch.manual_seed(seed)
    arch = {"kind": kind, "hidden": 32, "layers": 2, "context": context, "dropout": 0.3}
    net = build_head(**arch)
    if kind == "conv":  # BatchNorm's running statistics away from (0, 1), so the heads differ where it matters
        for m in net.modules():
            if isinstance(m, torch.nn.BatchNorm1d):
                m.running_mean.normal_()
                m.running_var.uniform_(0.5, 2.0)
    ck = tmp_path / name / "best.pt"
    ck.parent.mkdir(parents=True)
    torch.save({"model": net.state_dict(), "epoch": 1, "arch": arch}, ck)
    return export_head(ck, tmp_path / name / "kws_emb.onnx", {"threshold": 0.5})


@pytest.mark.parametrize("kind", ["mlp", "conv"])  # MLP heads are fused into one graph, others merged graph by graph
def test_averaged_heads_give_the_mean_of_their_posteriors_under_one_front_end(tmp_path: Path, kind: str) -> None:
    import onnx

    from speech.head import average_exported
    from speech.kws import EmbeddingFront, KeywordDetector, load_session

    heads = [_random_head(tmp_path, f"h{i}", 16, seed=i, kind=kind) for i in range(3)]
    out = average_exported(heads, tmp_path / "avg" / "kws_emb.onnx", ["first", "second", "third"])
    x = np.random.default_rng(0).standard_normal((4, 16, EMB_DIM)).astype(np.float32)
    each = [load_session(h).run(None, {"emb": x})[0] for h in heads]
    got = load_session(out).run(None, {"emb": x})[0]
    assert not np.allclose(each[0], each[1], atol=1e-3)  # the heads differ, so the mean is a real test
    np.testing.assert_allclose(got, np.mean(each, axis=0), atol=1e-6)
    np.testing.assert_allclose(got.sum(1), 1.0, atol=1e-5)
    graph = onnx.load(str(out)).graph
    assert graph.name == ("averaged_mlp_heads" if kind == "mlp" else "averaged_heads")
    if kind == "mlp":  # one first-layer product for all heads, not one a head
        assert sum(n.op_type == "Gemm" for n in graph.node) == 1
    card = json.loads(out.with_suffix(".json").read_text())
    assert [m["head"] for m in card["members"]] == ["first", "second", "third"]
    assert card["context"] == 16 and card["threshold"] == 0.5 and card["front_end"] == "speech_embedding"
    det = KeywordDetector(out)  # the live detector runs it as one part with one embedding front end
    assert len(det.members) == 1 and isinstance(det.members[0][0], EmbeddingFront)
    list(det.run(ArraySource(np.zeros(2 * RATE, np.int16)).chunks()))
    assert det.inferences > 5


def test_heads_of_different_contexts_or_other_files_are_refused_by_name(tmp_path: Path) -> None:
    from speech.head import average_exported

    a, b = _random_head(tmp_path, "a", 16, seed=0), _random_head(tmp_path, "b", 8, seed=1)
    with pytest.raises(ValueError, match="context 8 differs"):
        average_exported([a, b], tmp_path / "avg.onnx")
    with pytest.raises(ValueError, match="2 labels for 1 heads"):
        average_exported([a], tmp_path / "avg.onnx", ["x", "y"])
    with pytest.raises(ValueError, match="at least one head"):
        average_exported([], tmp_path / "avg.onnx")
    import shutil

    other = tmp_path / "other" / "kws_emb.onnx"
    other.parent.mkdir()
    shutil.copy(Path(__file__).parents[2] / "models" / "kws_w.onnx", other)
    shutil.copy(a.with_suffix(".json"), other.with_suffix(".json"))
    with pytest.raises(ValueError, match="not an exported head"):
        average_exported([a, other], tmp_path / "avg.onnx")


def test_soft_targets_are_the_teachers_posteriors_at_the_windows_asked(tmp_path: Path) -> None:
    from speech.head import gather, soft_targets, window_index
    from speech.kws import load_session

    teacher = _random_head(tmp_path, "teacher", 16, seed=5)
    emb, lab, lengths = _planted(4, 60, seed=2)
    idx = window_index(lab, lengths)
    soft = soft_targets(teacher, emb, idx, batch=37)  # batches that do not divide the windows
    assert soft.shape == (len(emb), len(CLASSES)) and soft.dtype == np.float16
    want = load_session(teacher).run(None, {"emb": gather(emb, idx)})[0]
    np.testing.assert_allclose(soft[idx].astype(np.float32), want, atol=1e-3)
    rest = np.setdiff1d(np.arange(len(emb)), idx)
    assert len(rest) > 0 and not soft[rest].any()  # the first 15 hops of a recording have no window


def test_a_distilled_head_gives_the_teachers_posteriors_not_the_labels(tmp_path: Path) -> None:
    """The teacher hears the planted word as half uno, half red; the labels say uno. Trained on the teacher's
    posteriors the head says about half red on the word; trained on the labels it says almost no red."""
    from speech.head import build_head, gather, train_head, window_index

    train, val = _planted(30, 200, seed=1), _planted(6, 200, seed=1)
    emb, lab, lengths = train
    teacher = np.zeros((len(emb), len(CLASSES)), np.float16)
    teacher[:, 0] = 1.0
    uno, red = CLASSES.index("uno"), CLASSES.index("red")
    teacher[lab == uno, 0] = 0.0
    teacher[lab == uno, uno] = 0.5
    teacher[lab == uno, red] = 0.5
    vemb, vlab, vlen = val
    vidx = window_index(vlab, vlen, 12)
    vidx = vidx[vlab[vidx] == uno]
    red_said = {}
    for name, targets in (("labels", None), ("teacher", teacher)):
        best = train_head(train, val, tmp_path / name, epochs=3, threads=1, context=12, hidden=48, lr=3e-3,
                          teacher=targets, soft_weight=1.0)
        saved = torch.load(best, map_location="cpu", weights_only=False)
        net = build_head(**saved["arch"])
        net.load_state_dict(saved["model"])
        net.eval()
        with torch.no_grad():
            probs = torch.softmax(net(torch.from_numpy(gather(vemb, vidx, 12))), dim=1).numpy()
        red_said[name] = float(probs[:, red].mean())
    assert red_said["labels"] < 0.1 and 0.3 < red_said["teacher"] < 0.7, red_said
    with pytest.raises(ValueError, match="teacher posteriors"):
        train_head(train, val, tmp_path / "bad", epochs=1, threads=1, context=12, teacher=teacher[:10])


def test_train_speech_names_a_missing_teacher_before_training(tmp_path: Path) -> None:
    import subprocess
    import sys

    res = subprocess.run([sys.executable, "-m", "unotable.cli", "train-speech", "--part", "all", "--teacher",
                          str(tmp_path / "nope.onnx"), "--out", str(tmp_path / "kws.onnx")], capture_output=True,
                         text=True, cwd=Path(__file__).parents[2], check=False, timeout=120)
    assert res.returncode == 2 and "nope.onnx: no such head file" in res.stderr and "Traceback" not in res.stderr
    assert not (tmp_path / "kws.onnx").exists()
