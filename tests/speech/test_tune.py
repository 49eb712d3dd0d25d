"""Choosing the firing rule on validation posteriors (`speech.tune`): per-class thresholds within a budget."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from speech.kws import replay_posteriors
from speech.tune import (
    allocate_thresholds,
    class_curves,
    per_class_rules,
    score,
    single_class_fires,
    smoothed,
)
from speech.vocab import CLASSES

UNO, GREEN = CLASSES.index("uno"), CLASSES.index("green")


def _bumps(n: int, at: list[int], cls: int, height: float) -> np.ndarray:
    p = np.zeros((n, len(CLASSES)))
    p[:, 0] = 1.0
    for i in at:
        p[i:i + 4, cls] = height
        p[i:i + 4, 0] = 1.0 - height
    return p


def _recorded() -> dict:
    """Validation posteriors: four "uno" heard at 0.5 and four "green" at 0.8 in the keyword stream; an hour of
    talk in which "green" rises to 0.6 six times and "uno" never."""
    t = np.arange(400) * 0.08
    p = _bumps(400, [20, 60, 100, 140], UNO, 0.5) + _bumps(400, [200, 240, 280, 320], GREEN, 0.8)
    p[:, 0] -= 1.0
    truth = [{"cls": "uno", "lang": "en", "end": float(t[i])} for i in (20, 60, 100, 140)] + \
            [{"cls": "green", "lang": "en", "end": float(t[i])} for i in (200, 240, 280, 320)]
    talk_t = np.arange(2000) * 0.08
    talk = _bumps(2000, [100, 400, 700, 1000, 1300, 1600], GREEN, 0.6)
    return {"kw": (t, p, truth), "talk": [(talk_t, talk, 1.0)]}


def test_curves_count_each_class_alone() -> None:
    curves = class_curves(_recorded(), smooth=1, persist=2, grid=[0.3, 0.45, 0.55, 0.7])
    assert set(curves) == {UNO, GREEN}  # classes without words in the stream are left out
    assert curves[UNO] == [(0.3, 1.0, 0), (0.45, 1.0, 0), (0.55, 0.0, 0), (0.7, 0.0, 0)]
    assert curves[GREEN] == [(0.3, 1.0, 6), (0.45, 1.0, 6), (0.55, 1.0, 6), (0.7, 1.0, 0)]


def test_the_budget_is_spent_where_it_buys_recall() -> None:
    # one threshold for both would have to choose: 0.45 hears every word with 6 alarms an hour; 0.7 none of "uno"
    per_class = allocate_thresholds(class_curves(_recorded(), 1, 2, [0.3, 0.45, 0.55, 0.7]), hours=1.0, budget=2)
    assert per_class["uno"] <= 0.45 and per_class["green"] == 0.7
    thr = np.array([1.0] + [per_class.get(c, 1.0) for c in CLASSES[1:]])
    r = score(_recorded(), thr, 1, 2)
    assert r["recall"] == 1.0 and r["fa_per_hour"] == 0


@pytest.mark.parametrize("budget", [0, 1, 3, 5, 8])
def test_the_allocation_is_the_best_of_every_combination(budget: int) -> None:
    rng = np.random.default_rng(budget)
    curves = {c: [(th, float(r), int(f)) for th, r, f in zip([0.3, 0.5, 0.7], sorted(rng.random(3))[::-1],
                                                               sorted(rng.integers(0, 5, 3))[::-1], strict=True)]
              for c in (1, 2, 3)}
    best = max((sum(r for _, r, _ in combo) for combo in itertools.product(*curves.values())
                if sum(f for _, _, f in combo) <= budget), default=None)
    if best is None:
        with pytest.raises(ValueError):
            allocate_thresholds(curves, hours=1.0, budget=budget)
        return
    chosen = allocate_thresholds(curves, hours=1.0, budget=budget)
    got = sum(next(r for th, r, _ in curves[c] if th == chosen[CLASSES[c]]) for c in curves)
    assert got == pytest.approx(best)


def test_a_budget_nothing_meets_is_named() -> None:
    curves = {GREEN: [(0.5, 1.0, 3), (0.9, 0.5, 2)]}
    with pytest.raises(ValueError, match="within 1"):
        allocate_thresholds(curves, hours=1.0, budget=1)


def test_rules_per_budget_keep_their_budget() -> None:
    rows = per_class_rules(_recorded(), [0, 10], smooths=(1,), persists=(2,), grid=(0.3, 0.45, 0.7))
    assert [r["budget"] for r in rows] == [0, 10]
    assert all(r["fa_per_hour"] <= r["budget"] for r in rows)
    assert rows[0]["class_thresholds"]["green"] == 0.7 and rows[0]["recall"] == 1.0


@pytest.mark.parametrize(("smooth", "persist"), [(1, 1), (2, 2), (3, 2), (4, 3)])
@pytest.mark.parametrize("threshold", [0.15, 0.3, 0.35, 0.5, 0.8])
def test_single_class_fires_match_the_detector_loop(smooth: int, persist: int, threshold: float) -> None:
    """The vectorised replay of one class gives the fires of `replay_posteriors` with the others switched off,
    to the hop, on posteriors that hover around the threshold and the release (0.3), below it included."""
    rng = np.random.default_rng(int(threshold * 100) + 10 * smooth + persist)
    n = 3000
    p = np.zeros((n, len(CLASSES)))
    swing = rng.uniform(0.1, 0.5, n // 50).repeat(50)  # rises of every height, each hop jittered
    walk = np.clip(0.35 + swing * np.sin(np.arange(n) / 6.0) + rng.normal(0, 0.06, n), 0, 1)
    p[:, GREEN] = walk
    p[:, UNO] = rng.uniform(0, 0.9, n)  # switched off: must not matter
    p[:, 0] = 1 - p[:, 1:].sum(axis=1) / 2
    t = np.arange(n) * 0.08
    thr = np.full(len(CLASSES), 2.0)
    thr[GREEN] = threshold
    loop = [(tt, conf) for tt, c, conf in replay_posteriors(t, p, thr, 0.3, smooth, persist)]
    assert all(c == GREEN for _, c, _ in replay_posteriors(t, p, thr, 0.3, smooth, persist))
    fast = single_class_fires(t, smoothed(p[:, GREEN], smooth), threshold, persist)
    assert len(loop) > 3
    assert [x for f in fast for x in f] == pytest.approx([x for f in loop for x in f])


def test_single_class_fires_of_nothing() -> None:
    assert single_class_fires(np.zeros(0), np.zeros(0), 0.5, 2) == []
    assert single_class_fires(np.arange(5.0), np.full(5, 0.2), 0.5, 2) == []
