#!/bin/sh
# The shipped wide part W (stop 48, models/candidates/kws_w128_s48/best.pt) continued 3 epochs on a round set's
# windows (data/speech/SET), one-cycle peak LR 1.5e-3, VTLP 60% (stop 49's W2 recipe), exported to
# data/speech/RUN/kws.onnx. ~7-8 min an epoch on 2 cores with nothing beside it.
#   speech_wcont.sh RUN SET SEED      e.g. speech_wcont.sh run_s55_w3f s54c 5500
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=2
RUN=$1 SET=$2 SEED=$3 .venv/bin/python - <<'PY'
import os
from pathlib import Path
from speech.train import export, train
D = Path('data/speech'); O = D / os.environ['RUN']
best = train(epochs=3, threads=2, lr=1.5e-3, seed=int(os.environ['SEED']), out_dir=O, data_dir=D / os.environ['SET'],
             init_from=Path('models/candidates/kws_w128_s48/best.pt'), arch=dict(width=128, blocks=5),
             vtlp_share=0.6)
export(best, O / 'kws.onnx')
print(os.environ['RUN'], 'DONE', best, flush=True)
PY
