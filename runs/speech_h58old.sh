#!/bin/sh
# Stop 58, a diagnosis (no candidate): the shipped head's recipe run by the code that shipped it (commit 1f3f971,
# checked out as a worktree), to tell "the code renders differently now" from "the shipped head was a lucky draw".
# Usage: runs/speech_h58old.sh [WORKTREE]   (default /tmp/lead/s58/old; made with `git worktree add --detach
# WORKTREE 1f3f971`). Output in data/speech/run_s58_old. ~12 min synthesis, ~16 min embedding, ~13 min training.
cd "$(dirname "$0")/.."
MAIN=$(pwd); WT=${1:-/tmp/lead/s58/old}; O=$MAIN/data/speech/run_s58_old
mkdir -p "$O"
export OMP_NUM_THREADS=2
(cd "$WT" && test "$(git rev-parse --short=7 HEAD)" = 1f3f971 && "$MAIN/.venv/bin/python" - "$O" <<'PY'
import sys
from pathlib import Path
import speech
assert Path(speech.__file__).resolve().is_relative_to(Path.cwd().resolve()), speech.__file__  # the old code
from speech.accents import merge_banks, render_accent_bank
from speech.head import rebuild
from speech.kwsdata import build_banks, save_banks
O = Path(sys.argv[1]); bank = O / 'banks_train_1f3f971.pkl'
if not bank.exists():
    b = build_banks(False, 200, 25, 500, seed=11, workers=2)
    acc = render_accent_bank(False, 12, 60, 30, seed=101, workers=2)
    save_banks(merge_banks(b, acc), bank)
    print('bank', bank, flush=True)
print(rebuild([bank], O, O / 'kws_emb.onnx'), 'H58OLD DONE', flush=True)
PY
) || exit 1
.venv/bin/python runs/kws_round/digits_parts.py H=models/kws_emb.onnx H57R=data/speech/run_s57_h57r/kws_emb.onnx \
  H58OLD=data/speech/run_s58_old/kws_emb.onnx
