"""The shipped keyword model: a DS-CNN on log-mel frames and a head on speech embeddings, averaged."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from speech import evaluate as ev
from speech import tune
from speech.audio import ArraySource, AudioChunk
from speech.kws import MODEL_PATH, EmbeddingFront, KeywordDetector, LogMelFront, check_model
from speech.synth import Voice, mix_at, synthesize

from .conftest import needs_espeak

EN = Voice("espeak", "en-us", "en", "Mike")  # a held-out voice


def _single(tmp_path: Path, name: str, card: dict) -> Path:
    """One part of the shipped card as a model of its own (its ONNX file and a card without `parts`)."""
    shutil.copy(MODEL_PATH.parent / name, tmp_path / name)
    (tmp_path / name).with_suffix(".json").write_text(json.dumps(card))
    return tmp_path / name


def _card_copy(tmp_path: Path, card: dict) -> Path:
    """The shipped card's part files beside a changed copy of its card; returns the path to load."""
    for part in card["parts"]:
        shutil.copy(MODEL_PATH.parent / part["model"], tmp_path / part["model"])
    (tmp_path / "kws.json").write_text(json.dumps(card))
    return tmp_path / "kws.onnx"


def _talk(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    track = np.zeros(16000 * 7, np.int16)
    for i, word in enumerate(["uno", "one more", "green"]):
        track = mix_at(track, synthesize(word, EN), 0.7 + 2.0 * i)
    noise = (rng.standard_normal(len(track)) * 60).astype(np.int16)
    return (track.astype(np.int32) + noise).clip(-32768, 32767).astype(np.float32) / 32767.0


def test_the_shipped_card_runs_every_part() -> None:
    card = json.loads(MODEL_PATH.with_suffix(".json").read_text())
    det = KeywordDetector()
    fronts = {"logmel": LogMelFront, "speech_embedding": EmbeddingFront}
    assert len(card["parts"]) >= 2
    assert [type(f) for f, _, _ in det.members] == [fronts[p["front_end"]] for p in card["parts"]]
    assert [w for _, _, w in det.members] == [p["weight"] for p in card["parts"]]
    assert det.hop_s == pytest.approx(0.08)
    assert " + ".join(f"{p['model']} ({p['front_end']})" for p in card["parts"]) in check_model()


@needs_espeak()
def test_fused_posteriors_are_the_weighted_parts_as_tune_replays_them(tmp_path: Path) -> None:
    card = json.loads(MODEL_PATH.with_suffix(".json").read_text())
    audio = _talk(1)
    t, p, _ = ev.posteriors(KeywordDetector(smooth=1, persist=1), audio)
    recs = []
    for part in card["parts"]:
        single = {k: v for k, v in part.items() if k not in ("model", "weight")}
        det = KeywordDetector(_single(tmp_path, part["model"], single), smooth=1, persist=1)
        tt, pp, _ = ev.posteriors(det, audio)
        recs.append({"kw": (tt, pp, []), "talk": []})
    fused = tune.fuse(recs, [part["weight"] for part in card["parts"]])
    assert np.allclose(fused["kw"][0], t) and np.allclose(fused["kw"][1], p, atol=1e-5)


@needs_espeak()
@pytest.mark.parametrize("delayed, ticks", [(0, 2), (1, 1)])
def test_a_delayed_part_is_averaged_as_tune_replays_it_shifted(tmp_path: Path, delayed: int, ticks: int) -> None:
    """A part's `delay` (in its ticks) is what the tuner scores by shifting that part's clock: the live detector
    must average the posterior of `ticks` hops ago, never one from the future."""
    card = json.loads(MODEL_PATH.with_suffix(".json").read_text())
    audio = _talk(3)
    recs = []
    for part in card["parts"]:
        single = {k: v for k, v in part.items() if k not in ("model", "weight")}
        tt, pp, _ = ev.posteriors(KeywordDetector(_single(tmp_path, part["model"], single), smooth=1, persist=1), audio)
        recs.append({"kw": (tt, pp, []), "talk": []})
    delays = [ticks if i == delayed else 0 for i in range(len(recs))]
    fused = tune.fuse(recs, [part["weight"] for part in card["parts"]], delays)
    card["parts"][delayed]["delay"] = ticks
    t, p, _ = ev.posteriors(KeywordDetector(_card_copy(tmp_path, card), smooth=1, persist=1), audio)
    # the replay also decides at shifted times past the audio's end, which live never reaches: match by time
    common, i_live, i_replay = np.intersect1d(np.round(t, 3), np.round(fused["kw"][0], 3), return_indices=True)
    assert len(common) > 50 and len(common) >= len(t) - 1
    assert np.allclose(fused["kw"][1][i_replay], p[i_live], atol=1e-5)


@pytest.mark.parametrize("delay", [-1, 1.5, "2", True])
def test_a_bad_delay_is_named(tmp_path: Path, delay: object) -> None:
    from speech.kws import ModelMissingError

    card = json.loads(MODEL_PATH.with_suffix(".json").read_text())
    card["parts"][1]["delay"] = delay
    with pytest.raises(ModelMissingError, match="delay"):
        KeywordDetector(_card_copy(tmp_path, card))


@needs_espeak()
def test_chunk_sizes_do_not_change_the_events() -> None:
    audio = _talk(2)
    runs = []
    for chunk_s in (0.02, 0.1, 0.37):
        det = KeywordDetector()
        runs.append(list(det.run(ArraySource(audio, chunk_s=chunk_s).chunks())))
    assert runs[0] == runs[1] == runs[2]


def test_a_part_that_is_missing_is_named(tmp_path: Path) -> None:
    shutil.copy(MODEL_PATH, tmp_path / "kws.onnx")
    card = json.loads(MODEL_PATH.with_suffix(".json").read_text())
    (tmp_path / "kws.json").write_text(json.dumps(card))
    from speech.kws import ModelMissingError

    missing = next(p["model"] for p in card["parts"] if p["model"] != "kws.onnx")  # the first one not copied
    with pytest.raises(ModelMissingError, match=re.escape(missing)):
        KeywordDetector(tmp_path / "kws.onnx")


def test_seat_vote_uses_the_word_just_heard() -> None:
    det = KeywordDetector()
    quiet = np.zeros((16000, 3), np.int16)
    loud = quiet.copy()
    loud[:, 1] = (3000 * np.sin(2 * np.pi * 440 * np.arange(16000) / 16000)).astype(np.int16)  # sound, not DC
    det.process(AudioChunk(t=0.0, samples=loud, rate=16000))
    det.process(AudioChunk(t=1.0, samples=quiet, rate=16000))
    assert det._seat(16000) == 1


def test_parts_that_read_the_same_input_share_one_front_end(tmp_path: Path) -> None:
    """Each log-mel frame is computed once for both DS-CNN parts; an embedding part of another context keeps its
    own window. Sharing changes nothing the parts see: the posteriors equal each part run on its own."""
    card = json.loads(MODEL_PATH.with_suffix(".json").read_text())
    det = KeywordDetector()
    logmel = [f for f, _, _ in det.members if isinstance(f, LogMelFront)]
    assert len(logmel) >= 2 and all(f is logmel[0] for f in logmel)
    emb_part = next(p for p in card["parts"] if p["front_end"] == "speech_embedding")
    card["parts"].append({**emb_part, "context": 8})  # the same head file read with another context
    two = KeywordDetector(_card_copy(tmp_path, card))
    embs = [f for f, _, _ in two.members if isinstance(f, EmbeddingFront)]
    assert [f.context for f in embs] == [16, 8] and embs[0] is not embs[1]
    audio = (np.random.default_rng(4).standard_normal(3 * 16000) * 2000).astype(np.int16)

    def outputs(d: KeywordDetector) -> list[list[np.ndarray]]:
        """Every part's raw outputs, in order, over `audio`."""
        seen: list[list[np.ndarray]] = [[] for _ in d.members]
        run = d.posteriors

        def record(x: np.ndarray, member: int = 0) -> np.ndarray:
            seen[member].append(run(x, member))
            return seen[member][-1]

        d.posteriors = record  # type: ignore[method-assign]
        # no end-of-stream flush: its silence is as long as each detector's own rule needs, not a part's input
        list(d.run(ArraySource(audio, chunk_s=0.05).chunks(), flush=False))
        return seen

    shared = outputs(det)
    for m, part in enumerate(json.loads(MODEL_PATH.with_suffix(".json").read_text())["parts"]):
        single = {k: v for k, v in part.items() if k not in ("model", "weight")}
        (alone,) = outputs(KeywordDetector(_single(tmp_path, part["model"], single)))
        assert len(alone) == len(shared[m]) > 10
        assert all(np.array_equal(a, b) for a, b in zip(alone, shared[m], strict=True))
