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


@pytest.mark.slow
@pytest.mark.smoke  # a miniature run: CI keeps it
@needs_espeak()
def test_tiny_head_run_exports_a_working_onnx(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from speech.audio import ArraySource
    from speech.embed_data import build_embedded, load_embedded, save_embedded
    from speech.head import add_to_card, export_head, train_head
    from speech.kws import EmbeddingFront, KeywordDetector, LogMelFront
    from speech.kwsdata import build_banks, save_banks

    save_banks(build_banks(False, 3, 1, 4, seed=3, workers=1), tmp_path / "b.pkl")
    embs, labs = build_embedded([tmp_path / "b.pkl"], 3, seed=1, workers=1)
    assert all(len(e) == len(lab) and e.shape[1] == 96 for e, lab in zip(embs, labs, strict=True))
    assert any((lab > 0).any() for lab in labs)  # keywords were laid in and labelled
    save_embedded(tmp_path / "e.npz", embs, labs)
    data = load_embedded(tmp_path / "e.npz")
    best = train_head(data, data, tmp_path / "run", epochs=1, threads=1)
    head = export_head(best, tmp_path / "kws_emb.onnx", {"threshold": 0.5})
    det = KeywordDetector(head)
    list(det.run(ArraySource(np.zeros(40000, np.int16)).chunks()))
    assert det.inferences > 10
    # the card that averages it with a log-mel model
    import shutil

    from speech.kws import MODEL_PATH

    shutil.copy(MODEL_PATH, tmp_path / "kws.onnx")
    (tmp_path / "kws.json").write_text("{}")
    add_to_card(tmp_path / "kws.onnx", head, 0.6, {"threshold": 0.4})
    both = KeywordDetector(tmp_path / "kws.onnx")
    assert [type(f) for f, _, _ in both.members] == [LogMelFront, EmbeddingFront] and both.threshold == 0.4
    # the whole recipe with a teacher (how the shipped head was made: distilled from an average of heads)
    from speech.head import rebuild

    distilled = rebuild([tmp_path / "b.pkl"], tmp_path / "emb", tmp_path / "distilled" / "kws_emb.onnx",
                        n_recordings=4, epochs=1, workers=1, threads=1, teacher=head)
    assert (tmp_path / "emb" / "run" / "best.pt").exists()
    det = KeywordDetector(distilled)
    list(det.run(ArraySource(np.zeros(40000, np.int16)).chunks()))
    assert det.inferences > 10


@pytest.mark.slow
@pytest.mark.smoke  # a miniature rendering: CI keeps it
@needs_espeak()
def test_training_banks_are_the_training_voices_and_the_accent_speakers() -> None:
    """`build_data`'s banks (and a diagnosis that reuses the recipe) come from one function: the training voices'
    bank and festival's speakers of other languages, none of them a held-out voice."""
    from speech.accents import split_accent_voices
    from speech.train import training_banks
    from speech.vocab import split_voices

    main, accents = training_banks(workers=1, scale=0.01)
    held = {v.id for lang in ("en", "ru") for v in split_voices(lang)[1]} | {v.id for v in split_accent_voices()[1]}
    assert main.keywords and main.negatives and main.sentences
    assert {u.voice for u in main.keywords + main.negatives + main.sentences}.isdisjoint(held)
    if accents.keywords:  # festival and its accent voices installed
        assert {u.voice.split(":")[0] for u in accents.keywords} == {"festival"}
        assert {u.voice for u in accents.keywords}.isdisjoint(held)
