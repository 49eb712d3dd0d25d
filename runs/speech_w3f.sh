#!/bin/sh
# Stop 55: W3F, the shipped wide part W (stop 48) continued 3 epochs on round set s54c (runs/speech_set54.sh:
# seed 541, non-espeak share 0.25, the set-aside speaker out, every non-espeak English "uno" said as players say
# it), seed 5500 (runs/speech_wcont.sh: stop 49's W2 recipe). Plan and bars: models/candidates/kws_fix_s55/plan.txt.
cd "$(dirname "$0")/.."
sh runs/speech_wcont.sh run_s55_w3f s54c 5500
