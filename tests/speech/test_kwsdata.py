"""The bank plan (`speech.kwsdata.bank_jobs`): which voices say what, before anything is synthesised."""

from __future__ import annotations

import numpy as np
import pytest

from speech.kwsdata import bank_jobs
from speech.synth import Voice
from speech.vocab import keyword_texts

VOICES = {
    "en": [Voice("espeak", "en-us", "en", f"v{i}") for i in range(8)] + [Voice("flite", "kal", "en"),
                                                                           Voice("festival", "voice_kal", "en")],
    "ru": [Voice("espeak", "ru", "ru", f"v{i}") for i in range(8)],
}
NEG = {"en": ("one", "Juno"), "ru": ("ну",)}


def _share_other(jobs: list, lang: str) -> float:
    voices = [job[3] for _kind, job in jobs if job[2] == lang]
    return float(np.mean([v.engine != "espeak" for v in voices]))


@pytest.mark.parametrize("frac", [0.0, 0.12, 0.25, 0.5])
def test_non_espeak_voices_get_the_asked_share(frac: float) -> None:
    jobs = bank_jobs(VOICES, 200, NEG, 50, 200, np.random.default_rng(3), other_frac=frac)
    assert _share_other(jobs, "en") == pytest.approx(frac, abs=0.03)
    assert _share_other(jobs, "ru") == 0.0  # a language without such voices keeps espeak-ng


def test_the_default_share_keeps_a_seed_s_test_bank() -> None:
    """Test banks are rebuilt from their seed in every round: the default must give the same plan as before."""
    a = bank_jobs(VOICES, 5, NEG, 2, 3, np.random.default_rng(12))
    b = bank_jobs(VOICES, 5, NEG, 2, 3, np.random.default_rng(12), other_frac=0.12)
    assert a == b
    assert sum(kind == "kw" for kind, _ in a) == 5 * len(keyword_texts())


def test_voices_set_aside_leave_the_plan_and_a_misspelt_one_is_named() -> None:
    from speech.kwsdata import without_voices

    rest = without_voices(VOICES, ["flite:kal"])
    assert [v.id for v in rest["en"]] == [v.id for v in VOICES["en"] if v.id != "flite:kal"]
    assert rest["ru"] == VOICES["ru"]
    jobs = bank_jobs(rest, 50, NEG, 5, 20, np.random.default_rng(4), other_frac=0.5)
    assert "flite:kal" not in {job[3].id for _kind, job in jobs}
    with pytest.raises(ValueError, match="flite:sIt"):
        without_voices(VOICES, ["flite:sIt"])


def test_a_bank_of_a_few_english_voices_plans_english_only() -> None:
    only = {"en": [Voice("flite", "slt", "en")], "ru": []}
    jobs = bank_jobs(only, 3, NEG, 2, 4, np.random.default_rng(5))
    assert {job[2] for _kind, job in jobs} == {"en"}
    assert {job[3].id for _kind, job in jobs} == {"flite:slt"}
    n_en_forms = sum(lang == "en" for _cls, lang, _text in keyword_texts())
    assert sum(kind == "kw" for kind, _ in jobs) == 3 * n_en_forms
    assert sum(kind == "neg" for kind, _ in jobs) == 2 * len(NEG["en"])
    assert sum(kind == "sent" for kind, _ in jobs) == 4
