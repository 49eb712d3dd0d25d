#!/bin/sh
# Stop 55: H55, the head on speech embeddings from random weights on 800 embedded minutes of table recordings from
# round set s54c's bank (rendered with the "uno" fix, the set-aside speaker out), 12 epochs (plan:
# models/candidates/kws_fix_s55/plan.txt). ~10 min of embedding and ~5 min of training on 2 cores.
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=2
.venv/bin/python - <<'PY'
from pathlib import Path
from speech.embed_data import build_embedded, load_embedded, save_embedded
from speech.head import export_head, train_head
D = Path('data/speech'); O = D / 'run_s55_h55'; O.mkdir(parents=True, exist_ok=True)
bank = [D / 'banks_s54c.pkl']
if not (O / 'train.npz').exists():
    save_embedded(O / 'train.npz', *build_embedded(bank, 800, seed=5501, workers=2))
if not (O / 'val.npz').exists():
    save_embedded(O / 'val.npz', *build_embedded(bank, 32, seed=6501, workers=2))
best = train_head(load_embedded(O / 'train.npz'), load_embedded(O / 'val.npz'), O / 'run', epochs=12, threads=2)
print(export_head(best, O / 'kws_emb.onnx', {}), 'H55 DONE', flush=True)
PY
