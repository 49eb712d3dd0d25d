"""Stop 59, diagnosis after the decision: the near-miss words of tests/speech/test_kws.py::test_near_misses_do_not_fire
said by every held-out voice of their language (espeak-ng, flite, festival), each in its own 2.5 s clip with the test's
room noise; how many clips make each card fire, and with which class.
    near_misses.py NAME=CARD.onnx ..."""
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np

from speech.audio import ArraySource
from speech.kws import KeywordDetector
from speech.synth import mix_at, synthesize
from speech.vocab import split_voices

WORDS = {"en": ["one", "you know", "Juno", "no"], "ru": ["ну", "но", "один"]}
clips = []
for lang, words in WORDS.items():
    for v in split_voices(lang)[1]:
        for w in words:
            rng = np.random.default_rng(len(clips))
            track = (rng.standard_normal(40000) * 60).astype(np.int16)
            try:
                clips.append((w, f"{v.engine}:{v.name}", mix_at(track, synthesize(w, v), 0.5, gain_db=-3)))
            except Exception as exc:  # a voice that cannot say it: named, not counted
                print(f"skipped {v.engine}:{v.name} {w!r}: {exc}", file=sys.stderr)
print(f"{len(clips)} clips", file=sys.stderr, flush=True)
for arg in sys.argv[1:]:
    name, card = arg.split("=", 1)
    det = KeywordDetector(Path(card))
    fires: Counter[str] = Counter()
    voices: Counter[str] = Counter()
    for w, voice, audio in clips:
        det.reset()
        ev = list(det.run(ArraySource(audio).chunks()))
        for e in ev:
            fires[f"{w}->{e.get('color', e['type'])}"] += 1
        voices[voice] += bool(ev)
    print(json.dumps({"name": name, "clips": len(clips), "clips_fired": sum(voices.values()),
                      "fires": dict(fires.most_common())}), flush=True)
