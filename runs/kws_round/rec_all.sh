#!/bin/sh
# Stop 52: record one single-part card on every guide: the validation and dev streams (rec.py), the real-voice
# guide whole and Allison alone (realdev.py), the card numbers as rendered and through an 8 kHz line
# (card_numbers.py); two single-thread jobs at a time.   rec_all.sh NAME CARD.onnx   (writes OUT/*_NAME.pkl)
cd "$(dirname "$0")/../.."
export OUT=${OUT:-/tmp/lead/s52} REAL_DEV=${REAL_DEV:-data/speech/real_dev51.pkl} OMP_NUM_THREADS=1
P=.venv/bin/python; K=runs/kws_round; N=$1; C=$2
$P $K/rec.py $C data/speech/banks_val.pkl $OUT/val_$N.pkl &
$P $K/rec.py $C data/speech/banks_fresh.pkl $OUT/fresh_$N.pkl
wait
$P $K/realdev.py rec $N $C &
REAL_SPEAKERS=asterisk:en_US_f_Allison $P $K/realdev.py rec en_$N $C
wait
$P $K/card_numbers.py rec $N $C
