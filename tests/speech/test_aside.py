"""The speaker set aside as a guide (`speech.vocab.ASIDE_SPEAKER`): her bank, rendered for real by flite and festival,
and a training bank that leaves her out."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from speech.kwsdata import aside_banks, build_banks
from speech.synth import list_voices
from speech.vocab import ASIDE_SPEAKER, is_held_out

INSTALLED = {v.id for v in list_voices("en")}
needs_aside = pytest.mark.skipif(not set(ASIDE_SPEAKER) <= INSTALLED or shutil.which("espeak-ng") is None,
                                 reason=f"{', '.join(ASIDE_SPEAKER)} (flite, festvox-us-slt-hts) not all installed")


def test_the_aside_speaker_is_a_training_voice_not_a_test_one() -> None:
    """Setting aside a test voice would measure nothing new; the aside voices come out of the training split."""
    from speech.synth import Voice

    for vid in ASIDE_SPEAKER:
        engine, name = vid.split(":", 1)
        assert not is_held_out(Voice(engine, name, "en"))


@needs_aside
def test_her_bank_is_hers_alone_and_the_training_bank_has_none_of_her() -> None:
    aside = aside_banks(ASIDE_SPEAKER, 1, 0, 2, seed=7, workers=1)
    said = {u.voice for u in aside.keywords + aside.sentences}
    assert said <= set(ASIDE_SPEAKER) and said
    assert {u.cls for u in aside.keywords} == {"uno", "red", "yellow", "green", "blue", "pass"}
    assert {u.lang for u in aside.keywords + aside.sentences} == {"en"}
    assert all(u.audio.size > 1000 for u in aside.keywords)
    train = build_banks(False, 2, 0, 2, seed=7, workers=1, other_frac=1.0, exclude=ASIDE_SPEAKER)
    heard = {u.voice for u in train.keywords + train.negatives + train.sentences}
    assert heard and not heard & set(ASIDE_SPEAKER)
    assert any(not v.startswith("espeak") for v in heard)  # the other voices not made by espeak-ng stay in


def test_the_kept_guide_is_reused_and_another_speaker_gets_a_file_of_her_own(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from speech import rounds
    from speech.kwsdata import Banks

    made: list[tuple[str, ...]] = []

    def fake(ids: tuple[str, ...], *_a: object, **_k: object) -> Banks:  # the rendering itself is tested above; here only which file holds which speaker
        made.append(tuple(ids))
        return Banks()

    monkeypatch.setattr(rounds, "aside_banks", fake)
    first = rounds.ensure_aside_bank(tmp_path)
    assert first.name == "banks_aside.pkl" and first.exists()
    assert rounds.ensure_aside_bank(tmp_path) == first and made == [ASIDE_SPEAKER]  # kept, not rendered again
    other = rounds.ensure_aside_bank(tmp_path, ("flite:awb",))
    assert other != first and other.name == "banks_aside_flite-awb.pkl"
    assert made == [ASIDE_SPEAKER, ("flite:awb",)]
