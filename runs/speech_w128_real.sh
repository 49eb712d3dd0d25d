#!/bin/sh
# Stop 50: W2 continued with real voices (W2R). Real recordings from Debian packages (speech/realvoices.py: Asterisk's
# telephone prompts and KLettres' letters, 3 hours of 25 real speakers; three more speakers held out as a false-alarm
# guide) make 30,000 new windows: real speech cut anywhere (other), synthetic keywords after real words and over real
# babble, five real "uno"s, real babble alone. W2 (stop 49) is continued 3 epochs on them beside stop 49's 93,803
# windows (one-cycle, peak LR 1e-3). About 3 min of data and 25 min of training on 2 cores.
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=2
.venv/bin/python - <<'PY'
from pathlib import Path
import numpy as np
from speech.kwsdata import save_banks
from speech.realvoices import build_real_examples, load_real
from speech.rounds import RoundSet, build_round_set, ensure_guide_banks
from speech.train import export, train
D = Path('data/speech')
val, _dev = ensure_guide_banks(D)
S49 = build_round_set(D, 's49', RoundSet(seed=311, other_frac=0.25), Path('models/kws.onnx'), val)
O = D / 's50'
O.mkdir(exist_ok=True)
if not (O / 'train.npz').exists():
    real = D / 'real_train.pkl'
    if not real.exists():
        save_banks(load_real('train'), real)
    xr, yr = build_real_examples(real, D / 'banks_s49.pkl', 30000, seed=5010)
    old = np.load(S49 / 'train.npz')
    np.savez(O / 'train.npz', x=np.concatenate([old['x'], xr.astype(old['x'].dtype)]), y=np.concatenate([old['y'], yr]))
    (O / 'val.npz').write_bytes((S49 / 'val.npz').read_bytes())
best = train(epochs=3, threads=2, lr=1e-3, seed=5000, out_dir=D / 'run_s50_w2r', data_dir=O,
             init_from=Path('models/candidates/kws_w128_s49/best.pt'), arch=dict(width=128, blocks=5),
             vtlp_share=0.6)
export(best, D / 'run_s50_w2r' / 'kws.onnx')
PY
