"""The keyword spotter: features, the firing rule, and the shipped model on held-out voices (files only)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from speech.audio import ArraySource, AudioChunk, SpeechInputError
from speech.features import HOP, NMELS, WIN, logmel
from speech.kws import KeywordDetector, ModelMissingError, decide_step, load_session, replay_posteriors
from speech.synth import Voice, mix_at, synthesize
from speech.vocab import CLASSES

from .conftest import REPO, needs_espeak, needs_model

# held-out voices (speech/vocab.py): never seen in training
EN = Voice("espeak", "en-us", "en", "Mike")
RU = Voice("espeak", "ru", "ru", "victor")


def test_logmel_shape_and_grid() -> None:
    x = np.random.default_rng(0).standard_normal(16000).astype(np.float32) * 0.1
    f = logmel(x)
    assert f.shape == (1 + (16000 - WIN) // HOP, NMELS)
    # frames sit on a fixed grid: the features of a prefix are a prefix of the features
    assert np.allclose(logmel(x[:8000]), f[: 1 + (8000 - WIN) // HOP], atol=1e-4)


def test_firing_rule_fires_once_per_utterance() -> None:
    latched = np.zeros(len(CLASSES), bool)
    uno = CLASSES.index("uno")
    seq = [0.1, 0.5, 0.9, 0.95, 0.8, 0.6, 0.9, 0.2, 0.1, 0.85]  # rises, wobbles above release, falls, rises again
    fired = []
    for p in seq:
        post = np.zeros(len(CLASSES))
        post[uno], post[0] = p, 1 - p
        r = decide_step(post, latched, threshold=0.7, release=0.3)
        fired.append(r is not None)
    assert fired == [False, False, True, False, False, False, False, False, False, True]


def test_replay_matches_smoothing() -> None:
    posts = np.zeros((10, len(CLASSES)))
    posts[:, 0] = 1
    posts[4:6, CLASSES.index("red")] = 1.0
    posts[4:6, 0] = 0
    t = np.arange(10) * 0.08
    ev = replay_posteriors(t, posts, threshold=0.6, smooth=3)
    assert len(ev) == 1 and CLASSES[ev[0][1]] == "red" and ev[0][0] == pytest.approx(t[5])


def test_missing_model_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ModelMissingError, match="train-speech"):
        load_session(tmp_path / "none.onnx")


@needs_model()
def test_wrong_rate_chunk_is_refused() -> None:
    det = KeywordDetector()
    with pytest.raises(SpeechInputError, match="16000 Hz"):
        det.process(AudioChunk(0.0, np.zeros(800, np.int16), rate=8000))


def _scene(calls: list[tuple[str, Voice, float]], seconds: float = 8.0) -> tuple[np.ndarray, list[float]]:
    track = np.zeros(int(seconds * 16000), np.int16)
    ends = []
    rng = np.random.default_rng(1)
    track = (rng.standard_normal(len(track)) * 60).astype(np.int16)  # a little room noise
    for text, v, t in calls:
        clip = synthesize(text, v)
        track = mix_at(track, clip, t, gain_db=-3)
        ends.append(t + len(clip) / 16000)
    return track, ends


@needs_model()
@needs_espeak()
def test_detects_uno_and_colours_in_both_languages_once_each() -> None:
    track, ends = _scene([("uno", EN, 1.0), ("blue", EN, 3.0), ("уно", RU, 5.0), ("красный", RU, 7.0)], 10.0)
    events = list(KeywordDetector().run(ArraySource(track).chunks()))
    kinds = [(e["type"], e.get("color")) for e in events]
    assert kinds == [("uno", None), ("color", "blue"), ("uno", None), ("color", "red")], events
    for e, end in zip(events, ends, strict=True):
        assert abs(e["t"] - end) < 0.4
        assert e["source"] == "speech" and e["seat"] is None and 0.5 <= e["confidence"] <= 1


@needs_model()
@needs_espeak()
def test_near_misses_do_not_fire() -> None:
    track, _ = _scene([("one", EN, 0.5), ("you know", EN, 1.5), ("Juno", EN, 2.5), ("no", EN, 3.5),
                       ("ну", RU, 4.5), ("но", RU, 5.5), ("один", RU, 6.5)], 8.0)
    events = list(KeywordDetector().run(ArraySource(track).chunks()))
    assert events == []


@needs_model()
@needs_espeak()
def test_seat_is_the_loudest_channel() -> None:
    track, _ = _scene([("uno", EN, 1.0)], 3.0)
    quiet = (track.astype(np.float32) * 0.2).astype(np.int16)
    seats = np.stack([quiet, quiet, track, quiet], axis=1)  # seat 2 holds the microphone nearest the speaker
    events = list(KeywordDetector().run(ArraySource(seats).chunks()))
    assert [e["seat"] for e in events] == [2]


@needs_model()
@needs_espeak()
def test_listen_prints_only_event_lines(tmp_path: Path) -> None:
    track, _ = _scene([("green", EN, 1.0)], 3.0)
    f = tmp_path / "g.flac"
    sf.write(f, track, 16000)
    res = subprocess.run([sys.executable, "-m", "unotable.cli", "listen", str(f)], capture_output=True, text=True,
                         cwd=REPO, check=False)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.strip().splitlines()
    assert [json.loads(line)["color"] for line in lines] == ["green"]


def test_listen_unreadable_file_exits_with_message(tmp_path: Path) -> None:
    f = tmp_path / "x.wav"
    f.write_text("nope")
    res = subprocess.run([sys.executable, "-m", "unotable.cli", "listen", str(f)], capture_output=True, text=True,
                         cwd=REPO, check=False)
    assert res.returncode == 2 and res.stdout == ""
    assert "not a readable audio file" in res.stderr and "Traceback" not in res.stderr


@pytest.mark.parametrize(("args", "words"), [
    (["--threshold", "0"], "between 0 and 1"), (["--threshold", "nan"], "between 0 and 1"),
    (["--seats", "1"], "2 or more"), (["--seats", "3"], "one channel a seat"),
])
def test_listen_refuses_options_that_cannot_work(tmp_path: Path, args: list[str], words: str) -> None:
    f = tmp_path / "two.wav"
    sf.write(f, np.zeros((16000, 2), np.int16), 16000)  # two seats' microphones
    res = subprocess.run([sys.executable, "-m", "unotable.cli", "listen", str(f), *args], capture_output=True,
                         text=True, cwd=REPO, check=False)
    assert res.returncode == 2 and res.stdout == "" and words in res.stderr, res.stderr


def test_speech_check_runs() -> None:
    res = subprocess.run([sys.executable, "-m", "unotable.cli", "speech", "check"], capture_output=True, text=True,
                         cwd=REPO, check=False)
    assert "keyword model" in res.stdout and "vosk engine" in res.stdout and "Traceback" not in res.stderr


def test_the_firing_threshold_is_the_models_own(tmp_path: Path) -> None:
    """Each trained model ships the threshold its card chose; a missing or bad value falls back to the default."""
    from speech.kws import DEFAULT_THRESHOLD, MODEL_PATH, model_threshold

    shipped = json.loads(MODEL_PATH.with_suffix(".json").read_text())
    assert KeywordDetector().threshold == shipped.get("threshold", DEFAULT_THRESHOLD)
    assert KeywordDetector(threshold=0.55).threshold == 0.55
    (tmp_path / "m.json").write_text('{"threshold": 0.9}')
    assert model_threshold(tmp_path / "m.onnx") == 0.9
    (tmp_path / "m.json").write_text('{"threshold": 7}')
    assert model_threshold(tmp_path / "m.onnx") == DEFAULT_THRESHOLD
    assert model_threshold(tmp_path / "absent.onnx") == DEFAULT_THRESHOLD


def test_persistence_ignores_a_one_hop_blip() -> None:
    """With persist=2 a keyword must stay above the threshold for two hops in a row: a one-hop blip is ignored,
    a sustained rise fires once, on its second hop."""
    posts = np.zeros((12, len(CLASSES)))
    posts[:, 0] = 1
    red = CLASSES.index("red")
    posts[2, red], posts[2, 0] = 0.95, 0.05  # a blip
    posts[6:9, red], posts[6:9, 0] = 0.95, 0.05  # a word
    t = np.arange(12) * 0.08
    assert [e[0] for e in replay_posteriors(t, posts, threshold=0.8, smooth=1, persist=1)] == \
        pytest.approx([t[2], t[6]])
    ev = replay_posteriors(t, posts, threshold=0.8, smooth=1, persist=2)
    assert [(CLASSES[c], tt) for tt, c, _ in ev] == [("red", pytest.approx(t[7]))]


def test_per_class_thresholds() -> None:
    posts = np.zeros((6, len(CLASSES)))
    posts[:, 0] = 0.2
    posts[1, CLASSES.index("uno")] = 0.8
    posts[4, CLASSES.index("green")] = 0.8
    thr = np.full(len(CLASSES), 0.7)
    thr[CLASSES.index("green")] = 0.9
    ev = replay_posteriors(np.arange(6) * 0.08, posts, threshold=thr, smooth=1)
    assert [CLASSES[c] for _, c, _ in ev] == ["uno"]


def test_the_firing_rule_is_read_from_the_models_json(tmp_path: Path) -> None:
    """The rule beside the model (threshold, per-class overrides, smoothing, persistence) is what the detector
    uses; an explicit threshold applies to every class; bad values fall back to the defaults."""
    from speech.kws import model_rule

    (tmp_path / "m.json").write_text(json.dumps({"threshold": 0.8, "class_thresholds": {"green": 0.9, "nope": 0.5},
                                                 "smooth": 2, "persist": 3}))
    assert model_rule(tmp_path / "m.onnx") == {"threshold": 0.8, "class_thresholds": {"green": 0.9},
                                               "smooth": 2, "persist": 3}
    (tmp_path / "m.json").write_text('{"threshold": 0.8, "class_thresholds": {"uno": 2}, "smooth": 0, '
                                     '"persist": "x"}')
    assert model_rule(tmp_path / "m.onnx") == {"threshold": 0.8, "class_thresholds": {}, "smooth": 3, "persist": 1}


@needs_model()
def test_detector_takes_the_shipped_rule() -> None:
    from speech.kws import MODEL_PATH, model_rule

    rule = model_rule(MODEL_PATH)
    det = KeywordDetector()
    assert (det.smooth, det.persist, det.threshold) == (rule["smooth"], rule["persist"], rule["threshold"])
    for cls, v in rule["class_thresholds"].items():
        assert det.thresholds[CLASSES.index(cls)] == v
    flat = KeywordDetector(threshold=0.5)
    assert np.all(flat.thresholds == 0.5)


def test_a_recording_shorter_than_one_window_gives_no_events() -> None:
    """Replaying no posteriors (a clip shorter than the model's window) is no events, not an error."""
    assert replay_posteriors(np.zeros(0), np.zeros((0, len(CLASSES))), threshold=0.5, smooth=3, persist=2) == []


@pytest.mark.skipif(not (Path(__file__).parents[2] / "models" / "kws.onnx").exists(), reason="no shipped model")
def test_the_evaluation_hears_nothing_in_a_clip_shorter_than_a_window() -> None:
    from speech import evaluate as ev

    det = KeywordDetector()
    times, posts, _ = ev.posteriors(det, np.zeros(int(0.3 * 16000), np.float32))
    assert ev._fires(det, times, posts) == []
