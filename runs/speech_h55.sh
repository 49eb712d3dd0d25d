#!/bin/sh
# Stop 55: H55, the head on speech embeddings from random weights on 800 embedded minutes of table recordings from
# round set s54c's bank (rendered with the "uno" fix, the set-aside speaker out), 12 epochs (plan:
# models/candidates/kws_fix_s55/plan.txt). ~10 min of embedding and ~5 min of training on 2 cores.
cd "$(dirname "$0")/.."
sh runs/speech_head.sh run_s55_h55 data/speech/banks_s54c.pkl 800 5501
