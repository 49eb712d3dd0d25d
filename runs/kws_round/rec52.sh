#!/bin/sh
# Stop 52, second look: record the two halves of D (runs/kws_round/dpairs52.py) on every guide.
cd "$(dirname "$0")/../.."
export OUT=/tmp/lead/s52 REAL_DEV=data/speech/real_dev51.pkl OMP_NUM_THREADS=1
T=/tmp/lead/s52; P=.venv/bin/python; K=runs/kws_round
for d in D01 D23; do sh $K/rec_all.sh $d $T/$d/kws.onnx; done
echo REC DONE $(date)
