#!/bin/sh
# Stop 51: HR2, a head on frozen speech embeddings like stop 50's HR, with two changes: Asterisk's English speaker
# (en_US_f_Allison) is held out of its real voices (she is now the English part of the real-voice guide,
# speech.realvoices' dev split), and it learns from 2,000 embedded minutes instead of 1,200 (the head gained from 800
# to 1,600 before). Bank: stop 49's training bank plus the real train speakers' recordings (short ones beside the
# near misses, 900 long ones among the talk), seed 5130, 80 minutes for validation, 20 epochs. About 40 min on 2 cores.
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=2
.venv/bin/python - <<'PY'
from pathlib import Path
from speech.head import rebuild
from speech.kwsdata import load_banks, save_banks
from speech.realvoices import load_real, with_real_voices
D = Path('data/speech')
bank = D / 'banks_s51_head.pkl'
if not bank.exists():
    save_banks(with_real_voices(load_banks(D / 'banks_s49.pkl'), load_real('train'), seed=5131), bank)
rebuild([bank], D / 's51_head', D / 's51_head' / 'kws_emb.onnx', n_recordings=2000, epochs=20, seed=5130)
PY
