"""Stop 60: the dev's per-class rule (speech.tune.per_class_rules on the fresh speakers' streams, smooth 2-3,
persist 2) at one budget for parts recorded with rec.py and fused with weights, as the shipped rule was chosen
(stop 48, DWH-r20); writes OUT_RULE as a rule file for cand.py.
    dev_rule.py BUDGET OUT_RULE.json fresh_A.pkl:0.3 fresh_B.pkl:0.3 fresh_C.pkl:0.4"""
import json
import pickle
import sys
from pathlib import Path

from speech.tune import fuse, per_class_rules

budget, out = float(sys.argv[1]), Path(sys.argv[2])
parts = [a.rsplit(":", 1) for a in sys.argv[3:]]
rec = fuse([pickle.loads(Path(p).read_bytes()) for p, _ in parts], [float(w) for _, w in parts])
for r in per_class_rules(rec, (budget,), smooths=(2, 3), persists=(2,)):
    print(json.dumps({k: r.get(k) for k in ("budget", "class_thresholds", "smooth", "persist", "recall",
                                            "fa_per_hour", "by_kind")}), flush=True)
    out.write_text(json.dumps({"threshold": 0.35, "class_thresholds": r["class_thresholds"], "smooth": r["smooth"],
                               "persist": r["persist"]}))
