#!/bin/sh
# Stop 44: continue both members of the shipped DS-CNN pair on windows cut from a bank six times bigger in keyword
# renditions (1,200 per spoken form rather than 200), from the weights in models/kws.onnx (speech.onnx_members: the
# checkpoints are not shipped). About 25 min of synthesis, 25 min of windows and mining, 40 min of training, 2 cores.
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
.venv/bin/python - <<'PY'
from pathlib import Path
import numpy as np
from speech.accents import merge_banks, render_accent_bank
from speech.kwsdata import Banks, build_banks, build_examples, load_banks, save_banks
from speech.mining import build_mined_set, render_bank
from speech.onnx_members import members_from_onnx, save_members
from speech.vocab import NEGATIVE_WORDS
D = Path('data/speech'); O = D / 's44'; O.mkdir(parents=True, exist_ok=True)
big = build_banks(False, 1200, 25, 1000, seed=211, workers=2)             # 19,196 keywords, training voices
acc = render_accent_bank(False, 24, 60, 30, seed=213, workers=2)           # 2,285 keywords, accent speakers
save_banks(acc, D / 'banks_accent_train.pkl')
save_banks(merge_banks(big, acc), D / 'banks_big.pkl')
if not (D / 'banks_val.pkl').exists():
    save_banks(render_bank(40, NEGATIVE_WORDS, 3, 250, seed=42), D / 'banks_val.pkl')
x, y = build_examples(D / 'banks_big.pkl', 60000, seed=221, workers=2)      # the recipe's windows
xv, yv = build_examples(D / 'banks_val.pkl', 4000, seed=222, workers=2)
np.savez(O / 'val.npz', x=xv, y=yv)
big = load_banks(D / 'banks_big.pkl')
idx = np.random.default_rng(223).choice(len(big.keywords), 4000, replace=False)
mine = Banks(keywords=[big.keywords[i] for i in idx], negatives=big.negatives, sentences=big.sentences)
save_banks(mine, D / 'banks_mine.pkl')
acc = load_banks(D / 'banks_accent_train.pkl')
save_banks(Banks(keywords=acc.keywords, negatives=acc.negatives + mine.negatives[::3],
                 sentences=acc.sentences + mine.sentences[::2]), D / 'banks_accmine.pkl')
xm, ym = build_mined_set([D / 'banks_mine.pkl'], Path('models/kws.onnx'), seed=224)   # hard negatives mined
xa, ya = build_mined_set([D / 'banks_accmine.pkl'], Path('models/kws.onnx'), seed=225, max_hard=1500,
                         n_random_other=600)
np.savez(O / 'train.npz', x=np.concatenate([x, xm.astype(x.dtype), xa.astype(x.dtype)]),
         y=np.concatenate([y, ym, ya]))                                               # 146,371 windows
members = members_from_onnx(Path('models/kws.onnx'), xv[:1024].astype(np.float32))
save_members(members, O, {'width': 64, 'blocks': 5})
PY
for k in 0 1; do
  .venv/bin/python -c "
from pathlib import Path
from speech.train import train
D = Path('data/speech')
train(epochs=4, threads=1, lr=1e-3, seed=44$k, out_dir=D / 'run_s44_m$k', data_dir=D / 's44',
      init_from=D / 's44' / 'member$k.pt', arch=dict(width=64, blocks=5), vtlp_share=0.6)
" > data/speech/run_s44_m$k.log 2>&1 &
done
wait
