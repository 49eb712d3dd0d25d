#!/bin/sh
# Stop 52, round 4: after W2L's training (runs/speech_w128_line_cont.sh): record it on every guide, score the two
# candidates of bars.txt (D23 .2, two wide networks .2 each, H .4), their rules at the budgets 20 / 17.5 / 15 / 12.5
# / 10 and the guides under each, then build their cards (the two wide networks in one graph) and time them.
cd "$(dirname "$0")/../.."
export OUT=/tmp/lead/s52 REAL_DEV=data/speech/real_dev51.pkl OMP_NUM_THREADS=1
T=/tmp/lead/s52; S=/tmp/lead/s48; P=.venv/bin/python; K=runs/kws_round; R=data/speech/run_s52_w2l
mkdir -p $T/W2L && cp $R/kws.onnx $T/W2L/kws.onnx
$P -c "
import json; c=json.load(open('$R/kws.json')); [c.pop(k, None) for k in ('parts','class_thresholds')]; json.dump(c, open('$T/W2L/kws.json','w'))"
sh $K/rec_all.sh W2L $T/W2L/kws.onnx
ln -sf $S/val_W.pkl $T/val_W.pkl; ln -sf $S/fresh_W.pkl $T/fresh_W.pkl
for b in val fresh; do
  $P $K/ens.py "{
   \"D23_W2L_WL_H_$b\": [[\"$T/${b}_D23.pkl\",0.2],[\"$T/${b}_W2L.pkl\",0.2],[\"$T/${b}_WL.pkl\",0.2],[\"$S/${b}_H.pkl\",0.4]],
   \"D23_W2L_W_H_$b\": [[\"$T/${b}_D23.pkl\",0.2],[\"$T/${b}_W2L.pkl\",0.2],[\"$S/${b}_W.pkl\",0.2],[\"$S/${b}_H.pkl\",0.4]],
   \"W2L_$b\": [[\"$T/${b}_W2L.pkl\",1]]}" &
done
wait
for c in "D23W2LWLH WL" "D23W2LWH W"; do
  set -- $c
  BUDGETS=20,17.5,15,12.5,10 $P $K/rule50.py $1 "[[\"$T/val_D23.pkl\",\"$T/fresh_D23.pkl\",0.2],[\"$T/val_W2L.pkl\",\"$T/fresh_W2L.pkl\",0.2],[\"$T/val_$2.pkl\",\"$T/fresh_$2.pkl\",0.2],[\"$S/val_H.pkl\",\"$S/fresh_H.pkl\",0.4]]" | grep dev
  for r in 20 17.5 15 12.5 10; do
    echo "-- $1 rule $r"
    sh $K/guides.sh $1 $T/rule_$1_$r.json D23:0.2 W2L:0.2 $2:0.2 H:0.4
  done
done
echo "-- W2L alone, flat 0.35"
$P $K/card_numbers.py fa '{"W2L": [["W2L", 1]]}' /tmp/lead/s51/flat35.json
$P $K/realdev.py fa "{\"W2L\": [[\"$T/real_W2L.pkl\", 1]], \"W2L_en\": [[\"$T/real_en_W2L.pkl\", 1]]}" /tmp/lead/s51/flat35.json
echo "-- CPU"
OMP_NUM_THREADS=2 $P -c "
from pathlib import Path
from speech.train import export
export([Path('data/speech/run_s52_w2l/best.pt'), Path('data/speech/run_s52_wl/best.pt')], Path('$T/W2LWL/kws.onnx'))
export([Path('data/speech/run_s52_w2l/best.pt'), Path('models/candidates/kws_w128_s48/best.pt')], Path('$T/W2LW/kws.onnx'))" 2>/dev/null
$P $K/cand.py $T/SHIP $T/C4_W2LWL $T/rule_D23W2LWLH_20.json kws.onnx=$T/D23/kws.onnx kws_w.onnx=$T/W2LWL/kws.onnx weights=0.2,0.4,0.4
$P $K/cand.py $T/SHIP $T/C4_W2LW $T/rule_D23W2LWH_20.json kws.onnx=$T/D23/kws.onnx kws_w.onnx=$T/W2LW/kws.onnx weights=0.2,0.4,0.4
$P $K/bench2.py $T/SHIP/kws.onnx $T/C4_W2LWL/kws.onnx $T/C4_W2LW/kws.onnx $T/SHIP/kws.onnx $T/C4_W2LWL/kws.onnx $T/C4_W2LW/kws.onnx
echo ALL DONE $(date)
