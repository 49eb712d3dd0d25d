"""The dev's (fresh speakers) rule at <= 20 FA/h, smooth 2-3, persist 2, for D 0.3 + W2 0.3 + H 0.4; also the val's."""
import json, pickle, sys
from speech.tune import fuse, per_class_rules
S, T = '/tmp/lead/s48', '/tmp/lead/s49'
load = lambda p: pickle.loads(open(p, 'rb').read())
for bank, pre in (('dev', 'fresh'), ('val', 'val')):
    rec = fuse([load(f'{S}/{pre}_D.pkl'), load(f'{T}/{pre}_W2.pkl'), load(f'{S}/{pre}_H.pkl')], [0.3, 0.3, 0.4])
    for r in per_class_rules(rec, (10.0, 20.0), smooths=(2, 3), persists=(2,)):
        print(bank, json.dumps({k: r.get(k) for k in ('budget', 'class_thresholds', 'smooth', 'persist', 'mean_recall', 'recall', 'fa_per_hour', 'by_kind')}), flush=True)
