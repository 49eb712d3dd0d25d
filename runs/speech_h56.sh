#!/bin/sh
# Stop 56: the Pico guide bank, then H56 = the head on speech embeddings from random weights on 1,600 embedded
# minutes of banks_s56p.pkl (training voices at non-espeak share 0.12, the set-aside speaker out, festival's accent
# speakers and SVOX Pico's four training voices), 12 epochs (plan: models/candidates/kws_pico_s56/plan.txt).
# Pico's English voices say "uno" with phoneme markup (speech.synth.PICO_RESPELL). Banks ~15 min, embedding ~20 min, training ~8 min on 2 cores; each finished step is kept, a rerun resumes.
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=2
.venv/bin/python - <<'PY'
from pathlib import Path
from speech.accents import merge_banks, render_accent_bank
from speech.embed_data import build_embedded, load_embedded, save_embedded
from speech.head import export_head, train_head
from speech.kwsdata import build_banks, load_banks, save_banks
from speech.pico import pico_guide_bank, pico_train_bank
from speech.vocab import ASIDE_SPEAKER
D = Path('data/speech'); O = D / 'run_s56_h56'; O.mkdir(parents=True, exist_ok=True)
guide = D / 'banks_pico_guide.pkl'
if not guide.exists():
    save_banks(pico_guide_bank(40, 3, 250, seed=5600), guide)
bank, main, pico = D / 'banks_s56p.pkl', D / 'banks_s56_main.pkl', D / 'banks_s56_pico.pkl'
if not pico.exists():
    save_banks(pico_train_bank(40, 3, 300, seed=564), pico)
if not main.exists():
    big = build_banks(False, 600, 12, 800, seed=561, other_frac=0.12, exclude=ASIDE_SPEAKER)
    save_banks(merge_banks(big, render_accent_bank(False, 12, 30, 20, seed=563)), main)
if not bank.exists():
    save_banks(merge_banks(load_banks(main), load_banks(pico)), bank)
    print('BANK DONE', flush=True)
if not (O / 'train.npz').exists():
    save_embedded(O / 'train.npz', *build_embedded([bank], 1600, seed=5601, workers=2))
if not (O / 'val.npz').exists():
    save_embedded(O / 'val.npz', *build_embedded([bank], 32, seed=6601, workers=2))
best = train_head(load_embedded(O / 'train.npz'), load_embedded(O / 'val.npz'), O / 'run', epochs=12, threads=2)
print(export_head(best, O / 'kws_emb.onnx', {}), 'H56 DONE', flush=True)
PY
