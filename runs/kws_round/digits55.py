"""Stop 55, diagnosis only (after the decision test): W and W3F alone on the real spoken digits - how often does each
part's raw posterior of each keyword class, smoothed over 3 hops, reach 0.35 for 2 hops (as digits_parts.py)."""
from pathlib import Path

from speech.evaluate import DIGITS, digits_stream, posteriors
from speech.kws import KeywordDetector
from speech.tune import single_class_fires, smoothed
from speech.vocab import CLASSES

audio, _names = digits_stream(DIGITS)
hours = len(audio) / 16000 / 3600
for name, p in (("W", "models/kws_w.onnx"), ("W3F", "data/speech/run_s55_w3f/kws.onnx")):
    det = KeywordDetector(Path(p), smooth=1, persist=1)
    t, post, _ = posteriors(det, audio)
    sm = smoothed(post, 3)
    counts = {CLASSES[c]: len(single_class_fires(t, sm[:, c], 0.35, 2)) for c in range(1, len(CLASSES))}
    print(name, f"{sum(counts.values()) / hours:.1f}/h", counts, flush=True)
