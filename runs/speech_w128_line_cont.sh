#!/bin/sh
# Stop 52, round 4: W2L, W2 (stop 49's continuation of W, the strongest wide part on the dev) continued 3 epochs on
# stop 49's windows (data/speech/s49) with the 8 kHz line (speech.train.line8k) on 35% of them. About 20 min on
# 2 cores; nothing else may run beside it.
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=2
.venv/bin/python - <<'PY'
from pathlib import Path
from speech.train import export, train
D = Path('data/speech')
best = train(epochs=3, threads=2, lr=1e-3, seed=5300, out_dir=D / 'run_s52_w2l', data_dir=D / 's49',
             init_from=Path('models/candidates/kws_w128_s49/best.pt'), arch=dict(width=128, blocks=5),
             vtlp_share=0.6, line_share=0.35)
export(best, D / 'run_s52_w2l' / 'kws.onnx')
PY
