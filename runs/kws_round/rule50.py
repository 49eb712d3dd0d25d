"""Stop 50: the dev's (fresh speakers) per-class rule at <= 20 and <= 10 FA/h (smooth 2-3, persist 2) of a weighted
average of recorded parts, and the validation's; writes the <= 20 rule of the dev as OUT/rule_NAME.json.
  rule50.py NAME '[["val.pkl", "fresh.pkl", weight], ...]'
BUDGETS (stop 52): comma list of budgets, default "10,20"; a rule's file is named by int(budget*10)/10 (17.5 ->
rule_NAME_17.5.json, 20 -> rule_NAME_20.json). Stop 60: a part's "val.pkl" may be null where only the dev was recorded;
the validation's rules are then not computed (the dev's rule, the one written, is the same)."""
import json, os, pickle, sys
from pathlib import Path
from speech.tune import fuse, per_class_rules
OUT = Path(os.environ.get("OUT", "/tmp/lead/s50"))
load = lambda p: pickle.loads(open(p, 'rb').read())
name, parts = sys.argv[1], json.loads(sys.argv[2])
for bank, col in (('dev', 1), ('val', 0)):
    if any(p[col] is None for p in parts):
        continue
    rec = fuse([load(p[col]) for p in parts], [p[2] for p in parts])
    budgets = tuple(float(b) for b in os.environ.get('BUDGETS', '10,20').split(','))
    for r in per_class_rules(rec, budgets, smooths=(2, 3), persists=(2,)):
        row = {k: r.get(k) for k in ('budget', 'class_thresholds', 'smooth', 'persist', 'recall', 'fa_per_hour',
                                      'by_kind')}
        print(bank, json.dumps(row), flush=True)
        if bank == 'dev':
            b = r['budget']
            (OUT / f"rule_{name}_{int(b) if b == int(b) else b}.json").write_text(json.dumps(
                {"threshold": 0.35, "class_thresholds": r["class_thresholds"], "smooth": r["smooth"],
                 "persist": r["persist"]}))
