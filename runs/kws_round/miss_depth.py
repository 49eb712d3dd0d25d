"""Stop 60: how deep the shipped card's misses are. On a test bank's keyword stream at 10 dB babble (as
`unotable eval-speech` lays it), each word the card misses under its rule is put in a bin by the highest smoothed
posterior of its own class in the window a hit may fire in (speech.evaluate's HIT_BEFORE/HIT_AFTER around its end):
under .1 the parts barely hear it, so no rule can find it; between .1 and the class's threshold a lower rule could.
Also the word's best other class there (what it was heard as), and recall, with the false alarms an hour on the
test's table talk (10 dB, as eval-speech lays it), if each class's threshold were .2 or .1.
    miss_depth.py CARD.onnx BANK.pkl [SNR]   (prints JSON lines)"""
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

from speech.evaluate import HIT_AFTER, HIT_BEFORE, keyword_stream, other_stream, posteriors, score_keywords
from speech.features import RATE
from speech.kws import KeywordDetector, replay_posteriors
from speech.kwsdata import load_banks
from speech.tune import smoothed
from speech.vocab import CLASSES

card, bank = Path(sys.argv[1]), Path(sys.argv[2])
snr = float(sys.argv[3]) if len(sys.argv) > 3 else 10.0
det = KeywordDetector(card)
banks = load_banks(bank)
audio, truth = keyword_stream(banks, snr, seed=7)
times, posts, _ = posteriors(det, audio)
sm = smoothed(posts, det.smooth)


talk = other_stream(banks.sentences, 10.0, seed=8)
t_talk, p_talk, _ = posteriors(det, talk)
hours = len(talk) / RATE / 3600


def fires(t: np.ndarray, p: np.ndarray, thr: np.ndarray) -> list[tuple[float, int, float]]:
    """The card's rule (smoothing, persistence, release) replayed with other thresholds."""
    return replay_posteriors(t, p, thr, det.release, det.smooth, det.persist)


def hits_at(thr: np.ndarray) -> list[bool]:
    return score_keywords(fires(times, posts, thr), truth)["hits"]


def talk_fa(thr: np.ndarray) -> float:
    return round(len(fires(t_talk, p_talk, thr)) / hours, 1)


hits = hits_at(det.thresholds)
bins = (0.1, 0.2, 0.3, 1.01)
depth: dict[str, Counter[str]] = defaultdict(Counter)
heard_as: dict[str, Counter[str]] = defaultdict(Counter)
for w, hit in zip(truth, hits, strict=True):
    kl = f"{'uno' if w['cls'] == 'uno' else 'pass' if w['cls'] == 'pass' else 'color'}/{w['lang']}"
    depth[kl]["words"] += 1
    if hit:
        continue
    c = CLASSES.index(w["cls"])
    win = (times >= w["end"] - HIT_BEFORE) & (times <= w["end"] + HIT_AFTER)
    top = float(sm[win, c].max()) if win.any() else 0.0
    k = next(i for i, b in enumerate(bins) if top < b)
    depth[kl][f"missed, own posterior {([0.0, *bins][k]):g}-{min(bins[k], 1.0):g}"] += 1
    if win.any():
        others = sm[win].max(axis=0)
        others[0] = others[c] = -1
        j = int(np.argmax(others))
        heard_as[kl][CLASSES[j] if others[j] >= 0.1 else "nothing >= .1"] += 1
for kl in sorted(depth):
    print(json.dumps({"kind_lang": kl, **dict(sorted(depth[kl].items())), "best_other": dict(heard_as[kl])}))
for floor in (0.2, 0.1):
    thr = np.array([1.0] + [floor] * (len(CLASSES) - 1))
    h = hits_at(thr)
    by: dict[str, list[bool]] = defaultdict(list)
    for w, x in zip(truth, h, strict=True):
        by[f"{w['cls']}/{w['lang']}"].append(x)
    print(json.dumps({"every_threshold": floor, "recall": round(float(np.mean(h)), 4), "talk_fa_per_hour": talk_fa(thr),
                      "by_class_lang": {k: round(float(np.mean(v)), 3) for k, v in sorted(by.items())}}))
print(json.dumps({"rule": "card's", "recall": round(float(np.mean(hits)), 4), "talk_fa_per_hour": talk_fa(det.thresholds),
                  "snr": snr}))
