"""Stop 53: score keyword cards on the set-aside speaker's bank (data/speech/banks_aside.pkl, `speech.rounds.
ensure_aside_bank`): recall clean and at 10 dB babble of her own talk, and false alarms on her talk at 10 dB.
The real digits and the unheard speakers are left to `unotable eval-speech` (not read here:
`evaluate(real_digits=False)`).

    [BANK=data/speech/banks_pico_guide.pkl] .venv/bin/python runs/kws_round/aside53.py NAME=path/to/kws.onnx[@0.35] ...
(a card folder's kws.onnx under its own rule, or with @T one threshold for every class, as parts alone are compared;
BANK: another guide bank, e.g. stop 56's Pico guide, `speech.pico.pico_guide_bank`)
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from speech import evaluate as ev

BANK = Path(os.environ.get("BANK", "data/speech/banks_aside.pkl"))

for arg in sys.argv[1:]:
    name, spec = arg.split("=", 1)
    path, _, flat = spec.partition("@")
    r = ev.evaluate(BANK, snrs=(None, 10.0), model_path=Path(path), real_digits=False,
                    threshold=float(flat) if flat else None)
    row = {"name": name, "model": path, "rule": f"flat {flat}" if flat else "its own",
           **{snr: {"recall": round(s["recall"], 4), "by_class": {k: round(v["recall"], 3) for k, v in
                                                                  s["by_class_lang"].items()},
                    "by_voice": {k: round(v["recall"], 3) for k, v in s["by_voice"].items()}}
              for snr, s in r["snr"].items()},
           "talk_fa_per_hour": round(r["other_speech"]["fa_per_hour"], 1), "talk_hours": round(r["other_speech"]["hours"], 3)}
    print(json.dumps(row, ensure_ascii=False), flush=True)
