#!/bin/sh
# Stop 48: W, one DS-CNN 128 channels wide and 5 blocks deep, trained from random weights on the CPU, and the banks
# its candidate was scored on. About 26 min of synthesis, windows and mining and 40 min of training (6 epochs of
# 91,860 windows, ~6.8 min an epoch) on 2 cores. Its ONNX is shipped as models/kws_w.onnx, its checkpoint kept in
# models/candidates/kws_w128_s48/ (see models/KWS_MODEL_CARD.md, "Round of stop 48").
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=2
.venv/bin/python - <<'PY'
from pathlib import Path
from speech.rounds import RoundSet, build_round_set, ensure_guide_banks
from speech.train import export, train
D = Path('data/speech')
val, _dev = ensure_guide_banks(D)
O = build_round_set(D, 's48', RoundSet(seed=211), Path('models/kws.onnx'), val)
best = train(epochs=6, threads=2, lr=3e-3, seed=4800, out_dir=D / 'run_s48_w128', data_dir=O,
             arch=dict(width=128, blocks=5), vtlp_share=0.6)
export(best, D / 'run_s48_w128' / 'kws.onnx')
PY
