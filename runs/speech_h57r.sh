#!/bin/sh
# Stop 57, a diagnosis (no candidate): a head on a bank made by the shipped head's own recipe, to see whether heads
# fire on real speech as little as the shipped head when trained on its kind of bank. The bank is build_data's
# recipe (speech.train.training_banks: the training voices, seed 11, and festival's accent speakers, seed 101),
# rendered with today's code (so with stop 54's "uno" fix), then speech.head.rebuild's recipe (1,600 embedded
# minutes, 64 for validation, 20 epochs), then the head alone on the real digits (digits_parts.py) beside H.
# ~12 min of synthesis, ~16 min of embedding, ~13 min of training on 2 cores.
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=2
.venv/bin/python - <<'PY'
from pathlib import Path
from speech.accents import merge_banks
from speech.head import rebuild
from speech.kwsdata import save_banks
from speech.train import training_banks
D = Path('data/speech'); O = D / 'run_s57_h57r'; O.mkdir(parents=True, exist_ok=True)
bank = D / 'banks_shiprecipe.pkl'
if not bank.exists():
    save_banks(merge_banks(*training_banks(workers=2)), bank)
    print('bank', bank, flush=True)
print(rebuild([bank], O, O / 'kws_emb.onnx'), 'H57R DONE', flush=True)
PY
.venv/bin/python runs/kws_round/digits_parts.py H=models/kws_emb.onnx H57R=data/speech/run_s57_h57r/kws_emb.onnx
