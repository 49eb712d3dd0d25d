#!/bin/sh
# More lower-card crops (seed 3, 24,000) and 4 more epochs from the shipped lower-card model on both sets.
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=2
.venv/bin/python -c "
import sys, numpy as np
sys.path.insert(0, '.')
from datasets.pairs import build
from datasets.export import CLASS_NAMES
tr = build(24000, 3, CLASS_NAMES, workers=2, progress=False)
np.savez_compressed('data/lower/train2.npz', crops=tr.crops, labels=tr.labels)
" && .venv/bin/python models/train_lower.py --extra data/lower/train2.npz --init models/card_classifier_parts/lower.pth \
    --epochs 4 --lr 5e-4 --seed 4 --threads 2 --out runs/lower2/card_lower.onnx
