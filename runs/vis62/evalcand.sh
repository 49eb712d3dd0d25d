#!/bin/bash
# Score a candidate classifier ONNX with the shipped YOLO: real photos and the held-out synthetic set.
# usage: runs/vis62/evalcand.sh NAME CLASSIFIER.onnx   (its .json beside it)
set -e
name=$1; onnx=$2
d=${CAND_DIR:-/tmp/lead/s62/cand}/$name; rm -rf $d; mkdir -p $d
cp models/card_detector.onnx models/card_detector.json $d/
cp models/card_lower.* models/card_reveal.* $d/ 2>/dev/null || true
cp $onnx $d/card_classifier.onnx; cp ${onnx%.onnx}.json $d/card_classifier.json
.venv/bin/unotable eval-detector --weights $d/card_detector.onnx --synthetic ${SYN:-data/vis62/test} --out $d/eval > $d/eval.log 2>&1
tr "\r" "\n" < $d/eval.log | grep -E "^real photos: [0-9]|mAP50 =" | cut -c1-200
python3 -c "
import json;r=json.load(open('$d/eval/report.json'))['real']
rev=sum(v[0] for k,v in r['per_class'].items() if 'reverse' in k); print('reverse right', rev, '/ 80')
import collections; c=collections.Counter((w['truth'].split('-',1)[1], w['top'].split('-',1)[-1]) for w in r['wrong']); print(c.most_common(8))"
