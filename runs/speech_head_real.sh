#!/bin/sh
# Stop 50: a new head on frozen speech embeddings whose table recordings hold real voices (HR). The embedding network
# was made on real speech; the shipped head learnt only synthetic voices and fires ~100 times an hour on the real
# dev speakers. Its bank: stop 49's training bank (keywords, near misses, talk; training voices and accent speakers)
# plus speech.realvoices' train speakers: their short recordings beside the near misses (about 45% of them), a
# third of their long ones among the talk (so real voices are in the babble too). 1,200 embedded minutes (seed 5030)
# and 48 for validation, 20 epochs (speech.head.rebuild). About 25 min on 2 cores.
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=2
.venv/bin/python - <<'PY'
from pathlib import Path
from speech.head import rebuild
from speech.kwsdata import load_banks, save_banks
from speech.realvoices import load_real, with_real_voices
D = Path('data/speech')
bank = D / 'banks_s50_head.pkl'
if not bank.exists():
    real_path = D / 'real_train.pkl'
    if not real_path.exists():
        save_banks(load_real('train'), real_path)
    save_banks(with_real_voices(load_banks(D / 'banks_s49.pkl'), load_banks(real_path), seed=5031,
                                real_keywords=False), bank)
rebuild([bank], D / 's50_head', D / 's50_head' / 'kws_emb.onnx', n_recordings=1200, epochs=20, seed=5030)
PY
