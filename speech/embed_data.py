"""Training material for the keyword head on speech embeddings: long synthetic table recordings, embedded once.

Why streams rather than isolated windows: the detector slides over continuous audio, so every 80 ms hop of a
recording is a training example, with the words before and after it, and embedding a recording once gives a dozen
examples a second for the price of one pass of the frozen front end (`speech.embedding`). Each recording is a
minute of one table: keywords, near-miss words and sentences of table talk by training voices (`speech.kwsdata`
banks; the held-out voices never appear), 0.05-1.2 s apart, each louder or softer as a player nearer or farther
from the microphone, in one room, over one background (babble of other talkers, card noise, music, room tone, or a
mix) at one SNR, sometimes through a cheap microphone; half of them warped in frequency (another vocal tract).

Labels, per embedding (by the sample at which it ends, `te`): a keyword's class from its last sample to 0.4 s after
it (the moment the detector must answer); ignored (-1) over the second half of the word and 0.4-0.8 s after it (a
word nearly heard, or heard a while ago: either answer is fine); `other` everywhere else, including the first half
of a keyword ("you kn-", "gree-"), so that the head waits for the whole word.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path

import numpy as np

from speech import augment
from speech.audio import RATE
from speech.embedding import SpeechEmbedder, end_sample, warp_bins
from speech.kwsdata import Banks, Utt, babble, load_banks, noise_bed
from speech.vocab import CLASSES

POSITIVE_S = 0.4  # a keyword's label lasts from its end to this long after it
IGNORE_AFTER_S = 0.8  # then no label until this long after it
WARP_RANGE = (0.86, 1.16)


@dataclass
class Recording:
    """One synthetic table recording: audio (float32) and its keywords as (class index, first, last sample)."""

    audio: np.ndarray
    keywords: list[tuple[int, int, int]]
    snr: float | None
    warp: float


def _pick(rng: np.random.Generator, items: Sequence[Utt]) -> Utt:
    return items[int(rng.integers(len(items)))]


def table_recording(banks: Banks, rng: np.random.Generator, seconds: float = 60.0) -> Recording:
    """A random minute of table talk with keywords in it (see the module's docstring)."""
    n = int(seconds * RATE)
    fg = np.zeros(n + 4 * RATE, np.float32)
    kws: list[tuple[int, int, int]] = []
    pos = int(rng.uniform(0.2, 1.5) * RATE)
    p_kw = rng.uniform(0.25, 0.5)
    while pos < n:
        r = rng.random()
        gain = 10 ** (rng.uniform(-4, 3) / 20)
        if r < p_kw:
            u = _pick(rng, banks.keywords)
            kws.append((CLASSES.index(u.cls), pos, pos + len(u.audio)))
        elif r < p_kw + (1 - p_kw) * 0.5:
            u = _pick(rng, banks.negatives)
        else:
            u = _pick(rng, banks.sentences)
        x = u.audio[: len(fg) - pos]
        fg[pos:pos + len(x)] += x * gain
        pos += len(x) + int(rng.uniform(0.05, 1.2) * RATE)
    fg = fg[:n]
    kws = [k for k in kws if k[2] <= n]
    if rng.random() < 0.5:
        fg = augment.reverberate(fg, rng)
    active = fg[np.abs(fg) > 0.01]
    ref = augment.rms(active) if active.size else 0.1
    u = rng.random()
    snr: float | None
    if u < 0.4:
        snr, noise = float(rng.uniform(3, 20)), babble(n, rng, banks.sentences)
    elif u < 0.85:
        snr, noise = float(rng.uniform(0, 30)), noise_bed(n, rng, banks.sentences)
    else:
        snr, noise = None, augment.coloured_noise(n, rng) * 1e-3
    y = augment.mix_snr(fg, noise, snr, ref_rms=ref) if snr is not None else fg + noise * ref
    if rng.random() < 0.25:
        y = augment.band_limit(y, rng)
    y = y / (np.max(np.abs(y)) + 1e-9) * 10 ** (rng.uniform(-35, -1) / 20)
    warp = float(rng.uniform(*WARP_RANGE)) if rng.random() < 0.5 else 1.0
    return Recording(y.astype(np.float32), kws, snr, warp)


def label_embeddings(n_emb: int, keywords: Sequence[tuple[int, int, int]]) -> np.ndarray:
    """The label of every embedding of a recording (see the module's docstring): class index, 0, or -1."""
    te = np.asarray(end_sample(np.arange(n_emb)))
    lab = np.zeros(n_emb, np.int8)
    for _c, s, e in keywords:
        half = s + (e - s) // 2
        lab[(te >= half) & (te < e) & (lab == 0)] = -1
        lab[(te > e + POSITIVE_S * RATE) & (te <= e + IGNORE_AFTER_S * RATE) & (lab == 0)] = -1
    for c, _s, e in keywords:  # positives win over another word's ignore band
        lab[(te >= e) & (te <= e + POSITIVE_S * RATE)] = c
    return lab


_BANKS: Banks | None = None
_EMBEDDER: SpeechEmbedder | None = None


def _one(seed: int) -> tuple[np.ndarray, np.ndarray]:
    global _EMBEDDER
    assert _BANKS is not None
    if _EMBEDDER is None:
        _EMBEDDER = SpeechEmbedder(threads=1)
    rec = table_recording(_BANKS, np.random.default_rng(seed))
    emb = _EMBEDDER.embed(rec.audio, warp=rec.warp)
    return emb.astype(np.float16), label_embeddings(len(emb), rec.keywords)


def build_embedded(bank_paths: Sequence[Path], n_recordings: int, seed: int, workers: int = 2
                   ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """`n_recordings` embedded minutes from the merged banks: a list of (n, 96) float16 arrays and their labels."""
    from tqdm import tqdm

    from speech.accents import merge_banks

    global _BANKS
    banks = load_banks(Path(bank_paths[0]))
    for p in bank_paths[1:]:
        banks = merge_banks(banks, load_banks(Path(p)))
    _BANKS = banks
    seeds = [int(s) for s in np.random.default_rng(seed).integers(2**31, size=n_recordings)]
    embs, labs = [], []
    if workers <= 1:
        it = map(_one, seeds)
        for e, lab in tqdm(it, total=n_recordings, desc="embedding recordings"):
            embs.append(e)
            labs.append(lab)
    else:
        with get_context("fork").Pool(workers) as pool:
            for e, lab in tqdm(pool.imap(_one, seeds), total=n_recordings, desc="embedding recordings"):
                embs.append(e)
                labs.append(lab)
    _BANKS = None
    return embs, labs


def save_embedded(path: Path, embs: Sequence[np.ndarray], labs: Sequence[np.ndarray]) -> None:
    """One .npz: the recordings' embeddings and labels concatenated, with each recording's length."""
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, emb=np.concatenate(embs), lab=np.concatenate(labs),
             lengths=np.asarray([len(e) for e in embs], np.int64))


def load_embedded(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    d = np.load(path)
    return d["emb"], d["lab"], d["lengths"]


__all__ = ["Recording", "build_embedded", "label_embeddings", "load_embedded", "save_embedded",
           "table_recording", "warp_bins"]
