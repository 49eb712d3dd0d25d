#!/bin/bash
# Stop 63: fine-tune both classifier nets on the deck's 1 (runs/vis63/plan.txt), side by side, one thread each.
cd "$(dirname "$0")/../.."
P=.venv/bin/python
export OMP_NUM_THREADS=1
$P models/train_classifier.py --data data/vis63/close --copies 2 --more data/vis62/table:1 --crop 96 --width 1 \
  --init models/card_classifier_parts/narrow.pth --lr 5e-4 --epochs 2 --seed 63 --out runs/vis63/narrow/card_classifier.onnx \
  > runs/vis63/narrow.log 2>&1 &
$P models/train_classifier.py --data data/vis63/close --copies 2 --more data/vis62/table:1 --crop 96 --width 1.5 \
  --init models/card_classifier_parts/wide.pth --lr 4e-4 --epochs 2 --seed 64 --out runs/vis63/wide/card_classifier.onnx \
  > runs/vis63/wide.log 2>&1 &
wait
