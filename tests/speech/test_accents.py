"""The speakers of other languages (speech/accents.py): forms, the held-out split, encodings, trimming."""

from __future__ import annotations

import pytest

from speech.accents import (
    ACCENT_FORMS,
    ACCENT_NEGATIVES,
    HELD_OUT_ACCENT_VOICES,
    accent_jobs,
    split_accent_voices,
)
from speech.synth import ACCENT_VOICES, RATE, Voice, accent_voices, synthesize_float
from speech.vocab import CLASSES


def _installed(name: str) -> pytest.MarkDecorator:
    have = any(v.name == name for v in accent_voices())
    return pytest.mark.skipif(not have, reason=f"festival voice {name} not installed (Debian festvox-* package)")


def test_every_voice_language_says_every_keyword() -> None:
    for lang, _script in ACCENT_VOICES.values():
        assert set(ACCENT_FORMS[lang]) == set(CLASSES[1:]), lang


def test_no_negative_is_written_like_a_keyword_form() -> None:
    # a word on both lists would teach the model one sound with two labels
    scripts = {lang: script for lang, script in ACCENT_VOICES.values()}
    for lang, forms in ACCENT_FORMS.items():
        negs = {w.lower() for w in ACCENT_NEGATIVES[scripts[lang]]}
        for spoken in forms.values():
            for _spoken_lang, text in spoken:
                assert text.lower() not in negs, (lang, text)


def test_held_out_speakers_are_never_training_voices() -> None:
    train, test = split_accent_voices()
    assert not {v.name for v in train} & HELD_OUT_ACCENT_VOICES
    assert {v.name for v in test} <= HELD_OUT_ACCENT_VOICES


def test_jobs_give_uno_more_renditions_and_balance_negatives() -> None:
    v = Voice("festival", "voice_pc_diphone", "it")
    jobs = accent_jobs([v], n_kw=2, n_neg=5, n_sent=3, seed=1, uno_factor=3)
    kw = [j for k, j in jobs if k == "kw"]
    assert sum(j[1] == "uno" for j in kw) == 6
    assert sum(j[1] == "red" for j in kw) == 2
    assert sum(k == "neg" for k, _ in jobs) == 5 and sum(k == "sent" for k, _ in jobs) == 3
    assert all(j[1] == "other" for k, j in jobs if k != "kw")


@_installed("voice_czech_ph")
def test_czech_letters_are_read_not_spelled() -> None:
    # festival's Czech voices read ISO-8859-2: in UTF-8, "grín" came out as a spelled byte sequence of ~2 s
    v = Voice("festival", "voice_czech_ph", "cs")
    accented = synthesize_float("grín", v)
    plain = synthesize_float("grin", v)
    assert len(accented) < 1.5 * len(plain)


@_installed("voice_hindi_NSK_diphone")
def test_a_hissing_voice_is_trimmed_to_its_word() -> None:
    # the Indic diphone voices hiss 20-40 dB down: trimmed at -40 dB the word stayed 2.2 s long
    x = synthesize_float("ऊनो", Voice("festival", "voice_hindi_NSK_diphone", "hi"))
    assert 0.2 * RATE < len(x) < 1.15 * RATE


@_installed("voice_czech_ph")
def test_eval_measures_unheard_speakers_per_class_and_voice() -> None:
    from pathlib import Path

    from speech import evaluate as ev
    from speech.kws import KeywordDetector
    from speech.kwsdata import Banks, Utt

    model = Path(__file__).resolve().parents[2] / "models" / "kws.onnx"
    if not model.exists():
        pytest.skip(f"{model} not built")
    v = Voice("festival", "voice_czech_ph", "cs")
    kw = [Utt(t, c, "ru", v.id, synthesize_float(t, v)) for t, c in (("uno", "uno"), ("krasnyj", "red"))] * 2
    neg = [Utt(t, "other", "xx", v.id, synthesize_float(t, v)) for t in ("ano", "Bruno")]
    talk = [Utt("jedna dva tri", "other", "xx", v.id, synthesize_float("jedna dva tri", v))] * 3
    r = ev.unheard_speakers(KeywordDetector(model), Banks(kw, neg, talk), Banks([], [], talk))
    assert r["voices"] == [v.id]
    for cond in ("clean", "10dB"):
        assert r[cond]["words"] == 4
        assert set(r[cond]["by_class"]) == {"uno", "red"} and r[cond]["by_class"]["uno"]["n"] == 2
    # a training speaker's clean "uno" is heard (the model learnt this voice)
    assert r["clean"]["by_class"]["uno"]["recall"] == 1.0
    assert r["talk"]["hours"] > 0 and r["talk"]["false_alarms"] >= 0
    assert "unheard speakers" in ev.format_report({**_minimal_report(), "unheard_speakers": r})


def _minimal_report() -> dict[str, object]:
    return {"threshold": 0.5, "hop_s": 0.08, "snr": {},
            "other_speech": {"false_alarms": 0, "hours": 1.0, "fa_per_hour": 0.0, "by_class": {}},
            "real_digits": {"skipped": "absent"}}
