#!/bin/sh
# Stop 52: the three false-alarm guides of a weighted average of recorded parts (OUT/num_P.pkl, num8k_P.pkl,
# real_P.pkl, real_en_P.pkl) under one rule: the card numbers as rendered and through an 8 kHz line, the real-voice
# guide, and its English speaker alone.   guides.sh NAME RULE.json PART:WEIGHT ...   (e.g. D23:0.2 W:0.2 H:0.4)
cd "$(dirname "$0")/../.."
export OUT=${OUT:-/tmp/lead/s52}
P=.venv/bin/python; K=runs/kws_round; N=$1; R=$2; shift 2
num=""; real=""; en=""
for pw in "$@"; do
  p=${pw%%:*}; w=${pw#*:}
  num="$num${num:+, }[\"$p\", $w]"
  real="$real${real:+, }[\"$OUT/real_$p.pkl\", $w]"
  en="$en${en:+, }[\"$OUT/real_en_$p.pkl\", $w]"
done
$P $K/card_numbers.py fa "{\"$N\": [$num]}" $R
$P $K/realdev.py fa "{\"$N\": [$real]}" $R
$P $K/realdev.py fa "{\"${N}_en\": [$en]}" $R
