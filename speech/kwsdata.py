"""Training and test material for the keyword spotter, synthesised here.

Why: no licensed English/Russian keyword corpus may be downloaded, so every example is made from the project's own
TTS voices (speech/synth.py) and acoustic generators (speech/augment.py). Two stages:

1. *banks*: each keyword, near-miss word and sentence of table talk rendered by many voices at varied speed and
   pitch (the slow part, done once, in a small process pool);
2. *examples*: 1.2 s windows assembled from the banks with a room, noise, music or babble at a random SNR, labelled
   with the keyword class that lies whole inside the window (or "other"; windows with half a keyword are left out,
   so that the model learns to answer only once the word is complete).

The test corpus uses only held-out voices (speech/vocab.py) and is laid out as long streams, so the evaluation runs
the same streaming detector as `unotable listen`.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path

import numpy as np

from speech import augment
from speech.features import WINDOW_S, logmel
from speech.synth import RATE, SynthError, Voice, resample, synthesize_float
from speech.vocab import CLASSES, FILLER_WORDS, NEGATIVE_WORDS, keyword_texts, split_voices

WIN_N = int(WINDOW_S * RATE)


@dataclass
class Utt:
    """One rendered utterance: its text, class ("other" for non-keywords), language, voice id and audio."""

    text: str
    cls: str
    lang: str
    voice: str
    audio: np.ndarray  # float32, 16 kHz, peak 0.5


@dataclass
class Banks:
    keywords: list[Utt] = field(default_factory=list)
    negatives: list[Utt] = field(default_factory=list)
    sentences: list[Utt] = field(default_factory=list)


Job = tuple[str, str, str, Voice, int]
"""One rendition to synthesise: (text, class, language, voice, seed)."""


def _render(job: Job) -> Utt | None:
    text, cls, lang, voice, seed = job
    rng = np.random.default_rng(seed)
    speed = float(rng.uniform(0.8, 1.35))
    pitch = int(rng.integers(15, 85))
    try:
        x = synthesize_float(text, voice, speed=speed, pitch=pitch)
    except SynthError:
        return None
    if voice.engine != "espeak":  # pitch/speed change by resampling for engines without a pitch control
        f = float(rng.uniform(0.88, 1.15))
        x = resample(x, int(RATE * f), RATE)
    if x.size < 0.08 * RATE:
        return None
    return Utt(text, cls, lang, voice.id, x.astype(np.float32))


def _pick_voice(rng: np.random.Generator, voices: Sequence[Voice], other_frac: float) -> Voice:
    """Random voice, giving non-espeak voices (few but very different) a fixed share of the renditions."""
    others = [v for v in voices if v.engine != "espeak"]
    esp = [v for v in voices if v.engine == "espeak"]
    if others and (not esp or rng.random() < other_frac):
        return others[int(rng.integers(len(others)))]
    return esp[int(rng.integers(len(esp)))]


def random_sentence(rng: np.random.Generator, lang: str, near_miss: float = 0.3) -> str:
    """A keyword-free sentence of table talk, sometimes with near-miss words in it."""
    n = int(rng.integers(3, 10))
    words = []
    for _ in range(n):
        pool = NEGATIVE_WORDS[lang] if rng.random() < near_miss else FILLER_WORDS[lang]
        words.append(pool[int(rng.integers(len(pool)))])
    return " ".join(words)


def fits_window(u: Utt) -> bool:
    """A keyword rendition must fit the model's 1.2 s window, with 50 ms to spare."""
    return u.audio.size <= WIN_N - 0.05 * RATE


def render_banks(jobs: Sequence[tuple[str, Job]], workers: int = 1, desc: str = "synthesising") -> Banks:
    """Render (kind, job) pairs, kind "kw", "neg" or "sent", into a bank; failed syntheses and keywords too long
    for the window are dropped. `workers` > 1 renders in a process pool (the order, and so the bank, is the same)."""
    from tqdm import tqdm

    todo = [j for _, j in jobs]
    results: list[Utt | None]
    if workers > 1:
        with get_context("fork").Pool(workers, initializer=os.nice, initargs=(5,)) as pool:
            results = list(tqdm(pool.imap(_render, todo, chunksize=8), total=len(todo), desc=desc, mininterval=20))
    else:
        results = [_render(j) for j in tqdm(todo, desc=desc, mininterval=20)]
    banks = Banks()
    for (kind, _), u in zip(jobs, results, strict=True):
        if u is None:
            continue
        if kind == "kw":
            if fits_window(u):
                banks.keywords.append(u)
        elif kind == "neg":
            banks.negatives.append(u)
        else:
            banks.sentences.append(u)
    return banks


def bank_jobs(voices: dict[str, Sequence[Voice]], n_kw: int, neg_words: dict[str, Sequence[str]], n_neg: int,
              n_sent: int, rng: np.random.Generator, other_frac: float = 0.12) -> list[tuple[str, Job]]:
    """(kind, job) for `n_kw` renditions of every keyword form, `n_neg` of every word of `neg_words` and `n_sent`
    sentences of table talk per language, each by a random voice of its language (`_pick_voice`), `other_frac` of
    them by a non-espeak voice (flite, festival) where the language has one."""
    jobs: list[tuple[str, Job]] = []
    for cls, lang, text in keyword_texts():
        if not voices.get(lang):
            continue  # a bank of a few named voices (`aside_banks`) may have none in a language
        for _ in range(n_kw):
            jobs.append(("kw", (text, cls, lang, _pick_voice(rng, voices[lang], other_frac), int(rng.integers(2**31)))))
    for lang, words in neg_words.items():
        if not voices.get(lang):
            continue
        for text in words:
            for _ in range(n_neg):
                jobs.append(("neg", (text, "other", lang, _pick_voice(rng, voices[lang], other_frac),
                                     int(rng.integers(2**31)))))
    for lang in ("en", "ru"):
        if not voices.get(lang):
            continue
        for _ in range(n_sent):
            jobs.append(("sent", (random_sentence(rng, lang), "other", lang, _pick_voice(rng, voices[lang], other_frac),
                                  int(rng.integers(2**31)))))
    return jobs


def without_voices(voices: dict[str, list[Voice]], ids: Collection[str]) -> dict[str, list[Voice]]:
    """`voices` less those whose id is in `ids`; an id that is none of them is named (a typo would otherwise leave
    a set-aside speaker in training unnoticed)."""
    known = {v.id for vs in voices.values() for v in vs}
    if missing := sorted(set(ids) - known):
        raise ValueError(f"no such voice to set aside: {', '.join(missing)} (installed: see `speech.synth.list_voices`)")
    return {lang: [v for v in vs if v.id not in ids] for lang, vs in voices.items()}


def build_banks(held_out: bool, n_kw: int, n_neg: int, n_sent: int, seed: int, workers: int = 2,
                other_frac: float = 0.12, exclude: Collection[str] = ()) -> Banks:
    """Render the banks with training voices (held_out=False) or held-out voices (held_out=True).

    `other_frac` is the share of renditions by non-espeak voices; the test banks keep the default, so a seed always
    gives the same test bank, while a training bank may raise it (there are few such voices, but they are the most
    unlike espeak-ng's, and the held-out ones are the hardest to hear). `exclude`: voice ids left out (a speaker set
    aside as a guide, `speech.vocab.ASIDE_SPEAKER`); without it a seed gives the bank it always gave.
    """
    rng = np.random.default_rng(seed)
    voices = {lang: split_voices(lang)[1 if held_out else 0] for lang in ("en", "ru")}
    if exclude:
        voices = without_voices(voices, exclude)
    return render_banks(bank_jobs(voices, n_kw, NEGATIVE_WORDS, n_neg, n_sent, rng, other_frac), workers)


def aside_banks(ids: Collection[str], n_kw: int, n_neg: int, n_sent: int, seed: int, workers: int = 2) -> Banks:
    """A bank said only by the voices `ids` (training voices a round set aside): every keyword form `n_kw` times,
    near misses, and table talk for the babble and the false-alarm stream, in the languages those voices speak.
    `unotable eval-speech --bank` scores a model on it as on the test."""
    rng = np.random.default_rng(seed)
    train = {lang: split_voices(lang)[0] for lang in ("en", "ru")}
    without_voices(train, ids)  # names any id that is not a training voice
    voices = {lang: [v for v in vs if v.id in ids] for lang, vs in train.items()}
    return render_banks(bank_jobs(voices, n_kw, NEGATIVE_WORDS, n_neg, n_sent, rng, other_frac=1.0), workers)


def save_banks(banks: Banks, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    for lst in (banks.keywords, banks.negatives, banks.sentences):
        for u in lst:
            u.audio = (np.clip(u.audio, -1, 1) * 32767).astype(np.int16)
    with open(path, "wb") as fh:
        pickle.dump(banks, fh, protocol=pickle.HIGHEST_PROTOCOL)
    for lst in (banks.keywords, banks.negatives, banks.sentences):
        for u in lst:
            u.audio = u.audio.astype(np.float32) / 32767.0


def load_banks(path: Path) -> Banks:
    with open(path, "rb") as fh:
        banks: Banks = pickle.load(fh)
    for lst in (banks.keywords, banks.negatives, banks.sentences):
        for u in lst:
            u.audio = u.audio.astype(np.float32) / 32767.0
    return banks


# ---------------------------------------------------------------- noise beds


def babble(n: int, rng: np.random.Generator, sentences: Sequence[Utt], talkers: int | None = None) -> np.ndarray:
    """Several overlapping streams of non-keyword speech, `n` samples long, normalised to rms 1."""
    talkers = int(rng.integers(2, 7)) if talkers is None else talkers
    y = np.zeros(n, np.float32)
    for _ in range(talkers):
        pos = -int(rng.integers(0, RATE))
        stream = np.zeros(n, np.float32)
        while pos < n:
            s = sentences[int(rng.integers(len(sentences)))].audio
            a, b = max(0, pos), min(n, pos + len(s))
            if b > a:
                stream[a:b] += s[a - pos:b - pos]
            pos += len(s) + int(rng.uniform(0.05, 0.5) * RATE)
        y += stream * 10 ** (rng.uniform(-6, 3) / 20)
    if rng.random() < 0.5:
        y = augment.reverberate(y, rng)
    return (y / max(augment.rms(y), 1e-9)).astype(np.float32)


def noise_bed(n: int, rng: np.random.Generator, sentences: Sequence[Utt], kind: str | None = None) -> np.ndarray:
    """One background: babble, table noise, music, coloured noise or a mix of them (rms 1)."""
    kind = kind or str(rng.choice(["babble", "table", "music", "colour", "mix"], p=[0.4, 0.2, 0.15, 0.1, 0.15]))
    if kind == "babble":
        return babble(n, rng, sentences)
    if kind == "table":
        return augment.table_noise(n, rng)
    if kind == "music":
        return augment.music(n, rng)
    if kind == "colour":
        return augment.coloured_noise(n, rng)
    y = babble(n, rng, sentences) + augment.table_noise(n, rng) * rng.uniform(0.2, 1) + \
        augment.music(n, rng) * rng.uniform(0, 0.7)
    return (y / max(augment.rms(y), 1e-9)).astype(np.float32)


# ---------------------------------------------------------------- training windows


HARD_BABBLE_SHARE = 0.45
"""Share of training windows whose background is babble at 0-15 dB (the rest: any background, -3..30 dB or clean).
The first models drew babble as one background among five at -3..30 dB and fell from 86% recall at 20 dB to 54% at
10 dB."""


def make_example(rng: np.random.Generator, banks: Banks, by_class: dict[str, list[Utt]]) -> tuple[np.ndarray, int]:
    """One labelled 1.2 s window (float32 audio, class index)."""
    fg = np.zeros(WIN_N, np.float32)
    r = rng.random()
    label = 0
    ref: np.ndarray | None = None
    if r < 0.5:  # a whole keyword inside the window
        cls = CLASSES[1 + int(rng.integers(len(CLASSES) - 1))]
        u = by_class[cls][int(rng.integers(len(by_class[cls])))]
        x = u.audio
        # the end of the word is often close to the window's end: that is the moment the detector must fire
        end = WIN_N - int(rng.integers(0, WIN_N - len(x) + 1) * (rng.random() ** 2))
        start = end - len(x)
        fg[start:end] += x
        label = CLASSES.index(cls)
        ref = x
        # neighbouring words, cut by the window's edges
        if rng.random() < 0.4 and start > 0.15 * RATE:
            p = banks.negatives[int(rng.integers(len(banks.negatives)))].audio
            gap = int(rng.uniform(0.05, 0.3) * RATE)
            pe = start - gap
            ps = pe - len(p)
            a = max(0, ps)
            if pe > a:
                fg[a:pe] += p[a - ps:]
        if rng.random() < 0.3 and WIN_N - end > 0.15 * RATE:
            p = banks.negatives[int(rng.integers(len(banks.negatives)))].audio
            ps = end + int(rng.uniform(0.1, 0.4) * RATE)
            if ps < WIN_N:
                take = min(len(p), WIN_N - ps)
                fg[ps:ps + take] += p[:take]
    elif r < 0.62:  # part of a keyword: not yet (or no longer) a whole word, so "other"
        cls = CLASSES[1 + int(rng.integers(len(CLASSES) - 1))]
        x = by_class[cls][int(rng.integers(len(by_class[cls])))].audio
        keep = int(len(x) * rng.uniform(0.1, 0.5))
        if rng.random() < 0.6:
            fg[WIN_N - keep:] += x[:keep]  # the start of the word at the window's end
        else:
            fg[:keep] += x[len(x) - keep:]  # the end of a word at the window's start
        ref = x
    elif r < 0.85:  # near-miss words, one or two
        for _ in range(1 + int(rng.random() < 0.4)):
            x = banks.negatives[int(rng.integers(len(banks.negatives)))].audio[:WIN_N]
            start = int(rng.integers(0, WIN_N - len(x) + 1))
            fg[start:start + len(x)] += x
            ref = x
    elif r < 0.97:  # a piece of continuous table talk
        s = banks.sentences[int(rng.integers(len(banks.sentences)))].audio
        if len(s) > WIN_N:
            off = int(rng.integers(0, len(s) - WIN_N))
            fg += s[off:off + WIN_N]
        else:
            start = int(rng.integers(0, WIN_N - len(s) + 1))
            fg[start:start + len(s)] += s
        ref = s
    # else: background only
    if rng.random() < 0.5:
        fg = augment.reverberate(fg, rng) if np.any(fg) else fg
    ref_rms = augment.rms(ref[np.abs(ref) > 0.01]) if ref is not None and np.any(np.abs(ref) > 0.01) else 0.1
    # the table's hard case is other people talking: nearly half the windows are babble at 0-15 dB
    u = rng.random()
    if u < HARD_BABBLE_SHARE:
        snr, noise = float(rng.uniform(0, 15)), babble(WIN_N, rng, banks.sentences)
    else:
        snr = float(rng.uniform(-3, 30)) if u < 0.9 else 50.0
        noise = noise_bed(WIN_N, rng, banks.sentences)
    y = augment.mix_snr(fg, noise, snr, ref_rms=ref_rms)
    if rng.random() < 0.25:
        y = augment.band_limit(y, rng)
    peak = float(np.max(np.abs(y))) + 1e-9
    y = y / peak * 10 ** (rng.uniform(-40, -1) / 20)
    return y.astype(np.float32), label


WindowMaker = Callable[..., tuple[np.ndarray, int]]
"""`maker(rng, *banks, by_class) -> (1.2 s of audio, class index)`: `make_example`, or one that also takes other
banks before the training banks (`speech.realvoices.make_real_example`). A module-level function, so a worker
process can be handed it."""


def _cached_banks(path: Path) -> Banks:
    banks = _BANKS_CACHE.get(str(path))
    if banks is None:
        banks = _BANKS_CACHE[str(path)] = load_banks(path)
    return banks


def _make_features(args: tuple[int, int, tuple[Path, ...], WindowMaker]) -> tuple[np.ndarray, np.ndarray]:
    seed, count, bank_paths, maker = args
    banks = [_cached_banks(p) for p in bank_paths]
    by_class: dict[str, list[Utt]] = {c: [u for u in banks[-1].keywords if u.cls == c] for c in CLASSES[1:]}
    rng = np.random.default_rng(seed)
    feats = []
    labels = []
    for _ in range(count):
        y, lab = maker(rng, *banks, by_class)
        feats.append(logmel(y).astype(np.float16))
        labels.append(lab)
    return np.stack(feats), np.asarray(labels, np.int64)


_BANKS_CACHE: dict[str, Banks] = {}


def build_windows(maker: WindowMaker, bank_paths: Sequence[Path], n: int, seed: int, workers: int = 2,
                  desc: str = "examples (x500)") -> tuple[np.ndarray, np.ndarray]:
    """`n` labelled log-mel windows (float16 (n, frames, mels), int64 (n,)) made by `maker` from the banks at
    `bank_paths` (the last: the training banks, whose keywords `maker` gets by class), in blocks of 500 on
    `workers` processes; a seed gives the same windows whatever the number of workers."""
    from tqdm import tqdm

    block = 500
    paths = tuple(Path(p) for p in bank_paths)
    jobs = [(seed * 100003 + i, min(block, n - i * block), paths, maker) for i in range((n + block - 1) // block)]
    feats, labels = [], []
    with get_context("fork").Pool(workers, initializer=os.nice, initargs=(5,)) as pool:
        for f, lab in tqdm(pool.imap(_make_features, jobs), total=len(jobs), desc=desc):
            feats.append(f)
            labels.append(lab)
    return np.concatenate(feats), np.concatenate(labels)


def build_examples(bank_path: Path, n: int, seed: int, workers: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """`n` labelled log-mel windows of the recipe (`make_example`) from the banks at `bank_path`."""
    return build_windows(make_example, (bank_path,), n, seed, workers)
