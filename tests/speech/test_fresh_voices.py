"""Fresh espeak-ng speakers (speech.fresh_voices): new variant files for a validation whose voices the model never
heard, and which are not the test's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from speech import fresh_voices as fv
from speech.synth import SynthError, Voice, synthesize_float
from speech.vocab import held_out_variants

from .conftest import needs_espeak

BASE = """language variant
name male3
gender male

pitch 80 122
formant 0 100 100 100
formant 1  96  97 100
formant 2  96  97 100
formant 3  96 103 100
formant 4  95 103 100
formant 5  95 103 100
formant 6 100 100 100

consonants 100
stressAdd 10 10 0 0 0 0 -30 -30
breath 0 0 0 0
"""


def _lines(text: str, key: str) -> list[list[str]]:
    return [ln.split() for ln in text.splitlines() if ln.split()[:1] == [key]]


@pytest.mark.parametrize("seed", range(8))
def test_a_fresh_variant_moves_the_whole_vocal_tract_and_keeps_the_rest(seed: int) -> None:
    out = fv.perturb_variant(BASE, "fresh9_01", np.random.default_rng(seed))
    assert _lines(out, "name") == [["name", "fresh9_01"]]
    assert "consonants 100" in out and "stressAdd 10 10 0 0 0 0 -30 -30" in out  # unknown lines kept
    assert len(_lines(out, "breath")) <= 1  # the old breath line replaced, not doubled
    base = {int(p[1]): float(p[2]) for p in _lines(BASE, "formant")}
    new = {int(p[1]): float(p[2]) for p in _lines(out, "formant")}
    assert new[0] == base[0] and new[6] == base[6]  # only formants 1-5 move
    ratios = np.array([new[k] / base[k] for k in range(1, 6)])
    lo = fv.TRACT_SCALE[0] * fv.FORMANT_JITTER[0] - 0.01
    hi = fv.TRACT_SCALE[1] * fv.FORMANT_JITTER[1] + 0.01
    assert np.all((ratios >= lo) & (ratios <= hi))
    # one scale for the tract: the formants move together, each only a little on its own
    assert ratios.max() / ratios.min() <= fv.FORMANT_JITTER[1] / fv.FORMANT_JITTER[0] + 0.02
    (_, lo_hz, hi_hz), = _lines(out, "pitch")
    assert fv.PITCH_HZ[0] <= int(lo_hz) < int(hi_hz)


def test_fresh_variants_differ_between_seeds_and_repeat_within_one() -> None:
    a = fv.perturb_variant(BASE, "x", np.random.default_rng(1))
    assert a == fv.perturb_variant(BASE, "x", np.random.default_rng(1))
    assert a != fv.perturb_variant(BASE, "x", np.random.default_rng(2))


@needs_espeak()
def test_fresh_variants_start_only_from_training_variants(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    used: list[str] = []
    real = fv.perturb_variant

    def spy(text: str, name: str, rng: np.random.Generator) -> str:
        used.append(_lines(text, "name")[0][1] if _lines(text, "name") else "")
        return real(text, name, rng)

    monkeypatch.setattr(fv, "perturb_variant", spy)
    names = fv.write_fresh_variants(tmp_path, 40, seed=3)
    assert len(names) == len(set(names)) == 40
    assert all((tmp_path / "espeak-ng-data" / "voices" / "!v" / n).is_file() for n in names)
    # variant files name themselves; none of the 40 bases may be a held-out (test) variant
    src = fv.espeak_data_dir() / "voices" / "!v"
    held_names = {_lines((src / v).read_text(errors="replace"), "name")[0][1] for v in held_out_variants()
                  if (src / v).is_file() and _lines((src / v).read_text(errors="replace"), "name")}
    assert used and not set(used) & held_names


@needs_espeak()
def test_a_fresh_voice_speaks_differently_and_a_missing_one_is_an_error(tmp_path: Path) -> None:
    voices = fv.fresh_voices(tmp_path, 2, seed=5)
    assert len(voices["en"]) == 2 * 8 and len(voices["ru"]) == 2 * 2
    v = voices["en"][0]
    assert v.id == f"espeak:{v.name}+{v.variant}"
    fresh = synthesize_float("yellow", v)
    plain = synthesize_float("yellow", Voice("espeak", v.name, "en"))
    assert len(fresh) > 1000 and np.abs(fresh).max() > 0.1
    assert len(fresh) != len(plain) or not np.allclose(fresh, plain)
    gone = Voice("espeak", "en-us", "en", "fresh5_99", data=str(tmp_path))
    with pytest.raises(SynthError, match="fresh5_99"):  # espeak-ng itself would quietly speak the plain voice
        synthesize_float("uno", gone)


@needs_espeak()
def test_a_fresh_bank_is_spoken_only_by_its_fresh_voices(tmp_path: Path) -> None:
    bank = fv.render_fresh_bank(tmp_path, 2, 1, 1, 1, seed=7, neg_words={"en": ["one"], "ru": ["ну"]}, workers=1)
    assert len(bank.keywords) >= 14 and len(bank.negatives) == 2 and len(bank.sentences) == 2
    utts = [*bank.keywords, *bank.negatives, *bank.sentences]
    assert {u.voice.split("+")[-1] for u in utts} <= {"fresh7_00", "fresh7_01"}
