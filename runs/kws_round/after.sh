cd /work/main
export OMP_NUM_THREADS=2
R=data/speech/run_s49_w2; T=/tmp/lead/s49; S=/tmp/lead/s48
cp $R/kws.onnx $T/W2/kws.onnx
.venv/bin/python -c "
import json; c=json.load(open('$R/kws.json')); [c.pop(k, None) for k in ('parts','class_thresholds')]; json.dump(c, open('$T/W2/kws.json','w'))"
.venv/bin/python $S/rec.py $T/W2/kws.onnx data/speech/banks_fresh.pkl $T/fresh_W2.pkl
.venv/bin/python $S/rec.py $T/W2/kws.onnx data/speech/banks_val.pkl $T/val_W2.pkl
.venv/bin/python $S/ens.py "{\"W2_val\": [[\"$T/val_W2.pkl\", 1]], \"W2_dev\": [[\"$T/fresh_W2.pkl\", 1]], \"DW2H_val\": [[\"$S/val_D.pkl\", 0.3], [\"$T/val_W2.pkl\", 0.3], [\"$S/val_H.pkl\", 0.4]], \"DW2H_dev\": [[\"$S/fresh_D.pkl\", 0.3], [\"$T/fresh_W2.pkl\", 0.3], [\"$S/fresh_H.pkl\", 0.4]]}"
.venv/bin/python $T/rule.py
