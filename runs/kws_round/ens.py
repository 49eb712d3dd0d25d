"""Score fused recordings: mean over the budgets of the best per-class rule's recall (stop 45's 'mean')."""
import json, pickle, sys
import numpy as np
from speech.tune import fuse, per_class_rules
BUDGETS = (2.0, 6.0, 15.0, 25.0, 30.0, 56.7)
import os
GRID = tuple(np.round(np.arange(float(os.environ.get("GRID_LO", "0.15")), 0.96, 0.05), 2))
def load(p): return pickle.loads(open(p, 'rb').read())
def evaluate(paths, weights):
    rec = fuse([load(p) for p in paths], weights) if len(paths) > 1 else load(paths[0])
    rows = per_class_rules(rec, BUDGETS, grid=GRID)
    by_b = {r['budget']: r for r in rows}
    recalls = [by_b[b]['recall'] if b in by_b else 0.0 for b in BUDGETS]
    return float(np.mean(recalls)), recalls, by_b
if __name__ == '__main__':
    spec = json.loads(sys.argv[1])  # {"name": [[path, w], ...]}
    for name, parts in spec.items():
        m, rs, by_b = evaluate([p for p, _ in parts], [w for _, w in parts])
        r25 = by_b.get(25.0, {})
        print(json.dumps({'name': name, 'mean': round(m, 4), 'recalls': [round(r, 3) for r in rs],
                          'at25': {k: r25.get(k) for k in ('class_thresholds', 'smooth', 'persist', 'by_kind')}}),
              flush=True)
