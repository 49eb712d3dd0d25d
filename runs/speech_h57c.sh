#!/bin/sh
# Stop 57, a diagnosis (no candidate): is "every head trained since the shipped one fires more on the real digits"
# the data or the training? Two heads on H57's embedded minutes (data/speech/run_s57_h57/{train,val}.npz, made by
# runs/speech_h57.sh): H57s1, the same recipe with seed 1 (how far one seed moves the count), and H57e20, seed 0
# with 20 epochs, the shipped head's epoch count (train_head's default is 12). Then each head alone on the real
# digits (digits_parts.py, flat 0.35) beside the shipped H and H57. ~8 and ~13 min of training on 2 cores.
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=2
.venv/bin/python - <<'PY'
from pathlib import Path
from speech.embed_data import load_embedded
from speech.head import export_head, train_head
D = Path('data/speech'); src = D / 'run_s57_h57'
tr, va = load_embedded(src / 'train.npz'), load_embedded(src / 'val.npz')
for name, seed, epochs in (('run_s57_h57s1', 1, 12), ('run_s57_h57e20', 0, 20)):
    O = D / name
    if not (O / 'kws_emb.onnx').exists():
        best = train_head(tr, va, O / 'run', epochs=epochs, seed=seed, threads=2)
        print(export_head(best, O / 'kws_emb.onnx', {}), name, 'DONE', flush=True)
PY
.venv/bin/python runs/kws_round/digits_parts.py H=models/kws_emb.onnx H57=data/speech/run_s57_h57/kws_emb.onnx \
  H57s1=data/speech/run_s57_h57s1/kws_emb.onnx H57e20=data/speech/run_s57_h57e20/kws_emb.onnx
