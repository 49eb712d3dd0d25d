#!/bin/sh
# A round set without the set-aside speaker (speech.vocab.ASIDE_SPEAKER), so her guide stays a speaker the parts
# never heard; mined by the shipped model, validated on the guide banks (rebuilt if missing). A set already built is
# kept (build_round_set resumes). ~30-35 min of synthesis, windows and mining on 2 cores.
#   speech_roundset.sh NAME SEED OTHER_FRAC [PICO]     e.g. speech_roundset.sh s54c 541 0.25
# PICO: SVOX Pico's training voices' keywords,near misses,sentences (RoundSet.pico), e.g. 40,3,300 (stop 56's s56p)
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=2
NAME=$1 SEED=$2 FRAC=$3 PICO=${4:-0,0,0} .venv/bin/python - <<'PY'
import os
from pathlib import Path
from speech.rounds import RoundSet, build_round_set, ensure_guide_banks
from speech.vocab import ASIDE_SPEAKER
D = Path('data/speech')
val, _dev = ensure_guide_banks(D)
spec = RoundSet(seed=int(os.environ['SEED']), other_frac=float(os.environ['FRAC']), aside=ASIDE_SPEAKER,
                pico=tuple(int(n) for n in os.environ['PICO'].split(',')))
print(build_round_set(D, os.environ['NAME'], spec, Path('models/kws.onnx'), val))
PY
