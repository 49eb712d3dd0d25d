#!/bin/sh
# Stop 55, after a part is trained (runs/speech_w3f.sh, runs/speech_h55.sh): the candidate card (the shipped card
# with one part file replaced, the shipped weights and rule), her guide for the shipped card, the candidate and any
# parts named after the seed (aside53.py), then, only if the guide passes (guide_verdict.py, the lines of
# models/candidates/kws_fix_s55/plan.txt), the decision test on SEED beside the shipped card (test52.sh).
#   [T=/tmp/lead/s56 S=models/candidates/kws_pico_s56] after55.sh NAME PART_FILE=ONNX SEED [NAME=ONNX@T ...]
# (T: the working folder, S: the candidates folder the scores go to; stop 55's unless given; DIGITS=1: stop 57's
# real-digits line after the guide; stop 60: RULE=FILE gives the candidate its own rule, not the shipped one;
# LINES_ONLY=1 stops after the lines, before the test)
#   as run: after55.sh W3F kws_w.onnx=data/speech/run_s55_w3f/kws.onnx 2055 W=models/kws_w.onnx@0.35 \
#             W3F=data/speech/run_s55_w3f/kws.onnx@0.35
#           after55.sh H55 kws_emb.onnx=data/speech/run_s55_h55/kws_emb.onnx 2156 \
#             H55=data/speech/run_s55_h55/kws_emb.onnx@0.35
# (stop 55's W3F run named its candidate row CAND, not CAND_W3F, in aside_scores_w3f.jsonl)
cd "$(dirname "$0")/../.."
NAME=$1; PART=$2; SEED=$3; shift 3
P=.venv/bin/python; T=${T:-/tmp/lead/s55}; S=${S:-models/candidates/kws_fix_s55}
LOW=$(echo "$NAME" | tr 'A-Z' 'a-z'); SCORES=$S/aside_scores_$LOW.jsonl
export OMP_NUM_THREADS=2
mkdir -p $T/SHIP
cp models/kws.json models/kws.onnx models/kws_w.json models/kws_w.onnx models/kws_emb.json models/kws_emb.onnx $T/SHIP/
$P -c "
import json; c = json.load(open('models/kws.json'))
json.dump({k: c[k] for k in ('threshold', 'class_thresholds', 'smooth', 'persist')}, open('$T/rule_shipped.json', 'w'))"
$P runs/kws_round/cand.py $T/SHIP $T/C_$NAME "${RULE:-$T/rule_shipped.json}" "$PART"
$P -c "from pathlib import Path; from speech.rounds import ensure_aside_bank; print(ensure_aside_bank(Path('data/speech')))"
$P runs/kws_round/aside53.py SHIP=$T/SHIP/kws.onnx CAND_$NAME=$T/C_$NAME/kws.onnx "$@" | tee $SCORES
# stop 56: the held-out Pico voices' guide where it exists (reported, not a line)
[ -e data/speech/banks_pico_guide.pkl ] && BANK=data/speech/banks_pico_guide.pkl $P runs/kws_round/aside53.py \
  SHIP=$T/SHIP/kws.onnx CAND_$NAME=$T/C_$NAME/kws.onnx "$@" > $S/pico_guide_$LOW.jsonl
$P runs/kws_round/guide_verdict.py $SCORES CAND_$NAME || exit 0
# stop 57 (DIGITS=1): a second line before the seed, the real spoken digits, each card once (digits_words.py); the
# candidate stops if it fires on them more often than the shipped card (digits_verdict.py)
if [ -n "$DIGITS" ]; then
  $P runs/kws_round/digits_words.py SHIP=$T/SHIP/kws.onnx CAND_$NAME=$T/C_$NAME/kws.onnx | tee $S/digits_words_$LOW.jsonl
  $P runs/kws_round/digits_verdict.py $S/digits_words_$LOW.jsonl CAND_$NAME || exit 0
fi
[ -n "$LINES_ONLY" ] && echo LINES PASSED && exit 0
SEED=$SEED T=$T sh runs/kws_round/test52.sh $T/C_$NAME
