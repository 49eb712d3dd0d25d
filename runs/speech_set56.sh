#!/bin/sh
# Stop 56: round set s56p for the wide part's continuation: the bank runs/speech_h56.sh rendered (banks_s56p.pkl:
# seed 561, non-espeak share 0.12, the set-aside speaker out, festival's accent speakers, SVOX Pico's four training
# voices; rendered here the same way where missing), recipe windows and windows mined by the shipped model.
# ~20 min on 2 cores with the bank in place.
cd "$(dirname "$0")/.."
sh runs/speech_roundset.sh s56p 561 0.12 40,3,300
