"""Synthesis helpers (used by training and the demo maker) and the voice split."""

from __future__ import annotations

import numpy as np
import pytest

from speech.synth import RATE, Voice, list_voices, mix_at, synthesize, trim_silence
from speech.vocab import class_of_text, held_out_variants, is_held_out, keyword_texts, split_voices

from .conftest import needs_espeak


@needs_espeak()
@pytest.mark.parametrize("voice,text", [(Voice("espeak", "en-us", "en", "f3"), "uno"),
                                        (Voice("espeak", "ru", "ru"), "зелёный")])
def test_synthesize_gives_16k_int16_speech(voice: Voice, text: str) -> None:
    x = synthesize(text, voice)
    assert x.dtype == np.int16
    assert 0.15 * RATE < len(x) < 1.5 * RATE
    assert np.abs(x).max() > 10000  # peak-normalised, not silence


@needs_espeak()
def test_slower_speech_is_longer() -> None:
    v = Voice("espeak", "en-gb", "en")
    assert len(synthesize("yellow", v, speed=0.8)) > len(synthesize("yellow", v, speed=1.3))


def test_mix_at_places_and_grows() -> None:
    track = np.zeros(RATE, np.int16)
    clip = np.full(RATE // 2, 1000, np.int16)
    out = mix_at(track, clip, 0.75)
    assert len(out) == int(1.25 * RATE)
    assert out[int(0.74 * RATE)] == 0 and out[int(0.76 * RATE)] == 1000
    with pytest.raises(ValueError):
        mix_at(track, clip, -1)


def test_trim_silence() -> None:
    x = np.zeros(RATE, np.float32)
    x[6000:8000] = 0.5
    y = trim_silence(x)
    assert 2000 <= len(y) <= 2000 + 2 * 320 + 320


@needs_espeak()
def test_held_out_voices_are_disjoint_and_stable() -> None:
    for lang in ("en", "ru"):
        train, test = split_voices(lang)
        assert train and test
        assert not {v.id for v in train} & {v.id for v in test}
        assert all(is_held_out(v) for v in test)
    assert held_out_variants() == held_out_variants()
    assert len(list_voices("ru")) > 50


def test_keyword_classes() -> None:
    assert class_of_text("УНО") == "uno" and class_of_text("желтый") == "yellow"
    assert class_of_text("one") is None
    langs = {(c, lang) for c, lang, _ in keyword_texts()}
    assert ("uno", "ru") in langs and ("pass", "en") in langs


def _flite_phones(text: str) -> str:
    import subprocess

    out = subprocess.run(["flite", "-voice", "slt", "-t", text, "-ps", "-o", "/dev/null"], capture_output=True,
                         text=True, check=True).stdout
    return " ".join(out.split())


def test_engine_text_respells_uno_for_flite_and_festival_english_only() -> None:
    from speech.synth import engine_text

    flite = Voice("flite", "slt", "en")
    assert engine_text("UNO!", flite) == "oono!"
    assert engine_text("I said uno, uno", flite) == "I said oono, oono"
    assert engine_text("Juno unobtainium", flite) == "Juno unobtainium"  # whole words only
    assert engine_text("uno", Voice("festival", "voice_kal_diphone", "en")) == "oono"
    assert engine_text("uno", Voice("espeak", "en-us", "en")) == "uno"  # espeak-ng says /'u:noU/ already
    assert engine_text("uno", Voice("festival", "voice_czech_dita", "cs")) == "uno"  # read the Czech way


@pytest.mark.skipif(__import__("shutil").which("flite") is None, reason="flite not installed (Debian package flite)")
def test_flite_says_uno_as_players_do_only_respelt() -> None:
    """flite's lexicon reads "uno" as "a-NO" (ax n ow); what synthesis hands it must come out /u:noU/ (uw n ow)."""
    from speech.synth import engine_text

    assert "ax n ow" in _flite_phones("uno")
    assert "uw n ow" in _flite_phones(engine_text("uno", Voice("flite", "slt", "en")))
