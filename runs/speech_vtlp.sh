#!/bin/sh
# Continue both accent-trained members (runs/speech_ft4.sh) with vocal tract length perturbation on 60% of the
# windows (speech.train.vtlp), on the same windows.
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
for m in hard ft2; do
  .venv/bin/python -c "
from pathlib import Path
from speech.train import train
D = Path('data/speech')
train(epochs=4, threads=1, lr=8e-4, seed=9, out_dir=D / 'run_vtlp_$m', data_dir=D / 'ft4',
      init_from=D / 'run_acc_$m' / 'last.pt', arch=dict(width=64, blocks=5), vtlp_share=0.6)
" > data/speech/run_vtlp_$m.log 2>&1 &
done
wait
