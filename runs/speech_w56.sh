#!/bin/sh
# Stop 56: W56, the shipped wide part W (stop 48) continued 3 epochs on round set s56p (runs/speech_set56.sh: share
# 0.12, SVOX Pico's four training voices in), seed 5600 (runs/speech_wcont.sh, stop 55's W3F recipe on the new set).
# Plan and bars: models/candidates/kws_pico_s56/plan.txt (stopped in its first epoch at stop 56).
cd "$(dirname "$0")/.."
sh runs/speech_wcont.sh run_s56_w56 s56p 5600
