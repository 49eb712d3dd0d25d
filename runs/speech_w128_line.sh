#!/bin/sh
# Stop 52: WL, W's network and W's training set (stop 48's windows, data/speech/s48) from random weights, with an
# 8 kHz line on 35% of the windows in the feature domain (speech.train.line8k). About 41 min on 2 cores (6 epochs
# of 91,860 windows). Nothing else may run beside it (a 2-thread training beside another job runs 5.5x slower).
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=2
.venv/bin/python - <<'PY'
from pathlib import Path
from speech.train import export, train
D = Path('data/speech')
best = train(epochs=6, threads=2, lr=3e-3, seed=5200, out_dir=D / 'run_s52_wl', data_dir=D / 's48',
             arch=dict(width=128, blocks=5), vtlp_share=0.6, line_share=0.35)
export(best, D / 'run_s52_wl' / 'kws.onnx')
PY
