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
from pathlib import Path
from typing import Any

import numpy as np

from speech.evaluate import keyword_stream, other_stream, posteriors, score_keywords
from speech.kws import KeywordDetector, replay_posteriors
from speech.kwsdata import load_banks

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


def fuse(recs: list[dict[str, Any]], weights: list[float]) -> dict[str, Any]:
    """Recorded posteriors of several models (each recorded alone) averaged as the detector averages a card's
    `parts`: at each of the last model's hops, every model's latest posterior at or before it, weighted."""

    def on_clock(streams: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
        t_clock, _ = streams[-1]
        idx = [np.searchsorted(t, t_clock + 1e-9, side="right") - 1 for t, _ in streams]
        ready = np.all([j >= 0 for j in idx], axis=0)  # as live: no decision before every part has spoken
        total = np.zeros((int(ready.sum()), streams[-1][1].shape[1]))
        for (_, p), j, w in zip(streams, idx, weights, strict=True):
            total += w * p[j[ready]]
        return t_clock[ready], total / sum(weights)

    t, p = on_clock([(r["kw"][0], r["kw"][1]) for r in recs])
    talk = []
    for i in range(len(recs[0]["talk"])):
        tt, pp = on_clock([(r["talk"][i][0], r["talk"][i][1]) for r in recs])
        talk.append((tt, pp, recs[-1]["talk"][i][2]))
    return {"kw": (t, p, recs[-1]["kw"][2]), "talk": talk}


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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, required=True)
    ap.add_argument("--bank", type=Path, default=REPO / "data" / "speech" / "banks_val.pkl")
    ap.add_argument("--out", type=Path, default=None, help="JSON with every rule's scores")
    ap.add_argument("--thresholds", type=float, nargs="+", default=None)
    ap.add_argument("--cache", type=Path, default=None, help="pickle of the recorded posteriors (reused if present)")
    args = ap.parse_args()
    import pickle

    if args.cache and args.cache.exists():
        rec = pickle.loads(args.cache.read_bytes())
    else:
        rec = record(args.model, args.bank)
        if args.cache:
            args.cache.write_bytes(pickle.dumps(rec))
    rows = sweep(rec, tuple(args.thresholds)) if args.thresholds else sweep(rec)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
