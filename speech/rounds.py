"""The data of one round of the keyword spotter's training: the guide banks and a new training set.

Why: every round since stop 44 rebuilt the same things in its own script (the validation and fresh-speaker banks it
is scored on, a bank of training voices merged with the accent speakers, recipe windows, stream-cut windows with
hard negatives), differing only in seeds and sizes. One function keeps the recipe in one place, so a round's script
says only what it changes, and a lost machine rebuilds a round's set exactly from its seed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from speech.accents import merge_banks, render_accent_bank
from speech.fresh_voices import render_fresh_bank
from speech.kwsdata import Banks, aside_banks, build_banks, build_examples, load_banks, save_banks
from speech.mining import build_mined_set, render_bank
from speech.pico import pico_train_bank
from speech.vocab import ASIDE_SPEAKER, NEGATIVE_WORDS

#: the seed of the validation windows (`val.npz`) every round selects its checkpoints on
VAL_WINDOWS_SEED = 222


def ensure_guide_banks(data: Path) -> tuple[Path, Path]:
    """(validation, dev) banks, rendered once and kept: validation streams of training voices (`banks_val.pkl`) and
    the fresh-speaker dev of 16 new espeak-ng variants (`banks_fresh.pkl`). Rounds are scored on these, never on the
    test banks."""
    val, dev = data / "banks_val.pkl", data / "banks_fresh.pkl"
    if not val.exists():
        save_banks(render_bank(40, NEGATIVE_WORDS, 3, 250, seed=42), val)
    if not dev.exists():
        save_banks(render_fresh_bank(data / "fresh_dev_voices", 16, 40, 3, 250, seed=4650), dev)
    return val, dev


def ensure_aside_bank(data: Path, ids: tuple[str, ...] = ASIDE_SPEAKER, seed: int = 5300) -> Path:
    """The guide of a speaker set aside (`data/banks_aside.pkl`, rendered once and kept): her keywords, near misses
    and talk, for `runs/kws_round/aside53.py` or `unotable eval-speech --bank` on parts whose round set
    (`RoundSet.aside`) left her out. Parts that heard her score on it too, for reference. Other voices get a file
    of their own name, so a kept bank is never another speaker's."""
    tag = "" if tuple(ids) == ASIDE_SPEAKER else "_" + "_".join(i.replace(":", "-") for i in ids)
    path = data / f"banks_aside{tag}.pkl"
    if not path.exists():
        save_banks(aside_banks(ids, 40, 3, 250, seed=seed), path)
    return path


@dataclass(frozen=True)
class RoundSet:
    """What a round's training set is made of. The seeds derive from `seed` (bank `seed`, accent bank `seed + 2`,
    Pico bank `seed + 3`, recipe windows `seed + 10`, the keywords to mine from `seed + 12`, mining `seed + 13`), as
    stops 48 (211) and 49 (311) drew them."""

    seed: int
    other_frac: float = 0.12  # share of renditions by non-espeak voices (`speech.kwsdata.build_banks`)
    n_kw: int = 600  # renditions of each spoken keyword form
    n_neg: int = 12  # renditions of each near-miss word
    n_sent: int = 800  # sentences of table talk per language
    accent: tuple[int, int, int] = (12, 30, 20)  # the accent speakers' keywords, near misses, sentences
    n_windows: int = 50000  # recipe windows
    n_val_windows: int = 4000
    n_mine_keywords: int = 3000  # keywords whose streams the miner cuts
    workers: int = 2
    aside: tuple[str, ...] = ()  # voice ids kept out of the set, a guide of a speaker never heard (`ensure_aside_bank`)
    #: SVOX Pico's training voices' keywords, near misses, sentences (`speech.pico.pico_train_bank`, seed `seed + 3`);
    #: (0, 0, 0) leaves them out, as every set before stop 56
    pico: tuple[int, int, int] = (0, 0, 0)


def ensure_round_bank(data: Path, name: str, spec: RoundSet) -> Path:
    """`data/banks_name.pkl`, the set's bank of utterances (training voices, accent speakers, Pico's voices where
    `spec.pico` asks): rendered when missing, else used as it is, so a part that trains on the bank alone (a head on
    speech embeddings) and the set's windows share one rendering."""
    path = data / f"banks_{name}.pkl"
    if not path.exists():
        s, w = spec.seed, spec.workers
        big = build_banks(False, spec.n_kw, spec.n_neg, spec.n_sent, seed=s, workers=w, other_frac=spec.other_frac,
                          exclude=spec.aside)
        parts = [big, render_accent_bank(False, *spec.accent, seed=s + 2, workers=w)]
        if any(spec.pico):
            parts.append(pico_train_bank(*spec.pico, seed=s + 3, workers=w))
        save_banks(merge_banks(*parts), path)
    return path


def build_round_set(data: Path, name: str, spec: RoundSet, miner: Path, val_bank: Path) -> Path:
    """Write `data/name/train.npz` (recipe windows of a new bank of training voices and accent speakers, then
    stream-cut windows with hard negatives mined by the model `miner`) and `data/name/val.npz` (windows of
    `val_bank`); returns that folder. A folder that already holds `train.npz` is kept as it is (a rerun resumes)."""
    out = data / name
    out.mkdir(parents=True, exist_ok=True)
    if (out / "train.npz").exists():
        return out
    s, w = spec.seed, spec.workers
    bank_path = ensure_round_bank(data, name, spec)
    xv, yv = build_examples(val_bank, spec.n_val_windows, seed=VAL_WINDOWS_SEED, workers=w)
    np.savez(out / "val.npz", x=xv, y=yv)
    x, y = build_examples(bank_path, spec.n_windows, seed=s + 10, workers=w)
    big = load_banks(bank_path)
    idx = np.random.default_rng(s + 12).choice(len(big.keywords), min(spec.n_mine_keywords, len(big.keywords)),
                                               replace=False)
    mine_path = data / f"banks_{name}_mine.pkl"
    save_banks(Banks(keywords=[big.keywords[i] for i in idx], negatives=big.negatives, sentences=big.sentences),
               mine_path)
    xm, ym = build_mined_set([mine_path], miner, seed=s + 13)
    np.savez(out / "train.npz", x=np.concatenate([x, xm.astype(x.dtype)]), y=np.concatenate([y, ym]))
    return out
