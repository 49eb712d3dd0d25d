#!/bin/sh
# Stop 56: the Pico guide bank, then H56 = the head on speech embeddings from random weights on 1,600 embedded
# minutes of round set s56p's bank (training voices at non-espeak share 0.12, the set-aside speaker out, festival's
# accent speakers and SVOX Pico's four training voices, whose English ones say "uno" in phoneme markup:
# speech.synth.RESPELL), 12 epochs (plan: models/candidates/kws_pico_s56/plan.txt). Bank ~15 min, embedding ~20 min,
# training ~8 min on 2 cores. (As run, this script rendered the bank's main part and Pico's part to files of their
# own and merged them, the same seeds and order as speech.rounds.ensure_round_bank.)
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=2
.venv/bin/python - <<'PY'
from pathlib import Path
from speech.kwsdata import save_banks
from speech.pico import pico_guide_bank
from speech.rounds import RoundSet, ensure_round_bank
from speech.vocab import ASIDE_SPEAKER
D = Path('data/speech')
if not (D / 'banks_pico_guide.pkl').exists():
    save_banks(pico_guide_bank(40, 3, 250, seed=5600), D / 'banks_pico_guide.pkl')
print(ensure_round_bank(D, 's56p', RoundSet(seed=561, other_frac=0.12, aside=ASIDE_SPEAKER, pico=(40, 3, 300))))
PY
sh runs/speech_head.sh run_s56_h56 data/speech/banks_s56p.pkl 1600 5601
