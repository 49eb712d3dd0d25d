"""Stop 52: the shipped four DS-CNNs (models/kws.onnx) as two graphs of two, D01 (stop 43's pair) and D23 (stop 44's),
so a card can carry half of D's cost. Checks that the four rebuilt members, averaged, give the shipped graph's
posteriors before exporting the pairs to OUT/D01/kws.onnx and OUT/D23/kws.onnx."""
import json, os
from pathlib import Path
import numpy as np
import onnxruntime as ort
import torch
from speech.onnx_members import members_from_onnx, save_members
from speech.train import export

OUT = Path(os.environ.get("OUT", "/tmp/lead/s52"))
card = json.loads(Path("models/kws.json").read_text())
arch = card["members"][0]["arch"]
va = np.load("data/speech/s48/val.npz")
calib = va["x"][:1000].astype(np.float32)
members = members_from_onnx(Path("models/kws.onnx"), calib, **arch)
paths = save_members(members, OUT / "Dmembers", arch)
probe = va["x"][1000:1400].astype(np.float32)
sess = ort.InferenceSession("models/kws.onnx", providers=["CPUExecutionProvider"])
shipped = sess.run(None, {"logmel": probe})[0]
with torch.no_grad():
    ours = np.mean([torch.softmax(m(torch.from_numpy(probe)), 1).numpy() for m in members], axis=0)
err = float(np.abs(ours - shipped).max())
print("rebuilt four vs shipped graph: max |dp| =", err, flush=True)
assert err < 1e-4
for name, pick in (("D01", paths[:2]), ("D23", paths[2:])):
    export(list(pick), OUT / name / "kws.onnx")
    print("exported", name, flush=True)
