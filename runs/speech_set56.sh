#!/bin/sh
# Stop 56: round set s56p for the wide part's continuation: the bank runs/speech_h56.sh rendered (banks_s56p.pkl:
# seed 561, non-espeak share 0.12, the set-aside speaker out, festival's accent speakers, SVOX Pico's four training
# voices; RoundSet draws the same seeds, so a missing bank is rendered identically), recipe windows and windows mined
# by the shipped model. ~20 min on 2 cores with the bank in place.
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=2
.venv/bin/python - <<'PY'
from pathlib import Path
from speech.rounds import RoundSet, build_round_set, ensure_guide_banks
from speech.vocab import ASIDE_SPEAKER
D = Path('data/speech')
val, _dev = ensure_guide_banks(D)
spec = RoundSet(seed=561, other_frac=0.12, aside=ASIDE_SPEAKER, pico=(40, 3, 300))
print(build_round_set(D, 's56p', spec, Path('models/kws.onnx'), val), 'SET DONE', flush=True)
PY
