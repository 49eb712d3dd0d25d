"""The real-voice false-alarm guide of stop 50 (speech.realvoices' dev speakers, held out of training).

Environment: OUT (where recordings go), REAL_DEV (the dev split's cache; stop 51: data/speech/real_dev51.pkl, four
speakers with Allison), REAL_SPEAKERS (comma list: only these speakers' recordings in the stream, e.g.
asterisk:en_US_f_Allison for the English part alone).

  realdev.py rec NAME CARD.onnx      one part's raw posteriors on the dev stream -> OUT/real_NAME.pkl
  realdev.py fa SPEC RULE            false alarms an hour of a weighted average of recorded parts under a rule
                                     SPEC '{"name": [[pkl, w], ...]}', RULE a card (kws.json) or a rule's json
"""
import json, os, pickle, sys
from pathlib import Path
import numpy as np
from speech.kws import KeywordDetector, replay_posteriors
from speech.kwsdata import load_banks, save_banks
from speech.realvoices import dev_stream, load_real
from speech.evaluate import posteriors
from speech.tune import average_on_clock
from speech.vocab import CLASSES

OUT = Path(os.environ.get("OUT", "/tmp/lead/s50"))
DEV = Path(os.environ.get("REAL_DEV", "data/speech/real_dev.pkl"))
SPEAKERS = [s for s in os.environ.get("REAL_SPEAKERS", "").split(",") if s]


def stream() -> np.ndarray:
    if not DEV.exists():
        save_banks(load_real("dev"), DEV)
    dev = load_banks(DEV)
    if SPEAKERS:
        dev.negatives = [u for u in dev.negatives if u.voice in SPEAKERS]
    return dev_stream(dev)


def rec(name: str, card: str) -> None:
    a = stream()
    det = KeywordDetector(Path(card), smooth=1, persist=1)
    t, p, _ = posteriors(det, a)
    (OUT / f"real_{name}.pkl").write_bytes(pickle.dumps({"talk": [(t, p, len(a) / 16000 / 3600)]}))


def fused(parts: list[tuple[str, float]]) -> tuple[np.ndarray, np.ndarray, float]:
    recs = [pickle.loads(Path(p).read_bytes())["talk"][0] for p, _ in parts]
    t, p = average_on_clock([(r[0], r[1]) for r in recs], [w for _, w in parts])
    return t, p, recs[-1][2]


def rule_of(path: str) -> tuple[np.ndarray, int, int]:
    r = json.loads(Path(path).read_text())
    th = np.full(len(CLASSES), float(r.get("threshold", 0.5)))
    for c, v in (r.get("class_thresholds") or {}).items():
        th[CLASSES.index(c)] = v
    return th, int(r.get("smooth", 3)), int(r.get("persist", 2))


def by_class(fires: list) -> dict[str, int]:
    """How many of the fires were each keyword class."""
    by: dict[str, int] = {}
    for _, c, _ in fires:
        by[CLASSES[c]] = by.get(CLASSES[c], 0) + 1
    return by


def fa(spec: dict, rule: str) -> None:
    th, smooth, persist = rule_of(rule)
    for name, parts in spec.items():
        t, p, hours = fused(parts)
        fires = replay_posteriors(t, p, th, 0.3, smooth, persist)
        print(json.dumps({"name": name, "fa_per_hour": round(len(fires) / hours, 1), "fires": len(fires),
                          "hours": round(hours, 3), "by_class": by_class(fires)}), flush=True)


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    if sys.argv[1] == "rec":
        rec(sys.argv[2], sys.argv[3])
    else:
        fa(json.loads(sys.argv[2]), sys.argv[3])
