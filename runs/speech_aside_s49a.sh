#!/bin/sh
# Stop 53, for the next round: stop 48's and 49's round sets (W's and W2's windows) rebuilt with the set-aside
# speaker left out (speech.vocab.ASIDE_SPEAKER), same seeds and recipes otherwise, so W2's recipe can be trained
# without her and scored on her guide (runs/kws_round/aside53.py). Each set ~30 min of synthesis, windows and mining
# on 2 cores; a set already built is kept (build_round_set resumes).
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=2
.venv/bin/python - <<'PY'
from pathlib import Path
from speech.rounds import RoundSet, build_round_set, ensure_guide_banks
from speech.vocab import ASIDE_SPEAKER
D = Path('data/speech')
val, _dev = ensure_guide_banks(D)
print(build_round_set(D, 's49a', RoundSet(seed=311, other_frac=0.25, aside=ASIDE_SPEAKER), Path('models/kws.onnx'), val))
print(build_round_set(D, 's48a', RoundSet(seed=211, aside=ASIDE_SPEAKER), Path('models/kws.onnx'), val))
PY
