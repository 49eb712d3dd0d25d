"""Stop 50's shortcut check: the validation keyword stream (10 dB babble) sent through an 8 kHz line.

Why: every Asterisk recording among the real-voice negatives is telephone-band; a part that learnt "no top octave
means other" would look better on 8 kHz real speech and miss keywords said over a phone or a cheap microphone.
  telrec.py rec NAME CARD.onnx        -> OUT/tel_NAME.pkl (raw posteriors, as speech.tune.record's "kw")
  telrec.py score SPEC RULE           recall of a weighted average under a rule, telephone-band stream
"""
import json, os, pickle, sys
from pathlib import Path
import numpy as np
from speech.evaluate import keyword_stream, posteriors, score_keywords
from speech.kws import KeywordDetector, replay_posteriors
from speech.kwsdata import load_banks
from speech.realvoices import telephone
from speech.tune import average_on_clock

OUT = Path(os.environ.get("OUT", "/tmp/lead/s50"))
sys.path.insert(0, str(Path(__file__).parent))
from realdev import rule_of  # noqa: E402


def rec(name: str, card: str) -> None:
    audio, truth = keyword_stream(load_banks(Path("data/speech/banks_val.pkl")), 10.0, seed=7)
    det = KeywordDetector(Path(card), smooth=1, persist=1)
    t, p, _ = posteriors(det, telephone(audio))
    (OUT / f"tel_{name}.pkl").write_bytes(pickle.dumps((t, p, truth)))


def score(spec: dict, rule: str) -> None:
    th, smooth, persist = rule_of(rule)
    for name, parts in spec.items():
        recs = [pickle.loads(Path(p).read_bytes()) for p, _ in parts]
        t, p = average_on_clock([(r[0], r[1]) for r in recs], [w for _, w in parts])
        sc = score_keywords(replay_posteriors(t, p, th, 0.3, smooth, persist), recs[-1][2])
        print(json.dumps({"name": name, "recall_telephone": round(float(np.mean(sc["hits"])), 4)}), flush=True)


if __name__ == "__main__":
    rec(sys.argv[2], sys.argv[3]) if sys.argv[1] == "rec" else score(json.loads(sys.argv[2]), sys.argv[3])
