"""Stop 59: HD, one head distilled from HENS8 (eight heads averaged, stop 58) on the embedded minutes on hand.
    [LABELS_ON_TEACHER_ALARMS=1] distil.py TEACHER.onnx OUT_DIR EPOCHS TRAIN.npz [TRAIN.npz ...] --val VAL.npz
LABELS_ON_TEACHER_ALARMS=1 (HD2): where the teacher hears a keyword (p(other) < 0.5) in a window labelled other, the
target is the label, so the teacher's false alarms are not learnt.
Writes OUT_DIR/teacher.npy (HENS8's posteriors at every labelled window, reused when present), OUT_DIR/run/ (the
checkpoints, log.json) and OUT_DIR/kws_emb.onnx (+ .json). Plan: models/candidates/kws_distil_s59/plan.txt."""
import os
import sys
from pathlib import Path

import numpy as np

from speech.embed_data import load_embedded
from speech.head import CONTEXT, export_head, soft_targets, train_head, window_index

args = sys.argv[1:]
val_path = Path(args[args.index("--val") + 1])
args = args[:args.index("--val")]
teacher, out, epochs, trains = Path(args[0]), Path(args[1]), int(args[2]), [Path(a) for a in args[3:]]
parts = [load_embedded(p) for p in trains]
emb = np.concatenate([p[0] for p in parts])
lab = np.concatenate([p[1] for p in parts])
lengths = np.concatenate([p[2] for p in parts])
print(f"{len(trains)} draws: {len(lengths)} recordings, {len(emb)} embeddings", flush=True)
out.mkdir(parents=True, exist_ok=True)
cache = out / "teacher.npy"
if cache.exists():
    soft = np.load(cache)
else:
    soft = soft_targets(teacher, emb, window_index(lab, lengths, CONTEXT))
    np.save(cache, soft)
if os.environ.get("LABELS_ON_TEACHER_ALARMS"):
    alarms = (soft.sum(axis=1) > 0) & (lab == 0) & (soft[:, 0].astype(np.float32) < 0.5)
    soft[alarms] = 0
    soft[alarms, 0] = 1
    print(f"teacher's alarms on windows labelled other, target set to the label: {int(alarms.sum())}", flush=True)
best = train_head((emb, lab, lengths), load_embedded(val_path), out / "run", epochs=epochs, seed=0,
                  teacher=soft, soft_weight=0.7)
print(export_head(best, out / "kws_emb.onnx", {}))
