"""Keywords spoken by SVOX Pico's voices: six more speakers recorded from real people, two of them never trained on.

Why: the keyword spotter's gap is real voices. Its training speakers are espeak-ng's formant voices plus eight
flite/festival voices and festival's speakers of other languages; parts trained harder on those few fire more on
real people (stops 49-55). Pico (PyPI ttspico, Apache-2.0) ships HMM voices of six real speakers, none of them in
any shipped part: American and British English, and German, Spanish, French and Italian speakers who say "uno"
their way and the English colours as loanwords. One stop's probe (the shipped model, one clean rendition each)
found 3 of the 6 English keywords said by en-US and 2 by en-GB.

`HELD_OUT_PICO` (British English and French) are never trained on: `pico_guide_bank` renders them as a guide of
speakers no part has heard, scored like the test (`unotable eval-speech --bank`). The other four go into training
through `pico_train_bank`. Pico's voices are kept out of `speech.synth.list_voices`, so every seed of the test and
of earlier round sets renders the bank it always rendered.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from speech.accents import ACCENT_NEGATIVES, voice_jobs
from speech.kwsdata import Banks, Job, bank_jobs, render_banks, save_banks
from speech.synth import SynthError, Voice, pico_voices
from speech.vocab import NEGATIVE_WORDS

#: never trained on: a British English speaker and a French one, the guide of speakers no part has heard
HELD_OUT_PICO = frozenset({"en-GB", "fr-FR"})

#: how Pico's speakers of other languages say the keywords: class -> ((language of the word, text), ...). A
#: Latin-script "uno" is read /uno/, the Russian way (French reads "u" /y/, so it is written "ouno"); the English
#: colours and "pass" are loanwords in the speaker's spelling.
PICO_ACCENT_FORMS: dict[str, dict[str, tuple[tuple[str, str], ...]]] = {
    "de": {"uno": (("ru", "uno"),), "red": (("en", "red"),), "yellow": (("en", "jello"),),
           "green": (("en", "grien"),), "blue": (("en", "bluh"),), "pass": (("en", "pass"),)},
    "es": {"uno": (("ru", "uno"),), "red": (("en", "red"),), "yellow": (("en", "yelou"),),
           "green": (("en", "grin"),), "blue": (("en", "blu"),), "pass": (("en", "pas"),)},
    "fr": {"uno": (("ru", "ouno"),), "red": (("en", "rède"),), "yellow": (("en", "yélo"),),
           "green": (("en", "grine"),), "blue": (("en", "blou"),), "pass": (("en", "passe"),)},
    "it": {"uno": (("ru", "uno"),), "red": (("en", "red"),), "yellow": (("en", "iellou"),),
           "green": (("en", "grin"),), "blue": (("en", "blu"),), "pass": (("en", "pass"),)},
}


def split_pico_voices() -> tuple[list[Voice], list[Voice]]:
    """(training voices, held-out voices) among Pico's voices; both empty where ttspico is not installed."""
    train, held = [], []
    for v in pico_voices():
        (held if v.name in HELD_OUT_PICO else train).append(v)
    return train, held


def pico_jobs(voices: Sequence[Voice], n_kw: int, n_neg: int, n_sent: int, seed: int,
              uno_factor: int = 3) -> list[tuple[str, Job]]:
    """(kind, render job) for Pico voices. English voices: `n_kw` renditions of every English keyword form, `n_neg`
    of every English near miss, `n_sent` sentences of English table talk, as `speech.kwsdata.bank_jobs` draws them.
    Voices of other languages: `n_kw` of each loanword (`uno_factor` times as many "uno"), 4 x `n_neg` words of
    their own (drawn from one shared list, where the English voices say each near miss `n_neg` times) and `n_sent`
    sentences, so that no voice ever means a keyword."""
    rng = np.random.default_rng(seed)
    english = [v for v in voices if v.lang == "en"]
    jobs: list[tuple[str, Job]] = []
    if english:
        jobs += bank_jobs({"en": english}, n_kw, {"en": NEGATIVE_WORDS["en"]}, n_neg, n_sent, rng, other_frac=1.0)
    for v in voices:
        if v.lang != "en":
            jobs += voice_jobs(rng, v, PICO_ACCENT_FORMS[v.lang], ACCENT_NEGATIVES["latin"], n_kw, 4 * n_neg, n_sent,
                               uno_factor)
    return jobs


def _voices(held_out: bool) -> list[Voice]:
    train, held = split_pico_voices()
    voices = held if held_out else train
    if not voices:
        raise SynthError("SVOX Pico is not installed (PyPI package ttspico, in the training extra): no Pico voices")
    return voices


def pico_train_bank(n_kw: int, n_neg: int, n_sent: int, seed: int, workers: int = 2) -> Banks:
    """A bank said by Pico's training voices (all but `HELD_OUT_PICO`); failed syntheses are dropped."""
    return render_banks(pico_jobs(_voices(False), n_kw, n_neg, n_sent, seed), workers, desc="pico voices")


def pico_guide_bank(n_kw: int, n_neg: int, n_sent: int, seed: int, workers: int = 2) -> Banks:
    """A bank said only by the held-out Pico voices, the guide of speakers no part has heard."""
    return render_banks(pico_jobs(_voices(True), n_kw, n_neg, n_sent, seed), workers, desc="pico guide")


def ensure_pico_test_bank(data: Path, seed: int = 103, workers: int = 2) -> Path | None:
    """`data/banks_pico_test.pkl`, the held-out Pico voices' test bank that `unotable eval-speech` scores beside the
    test (rendered once, in under a minute, and kept); None where ttspico is not installed."""
    path = data / "banks_pico_test.pkl"
    if not path.exists():
        if not split_pico_voices()[1]:
            return None
        save_banks(pico_guide_bank(20, 3, 60, seed=seed, workers=workers), path)
    return path
