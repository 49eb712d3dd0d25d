#!/bin/sh
# Stop 55, after runs/speech_w3f.sh: the candidate card (the shipped card, kws_w.onnx replaced by W3F, the shipped
# weights and rule), her guide for both cards and for W3F and W alone (flat 0.35), then, only if the guide passes
# the bars of models/candidates/kws_fix_s55/plan.txt, the decision test on seed 2055 (test52.sh).
cd "$(dirname "$0")/../.."
P=.venv/bin/python; T=/tmp/lead/s55; S=models/candidates/kws_fix_s55
export OMP_NUM_THREADS=2
mkdir -p $T/SHIP
cp models/kws.json models/kws.onnx models/kws_w.json models/kws_w.onnx models/kws_emb.json models/kws_emb.onnx $T/SHIP/
$P -c "
import json; c = json.load(open('models/kws.json'))
json.dump({k: c[k] for k in ('threshold', 'class_thresholds', 'smooth', 'persist')}, open('$T/rule_shipped.json', 'w'))"
$P runs/kws_round/cand.py $T/SHIP $T/C_W3F $T/rule_shipped.json kws_w.onnx=data/speech/run_s55_w3f/kws.onnx
cp data/speech/run_s55_w3f/train.log $S/w3f_train.log
$P -c "from pathlib import Path; from speech.rounds import ensure_aside_bank; print(ensure_aside_bank(Path('data/speech')))"
$P runs/kws_round/aside53.py SHIP=$T/SHIP/kws.onnx CAND=$T/C_W3F/kws.onnx W=models/kws_w.onnx@0.35 \
  W3F=data/speech/run_s55_w3f/kws.onnx@0.35 | tee $S/aside_scores.jsonl
$P - <<'PY' > $T/guide_verdict.txt
import json
rows = {r["name"]: r for r in map(json.loads, open("models/candidates/kws_fix_s55/aside_scores.jsonl"))}
s, c = rows["SHIP"], rows["CAND"]
ok = c["10dB"]["recall"] >= s["10dB"]["recall"] - 0.05 and c["talk_fa_per_hour"] <= 1.25 * s["talk_fa_per_hour"]
print("PASS" if ok else "STOP", s["10dB"]["recall"], c["10dB"]["recall"], s["talk_fa_per_hour"], c["talk_fa_per_hour"])
PY
cat $T/guide_verdict.txt
grep -q PASS $T/guide_verdict.txt || exit 0
[ -e data/speech/banks_accent_test.pkl ] || $P -c "
from pathlib import Path
from speech.accents import render_accent_bank
from speech.kwsdata import save_banks
save_banks(render_accent_bank(True, 10, 60, 40, seed=102, workers=2), Path('data/speech/banks_accent_test.pkl'))"
sed "s|T=/tmp/lead/s52|T=/tmp/lead/s55|; s|^cd .*|cd $(pwd)|" runs/kws_round/test52.sh > $T/test55.sh
SEED=2055 sh $T/test55.sh $T/C_W3F
