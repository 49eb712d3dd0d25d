"""The evaluation report's table of recall per synthesiser (`speech.evaluate.engine_lang`, `format_report`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from speech import evaluate as ev
from speech.kwsdata import save_banks
from speech.mining import render_bank

from .conftest import MODEL, needs_espeak, needs_model


@pytest.mark.parametrize(("voice", "lang", "kind"), [
    ("espeak:en-gb-x-rp+norbert", "en", "espeak/en"),
    ("espeak:ru", "ru", "espeak/ru"),
    ("flite:rms", "en", "flite/en"),
    ("festival:voice_ked_diphone", "en", "festival/en"),
    ("festival:voice_msu_ru_nsh_clunits", "ru", "festival/ru"),
])
def test_a_word_is_put_under_its_synthesiser_and_language(voice: str, lang: str, kind: str) -> None:
    assert ev.engine_lang({"voice": voice, "lang": lang}) == kind


def _snr(hits_by_voice: dict[tuple[str, str], list[bool]]) -> dict[str, Any]:
    truth = [{"voice": v, "lang": lg} for (v, lg), hs in hits_by_voice.items() for _ in hs]
    hits = [h for hs in hits_by_voice.values() for h in hs]
    return {"recall": sum(hits) / len(hits), "by_kind_lang": {}, "by_class_lang": {}, "by_voice": {},
            "latency_median_s": 0.2, "extra_fires": 0,
            "by_engine_lang": ev.recall_by_engine(truth, hits)}


def test_the_report_gives_recall_per_synthesiser_at_every_noise_level() -> None:
    clean = _snr({("espeak:en-us+f5", "en"): [True, True, True, False], ("espeak:en-gb", "en"): [True] * 4,
                  ("flite:rms", "en"): [True, False], ("festival:voice_ked_diphone", "en"): [False, False]})
    noisy = _snr({("espeak:en-us+f5", "en"): [True, False, False, False], ("espeak:en-gb", "en"): [True] * 4,
                  ("flite:rms", "en"): [False, False], ("festival:voice_ked_diphone", "en"): [True, False]})
    assert clean["by_engine_lang"]["espeak/en"] == {"recall": 0.875, "n": 8}
    r = {"threshold": 0.35, "hop_s": 0.08, "snr": {"clean": clean, "10dB": noisy},
         "other_speech": {"false_alarms": 0, "hours": 1.0, "fa_per_hour": 0.0, "by_class": {}},
         "real_digits": {"skipped": "absent"}}
    lines = ev.format_report(r).splitlines()
    head = lines.index("recall per synthesiser (clean / 10dB):")
    assert lines[head + 1:head + 4] == ["    espeak/en      87.5% / 62.5% (n=8)",
                                        "    festival/en    0.0% / 50.0% (n=2)",
                                        "    flite/en       50.0% / 0.0% (n=2)"]


def test_a_report_saved_before_the_table_existed_still_prints() -> None:
    old = _snr({("espeak:ru", "ru"): [True]})
    del old["by_engine_lang"]
    r = {"threshold": 0.35, "hop_s": 0.08, "snr": {"10dB": old},
         "other_speech": {"false_alarms": 0, "hours": 1.0, "fa_per_hour": 0.0, "by_class": {}},
         "real_digits": {"skipped": "absent"}}
    text = ev.format_report(r)
    assert "recall per class at 10dB" in text and "synthesiser" not in text


@needs_espeak()
@needs_model()
def test_a_guide_bank_can_be_scored_without_reading_the_real_digits(tmp_path: Path) -> None:
    """`real_digits=False` (a round's own guide, e.g. the set-aside speaker) leaves the shared recordings unread."""
    bank = tmp_path / "bank.pkl"
    save_banks(render_bank(1, {"en": ("one",), "ru": ("ну",)}, 1, 2, seed=9), bank)
    r = ev.evaluate(bank, snrs=(None,), model_path=MODEL, real_digits=False)
    assert r["real_digits"] == {"skipped": "not asked for"}
    assert r["snr"]["clean"]["words"] == sum(r["snr"]["clean"]["by_engine_lang"][k]["n"]
                                             for k in r["snr"]["clean"]["by_engine_lang"])
    assert "real spoken digits: skipped (not asked for)" in ev.format_report(r)
