#!/bin/sh
# Stop 57: H57 = the head on speech embeddings from random weights on 1,600 embedded minutes of banks_s57.pkl, which
# is H56's bank (banks_s56p.pkl, made by runs/speech_h56.sh) without the loanword renditions of "blue" and "pass"
# (plan: models/candidates/kws_noloan_s57/plan.txt). Filtering ~1 min, embedding ~15 min, training ~8 min on 2 cores.
cd "$(dirname "$0")/.."
export OMP_NUM_THREADS=2
[ -e data/speech/banks_s56p.pkl ] || { echo "banks_s56p.pkl missing: run runs/speech_h56.sh's bank step first" >&2; exit 1; }
.venv/bin/python - <<'PY'
from collections import Counter
from pathlib import Path
from speech.kwsdata import load_banks, save_banks
D = Path('data/speech')
if not (D / 'banks_s57.pkl').exists():
    b = load_banks(D / 'banks_s56p.pkl')
    named = {"blue", "pass", "синий", "синяя", "пас"}
    loan = [u.cls in ("blue", "pass") and u.text not in named for u in b.keywords]
    gone = [u for u, out in zip(b.keywords, loan) if out]
    b.keywords = [u for u, out in zip(b.keywords, loan) if not out]
    print("removed", len(gone), dict(Counter(u.text for u in gone)), "kept", len(b.keywords), flush=True)
    save_banks(b, D / 'banks_s57.pkl')
PY
sh runs/speech_head.sh run_s57_h57 data/speech/banks_s57.pkl 1600 5701
