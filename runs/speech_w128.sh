#!/bin/sh
# Stop 48: W, one DS-CNN 128 channels wide and 5 blocks deep, trained from random weights on the CPU, and the banks
# its candidate was scored on. About 26 min of synthesis, windows and mining and 40 min of training (6 epochs of
# 91,860 windows, ~6.8 min an epoch) on 2 cores. Its ONNX is shipped as models/kws_w.onnx, its checkpoint kept in
# models/candidates/kws_w128_s48/ (see models/KWS_MODEL_CARD.md, "Round of stop 48").
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=2
.venv/bin/python - <<'PY'
from pathlib import Path
import numpy as np
from speech.accents import merge_banks, render_accent_bank
from speech.fresh_voices import render_fresh_bank
from speech.kwsdata import Banks, build_banks, build_examples, load_banks, save_banks
from speech.mining import build_mined_set, render_bank
from speech.train import export, train
from speech.vocab import NEGATIVE_WORDS
D = Path('data/speech'); O = D / 's48'; O.mkdir(parents=True, exist_ok=True)
if not (D / 'banks_val.pkl').exists():      # validation streams, training voices
    save_banks(render_bank(40, NEGATIVE_WORDS, 3, 250, seed=42), D / 'banks_val.pkl')
if not (D / 'banks_fresh.pkl').exists():    # the fresh-speaker dev (16 new espeak-ng variants)
    save_banks(render_fresh_bank(D / 'fresh_dev_voices', 16, 40, 3, 250, seed=4650), D / 'banks_fresh.pkl')
big = build_banks(False, 600, 12, 800, seed=211, workers=2)                 # training voices
acc = render_accent_bank(False, 12, 30, 20, seed=213, workers=2)           # other languages' speakers
save_banks(merge_banks(big, acc), D / 'banks_s48.pkl')
xv, yv = build_examples(D / 'banks_val.pkl', 4000, seed=222, workers=2)
np.savez(O / 'val.npz', x=xv, y=yv)
x, y = build_examples(D / 'banks_s48.pkl', 50000, seed=221, workers=2)     # the recipe's windows
big = load_banks(D / 'banks_s48.pkl')
idx = np.random.default_rng(223).choice(len(big.keywords), 3000, replace=False)
save_banks(Banks(keywords=[big.keywords[i] for i in idx], negatives=big.negatives, sentences=big.sentences),
           D / 'banks_s48_mine.pkl')
xm, ym = build_mined_set([D / 'banks_s48_mine.pkl'], Path('models/kws.onnx'), seed=224)   # hard negatives
np.savez(O / 'train.npz', x=np.concatenate([x, xm.astype(x.dtype)]), y=np.concatenate([y, ym]))
best = train(epochs=6, threads=2, lr=3e-3, seed=4800, out_dir=D / 'run_s48_w128', data_dir=O,
             arch=dict(width=128, blocks=5), vtlp_share=0.6)
export(best, D / 'run_s48_w128' / 'kws.onnx')
PY
