"""SVOX Pico's voices (speech.synth's `pico` engine, speech.pico): real synthesis through the real ttspico, the
held-out split that keeps two speakers a guide no part has heard, and a clear error where the package is absent."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from speech import evaluate as ev
from speech import synth
from speech.kwsdata import save_banks
from speech.mining import render_bank
from speech.pico import (
    HELD_OUT_PICO,
    PICO_ACCENT_FORMS,
    ensure_pico_test_bank,
    pico_guide_bank,
    pico_jobs,
    split_pico_voices,
)
from speech.synth import PICO_VOICES, RATE, SynthError, Voice, list_voices, synthesize, synthesize_float

from .conftest import MODEL, needs_espeak, needs_model

ttspico = pytest.importorskip("ttspico", reason="SVOX Pico (PyPI ttspico) is in the training extra")


@pytest.mark.parametrize("name,text", [("en-US", "uno"), ("en-GB", "yellow"), ("it-IT", "uno"), ("fr-FR", "blou")])
def test_pico_speaks_16k_speech(name: str, text: str) -> None:
    x = synthesize(text, Voice("pico", name, PICO_VOICES[name]))
    assert x.dtype == np.int16
    assert 0.15 * RATE < len(x) < 1.2 * RATE
    assert np.abs(x).max() > 10000  # peak-normalised speech, not silence


def test_pico_speed_and_pitch_change_the_speech() -> None:
    v = Voice("pico", "en-US", "en")
    slow, fast = synthesize_float("yellow", v, speed=0.8), synthesize_float("yellow", v, speed=1.3)
    assert len(slow) > 1.2 * len(fast)
    low, high = synthesize_float("blue", v, pitch=15), synthesize_float("blue", v, pitch=85)
    n = min(len(low), len(high))
    assert not np.allclose(low[:n], high[:n], atol=1e-3)


def test_pico_voices_are_kept_out_of_list_voices() -> None:
    # every seed of the test and of earlier round sets must render the bank it always rendered
    assert all(v.engine != "pico" for v in list_voices())


def test_held_out_pico_voices_never_reach_training_jobs() -> None:
    train, held = split_pico_voices()
    assert {v.name for v in held} == HELD_OUT_PICO
    assert not HELD_OUT_PICO & {v.name for v in train}
    jobs = pico_jobs(train, n_kw=2, n_neg=1, n_sent=2, seed=3)
    assert {job[3].name for _kind, job in jobs} == {v.name for v in train}
    # every training voice says every keyword class and also talk that is not a keyword
    for v in train:
        said = {job[1] for kind, job in jobs if job[3] == v and kind == "kw"}
        assert said == {"uno", "red", "yellow", "green", "blue", "pass"}
        assert any(kind == "sent" and job[3] == v and job[1] == "other" for kind, job in jobs)


def test_other_language_voices_say_uno_more_often() -> None:
    it = Voice("pico", "it-IT", "it")
    jobs = pico_jobs([it], n_kw=2, n_neg=1, n_sent=1, seed=1)
    kws = [job for kind, job in jobs if kind == "kw"]
    assert sum(1 for j in kws if j[1] == "uno") == 6  # uno_factor 3
    assert {j[0] for j in kws if j[1] == "uno"} == {PICO_ACCENT_FORMS["it"]["uno"][0][1]}


def test_missing_pico_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(synth, "available_engines", lambda: {"espeak": True, "flite": True, "festival": True,
                                                              "pico": False})
    with pytest.raises(SynthError, match="ttspico"):
        synthesize("uno", Voice("pico", "en-US", "en"))
    assert synth.pico_voices() == []


def test_unknown_pico_voice_is_a_clear_error() -> None:
    with pytest.raises(SynthError, match="no voice 'pt-BR'"):
        synthesize("uno", Voice("pico", "pt-BR", "pt"))


@needs_espeak()
@needs_model()
def test_eval_scores_the_unheard_pico_speakers(tmp_path: Path) -> None:
    """`unotable eval-speech` reports the held-out Pico voices beside the test: their recall and their talk's alarms."""
    test, pico = tmp_path / "banks_test.pkl", tmp_path / "banks_pico_test.pkl"
    save_banks(render_bank(1, {"en": ("one",), "ru": ("ну",)}, 1, 3, seed=9), test)
    save_banks(pico_guide_bank(1, 1, 2, seed=4), pico)
    r = ev.evaluate(test, snrs=(None,), model_path=MODEL, real_digits=False, pico_bank=pico)
    u = r["unheard_pico"]
    assert u["voices"] == ["pico:en-GB", "pico:fr-FR"]
    assert u["clean"]["words"] == 14  # en-GB: 6 English keywords; fr-FR: 5 loanwords and 3 "ouno"
    assert u["talk"]["hours"] > 0
    assert "unheard real speakers (SVOX Pico) (pico:en-GB, pico:fr-FR): recall clean" in ev.format_report(r)


def test_the_pico_test_bank_is_rendered_once(tmp_path: Path) -> None:
    path = ensure_pico_test_bank(tmp_path, workers=1)
    assert path == tmp_path / "banks_pico_test.pkl"
    first = path.stat().st_mtime_ns
    assert ensure_pico_test_bank(tmp_path) == path and path.stat().st_mtime_ns == first


def test_pico_english_says_uno_as_players_do() -> None:
    """Pico reads "uno" /'ju:noU/, the near miss "you know"; its English voices get /'u:noU/ in phoneme markup."""
    for name in ("en-US", "en-GB"):
        v = Voice("pico", name, "en")
        assert "<phoneme" in synth.engine_text("Uno!", v) and synth.engine_text("unos", v) == "unos"
        said = synthesize_float("uno", v)
        own = synth.trim_silence(synth._pico("uno", v, 1.0, 50))  # the engine's own reading
        n = min(len(said), len(own))
        assert not np.allclose(said[:n], own[:n] * (0.5 / np.abs(own).max()), atol=0.05)
    assert synth.engine_text("uno", Voice("pico", "it-IT", "it")) == "uno"  # Italian reads /uno/ already


def test_a_pico_bank_without_ttspico_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    import speech.pico as pico

    monkeypatch.setattr(pico, "pico_voices", lambda: [])
    with pytest.raises(SynthError, match="ttspico"):
        pico.pico_train_bank(1, 1, 1, seed=0)
    assert pico.ensure_pico_test_bank(Path("/nonexistent-unotable-dir")) is None  # eval-speech goes on without it
