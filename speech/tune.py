"""Choose the keyword spotter's firing rule (threshold, smoothing, persistence) on validation streams of TRAINING
voices, never on the held-out test corpus.

Why a separate validation bank: the thresholds are part of the model (models/kws.json); choosing them on the test
corpus would make its figures optimistic. `data/speech/banks_val.pkl` is rendered by training voices with its own
seed (speech.mining.render_bank), laid out as the evaluation lays out the test corpus (speech.evaluate), and the
posteriors are recorded once so that every rule is replayed without running the network again.

    .venv/bin/python -m speech.tune --model CANDIDATE.onnx [--bank data/speech/banks_val.pkl]
"""

from __future__ import annotations

import argparse
import itertools
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from speech.evaluate import keyword_stream, other_stream, posteriors, score_keywords
from speech.kws import KeywordDetector, replay_posteriors
from speech.kwsdata import load_banks
from speech.vocab import CLASSES

REPO = Path(__file__).resolve().parents[1]


def record(model_path: Path, bank_path: Path, snr: float = 10.0, fa_seeds: tuple[int, ...] = (8, 9, 10)
           ) -> dict[str, Any]:
    """Raw posteriors of the model on the validation keyword stream at `snr` dB babble and on the validation table
    talk at 10 dB, once per seed of the babble."""
    det = KeywordDetector(model_path, smooth=1, persist=1)
    banks = load_banks(bank_path)
    audio, truth = keyword_stream(banks, snr, seed=7)
    t, p, _ = posteriors(det, audio)
    talk = []
    for s in fa_seeds:
        a = other_stream(banks.sentences, 10.0, seed=s)
        tt, pp, _ = posteriors(det, a)
        talk.append((tt, pp, len(a) / 16000 / 3600))
    return {"kw": (t, p, truth), "talk": talk}


def average_on_clock(streams: Sequence[tuple[np.ndarray, np.ndarray]], weights: Sequence[float]
                     ) -> tuple[np.ndarray, np.ndarray]:
    """(times, posteriors) of several parts averaged as the detector averages them: at each of the last stream's
    hops, every stream's latest posterior at or before it, weighted; no hop before every part has spoken."""
    t_clock, _ = streams[-1]
    idx = [np.searchsorted(t, t_clock + 1e-9, side="right") - 1 for t, _ in streams]
    ready = np.all([j >= 0 for j in idx], axis=0)  # as live: no decision before every part has spoken
    total = np.zeros((int(ready.sum()), streams[-1][1].shape[1]))
    for (_, p), j, w in zip(streams, idx, weights, strict=True):
        total += w * p[j[ready]]
    return t_clock[ready], total / sum(weights)


def fuse(recs: list[dict[str, Any]], weights: list[float], delays: Sequence[int] | None = None,
         hop_s: float = 0.08) -> dict[str, Any]:
    """Recorded posteriors of several models (each recorded alone) averaged as the detector averages a card's
    `parts`: at each of the last model's hops, every model's latest posterior at or before it, weighted. A part's
    `delays` entry (its card's `delay`, in hops) shifts its clock that many hops later, as the detector holds it back.
    The last part's shifted clock can run past the audio's end, where live decisions stop."""
    if delays is not None:
        recs = [_delayed(r, d * hop_s) for r, d in zip(recs, delays, strict=True)]

    def on_clock(streams: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
        return average_on_clock(streams, weights)

    t, p = on_clock([(r["kw"][0], r["kw"][1]) for r in recs])
    talk = []
    for i in range(len(recs[0]["talk"])):
        tt, pp = on_clock([(r["talk"][i][0], r["talk"][i][1]) for r in recs])
        talk.append((tt, pp, recs[-1]["talk"][i][2]))
    return {"kw": (t, p, recs[-1]["kw"][2]), "talk": talk}


def _delayed(rec: dict[str, Any], shift_s: float) -> dict[str, Any]:
    """A recording whose every posterior is stamped `shift_s` later."""
    if not shift_s:
        return rec
    kw_t, kw_p, truth = rec["kw"]
    return {"kw": (kw_t + shift_s, kw_p, truth), "talk": [(t + shift_s, p, x) for t, p, x in rec["talk"]]}


def score(rec: dict[str, Any], thresholds: float | np.ndarray, smooth: int, persist: int) -> dict[str, Any]:
    """Recall (all, per kind/language) and false alarms per hour of a firing rule on recorded posteriors."""
    t, p, truth = rec["kw"]
    sc = score_keywords(replay_posteriors(t, p, thresholds, 0.3, smooth, persist), truth)
    hits = np.array(sc["hits"])
    kinds: dict[str, list[bool]] = {}
    for w, h in zip(truth, hits, strict=True):
        kind = "uno" if w["cls"] == "uno" else ("pass" if w["cls"] == "pass" else "color")
        kinds.setdefault(f"{kind}/{w['lang']}", []).append(bool(h))
    fa = sum(len(replay_posteriors(tt, pp, thresholds, 0.3, smooth, persist)) for tt, pp, _ in rec["talk"])
    hours = sum(h for _, _, h in rec["talk"])
    return {"recall": float(hits.mean()), "by_kind": {k: float(np.mean(v)) for k, v in sorted(kinds.items())},
            "fa_per_hour": fa / hours, "latency_median_s": float(np.median(sc["latencies"])) if sc["latencies"]
            else None}


def smoothed(posts: np.ndarray, smooth: int) -> np.ndarray:
    """The running mean of `smooth` raw posteriors that the detector fires on (the first hops over fewer, as live);
    the same values `replay_posteriors` computes, for one column or all."""
    kernel = np.ones(smooth) / smooth
    cols = posts if posts.ndim == 2 else posts[:, None]
    sm = np.stack([np.convolve(cols[:, c], kernel)[: len(cols)] for c in range(cols.shape[1])], axis=1)
    for i in range(min(smooth - 1, len(sm))):
        sm[i] = cols[: i + 1].mean(axis=0)
    return sm if posts.ndim == 2 else sm[:, 0]


def single_class_fires(times: np.ndarray, sm: np.ndarray, threshold: float, persist: int, release: float = 0.3
                       ) -> list[tuple[float, float]]:
    """(time, confidence) of every fire of one keyword class with every other class switched off, from its
    smoothed posterior `sm`: exactly what `replay_posteriors` gives then, without its per-hop Python loop.

    Why it is exact: a class fires at a hop where it has been at or above the threshold `persist` hops in a row and
    is not latched; its latch is set by its own fire and cleared at any hop where it is below `release`. So the hops
    below `release` cut the stream into segments, and the class fires once in each, at the segment's first ready
    hop. Choosing thresholds replays one class at a dozen thresholds over hours of recorded talk, which the loop
    made the slow part of `per_class_rules` (minutes for each smoothing and persistence)."""
    n = len(sm)
    if n == 0:
        return []
    idx = np.arange(n)
    above = sm >= threshold
    run = idx - np.maximum.accumulate(np.where(above, -1, idx))  # hops in a row at or above, ending here
    ready = np.flatnonzero(run >= persist)
    if ready.size == 0:
        return []
    seg = np.cumsum(sm < release)[ready]
    first = ready[np.r_[True, seg[1:] != seg[:-1]]]
    return [(float(times[i]), float(sm[i])) for i in first]


def class_curves(rec: dict[str, Any], smooth: int, persist: int, grid: Sequence[float]
                 ) -> dict[int, list[tuple[float, float, int]]]:
    """For each keyword class alone (the others switched off): (threshold, its recall, its false alarms on the
    recorded table talk) at every threshold of `grid`. A class's fires hardly depend on the others' thresholds
    (only through the latch of one utterance), so these curves let `allocate_thresholds` choose them one by one."""
    t, p, truth = rec["kw"]
    out: dict[int, list[tuple[float, float, int]]] = {}
    for c in range(1, len(CLASSES)):
        mine = [w["cls"] == CLASSES[c] for w in truth]
        if not any(mine):
            continue
        sm = smoothed(p[:, c], smooth)
        talk = [(tt, smoothed(pp[:, c], smooth)) for tt, pp, _ in rec["talk"]]
        rows = []
        for th in grid:
            fires = [(tf, c, conf) for tf, conf in single_class_fires(t, sm, th, persist)]
            hits = score_keywords(fires, truth)["hits"]
            recall = float(np.mean([h for h, m in zip(hits, mine, strict=True) if m]))
            fa = sum(len(single_class_fires(tt, s, th, persist)) for tt, s in talk)
            rows.append((float(th), recall, fa))
        out[c] = rows
    return out


def allocate_thresholds(curves: dict[int, list[tuple[float, float, int]]], hours: float, budget: float
                        ) -> dict[str, float]:
    """Per-class thresholds that maximise the mean recall over the classes while their false alarms together stay
    within `budget` per hour (a knapsack over the classes, exact by dynamic programming on the alarm count).

    Why per class: one threshold for all spends the false-alarm budget where it buys least; "green" fires on
    talk far more than "uno" does at the same posterior, and a short "уно" needs a lower bar to be heard at all."""
    cap = int(budget * hours + 1e-9)
    best: dict[int, tuple[float, list[float]]] = {0: (0.0, [])}  # alarms so far -> (summed recall, thresholds)
    for c in sorted(curves):
        nxt: dict[int, tuple[float, list[float]]] = {}
        for fa0, (v0, chosen) in best.items():
            for th, recall, fa in curves[c]:
                f = fa0 + fa
                if f <= cap and (f not in nxt or nxt[f][0] < v0 + recall):
                    nxt[f] = (v0 + recall, [*chosen, th])
        best = nxt
    if not best:
        raise ValueError(f"no thresholds keep the false alarms within {budget}/h")
    _, chosen = max(best.values(), key=lambda v: v[0])
    return {CLASSES[c]: th for c, th in zip(sorted(curves), chosen, strict=True)}


def sweep(rec: dict[str, Any], thresholds: tuple[float, ...] = (0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.93, 0.95),
          smooths: tuple[int, ...] = (1, 2, 3, 4), persists: tuple[int, ...] = (1, 2, 3)) -> list[dict[str, Any]]:
    """Every combination of threshold, smoothing and persistence, scored."""
    out = []
    for th, sm, pe in itertools.product(thresholds, smooths, persists):
        r = score(rec, th, sm, pe)
        out.append({"threshold": th, "smooth": sm, "persist": pe, **r})
        print(f"thr {th:.2f} smooth {sm} persist {pe}: recall {r['recall']:.3f} FA/h {r['fa_per_hour']:.1f} "
              f"{r['by_kind']}", flush=True)
    return out


def per_class_rules(rec: dict[str, Any], budgets: Sequence[float], smooths: Sequence[int] = (2, 3, 4),
                    persists: Sequence[int] = (2, 3), grid: Sequence[float] = tuple(np.arange(0.15, 0.96, 0.05))
                    ) -> list[dict[str, Any]]:
    """For each false-alarm budget, the best rule with per-class thresholds (`allocate_thresholds`) over the
    smoothing and persistence choices, scored with every class on at once."""
    hours = sum(h for _, _, h in rec["talk"])
    found: dict[float, dict[str, Any]] = {}
    for sm, pe in itertools.product(smooths, persists):
        curves = class_curves(rec, sm, pe, [round(float(g), 2) for g in grid])
        for budget in budgets:
            try:
                per_class = allocate_thresholds(curves, hours, budget)
            except ValueError:
                continue
            thr = np.array([1.0] + [per_class.get(c, 1.0) for c in CLASSES[1:]])
            r = score(rec, thr, sm, pe)
            mean = float(np.mean(list(r["by_kind"].values())))
            if r["fa_per_hour"] <= budget and (budget not in found or found[budget]["mean_recall"] < mean):
                found[budget] = {"budget": budget, "class_thresholds": per_class, "smooth": sm, "persist": pe,
                                 "mean_recall": mean, **r}
    return [found[b] for b in budgets if b in found]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, required=True)
    ap.add_argument("--bank", type=Path, default=REPO / "data" / "speech" / "banks_val.pkl")
    ap.add_argument("--out", type=Path, default=None, help="JSON with every rule's scores")
    ap.add_argument("--thresholds", type=float, nargs="+", default=None)
    ap.add_argument("--cache", type=Path, default=None, help="pickle of the recorded posteriors (reused if present)")
    ap.add_argument("--budgets", type=float, nargs="+", default=None,
                    help="false alarms per hour: choose per-class thresholds within each (instead of the sweep)")
    args = ap.parse_args()
    import pickle

    if args.cache and args.cache.exists():
        rec = pickle.loads(args.cache.read_bytes())
    else:
        rec = record(args.model, args.bank)
        if args.cache:
            args.cache.write_bytes(pickle.dumps(rec))
    if args.budgets:
        rows = per_class_rules(rec, args.budgets)
        for r in rows:
            print(json.dumps({k: r[k] for k in ("budget", "class_thresholds", "smooth", "persist", "recall",
                                                 "fa_per_hour", "by_kind")}), flush=True)
    else:
        rows = sweep(rec, tuple(args.thresholds)) if args.thresholds else sweep(rec)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
