"""Diagnosis only (after the decision): each part alone on the real spoken digits - how often does its raw posterior
of each keyword class, smoothed over 3 hops, reach 0.35 for 2 hops (the class fires)?
    digits_parts.py [NAME=PART.onnx ...]
Without arguments, stop 49's parts (D, W, W2, H), their posteriors kept in /tmp/lead/s49/digits_parts.pkl; stop 55
ran it as `digits_parts.py W=models/kws_w.onnx W3F=data/speech/run_s55_w3f/kws.onnx`."""
import pickle
import sys
from pathlib import Path
import numpy as np
from speech.evaluate import DIGITS, digits_stream, posteriors
from speech.kws import KeywordDetector
from speech.tune import single_class_fires, smoothed
from speech.vocab import CLASSES
audio, names = digits_stream(DIGITS)
hours = len(audio) / 16000 / 3600
out = {}
STOP49 = (("D", "/tmp/lead/s48/D/kws.onnx"), ("W", "/tmp/lead/s48/W/kws.onnx"),
          ("W2", "/tmp/lead/s49/W2/kws.onnx"), ("H", "/tmp/lead/s48/H/kws_emb.onnx"))
parts = [tuple(a.split("=", 1)) for a in sys.argv[1:]] or STOP49
for name, p in parts:
    det = KeywordDetector(Path(p), smooth=1, persist=1)
    t, post, _ = posteriors(det, audio)
    out[name] = (t, post)
    sm = smoothed(post, 3)
    counts = {CLASSES[c]: len(single_class_fires(t, sm[:, c], 0.35, 2)) for c in range(1, len(CLASSES))}
    print(name, f"{sum(counts.values()) / hours:.1f}/h", counts, flush=True)
if parts is STOP49:
    Path("/tmp/lead/s49/digits_parts.pkl").write_bytes(pickle.dumps((out, hours)))
