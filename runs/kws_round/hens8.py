"""Stop 58: rebuild HENS8 (the shipped head averaged with the seven heads trained since, `speech.head.average_exported`)
from the committed checkpoints, and check it against a file as scored where one is given; INT8=1 then gives its
weights dynamic int8 (onnxruntime quantize_dynamic, QInt8): HENS8Q. Stop 60: MEMBERS=H55,H57R,H58OLD averages the
shipped head with those members only (HC4, the heads that hear "Juno" no more often than the shipped one).
    [INT8=1] [MEMBERS=NAME,...] hens8.py OUT_DIR [AS_SCORED.onnx]"""
import os
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnxruntime as ort

from speech.head import average_exported, export_head

C = Path("models/candidates")
CKS = {"H55": C / "kws_fix_s55/h55_best.pt", "H56": C / "kws_pico_s56/h56_best.pt",
       "H57": C / "kws_noloan_s57/h57_best.pt", "H57s1": C / "kws_bisect_s58/h57s1_best.pt",
       "H57e20": C / "kws_bisect_s58/h57e20_best.pt", "H57R": C / "kws_bisect_s58/h57r_best.pt",
       "H58OLD": C / "kws_bisect_s58/h58old_best.pt"}
if os.environ.get("MEMBERS"):
    CKS = {name: CKS[name] for name in os.environ["MEMBERS"].split(",")}
out = Path(sys.argv[1]) / "kws_emb.onnx"
out.parent.mkdir(parents=True, exist_ok=True)
with tempfile.TemporaryDirectory() as tmp:
    heads = [Path("models/kws_emb.onnx")] + [export_head(ck, Path(tmp) / name / "kws_emb.onnx", {})
                                             for name, ck in CKS.items()]
    average_exported(heads, out, ["H (shipped since stop 48)", *CKS])
    if os.environ.get("INT8"):
        from onnxruntime.quantization import QuantType, quantize_dynamic

        fp32 = Path(tmp) / "hens8_fp32.onnx"
        out.replace(fp32)
        quantize_dynamic(str(fp32), str(out), weight_type=QuantType.QInt8)
print(out)
if len(sys.argv) > 2:
    x = np.random.default_rng(0).normal(size=(256, 16, 96)).astype(np.float32)
    run = [ort.InferenceSession(str(p)) for p in (out, Path(sys.argv[2]))]
    a, b = (np.concatenate([s.run(None, {"emb": x[j:j + 1]})[0] for j in range(len(x))]) for s in run)
    print("largest difference from the file as scored:", float(np.abs(a - b).max()))
