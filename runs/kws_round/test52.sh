#!/bin/sh
# Stop 52: the one decision test (models/candidates/kws_line_s52/bars.txt): a new test bank (seed 1752), the chosen
# candidate (a card folder made by cand.py) and the shipped card, each through `unotable eval-speech` on one core
# side by side, then both through bench2.py.
#   [SEED=1853] [T=DIR] test52.sh CAND_DIR   e.g. test52.sh /tmp/lead/s52/C_D23 (seed 1752 unless SEED; reports in
#   T, /tmp/lead/s52 unless T). The accent test bank is rendered first where missing (as speech.train.build_data),
#   and the held-out Pico voices' bank (stop 56, speech.pico.ensure_pico_test_bank), both copied beside the test.
cd "$(dirname "$0")/../.."
SEED=${SEED:-1752}
T=${T:-/tmp/lead/s52}; P=.venv/bin/python; B=data/speech/t$SEED
export OMP_NUM_THREADS=1
mkdir -p $B $T/SHIP
[ -e data/speech/banks_accent_test.pkl ] || $P -c "
from pathlib import Path
from speech.accents import render_accent_bank
from speech.kwsdata import save_banks
save_banks(render_accent_bank(True, 10, 60, 40, seed=102, workers=2), Path('data/speech/banks_accent_test.pkl'))"
[ -e data/speech/banks_pico_test.pkl ] || $P -c "
from pathlib import Path
from speech.pico import ensure_pico_test_bank
print(ensure_pico_test_bank(Path('data/speech')))"
cp data/speech/banks_pico_test.pkl $B/ 2>/dev/null
cp models/kws.json models/kws.onnx models/kws_w.json models/kws_w.onnx models/kws_emb.json models/kws_emb.onnx $T/SHIP/
[ -e $B/banks_test.pkl ] || $P -c "
import shutil
from pathlib import Path
from speech.kwsdata import build_banks, save_banks
save_banks(build_banks(True, 40, 6, 1000, seed=$SEED, workers=2), Path('$B/banks_test.pkl'))
shutil.copy('data/speech/banks_accent_test.pkl', '$B/banks_accent_test.pkl')
print('test bank built', flush=True)"
C=$1
.venv/bin/unotable eval-speech --bank $B/banks_test.pkl --model $T/SHIP/kws.onnx --png $T/det_shipped$SEED.png \
  --json $T/eval_shipped$SEED.json > $T/eval_shipped$SEED.log 2>&1 &
.venv/bin/unotable eval-speech --bank $B/banks_test.pkl --model $C/kws.onnx --png $T/det_CAND$SEED.png \
  --json $T/eval_CAND$SEED.json > $T/eval_CAND$SEED.log 2>&1
wait
$P runs/kws_round/bench2.py $T/SHIP/kws.onnx $C/kws.onnx $T/SHIP/kws.onnx $C/kws.onnx
echo TEST DONE $(date)
