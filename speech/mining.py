"""Stream-cut training windows and hard-negative mining for the keyword spotter (training voices only).

Why: the first recipe (speech/kwsdata.py `make_example`) builds each 1.2 s window on its own, so the model never saw
what the streaming detector sees: every 80 ms shift of a long recording, words cut by the window's edges, babble that
runs on across the keyword. Here long streams are laid out from banks rendered by *training* voices (keywords after
near-miss words, or back-to-back table talk, in babble of 2-6 talkers at 0-20 dB), their log-mel frames are computed
once, and windows are cut from them:

- a keyword window ends 0-0.35 s after a keyword's end and holds the whole word (label: the keyword);
- an `other` window holds no keyword, or only its first half (the detector must wait for the whole word);
- hard negatives: among the `other` windows, those on which a model (the shipped one) gives a keyword a high
  posterior are kept first (hard-negative mining), the rest are drawn at random.

Nothing here reads the held-out test banks: callers pass banks rendered with `split_voices(lang)[0]`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from speech import augment
from speech.evaluate import lay_back_to_back, lay_keywords
from speech.features import HOP, WIN, WINDOW_FRAMES, logmel
from speech.kwsdata import Banks, Utt, babble, bank_jobs, render_banks
from speech.synth import RATE
from speech.vocab import CLASSES, NEGATIVE_WORDS, split_voices


def render_bank(n_kw: int, neg_words: dict[str, Sequence[str]], n_neg: int, n_sent: int, seed: int) -> Banks:
    """A bank rendered by training voices only (one process): `n_kw` renditions per keyword form, `n_neg` per word
    of `neg_words`, `n_sent` sentences of table talk per language."""
    rng = np.random.default_rng(seed)
    voices = {lang: split_voices(lang)[0] for lang in ("en", "ru")}
    return render_banks(bank_jobs(voices, n_kw, neg_words, n_neg, n_sent, rng))


def keyword_stream(keywords: Sequence[Utt], negatives: Sequence[Utt], babble_src: Sequence[Utt],
                   snr: float | None, rng: np.random.Generator, talkers: int | None = None
                   ) -> tuple[np.ndarray, list[dict[str, Any]]]:
    """Keywords 0.8-1.5 s apart, half of them after a near-miss word, in babble at `snr` dB (None: clean), the
    stream scaled to peak 0.7 (laid out by `speech.evaluate.lay_keywords`, as the test stream is)."""
    order = rng.permutation(len(keywords))
    y, placed = lay_keywords([keywords[int(i)] for i in order], negatives, rng)
    truth = [{"cls": u.cls, "start": a, "end": b} for u, a, b in placed]
    if snr is not None:
        ref = float(np.median([augment.rms(u.audio[np.abs(u.audio) > 0.01]) for u in keywords[:300]]))
        y = augment.mix_snr(y, babble(len(y), rng, babble_src, talkers=talkers), snr, ref_rms=ref)
    return (y / (np.max(np.abs(y)) + 1e-9) * 0.7).astype(np.float32), truth


def talk_stream(utts: Sequence[Utt], babble_src: Sequence[Utt], snr: float | None, rng: np.random.Generator,
                gap: tuple[float, float] = (0.1, 0.5), talkers: int | None = None) -> np.ndarray:
    """Non-keyword utterances back to back in babble at `snr` dB, scaled to peak 0.7."""
    order = rng.permutation(len(utts))
    gaps = [int(rng.uniform(*gap) * RATE) for _ in order]
    y = lay_back_to_back([utts[int(i)] for i in order], gaps)
    if snr is not None:
        ref = float(np.median([augment.rms(u.audio[np.abs(u.audio) > 0.01]) for u in utts[:300]]))
        y = augment.mix_snr(y, babble(len(y), rng, babble_src, talkers=talkers), snr, ref_rms=ref)
    return (y / (np.max(np.abs(y)) + 1e-9) * 0.7).astype(np.float32)


def window_end_sample(last_frame: int) -> int:
    """The sample at which the window whose newest frame is `last_frame` ends."""
    return last_frame * HOP + WIN


def label_windows(n_frames: int, truth: Sequence[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
    """For every window (by its newest frame): its label, or -1 where it is ambiguous.

    Keyword: the whole word inside and the window ending at most 0.35 s after the word. Other: no keyword overlaps,
    or at most the first half of one is inside (at the window's end). Ambiguous (-1): anything else (the word's end
    cut off at the window's start, more than half a word, or a whole word heard long ago)."""
    last = np.arange(WINDOW_FRAMES - 1, n_frames)
    lab = np.zeros(len(last), np.int64)
    for w in truth:
        s, e = w["start"], w["end"]
        # windows that overlap the word: newest frame from the one ending past s to the one starting before e
        lo = max(0, (s - WIN) // HOP - (WINDOW_FRAMES - 1))
        hi = min(len(last), e // HOP + 2)
        if hi <= lo:
            continue
        sl = slice(lo, hi)
        w_end = last[sl] * HOP + WIN
        w_start = (last[sl] - WINDOW_FRAMES + 1) * HOP
        overlap = (np.minimum(w_end, e) - np.maximum(w_start, s)) > 0
        whole = (w_start <= s) & (w_end >= e)
        fresh = whole & (w_end <= e + int(0.35 * RATE))
        first_half = (w_start <= s) & (w_end < e) & (w_end - s <= 0.5 * (e - s))
        c = CLASSES.index(w["cls"])
        cur = lab[sl]
        lab[sl] = np.where(overlap & fresh, c, np.where(overlap & ~first_half & (cur == 0), -1, cur))
    return last, lab


def logmel_long(audio: np.ndarray, block_frames: int = 6000) -> np.ndarray:
    """`logmel` of a long recording, computed in blocks (the same frame grid, bounded memory)."""
    n = 0 if len(audio) < WIN else 1 + (len(audio) - WIN) // HOP
    out = []
    for f0 in range(0, n, block_frames):
        f1 = min(n, f0 + block_frames)
        out.append(logmel(audio[f0 * HOP:(f1 - 1) * HOP + WIN]))
    return np.concatenate(out) if out else np.zeros((0, 40), np.float32)


def windows_at(feats: np.ndarray, last: np.ndarray) -> np.ndarray:
    """(n, WINDOW_FRAMES, n_mels) windows ending at frames `last`."""
    idx = last[:, None] + np.arange(-WINDOW_FRAMES + 1, 1)[None, :]
    return feats[idx]


def keyword_scores(session: Any, feats: np.ndarray, last: np.ndarray, batch: int = 256) -> np.ndarray:
    """The highest keyword posterior of the windows ending at frames `last` under an onnxruntime `session`."""
    out = []
    for i in range(0, len(last), batch):
        p = session.run(None, {"logmel": windows_at(feats, last[i:i + batch]).astype(np.float32)})[0]
        out.append(p[:, 1:].max(axis=1))
    return np.concatenate(out) if out else np.zeros(0)


def cut_stream(audio: np.ndarray, truth: Sequence[dict[str, Any]], session: Any, rng: np.random.Generator,
               pos_per_word: int = 2, n_random_other: int = 0, hard_thr: float = 0.3, max_hard: int | None = None,
               hop: int = 8) -> tuple[np.ndarray, np.ndarray, dict[str, int]]:
    """Training windows from one stream: `pos_per_word` keyword windows per word, every `other` window whose keyword
    posterior under `session` reaches `hard_thr` (at most `max_hard`, one per 0.08 s hop), and `n_random_other`
    more `other` windows drawn at random. Returns float16 windows, labels and counts."""
    feats = logmel_long(audio)
    last, lab = label_windows(len(feats), truth)
    pick: list[int] = []
    if pos_per_word:
        for w in truth:
            c = CLASSES.index(w["cls"])
            cand = np.flatnonzero((lab == c) & (np.abs(last * HOP + WIN - w["end"]) < int(0.4 * RATE)))
            if len(cand):
                pick += list(rng.choice(cand, size=min(pos_per_word, len(cand)), replace=False))
    other = np.flatnonzero(lab == 0)
    other_hop = other[(last[other] % hop) == 0]
    hard: np.ndarray = np.zeros(0, np.int64)
    if session is not None and len(other_hop):
        sc = keyword_scores(session, feats, last[other_hop])
        hard = other_hop[sc >= hard_thr]
        if max_hard is not None and len(hard) > max_hard:
            hard = rng.choice(hard, size=max_hard, replace=False)
    rest = np.setdiff1d(other, hard)
    rnd = rng.choice(rest, size=min(n_random_other, len(rest)), replace=False) if n_random_other else []
    idx = np.array(sorted(set(pick) | set(hard.tolist()) | set(np.asarray(rnd).tolist())), np.int64)
    x = windows_at(feats, last[idx]).astype(np.float16)
    y = lab[idx]
    return x, y, {"keyword": int((y > 0).sum()), "hard": len(hard), "random_other": len(rnd)}


def merge(parts: Sequence[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def save(path: Path, x: np.ndarray, y: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, x=x, y=y)


NEW_NEGATIVES_FROM = {"en": "three", "ru": "пять"}
"""The first word of each language's additions to NEGATIVE_WORDS (the words after it were added with the mined
fine-tune and were rendered into their own bank)."""


def new_negative_words() -> dict[str, tuple[str, ...]]:
    return {lang: NEGATIVE_WORDS[lang][NEGATIVE_WORDS[lang].index(w):] for lang, w in NEW_NEGATIVES_FROM.items()}


def build_mined_set(bank_paths: Sequence[Path], model_path: Path, seed: int,
                    kw_snrs: Sequence[float | None] = (0.0, 5.0, 10.0, 15.0, 25.0),
                    talk_snrs: Sequence[float | None] = (5.0, 10.0, 15.0, None),
                    neg_snrs: Sequence[float | None] = (5.0, 10.0, 20.0),
                    max_hard: int = 2000, n_random_other: int = 1000) -> tuple[np.ndarray, np.ndarray]:
    """The stream-cut set: keyword streams (one keyword window per word per stream), table-talk streams and streams
    of near-miss words, each at several SNRs in babble of 2-6 talkers, with hard negatives mined by `model_path`.

    `bank_paths`: banks rendered by training voices (the first holds the keywords; all give near misses, sentences
    and babble)."""
    from speech.kws import load_session
    from speech.kwsdata import load_banks

    rng = np.random.default_rng(seed)
    banks = [load_banks(p) for p in bank_paths]
    kws = [u for b in banks for u in b.keywords]
    negs = [u for b in banks for u in b.negatives]
    sents = [u for b in banks for u in b.sentences]
    session = load_session(model_path)
    parts = []
    for snr in kw_snrs:
        audio, truth = keyword_stream(kws, negs, sents, snr, rng)
        x, y, n = cut_stream(audio, truth, session, rng, pos_per_word=1, n_random_other=n_random_other,
                             max_hard=max_hard)
        print(f"keyword stream {snr} dB: {len(audio) / RATE / 3600:.2f} h {n}", flush=True)
        parts.append((x, y))
    for name, utts, snrs, gap in (("talk", sents, talk_snrs, (0.1, 0.5)), ("near-miss", negs, neg_snrs, (0.2, 0.8))):
        for snr in snrs:
            audio = talk_stream(utts, sents, snr, rng, gap=gap)
            x, y, n = cut_stream(audio, [], session, rng, pos_per_word=0, n_random_other=n_random_other,
                                 max_hard=max_hard)
            print(f"{name} stream {snr} dB: {len(audio) / RATE / 3600:.2f} h {n}", flush=True)
            parts.append((x, y))
    return merge(parts)
