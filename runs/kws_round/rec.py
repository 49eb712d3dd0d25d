"""Record posteriors of one single-part card on a bank: rec.py CARD.onnx BANK OUT.pkl"""
import pickle, sys
from pathlib import Path
from speech.tune import record
model, bank, out = map(Path, sys.argv[1:4])
out.write_bytes(pickle.dumps(record(model, bank)))
print('recorded', out, flush=True)
