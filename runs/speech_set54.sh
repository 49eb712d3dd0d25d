#!/bin/sh
# Stop 54, for the next round: a round set of stop 49's recipe (seed 541, non-espeak share 0.25, full size) rendered
# with the "uno" fix (speech.synth.RESPELL: flite and festival say /'u:noU/, not "a-NO"), the set-aside speaker left
# out so her guide stays a speaker the parts never heard. The validation guide (data/speech/banks_val.pkl) must be
# rendered with the fix too: stop 54 moved the old one to banks_val_s53_anou.pkl, and ensure_guide_banks rebuilds it.
# For continuing the shipped parts on windows whose
# non-espeak "uno" is the word players say. ~35 min of synthesis, windows and mining on 2 cores; kept if built.
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=2
.venv/bin/python - <<'PY'
from pathlib import Path
from speech.rounds import RoundSet, build_round_set, ensure_guide_banks
from speech.vocab import ASIDE_SPEAKER
D = Path('data/speech')
val, _dev = ensure_guide_banks(D)
print(build_round_set(D, 's54c', RoundSet(seed=541, other_frac=0.25, aside=ASIDE_SPEAKER), Path('models/kws.onnx'), val))
PY
