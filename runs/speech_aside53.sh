#!/bin/sh
# Stop 53: the set-aside speaker guide (speech.vocab.ASIDE_SPEAKER, CMU ARCTIC's "slt" as flite and festival render
# her) and two small parts of one recipe, one that never heard her (s53a) and one that did (s53h, `heard`).
#   speech_aside53.sh build NAME OTHER_FRAC [heard]   a round set without her (data/speech/NAME), smaller than
#                                              stop 49's; with `heard`, the same recipe and seed with her in it
#   speech_aside53.sh train NAME               a DS-CNN 64 wide, 5 blocks, 6 epochs on it (data/speech/run_NAME)
#   speech_aside53.sh guide                    her bank (data/speech/banks_aside.pkl)
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=2
STAGE=$1 NAME=$2 FRAC=$3 HEARD=$4 .venv/bin/python - <<'PY'
import os
from pathlib import Path
from speech.rounds import RoundSet, build_round_set, ensure_aside_bank, ensure_guide_banks
from speech.vocab import ASIDE_SPEAKER
D = Path('data/speech')
stage, name = os.environ['STAGE'], os.environ.get('NAME', '')
if stage == 'guide':
    print(ensure_aside_bank(D))
elif stage == 'build':
    val, _dev = ensure_guide_banks(D)
    spec = RoundSet(seed=531, other_frac=float(os.environ['FRAC']), n_windows=30000, n_mine_keywords=1500,
                    aside=() if os.environ.get('HEARD') == 'heard' else ASIDE_SPEAKER)
    print(build_round_set(D, name, spec, Path('models/kws.onnx'), val))
elif stage == 'train':
    from speech.train import export, train
    best = train(epochs=6, threads=2, lr=3e-3, seed=5310, out_dir=D / f'run_{name}', data_dir=D / name,
                 arch=dict(width=64, blocks=5), vtlp_share=0.6)
    export(best, D / f'run_{name}' / 'kws.onnx')
PY
