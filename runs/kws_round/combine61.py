"""Stop 61: other ways to combine a card's parts than the weighted mean of raw posteriors, on recorded parts
(speech.tune.record / rec.py), on the clock speech.tune.fuse uses; each combiner's best per-class rules on them.
    combine61.py '[["D.pkl", 0.3], ["W.pkl", 0.3], ["H.pkl", 0.4]]' [BUDGETS, default 2,20]"""
import json
import pickle
import sys

import numpy as np

from speech.tune import per_class_rules


def aligned(streams: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """(times, parts x hops x classes): every part's latest posterior at or before each of the last part's hops."""
    t_clock = streams[-1][0]
    idx = [np.searchsorted(t, t_clock + 1e-9, side="right") - 1 for t, _ in streams]
    ready = np.all([j >= 0 for j in idx], axis=0)
    return t_clock[ready], np.stack([p[j[ready]] for (_, p), j in zip(streams, idx, strict=True)])


def combine(stack: np.ndarray, w: np.ndarray, how: str) -> np.ndarray:
    w = w[:, None, None] / w.sum()
    if how == "mean":
        return (w * stack).sum(0)
    if how == "geo":
        g = np.exp((w * np.log(np.clip(stack, 1e-6, 1))).sum(0))
        return g / g.sum(-1, keepdims=True)
    if how == "max":  # keywords: the most confident part; other: what is left
        kw = stack[:, :, 1:].max(0)
        kw = np.minimum(kw, 1.0)
        s = kw.sum(-1, keepdims=True)
        kw = np.where(s > 1, kw / s, kw)
        return np.concatenate([1 - kw.sum(-1, keepdims=True), kw], -1)
    if how == "top2":  # keywords: mean of the two most confident parts
        kw = np.sort(stack[:, :, 1:], axis=0)[-2:].mean(0)
        return np.concatenate([1 - kw.sum(-1, keepdims=True), kw], -1)
    raise ValueError(how)


parts = json.loads(sys.argv[1])
budgets = tuple(float(b) for b in (sys.argv[2] if len(sys.argv) > 2 else "2,20").split(","))
recs = [pickle.loads(open(p, "rb").read()) for p, _ in parts]
w = np.array([x for _, x in parts], float)
for how in ("mean", "geo", "max", "top2"):
    t, s = aligned([(r["kw"][0], r["kw"][1]) for r in recs])
    rec = {"kw": (t, combine(s, w, how), recs[-1]["kw"][2]), "talk": []}
    for i in range(len(recs[0]["talk"])):
        tt, ss = aligned([(r["talk"][i][0], r["talk"][i][1]) for r in recs])
        rec["talk"].append((tt, combine(ss, w, how), recs[-1]["talk"][i][2]))
    for r in per_class_rules(rec, budgets, smooths=(2, 3), persists=(2,)):
        print(how, json.dumps({k: r.get(k) for k in ("budget", "recall", "fa_per_hour", "class_thresholds", "smooth",
                                                      "by_kind")}), flush=True)
