"""Keywords spoken by festival's voices of other languages: more real speakers for the keyword spotter.

Why: English and Russian have a handful of non-espeak voices (flite, festival), and the shipped model learnt them
rather than the words: on the held-out festival voice `ked` it found 5% of the keywords in clean speech, on flite
`rms` 33%, against 85-98% on held-out espeak-ng variants. Debian also ships festival voices recorded from real
speakers of Czech, Italian, Finnish, Catalan, Hindi, Marathi and Telugu (a woman, a child, several men). Each says
"uno" as its language reads it (/uno/, the Russian way, close to the English /u:noU/) and the English colours and
"pass" as a speaker of that language says the loanword ("grín", "ग्रीन"); the Czech voices also say the Russian
colours (a Slavic accent). They say their own words for everything else, so a voice never means a keyword.

Two of them (`HELD_OUT_ACCENT_VOICES`) are never used for training: `unotable eval-speech` measures on them how well
the model hears a speaker it has never heard.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from speech.kwsdata import Banks, Job, render_banks
from speech.synth import ACCENT_VOICES, Voice, accent_voices


def _loanwords(uno: str, red: str, yellow: str, green: str, blue: str, pass_: str
               ) -> dict[str, tuple[tuple[str, str], ...]]:
    """The forms of a language whose speakers say "uno" their way and the English words as loanwords."""
    uno_lang = "ru" if uno == "uno" else "en"  # a Latin-script "uno" is read /uno/, the Russian way
    return {"uno": ((uno_lang, uno),), "red": (("en", red),), "yellow": (("en", yellow),), "green": (("en", green),),
            "blue": (("en", blue),), "pass": (("en", pass_),)}


#: spoken forms per voice language: class -> ((language of the word, text), ...); texts are in the voice's script
ACCENT_FORMS: dict[str, dict[str, tuple[tuple[str, str], ...]]] = {
    "cs": {
        "uno": (("ru", "uno"),),
        "red": (("en", "red"), ("ru", "krasnyj"), ("ru", "krasnaja")),
        "yellow": (("en", "jelou"), ("ru", "žoltyj"), ("ru", "žoltaja")),
        "green": (("en", "grín"), ("ru", "zeljonyj"), ("ru", "zeljonaja")),
        "blue": (("en", "blú"), ("ru", "sinij"), ("ru", "siňaja")),
        "pass": (("en", "pás"), ("ru", "pas")),
    },
    "it": _loanwords("uno", "red", "iellou", "grin", "blu", "pass"),
    "fi": _loanwords("uno", "red", "jelou", "griin", "bluu", "pass"),
    "ca": _loanwords("uno", "red", "ielou", "grin", "blu", "pas"),
    "hi": _loanwords("ऊनो", "रेड", "येलो", "ग्रीन", "ब्लू", "पास"),
    "te": _loanwords("ఊనో", "రెడ్", "యెల్లో", "గ్రీన్", "బ్లూ", "పాస్"),
}
ACCENT_FORMS["mr"] = ACCENT_FORMS["hi"]

#: words that are not keywords, per script: numbers, near misses of "uno" ("Juno", "no", "una", "ono"), the
#: colours in the speaker's own language (a Catalan "blau" is not "blue"), and table talk
ACCENT_NEGATIVES: dict[str, tuple[str, ...]] = {
    "latin": (
        "no", "ano", "ne", "ono", "una", "nove", "jedna", "jeden", "dva", "tri", "Bruno", "Juno", "luna", "kino",
        "vino", "okno", "numero", "karta", "karty", "pronto", "ciao", "grazie", "ahoj", "moment", "hotovo", "sedm",
        "osm", "nula", "deset", "jo", "Uma", "Bono", "Reno", "Arno", "mono", "duo", "yksi", "kaksi", "kolme",
        "anna", "Oona", "Nina", "zero", "otto", "sette", "bene", "basta", "pasta", "rosso", "verde", "giallo",
        "azzurro", "modra", "zelena", "cervena", "zluta", "punainen", "sininen", "keltainen", "vermell", "groc",
        "verd", "blau", "uni", "unit", "tuna", "puno", "buono", "nuovo", "dobre", "hra", "moje", "tvoje", "tady",
        "bravo", "vinto", "ancora", "kiitos", "hyvin", "peli", "vuoro", "gracies", "molt", "torn", "carta",
    ),
    "deva": (
        "नो", "यूनो", "जूनो", "वन", "ब्रूनो", "लूना", "नौ", "दो", "तीन", "हाँ", "नहीं", "ठीक है", "चलो", "पत्ता",
        "बारी", "रंग", "लाल", "पीला", "हरा", "नीला", "अच्छा", "एक", "सात", "शून्य", "बस", "मेरी बारी", "जल्दी",
        "पानी", "खेल", "जीत", "नंबर",
    ),
    "telu": (
        "నో", "జూనో", "వన్", "బ్రూనో", "లూనా", "అవును", "కాదు", "సరే", "ఒకటి", "రెండు", "మూడు", "ఎరుపు", "పసుపు",
        "ఆకుపచ్చ", "నీలం", "ఆట", "కార్డు", "నా వంతు", "త్వరగా", "నీళ్ళు", "గెలుపు",
    ),
}

#: never used for training: a Czech man and an Italian woman, to measure unheard speakers
HELD_OUT_ACCENT_VOICES = frozenset({"voice_czech_machac", "voice_lp_diphone"})


def script_of(voice: Voice) -> str:
    """The script a voice's text is written in ("latin", "deva" or "telu")."""
    return ACCENT_VOICES[voice.name][1]


def split_accent_voices() -> tuple[list[Voice], list[Voice]]:
    """(training voices, held-out voices) among the installed festival voices of other languages."""
    train, test = [], []
    for v in accent_voices():
        (test if v.name in HELD_OUT_ACCENT_VOICES else train).append(v)
    return train, test


def own_words_sentence(rng: np.random.Generator, words: Sequence[str]) -> str:
    """A run of 3-9 words drawn from `words` (a voice's own words, none of them a keyword)."""
    return " ".join(words[int(rng.integers(len(words)))] for _ in range(int(rng.integers(3, 10))))


def voice_jobs(rng: np.random.Generator, v: Voice, forms: dict[str, tuple[tuple[str, str], ...]],
               own_words: Sequence[str], n_kw: int, n_neg: int, n_sent: int,
               uno_factor: int = 3) -> list[tuple[str, Job]]:
    """(kind, render job) for one speaker of another language: `n_kw` renditions of each of its keyword `forms`
    (`uno_factor` times as many of "uno", the call the table cares most about), `n_neg` words drawn from
    `own_words` and `n_sent` sentences of them, so that the voice never means a keyword. Shared by festival's
    speakers (`accent_jobs`) and SVOX Pico's (`speech.pico`)."""
    jobs: list[tuple[str, Job]] = []
    for cls, spoken in forms.items():
        for lang, text in spoken:
            n = n_kw * (uno_factor if cls == "uno" else 1)
            jobs += [("kw", (text, cls, lang, v, int(rng.integers(2**31)))) for _ in range(n)]
    for _ in range(n_neg):
        text = own_words[int(rng.integers(len(own_words)))]
        jobs.append(("neg", (text, "other", "xx", v, int(rng.integers(2**31)))))
    for _ in range(n_sent):
        jobs.append(("sent", (own_words_sentence(rng, own_words), "other", "xx", v, int(rng.integers(2**31)))))
    return jobs


def accent_jobs(voices: Sequence[Voice], n_kw: int, n_neg: int, n_sent: int, seed: int,
                uno_factor: int = 3) -> list[tuple[str, Job]]:
    """(kind, render job) for every voice (`voice_jobs` with its language's forms and its script's words)."""
    rng = np.random.default_rng(seed)
    jobs: list[tuple[str, Job]] = []
    for v in voices:
        jobs += voice_jobs(rng, v, ACCENT_FORMS[v.lang], ACCENT_NEGATIVES[script_of(v)], n_kw, n_neg, n_sent,
                           uno_factor)
    return jobs


def render_accent_bank(held_out: bool, n_kw: int, n_neg: int, n_sent: int, seed: int, workers: int = 2,
                       uno_factor: int = 3) -> Banks:
    """A bank spoken by the training (held_out=False) or held-out accent voices; failed syntheses are dropped."""
    train, test = split_accent_voices()
    jobs = accent_jobs(test if held_out else train, n_kw, n_neg, n_sent, seed, uno_factor)
    return render_banks(jobs, workers, desc="accent voices")


def merge_banks(*banks: Banks) -> Banks:
    """One bank holding every utterance of the given banks."""
    out = Banks()
    for b in banks:
        out.keywords += b.keywords
        out.negatives += b.negatives
        out.sentences += b.sentences
    return out
