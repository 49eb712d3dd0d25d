#!/bin/sh
# record D, W, H, W2 on the stop-51 real guide (whole) and on Allison alone
cd "$(dirname "$0")/../.."
export OMP_NUM_THREADS=1 OUT=/tmp/lead/s51 REAL_DEV=data/speech/real_dev51.pkl
for p in D:/tmp/lead/s48/D/kws.onnx W:/tmp/lead/s48/W/kws.onnx H:/tmp/lead/s48/H/kws_emb.onnx W2:/tmp/lead/s49/W2/kws.onnx; do
  n=${p%%:*}; c=${p#*:}
  .venv/bin/python runs/kws_round/realdev.py rec $n $c
  REAL_SPEAKERS=asterisk:en_US_f_Allison .venv/bin/python runs/kws_round/realdev.py rec en_$n $c
  echo done $n $(date)
done
