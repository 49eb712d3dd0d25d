#!/bin/sh
# Stop 52, second look: the two candidates of bars.txt (D01 or D23 .2, W .2, WL .2, H .4: W and WL one graph at .4),
# guide means, the dev's rules, and the guides under each candidate's own rule.
cd "$(dirname "$0")/../.."
export OUT=/tmp/lead/s52 OMP_NUM_THREADS=1
T=/tmp/lead/s52; S=/tmp/lead/s48; P=.venv/bin/python; K=runs/kws_round
for b in val fresh; do
  $P $K/ens.py "{
   \"D01WWLH_$b\": [[\"$T/${b}_D01.pkl\",0.2],[\"$S/${b}_W.pkl\",0.2],[\"$T/${b}_WL.pkl\",0.2],[\"$S/${b}_H.pkl\",0.4]],
   \"D23WWLH_$b\": [[\"$T/${b}_D23.pkl\",0.2],[\"$S/${b}_W.pkl\",0.2],[\"$T/${b}_WL.pkl\",0.2],[\"$S/${b}_H.pkl\",0.4]]}" &
done
wait
for d in D01 D23; do
  $P $K/rule50.py ${d}WWLH "[[\"$T/val_$d.pkl\",\"$T/fresh_$d.pkl\",0.2],[\"$S/val_W.pkl\",\"$S/fresh_W.pkl\",0.2],[\"$T/val_WL.pkl\",\"$T/fresh_WL.pkl\",0.2],[\"$S/val_H.pkl\",\"$S/fresh_H.pkl\",0.4]]"
done
for d in D01 D23; do for r in 20 10; do
  echo "-- ${d}WWLH rule $r"
  sh $K/guides.sh ${d}WWLH $T/rule_${d}WWLH_$r.json $d:0.2 W:0.2 WL:0.2 H:0.4
done; done
echo SCORE DONE $(date)
