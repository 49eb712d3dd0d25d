"""A round's training set (`speech.rounds.build_round_set`) at a miniature size: real synthesis, windows and mining."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from speech.kwsdata import save_banks
from speech.mining import render_bank
from speech.rounds import RoundSet, build_round_set
from speech.vocab import CLASSES

from .conftest import MODEL, needs_espeak, needs_model

TINY = RoundSet(seed=5, other_frac=0.25, n_kw=2, n_neg=1, n_sent=3, accent=(1, 1, 1), n_windows=120,
                n_val_windows=40, n_mine_keywords=10, workers=1)


@pytest.mark.smoke
@needs_espeak()
@needs_model()
def test_a_round_set_holds_recipe_and_mined_windows_and_resumes(tmp_path: Path) -> None:
    val_bank = tmp_path / "banks_val.pkl"
    save_banks(render_bank(1, {"en": ("one",), "ru": ("ну",)}, 1, 2, seed=9), val_bank)
    out = build_round_set(tmp_path, "r1", TINY, MODEL, val_bank)
    tr, va = np.load(out / "train.npz"), np.load(out / "val.npz")
    assert tr["x"].shape[1:] == va["x"].shape[1:] == (118, 40)
    assert len(va["y"]) == 40
    assert len(tr["y"]) > 120  # the recipe's windows, then the stream-cut ones
    assert set(np.unique(tr["y"])) >= set(range(len(CLASSES)))  # every keyword class and "other"
    assert (tmp_path / "banks_r1.pkl").exists() and (tmp_path / "banks_r1_mine.pkl").exists()
    stamp = (out / "train.npz").stat().st_mtime_ns
    assert build_round_set(tmp_path, "r1", TINY, MODEL, val_bank) == out  # a rerun keeps the set
    assert (out / "train.npz").stat().st_mtime_ns == stamp


@needs_espeak()
@needs_model()
def test_a_round_set_with_pico_voices_and_a_bank_already_rendered(tmp_path: Path) -> None:
    """`RoundSet.pico` adds SVOX Pico's training voices (never the held-out two); a bank another part's run already
    rendered under the set's name is used as it is, not rendered again."""
    pytest.importorskip("ttspico", reason="SVOX Pico (PyPI ttspico) is in the training extra")
    from speech.kwsdata import load_banks
    from speech.pico import HELD_OUT_PICO

    val_bank = tmp_path / "banks_val.pkl"
    save_banks(render_bank(1, {"en": ("one",), "ru": ("ну",)}, 1, 2, seed=9), val_bank)
    spec = RoundSet(seed=5, n_kw=1, n_neg=1, n_sent=2, accent=(1, 1, 1), pico=(1, 1, 1), n_windows=60,
                    n_val_windows=20, n_mine_keywords=5, workers=1)
    build_round_set(tmp_path, "p1", spec, MODEL, val_bank)
    voices = {u.voice for u in load_banks(tmp_path / "banks_p1.pkl").keywords}
    assert {"pico:en-US", "pico:it-IT"} <= voices
    assert not {f"pico:{v}" for v in HELD_OUT_PICO} & voices
    # a second set named after a bank that exists: its bank is not rendered again
    (tmp_path / "banks_p2.pkl").write_bytes((tmp_path / "banks_p1.pkl").read_bytes())
    stamp = (tmp_path / "banks_p2.pkl").stat().st_mtime_ns
    build_round_set(tmp_path, "p2", spec, MODEL, val_bank)
    assert (tmp_path / "banks_p2.pkl").stat().st_mtime_ns == stamp
    assert (tmp_path / "p2" / "train.npz").exists()
