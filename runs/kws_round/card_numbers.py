"""Stop 51: a guide of card numbers said alone. At an UNO table the words said most are the cards' numbers, and
real false alarms come from a few rhymes of the keywords ("three"/"green", "five"/"pass", "zero"/"yellow"), so a
stream of numbers said one at a time, with pauses, by the 16 fresh-speaker variants of the dev (never trained on,
never tested on) is a synthetic guide to those alarms. Two versions: as rendered (16 kHz) and through an 8 kHz line.

  card_numbers.py bank                    render the bank -> data/speech/numbers_fresh.pkl
  card_numbers.py rec NAME CARD.onnx      one part's raw posteriors on both streams -> OUT/num_NAME.pkl, num8k_NAME.pkl
  card_numbers.py fa SPEC RULE            false alarms an hour of a weighted average (as realdev.py fa), both streams
"""
import json, os, pickle, sys
from pathlib import Path
import numpy as np
from realdev import by_class, rule_of  # this folder's real-voice guide: the same rule reader and class count
from speech.evaluate import isolated_words, posteriors
from speech.features import RATE
from speech.fresh_voices import render_fresh_bank
from speech.kws import KeywordDetector, replay_posteriors
from speech.kwsdata import load_banks, save_banks
from speech.realvoices import telephone
from speech.tune import average_on_clock

OUT = Path(os.environ.get("OUT", "/tmp/lead/s51"))
BANK = Path("data/speech/numbers_fresh.pkl")
WORDS = {"en": "zero one two three four five six seven eight nine".split(),
         "ru": "ноль один два три четыре пять шесть семь восемь девять".split()}


def stream(line8k: bool) -> np.ndarray:
    bank = load_banks(BANK)
    order = np.random.default_rng(5151).permutation(len(bank.negatives))
    clips = [bank.negatives[int(i)].audio for i in order]
    return isolated_words([telephone(x) for x in clips] if line8k else clips)[0]


def rec(name: str, card: str) -> None:
    for line8k, tag in ((False, "num"), (True, "num8k")):
        a = stream(line8k)
        t, p, _ = posteriors(KeywordDetector(Path(card), smooth=1, persist=1), a)
        (OUT / f"{tag}_{name}.pkl").write_bytes(pickle.dumps((t, p, len(a) / RATE / 3600)))


def fa(spec: dict, rule_path: str) -> None:
    th, smooth, persist = rule_of(rule_path)
    for name, parts in spec.items():
        row = {"name": name}
        for tag in ("num", "num8k"):
            recs = [pickle.loads((OUT / f"{tag}_{p}.pkl").read_bytes()) for p, _ in parts]
            t, p = average_on_clock([(x[0], x[1]) for x in recs], [w for _, w in parts])
            fires = replay_posteriors(t, p, th, 0.3, smooth, persist)
            row[tag] = {"fa_per_hour": round(len(fires) / recs[0][2], 1), "by_class": by_class(fires)}
        print(json.dumps(row, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "bank":
        save_banks(render_fresh_bank(Path("data/speech/fresh_dev_voices"), 16, 0, 160, 0, seed=4650,
                                     neg_words=WORDS, workers=1), BANK)
    elif sys.argv[1] == "rec":
        rec(sys.argv[2], sys.argv[3])
    else:
        fa(json.loads(sys.argv[2]), sys.argv[3])
