#!/bin/sh
# (Stop 50 started it and stopped it after part of the first epoch to give the cores to HR; never completed.)
# Stop 50: the four DS-CNNs of models/kws.onnx continued on the real-voice windows (DR). Their weights come out of
# the shipped ONNX (speech.onnx_members; the checkpoints are not shipped); each is continued 2 epochs on the s50
# windows of runs/speech_w128_real.sh (stop 49's 93,803 plus 30,000 with real voices), two at a time, one thread
# each, then the four are exported into one graph as before. About 25 min on 2 cores.
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
D=data/speech
.venv/bin/python - <<'PY'
from pathlib import Path
import numpy as np
from speech.onnx_members import members_from_onnx, save_members
O = Path('data/speech/s50')
if not (O / 'member3.pt').exists():
    xv = np.load(O / 'val.npz')['x'][:1024].astype(np.float32)
    save_members(members_from_onnx(Path('models/kws.onnx'), xv), O, {'width': 64, 'blocks': 5})
PY
for pair in "0 1" "2 3"; do
  for k in $pair; do
    .venv/bin/python -c "
from pathlib import Path
from speech.train import train
D = Path('data/speech')
train(epochs=2, threads=1, lr=5e-4, seed=500$k, out_dir=D / 'run_s50_m$k', data_dir=D / 's50',
      init_from=D / 's50' / 'member$k.pt', arch=dict(width=64, blocks=5), vtlp_share=0.6)
" > $D/run_s50_m$k.log 2>&1 &
  done
  wait
done
.venv/bin/python -c "
from pathlib import Path
from speech.train import export
D = Path('data/speech')
export([D / f'run_s50_m{k}' / 'best.pt' for k in range(4)], D / 'run_s50_dr' / 'kws.onnx')
"
