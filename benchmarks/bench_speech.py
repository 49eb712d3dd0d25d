"""Real-time factor of the keyword spotter: features + ONNX model on one thread over 60 s of audio.

Run: .venv/bin/python benchmarks/bench_speech.py [--seconds 60]
Prints the real-time factor (compute seconds per audio second; 0.05 = 5% of one core) and inferences per second.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=60.0)
    args = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from speech.audio import ArraySource
    from speech.kws import KeywordDetector

    rng = np.random.default_rng(0)
    audio = (rng.standard_normal(int(args.seconds * 16000)) * 2000).astype(np.int16)
    det = KeywordDetector()
    list(det.run(ArraySource(audio[:16000 * 2], chunk_s=0.05).chunks()))  # warm up
    det.reset()
    t0, c0 = time.perf_counter(), time.process_time()
    list(det.run(ArraySource(audio, chunk_s=0.05).chunks()))
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"audio {args.seconds:.0f} s, {det.inferences} inferences ({det.inferences / args.seconds:.1f}/s)")
    print(f"real-time factor (wall) {wall / args.seconds:.4f}  (cpu) {cpu / args.seconds:.4f}  "
          f"= {100 * cpu / args.seconds:.2f}% of one core")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
