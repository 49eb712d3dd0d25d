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
