#!/bin/sh
# stop 51: record HR2 everywhere, score the four candidates and the shipped DWH
cd "$(dirname "$0")/../.."
export OMP_NUM_THREADS=2 OUT=/tmp/lead/s51 REAL_DEV=data/speech/real_dev51.pkl
T=/tmp/lead/s51; S=/tmp/lead/s48; S9=/tmp/lead/s49
mkdir -p $T/HR2 && cp data/speech/s51_head/kws_emb.onnx data/speech/s51_head/kws_emb.json $T/HR2/
P=.venv/bin/python
$P runs/kws_round/rec.py $T/HR2/kws_emb.onnx data/speech/banks_val.pkl $T/val_HR2.pkl &
OMP_NUM_THREADS=1 $P runs/kws_round/rec.py $T/HR2/kws_emb.onnx data/speech/banks_fresh.pkl $T/fresh_HR2.pkl
wait
$P runs/kws_round/realdev.py rec HR2 $T/HR2/kws_emb.onnx
REAL_SPEAKERS=asterisk:en_US_f_Allison $P runs/kws_round/realdev.py rec en_HR2 $T/HR2/kws_emb.onnx
for b in val fresh; do
  $P runs/kws_round/ens.py "{
   \"DWH_$b\": [[\"$S/${b}_D.pkl\",0.3],[\"$S/${b}_W.pkl\",0.3],[\"$S/${b}_H.pkl\",0.4]],
   \"DWHR2_$b\": [[\"$S/${b}_D.pkl\",0.3],[\"$S/${b}_W.pkl\",0.3],[\"$T/${b}_HR2.pkl\",0.4]],
   \"DWHR2h_$b\": [[\"$S/${b}_D.pkl\",0.25],[\"$S/${b}_W.pkl\",0.25],[\"$T/${b}_HR2.pkl\",0.5]],
   \"DW2HR2_$b\": [[\"$S/${b}_D.pkl\",0.3],[\"$S9/${b}_W2.pkl\",0.3],[\"$T/${b}_HR2.pkl\",0.4]],
   \"DW2HR2h_$b\": [[\"$S/${b}_D.pkl\",0.25],[\"$S9/${b}_W2.pkl\",0.25],[\"$T/${b}_HR2.pkl\",0.5]],
   \"H_$b\": [[\"$S/${b}_H.pkl\",1]], \"HR2_$b\": [[\"$T/${b}_HR2.pkl\",1]]}" &
done
wait
for c in "DWHR2 $S/val_W.pkl $S/fresh_W.pkl 0.3 0.4" "DWHR2h $S/val_W.pkl $S/fresh_W.pkl 0.25 0.5" \
         "DW2HR2 $S9/val_W2.pkl $S9/fresh_W2.pkl 0.3 0.4" "DW2HR2h $S9/val_W2.pkl $S9/fresh_W2.pkl 0.25 0.5"; do
  set -- $c
  $P runs/kws_round/rule50.py $1 "[[\"$S/val_D.pkl\",\"$S/fresh_D.pkl\",$4],[\"$2\",\"$3\",$4],[\"$T/val_HR2.pkl\",\"$T/fresh_HR2.pkl\",$5]]"
done
echo ALL DONE $(date)
