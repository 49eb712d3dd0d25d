"""Average two classifier state dicts (WiSE-FT): out = (1 - alpha) * start + alpha * tuned.

Run: .venv/bin/python runs/vis62/wise.py START.pth TUNED.pth ALPHA OUT.pth
Why: a fine-tune on a corrected renderer can forget what the start knew of real photos; the average keeps most of
both (stop 45's runs 11 and 13)."""
import sys

import torch

start, tuned, alpha, out = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
a, b = torch.load(start, map_location="cpu"), torch.load(tuned, map_location="cpu")
torch.save({k: (1 - alpha) * a[k] + alpha * b[k] if a[k].is_floating_point() else b[k] for k in b}, out)
print(f"wrote {out}: {1 - alpha:.2f} x {start} + {alpha:.2f} x {tuned}")
