"""Stop 58: one head file that averages several exported heads' posteriors (`speech.head.average_exported`: one
speech-embedding front end for all, so the card's cost grows by the heads' few hundred thousand multiply-adds, not by
another embedding network), checked here against the heads run one by one.
    avg_heads.py OUT.onnx [LABEL=]HEAD.onnx [[LABEL=]HEAD.onnx ...]"""
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort

from speech.head import average_exported

out = Path(sys.argv[1])
specs = [a.split("=", 1) if "=" in a else [a, a] for a in sys.argv[2:]]
heads = [Path(p) for _, p in specs]
average_exported(heads, out, [label for label, _ in specs])
x = np.random.default_rng(0).normal(size=(3, 16, 96)).astype(np.float32)
mean = np.mean([np.concatenate([ort.InferenceSession(str(p)).run(None, {"emb": x[j:j + 1]})[0] for j in range(3)])
                for p in heads], axis=0)
got = np.concatenate([ort.InferenceSession(str(out)).run(None, {"emb": x[j:j + 1]})[0] for j in range(3)])
assert np.allclose(got, mean, atol=1e-5), np.abs(got - mean).max()
print(out, "averages", len(heads), "heads; checked against the heads run one by one")
