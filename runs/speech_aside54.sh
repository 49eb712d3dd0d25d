#!/bin/sh
# Stop 54: S54W, W's architecture (DS-CNN 128 wide, 5 blocks) from random weights on s49a (stop 49's round set
# without the set-aside speaker), 7 epochs (~7 min each on 2 cores), to score on her guide (runs/kws_round/aside53.py).
# Plan and how it is read: models/candidates/kws_aside_s54/plan.txt.
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=2
.venv/bin/python - <<'PY'
from pathlib import Path
from speech.train import export, train
D = Path('data/speech')
best = train(epochs=7, threads=2, lr=3e-3, seed=5410, out_dir=D / 'run_s54w', data_dir=D / 's49a',
             arch=dict(width=128, blocks=5), vtlp_share=0.6)
export(best, D / 'run_s54w' / 'kws.onnx')
PY
