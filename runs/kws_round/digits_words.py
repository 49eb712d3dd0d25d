"""Diagnosis only (stop 51, after the decision test): which spoken digit each false alarm on the real spoken digits
followed, per card.  digits_words.py NAME=CARD.onnx ...  Prints counts of (digit, class) a card fired on."""
import collections, json, sys
from pathlib import Path
import numpy as np
from speech.evaluate import DIGITS, digits_clips, isolated_words, posteriors
from speech.kws import KeywordDetector
clips, names = digits_clips(DIGITS)
audio, starts_a = isolated_words(clips)  # the layout of digits_stream, with each file's start
for spec in sys.argv[1:]:
    name, card = spec.split("=", 1)
    _, _, events = posteriors(KeywordDetector(Path(card)), audio)
    pairs = collections.Counter()
    for e in events:
        i = int(np.searchsorted(starts_a, float(e["t"]), side="right")) - 1
        word = ("zero one two three four five six seven eight nine".split())[int(names[i].split("_")[0])]
        pairs[f"{word}->{e.get('color') or e['type']}"] += 1
    print(json.dumps({"name": name, "fires": sum(pairs.values()), "by_digit": dict(pairs.most_common())}), flush=True)
