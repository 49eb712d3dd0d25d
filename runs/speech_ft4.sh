#!/bin/sh
# Fine-tune both members of the shipped pair with festival's speakers of other languages (speech/accents.py) added:
# recipe windows from the training banks merged with the accent bank, stream-cut windows of the accent voices with
# hard negatives mined by the shipped pair, and samples of the previous rounds' windows (training voices only).
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
.venv/bin/python -c "
import time, numpy as np
from pathlib import Path
from speech.accents import merge_banks
from speech.kwsdata import build_examples, load_banks, save_banks
from speech.mining import build_mined_set, save
D = Path('data/speech'); F = D / 'ft4'
if not (F / 'train.npz').exists():
    t = time.time()
    save_banks(merge_banks(load_banks(D / 'banks_train.pkl'), load_banks(D / 'banks_accent_train.pkl')),
               D / 'banks_train_acc.pkl')
    xr, yr = build_examples(D / 'banks_train_acc.pkl', 30000, seed=81, workers=2)
    print('recipe', time.time() - t, flush=True)
    xm, ym = build_mined_set([D / 'banks_accent_train.pkl'], Path('models/kws.onnx'), seed=83, max_hard=1000,
                             n_random_other=500)
    print('mined', len(ym), time.time() - t, flush=True)
    h = np.load(D / 'hard' / 'train.npz'); m = np.load(D / 'mined' / 'train.npz')
    rng = np.random.default_rng(84)
    kh = rng.permutation(len(h['y']))[:15000]; km = rng.permutation(len(m['y']))[:25000]
    x = np.concatenate([xr, xm, h['x'][kh], m['x'][km]]); y = np.concatenate([yr, ym, h['y'][kh], m['y'][km]])
    save(F / 'train.npz', x, y)
    v = np.load(D / 'ft2' / 'val.npz'); save(F / 'val.npz', v['x'], v['y'])
    print('data', len(y), np.bincount(y), time.time() - t, flush=True)
"
for m in hard ft2; do
  .venv/bin/python -c "
from pathlib import Path
from speech.train import train
D = Path('data/speech')
train(epochs=6, threads=1, lr=1e-3, seed=7, out_dir=D / 'run_acc_$m', data_dir=D / 'ft4',
      init_from=D / 'run_$m' / 'best.pt', arch=dict(width=64, blocks=5))
" > data/speech/run_acc_$m.log 2>&1 &
done
wait
