#!/bin/sh
# Stop 55, after runs/speech_h55.sh: the candidate card DWH55 (the shipped card, kws_emb.onnx replaced by H55, the
# shipped weights and rule), her guide for it and for H55 alone (flat 0.35), then, only if the guide passes the
# lines of models/candidates/kws_fix_s55/plan.txt, the decision test on seed 2156 beside the shipped card.
cd "$(dirname "$0")/../.."
P=.venv/bin/python; T=/tmp/lead/s55; S=models/candidates/kws_fix_s55; H=data/speech/run_s55_h55
export OMP_NUM_THREADS=2
$P runs/kws_round/cand.py $T/SHIP $T/C_H55 $T/rule_shipped.json kws_emb.onnx=$H/kws_emb.onnx
cp $H/run/log.json $S/h55_log.json
$P runs/kws_round/aside53.py SHIP=$T/SHIP/kws.onnx CAND_H55=$T/C_H55/kws.onnx H55=$H/kws_emb.onnx@0.35 \
  | tee $S/aside_scores_h55.jsonl
$P - <<'PY' > $T/guide_verdict_h55.txt
import json
rows = {r["name"]: r for r in map(json.loads, open("models/candidates/kws_fix_s55/aside_scores_h55.jsonl"))}
s, c = rows["SHIP"], rows["CAND_H55"]
ok = c["10dB"]["recall"] >= s["10dB"]["recall"] - 0.05 and c["talk_fa_per_hour"] <= 1.25 * s["talk_fa_per_hour"]
print("PASS" if ok else "STOP", s["10dB"]["recall"], c["10dB"]["recall"], s["talk_fa_per_hour"], c["talk_fa_per_hour"])
PY
cat $T/guide_verdict_h55.txt
grep -q PASS $T/guide_verdict_h55.txt || exit 0
sed "s|T=/tmp/lead/s52|T=/tmp/lead/s55|; s|^cd .*|cd $(pwd)|" runs/kws_round/test52.sh > $T/test55.sh
SEED=2156 sh $T/test55.sh $T/C_H55
