import os, sys, time
os.environ.setdefault("OMP_NUM_THREADS", "1")
from pathlib import Path
import numpy as np
from speech.audio import ArraySource
from speech.kws import KeywordDetector
rng = np.random.default_rng(0)
audio = (rng.standard_normal(60 * 16000) * 2000).astype(np.int16)
for m in sys.argv[1:]:
    det = KeywordDetector(Path(m))
    list(det.run(ArraySource(audio[:32000], chunk_s=0.05).chunks())); det.reset()
    c0 = time.process_time(); list(det.run(ArraySource(audio, chunk_s=0.05).chunks())); cpu = time.process_time() - c0
    print(f"{m}: {100 * cpu / 60:.2f}% of one core", flush=True)
