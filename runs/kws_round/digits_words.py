"""Diagnosis only (stop 51, after the decision test): which spoken digit each false alarm on the real spoken digits
followed, per card.  digits_words.py NAME=CARD.onnx ...  Prints counts of (digit, class) a card fired on."""
import collections, json, sys
from pathlib import Path
import numpy as np
import soundfile as sf
from speech.evaluate import DIGITS, digits_stream, posteriors
from speech.features import RATE
from speech.kws import KeywordDetector
from speech.synth import resample
audio, names = digits_stream(DIGITS)
starts, pos = [], 0
for n in names:  # the same layout as digits_stream: each file, then 0.3 s of silence
    x, sr = sf.read(str(DIGITS / n), dtype="float32", always_2d=True)
    starts.append(pos / RATE)
    pos += len(resample(x.mean(axis=1), int(sr), RATE)) + int(0.3 * RATE)
starts_a = np.array(starts)
for spec in sys.argv[1:]:
    name, card = spec.split("=", 1)
    _, _, events = posteriors(KeywordDetector(Path(card)), audio)
    pairs = collections.Counter()
    for e in events:
        i = int(np.searchsorted(starts_a, float(e["t"]), side="right")) - 1
        word = ("zero one two three four five six seven eight nine".split())[int(names[i].split("_")[0])]
        pairs[f"{word}->{e.get('color') or e['type']}"] += 1
    print(json.dumps({"name": name, "fires": sum(pairs.values()), "by_digit": dict(pairs.most_common())}), flush=True)
