"""Stop 61: a card's raw posteriors on a bank's streams (as speech.tune.record lays them) with the audio
speed-perturbed by UP/DOWN (resample_poly; > 1 slower and lower, < 1 faster and higher), hop times mapped back
to the original clock: one arm of a test-time-augmentation average, fused later with speech.tune.fuse.
    tta_rec.py CARD.onnx BANK.pkl UP DOWN OUT.pkl"""
import pickle
import sys
from pathlib import Path

import numpy as np
from scipy.signal import resample_poly

from speech.evaluate import keyword_stream, other_stream, posteriors
from speech.kws import KeywordDetector
from speech.kwsdata import load_banks

card, bank = Path(sys.argv[1]), Path(sys.argv[2])
up, down, out = int(sys.argv[3]), int(sys.argv[4]), Path(sys.argv[5])
det = KeywordDetector(card, smooth=1, persist=1)
banks = load_banks(bank)


def run(audio: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    y = audio if up == down else np.clip(resample_poly(audio, up, down), -1, 1).astype(np.float32)
    t, p, _ = posteriors(det, y)
    return t * down / up, p


audio, truth = keyword_stream(banks, 10.0, seed=7)
t, p = run(audio)
talk = []
for s in (8, 9, 10):
    a = other_stream(banks.sentences, 10.0, seed=s)
    tt, pp = run(a)
    talk.append((tt, pp, len(a) / 16000 / 3600))
out.write_bytes(pickle.dumps({"kw": (t, p, truth), "talk": talk}))
print("recorded", out, flush=True)
