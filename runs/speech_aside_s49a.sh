#!/bin/sh
# Stop 53, for the next round: stop 48's and 49's round sets (W's and W2's windows) rebuilt with the set-aside
# speaker left out, same seeds and recipes otherwise (stop 49: seed 311, non-espeak share 0.25; stop 48: seed 211,
# the default 0.12), so W2's recipe can be trained without her and scored on her guide (runs/kws_round/aside53.py).
cd "$(dirname "$0")/.."
sh runs/speech_roundset.sh s49a 311 0.25
sh runs/speech_roundset.sh s48a 211 0.12
