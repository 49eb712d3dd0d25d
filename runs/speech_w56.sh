#!/bin/sh
# Stop 56: W56, the shipped wide part W (stop 48) continued 3 epochs on round set s56p (runs/speech_set56.sh: share
# 0.12, SVOX Pico's four training voices in), one-cycle peak LR 1.5e-3, VTLP 60%, seed 5600 (stop 55's W3F recipe on
# the new set). Plan and bars: models/candidates/kws_pico_s56/plan.txt. ~7-8 min an epoch on 2 cores.
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=2
.venv/bin/python - <<'PY'
from pathlib import Path
from speech.train import export, train
D = Path('data/speech')
best = train(epochs=3, threads=2, lr=1.5e-3, seed=5600, out_dir=D / 'run_s56_w56', data_dir=D / 's56p',
             init_from=Path('models/candidates/kws_w128_s48/best.pt'), arch=dict(width=128, blocks=5),
             vtlp_share=0.6)
export(best, D / 'run_s56_w56' / 'kws.onnx')
print('W56 DONE', best, flush=True)
PY
