#!/bin/sh
# Stop 52: after WL's training (runs/speech_w128_line.sh): record WL on the validation and dev streams, the real-voice
# guide (whole and Allison alone) and the card numbers (16 kHz and 8 kHz line); score the two candidates fixed in
# models/candidates/kws_line_s52/bars.txt: guide means (ens.py), the dev's rules (rule50.py), and each guide's false
# alarms under the candidate's own rule; the shipped DWH under its card beside them.
cd "$(dirname "$0")/../.."
export OUT=/tmp/lead/s52 REAL_DEV=data/speech/real_dev51.pkl OMP_NUM_THREADS=1
T=/tmp/lead/s52; S=/tmp/lead/s48; S1=/tmp/lead/s51; R=data/speech/run_s52_wl
P=.venv/bin/python; K=runs/kws_round
mkdir -p $T/WL && cp $R/kws.onnx $T/WL/kws.onnx
$P -c "
import json; c=json.load(open('$R/kws.json')); [c.pop(k, None) for k in ('parts','class_thresholds')]; json.dump(c, open('$T/WL/kws.json','w'))"
sh $K/rec_all.sh WL $T/WL/kws.onnx
for x in D W H; do for g in real real_en num num8k; do [ -e $T/${g}_$x.pkl ] || ln -s $S1/${g}_$x.pkl $T/${g}_$x.pkl; done; done
for b in val fresh; do
  $P $K/ens.py "{
   \"DWH_$b\": [[\"$S/${b}_D.pkl\",0.3],[\"$S/${b}_W.pkl\",0.3],[\"$S/${b}_H.pkl\",0.4]],
   \"DWLH_$b\": [[\"$S/${b}_D.pkl\",0.3],[\"$T/${b}_WL.pkl\",0.3],[\"$S/${b}_H.pkl\",0.4]],
   \"DWLHw_$b\": [[\"$S/${b}_D.pkl\",0.2],[\"$T/${b}_WL.pkl\",0.4],[\"$S/${b}_H.pkl\",0.4]],
   \"W_$b\": [[\"$S/${b}_W.pkl\",1]], \"WL_$b\": [[\"$T/${b}_WL.pkl\",1]]}" &
done
wait
$P $K/rule50.py DWLH "[[\"$S/val_D.pkl\",\"$S/fresh_D.pkl\",0.3],[\"$T/val_WL.pkl\",\"$T/fresh_WL.pkl\",0.3],[\"$S/val_H.pkl\",\"$S/fresh_H.pkl\",0.4]]"
$P $K/rule50.py DWLHw "[[\"$S/val_D.pkl\",\"$S/fresh_D.pkl\",0.2],[\"$T/val_WL.pkl\",\"$T/fresh_WL.pkl\",0.4],[\"$S/val_H.pkl\",\"$S/fresh_H.pkl\",0.4]]"
echo "== guides under each candidate's dev rule (20 then 10), shipped under its card"
for c in "DWH models/kws.json 0.3 0.3 W" "DWLH $T/rule_DWLH_20.json 0.3 0.3 WL" "DWLH $T/rule_DWLH_10.json 0.3 0.3 WL" \
         "DWLHw $T/rule_DWLHw_20.json 0.2 0.4 WL" "DWLHw $T/rule_DWLHw_10.json 0.2 0.4 WL"; do
  set -- $c
  echo "-- $1 rule $2"
  sh $K/guides.sh $1 $2 D:$3 $5:$4 H:0.4
done
echo "-- parts alone, flat 0.35"
$P $K/card_numbers.py fa '{"W": [["W", 1]], "WL": [["WL", 1]]}' $S1/flat35.json
$P $K/realdev.py fa "{\"W\": [[\"$T/real_W.pkl\", 1]], \"WL\": [[\"$T/real_WL.pkl\", 1]], \"W_en\": [[\"$T/real_en_W.pkl\", 1]], \"WL_en\": [[\"$T/real_en_WL.pkl\", 1]]}" $S1/flat35.json
echo ALL DONE $(date)
