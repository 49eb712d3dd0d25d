#!/bin/sh
# Stop 55: W3F, the shipped wide part W (stop 48) continued 3 epochs on round set s54c (runs/speech_set54.sh:
# seed 541, non-espeak share 0.25, the set-aside speaker out, every non-espeak English "uno" said as players say
# it), one-cycle peak LR 1.5e-3, VTLP 60%, seed 5500 (stop 49's W2 recipe). Plan and bars:
# models/candidates/kws_fix_s55/plan.txt. ~7 min an epoch on 2 cores.
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=2
.venv/bin/python - <<'PY'
from pathlib import Path
from speech.train import export, train
D = Path('data/speech')
best = train(epochs=3, threads=2, lr=1.5e-3, seed=5500, out_dir=D / 'run_s55_w3f', data_dir=D / 's54c',
             init_from=Path('models/candidates/kws_w128_s48/best.pt'), arch=dict(width=128, blocks=5),
             vtlp_share=0.6)
export(best, D / 'run_s55_w3f' / 'kws.onnx')
print('W3F DONE', best, flush=True)
PY
