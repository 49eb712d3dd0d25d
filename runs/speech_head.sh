#!/bin/sh
# The head on speech embeddings from random weights (speech.head.train_head defaults, 12 epochs) on MINUTES embedded
# minutes of table recordings cut from BANK (seed SEED; 32 minutes for validation, seed SEED+1000), exported to
# data/speech/RUN/kws_emb.onnx. Each finished step is kept; a rerun resumes. ~0.6 s an embedded minute and 20-40 s an
# epoch (800-1,600 minutes) on 2 cores with nothing beside it.
#   speech_head.sh RUN BANK MINUTES SEED      e.g. speech_head.sh run_s55_h55 data/speech/banks_s54c.pkl 800 5501
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=2
RUN=$1 BANK=$2 MINUTES=$3 SEED=$4 .venv/bin/python - <<'PY'
import os
from pathlib import Path
from speech.embed_data import build_embedded, load_embedded, save_embedded
from speech.head import export_head, train_head
O = Path('data/speech') / os.environ['RUN']; O.mkdir(parents=True, exist_ok=True)
bank, seed = [Path(os.environ['BANK'])], int(os.environ['SEED'])
if not (O / 'train.npz').exists():
    save_embedded(O / 'train.npz', *build_embedded(bank, int(os.environ['MINUTES']), seed=seed, workers=2))
if not (O / 'val.npz').exists():
    save_embedded(O / 'val.npz', *build_embedded(bank, 32, seed=seed + 1000, workers=2))
best = train_head(load_embedded(O / 'train.npz'), load_embedded(O / 'val.npz'), O / 'run', epochs=12, threads=2)
print(export_head(best, O / 'kws_emb.onnx', {}), os.environ['RUN'], 'DONE', flush=True)
PY
