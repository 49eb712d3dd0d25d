"""Real human voices from Debian packages: negatives (and a few "uno"s) for the keyword spotter, and a real-voice
false-alarm guide.

Why: every part of the spotter was trained on synthetic speech only, and each part alone fires 80-220 times an hour
on real people saying digits (stop 49's diagnosis); the synthetic guides could no longer tell a change that helps
on real voices from one that hurts. Debian's main archive ships real recordings under free licences: the telephone
prompts of Asterisk (CC BY-SA 3.0; US English and Mexican Spanish by one speaker, Italian by two, Canadian French,
Russian, Colombian Spanish and French by others; 8 kHz) and KLettres' letters and syllables (GPL-2+; real speakers
of 20 languages; 44.1 kHz). They are installed with apt (`REAL_VOICE_PACKAGES`, `make speech-real-voices`), never
committed, and nothing here is downloaded at run time.

Speakers are split whole: `train` ones may be learnt from; `dev` ones (Asterisk's US English Allison since stop 51,
Canadian French June, the Russian IVR voice, KLettres' British English) are only listened to, to count false alarms a
round may be tuned on (stop 50's parts learnt from Allison; no shipped part did). The shared real spoken digits stay
for measuring only.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path

import numpy as np

from speech import augment
from speech.features import RATE, WINDOW_S
from speech.kwsdata import Banks, Utt, babble, build_windows, noise_bed
from speech.synth import resample
from speech.vocab import CLASSES

WIN_N = int(WINDOW_S * RATE)

#: the Debian packages the real voices come from (all in bookworm's main archive)
REAL_VOICE_PACKAGES: tuple[str, ...] = (
    "asterisk-core-sounds-en-wav", "asterisk-core-sounds-es-wav", "asterisk-core-sounds-fr-wav",
    "asterisk-core-sounds-it-wav", "asterisk-core-sounds-ru-wav", "asterisk-prompt-es-co",
    "asterisk-prompt-fr-armelle", "asterisk-prompt-it-menardi-wav", "klettres-data")

ASTERISK = Path("usr/share/asterisk/sounds")
KLETTRES = Path("usr/share/klettres")


@dataclass(frozen=True)
class RealSource:
    """One real speaker: where their recordings lie (globs under the file-system root), language and split."""

    speaker: str
    lang: str
    globs: tuple[str, ...]
    split: str  # "train" or "dev"


def _klettres(lang: str, split: str = "train") -> RealSource:
    return RealSource(f"klettres:{lang}", lang.split("_")[0],
                      (f"{KLETTRES}/{lang}/alpha/*.ogg", f"{KLETTRES}/{lang}/syllab/*.ogg"), split)


KLETTRES_LANGS = ("ar", "cs", "da", "de", "en", "es", "fr", "he", "hu", "id", "it", "lt", "ml", "nb", "nds", "nl",
                  "nn", "pt_BR", "ru", "tn", "uk")

REAL_SOURCES: tuple[RealSource, ...] = (
    RealSource("asterisk:es_MX_f_Allison", "es", (f"{ASTERISK}/es_MX_f_Allison/**/*.wav",), "train"),
    RealSource("asterisk:it_IT_m_Carlo", "it", (f"{ASTERISK}/it_IT_m_Carlo/**/*.wav",), "train"),
    RealSource("asterisk:it_IT_f_Menardi", "it", (f"{ASTERISK}/it_IT_f_Menardi/**/*.wav",), "train"),
    RealSource("asterisk:es_CO", "es", (f"{ASTERISK}/es/**/*.gsm", f"{ASTERISK}/digits/es/*.gsm"), "train"),
    RealSource("asterisk:fr_armelle", "fr", tuple(f"{ASTERISK}/{d}/**/*.gsm" for d in
                                                  ("fr", "digits/fr", "letters/fr", "phonetic/fr", "dictate/fr")),
               "train"),
    *(_klettres(lang) for lang in KLETTRES_LANGS),
    # held out whole: a false-alarm guide on real voices a round may be tuned on (since stop 51 with Asterisk's
    # US English speaker: the French and Russian voices alone did not predict false alarms on English speakers)
    RealSource("asterisk:en_US_f_Allison", "en", (f"{ASTERISK}/en_US_f_Allison/**/*.wav",), "dev"),
    RealSource("asterisk:fr_CA_f_June", "fr", (f"{ASTERISK}/fr_CA_f_June/**/*.wav",), "dev"),
    RealSource("asterisk:ru_RU_f_IvrvoiceRU", "ru", (f"{ASTERISK}/ru_RU_f_IvrvoiceRU/**/*.wav",), "dev"),
    _klettres("en_GB", "dev"),
)

# numbers that end in "uno" (ventuno, veintiuno, ...): neither a keyword nor a fair negative
_UNO_ENDINGS = {"es": {"21"}, "it": {"21", "31", "41", "51", "61", "71", "81", "91"}}


def clip_label(src: RealSource, path: Path) -> str | None:
    """The class of one recording: "uno" for the Spanish and Italian "1" (uno), None for a recording left out
    (silence, anything holding "pass" as in "password", numbers ending in "uno"), else "other"."""
    parts = set(path.parts)
    stem = path.stem
    if "silence" in parts or "pass" in stem.lower():
        return None
    if "digits" in parts and src.lang in _UNO_ENDINGS:
        if stem == "1":
            return "uno"
        if stem in _UNO_ENDINGS[src.lang]:
            return None
    return "other"


def decode(path: Path) -> np.ndarray:
    """Any file sox reads (wav, ogg, raw GSM), as 16 kHz mono float32 at peak 0.5 (the banks' level)."""
    try:
        raw = subprocess.run(["sox", str(path), "-t", "raw", "-e", "floating-point", "-b", "32", "-c", "1", "-"],
                             capture_output=True, check=True, timeout=60).stdout
        rate = subprocess.run(["soxi", "-r", str(path)], capture_output=True, check=True, text=True,
                              timeout=60).stdout
    except (OSError, subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        raise ValueError(f"cannot decode real recording {path}: {exc}") from None
    x = resample(np.frombuffer(raw, np.float32).copy(), int(float(rate.strip())), RATE)
    peak = float(np.max(np.abs(x))) if x.size else 0.0
    return (x / peak * 0.5).astype(np.float32) if peak > 1e-4 else x


def source_files(src: RealSource, root: Path = Path("/")) -> list[Path]:
    """The recordings of one speaker that exist under `root`, sorted (empty where the package is absent)."""
    files: set[Path] = set()
    for g in src.globs:
        files.update(p for p in root.glob(g) if p.is_file())
    return sorted(files)


def _load_one(args: tuple[RealSource, Path]) -> Utt | None:
    src, path = args
    label = clip_label(src, path)
    if label is None:
        return None
    try:
        x = decode(path)
    except ValueError:
        return None
    if x.size < 0.15 * RATE or float(np.max(np.abs(x))) < 1e-3:
        return None
    return Utt(path.stem, label, src.lang, src.speaker, x)


def load_real(split: str, root: Path = Path("/"), workers: int = 2) -> Banks:
    """The real recordings of one split: `keywords` (the few "uno"s, train only) and `negatives` (all else).
    Raises FileNotFoundError naming the packages when none are installed."""
    from tqdm import tqdm

    jobs = [(s, p) for s in REAL_SOURCES if s.split == split for p in source_files(s, root)]
    if not jobs:
        raise FileNotFoundError(f"no real voices of split {split!r} under {root}: install the Debian packages "
                                f"{' '.join(REAL_VOICE_PACKAGES)} (make speech-real-voices)")
    with get_context("fork").Pool(workers) as pool:
        utts = [u for u in tqdm(pool.imap(_load_one, jobs, chunksize=16), total=len(jobs),
                                desc=f"real voices ({split})") if u is not None]
    banks = Banks()
    for u in utts:
        (banks.keywords if u.cls != "other" else banks.negatives).append(u)
    if split == "dev":  # a guide counts false alarms only: a keyword said by a dev speaker would be no alarm
        banks.negatives += banks.keywords
        banks.keywords = []
    return banks


def dev_stream(dev: Banks, seed: int = 5000, gap_s: tuple[float, float] = (0.2, 0.8)) -> np.ndarray:
    """The dev speakers' recordings one after another (shuffled, short pauses), scaled to peak 0.7 as
    `speech.evaluate.digits_stream` lays the real digits: continuous real speech with no keyword in it."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(dev.negatives))
    pieces: list[np.ndarray] = []
    for i in order:
        pieces.append(dev.negatives[int(i)].audio)
        pieces.append(np.zeros(int(rng.uniform(*gap_s) * RATE), np.float32))
    y = np.concatenate(pieces) if pieces else np.zeros(RATE, np.float32)
    return (y / (np.max(np.abs(y)) + 1e-9) * 0.7).astype(np.float32)


# ---------------------------------------------------------------- training windows


def telephone(x: np.ndarray) -> np.ndarray:
    """Through an 8 kHz line and back: what every Asterisk recording went through. Keyword windows get it too, so a
    missing top octave never says "other"."""
    return resample(resample(x, RATE, 8000), 8000, RATE)[:len(x)]


def _place_end(fg: np.ndarray, x: np.ndarray, rng: np.random.Generator) -> tuple[int, int]:
    x = x[:WIN_N]
    end = WIN_N - int(rng.integers(0, WIN_N - len(x) + 1) * (rng.random() ** 2))
    fg[end - len(x):end] += x
    return end - len(x), end


def make_real_example(rng: np.random.Generator, real: Banks, banks: Banks,
                      by_class: dict[str, list[Utt]]) -> tuple[np.ndarray, int]:
    """One labelled 1.2 s window in which real voices take part: a real recording (other), a synthetic keyword
    after a real word and over real babble (the keyword), a real "uno", or real babble alone (other)."""
    fg = np.zeros(WIN_N, np.float32)
    label = 0
    ref: np.ndarray | None = None
    tele = False
    r = rng.random()
    if r < 0.42:  # real speech, cut anywhere: other
        for _ in range(1 + int(rng.random() < 0.3)):
            x = real.negatives[int(rng.integers(len(real.negatives)))].audio
            if len(x) > WIN_N:
                off = int(rng.integers(0, len(x) - WIN_N + 1))
                fg += x[off:off + WIN_N]
            else:
                s = int(rng.integers(0, WIN_N - len(x) + 1))
                fg[s:s + len(x)] += x
            ref = x
    elif r < 0.74:  # a synthetic keyword, often right after a real word
        cls = CLASSES[1 + int(rng.integers(len(CLASSES) - 1))]
        x = by_class[cls][int(rng.integers(len(by_class[cls])))].audio
        start, _ = _place_end(fg, x, rng)
        if rng.random() < 0.5 and start > 0.15 * RATE:
            p = real.negatives[int(rng.integers(len(real.negatives)))].audio
            pe = start - int(rng.uniform(0.05, 0.3) * RATE)
            take = min(len(p), pe)
            if take > 0:
                fg[pe - take:pe] += p[len(p) - take:] * 10 ** (rng.uniform(-6, 3) / 20)
        label, ref, tele = CLASSES.index(cls), x, rng.random() < 0.4
    elif r < 0.77 and real.keywords:  # a real "uno", its speed changed
        u = real.keywords[int(rng.integers(len(real.keywords)))]
        x = resample(u.audio, int(RATE * float(rng.uniform(0.87, 1.15))), RATE)
        _place_end(fg, x, rng)
        label, ref = CLASSES.index(u.cls), x
    # else: background alone
    if rng.random() < 0.5 and np.any(fg):
        fg = augment.reverberate(fg, rng)
    active = ref[np.abs(ref) > 0.01] if ref is not None else np.zeros(0, np.float32)
    ref_rms = augment.rms(active) if active.size else 0.1
    u = rng.random()
    if u < 0.5:
        snr, noise = float(rng.uniform(0, 20)), babble(WIN_N, rng, real.negatives)
    elif u < 0.8:
        snr, noise = float(rng.uniform(0, 25)), noise_bed(WIN_N, rng, banks.sentences)
    else:
        snr, noise = 50.0, noise_bed(WIN_N, rng, banks.sentences, kind="colour")
    y = augment.mix_snr(fg, noise, snr, ref_rms=ref_rms)
    if tele:
        y = telephone(y)
    elif rng.random() < 0.2:
        y = augment.band_limit(y, rng)
    y = y / (float(np.max(np.abs(y))) + 1e-9) * 10 ** (rng.uniform(-40, -1) / 20)
    return y.astype(np.float32), label


def build_real_examples(real_path: Path, bank_path: Path, n: int, seed: int,
                        workers: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """`n` labelled log-mel windows with real voices (`make_real_example`): real recordings saved by `load_real`
    at `real_path`, synthetic keywords and backgrounds from the training banks at `bank_path`."""
    return build_windows(make_real_example, (real_path, bank_path), n, seed, workers,
                         desc="real-voice windows (x500)")


def with_real_voices(syn: Banks, real: Banks, seed: int, n_long: int = 900, real_keywords: bool = True) -> Banks:
    """A synthetic training bank with the real train speakers in it, for the speech-embedding head's table
    recordings (`speech.embed_data`): real recordings up to 1.5 s go beside the near misses, `n_long` of the longer
    ones (drawn with `seed`) among the talk, so real voices are spoken and in the babble too; the real "uno"s join
    the keywords when `real_keywords` (stop 50's HR was built without them)."""
    short = [u for u in real.negatives if len(u.audio) <= 1.5 * RATE]
    long_ = [u for u in real.negatives if len(u.audio) > 1.5 * RATE]
    pick = np.random.default_rng(seed).choice(len(long_), min(n_long, len(long_)), replace=False)
    return Banks(keywords=syn.keywords + (real.keywords if real_keywords else []), negatives=syn.negatives + short,
                 sentences=syn.sentences + [long_[int(i)] for i in pick])


def summary(banks: Banks, speakers: Sequence[str] | None = None) -> dict[str, dict[str, float]]:
    """Per speaker: recordings and minutes (what a round's note reports)."""
    out: dict[str, dict[str, float]] = {}
    for u in banks.negatives + banks.keywords:
        if speakers is not None and u.voice not in speakers:
            continue
        d = out.setdefault(u.voice, {"recordings": 0, "minutes": 0.0, "uno": 0})
        d["recordings"] += 1
        d["minutes"] += len(u.audio) / RATE / 60
        d["uno"] += int(u.cls == "uno")
    return out
