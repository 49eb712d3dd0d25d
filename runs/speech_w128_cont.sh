#!/bin/sh
# Stop 49: W continued (W2); not shipped (it failed the real digits: models/KWS_MODEL_CARD.md, "Round of stop 49").
# W (stop 48) was still learning when its 6 epochs ended (validation accuracy 81.6% -> 81.8% in the last epoch), so
# it is continued for 5 more epochs (one-cycle, peak LR 1.5e-3) on windows of a NEW bank of training voices (seed
# 311) in which non-espeak voices say a quarter of the renditions, not 12%, plus a new accent bank and hard negatives
# mined from it (speech.rounds). About 33 min of data (the non-espeak voices synthesise slowly) and 31 min of
# training on 2 cores.
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=2
.venv/bin/python - <<'PY'
from pathlib import Path
from speech.rounds import RoundSet, build_round_set, ensure_guide_banks
from speech.train import export, train
D = Path('data/speech')
val, _dev = ensure_guide_banks(D)
O = build_round_set(D, 's49', RoundSet(seed=311, other_frac=0.25), Path('models/kws.onnx'), val)
best = train(epochs=5, threads=2, lr=1.5e-3, seed=4900, out_dir=D / 'run_s49_w2', data_dir=O,
             init_from=Path('models/candidates/kws_w128_s48/best.pt'), arch=dict(width=128, blocks=5),
             vtlp_share=0.6)
export(best, D / 'run_s49_w2' / 'kws.onnx')
PY
