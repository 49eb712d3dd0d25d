"""Milliseconds per 640x480 frame: the shipped ONNX detector (onnxruntime, 1 thread) vs Ultralytics predict.

The runtime path (YOLO + crop classifier, when the classifier is shipped) is timed too. The YOLO-only rows run the
same trained weights on the same rendered table scenes, one thread each, after a warm-up.
Run: `.venv/bin/python benchmarks/bench_detector.py [--frames 50]`.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from datasets.scenes import render_scene  # noqa: E402
from tracker.cards import ALL_CODES  # noqa: E402
from vision.detector import DEFAULT_ONNX, DEFAULT_PT, DetectorError, OnnxDetector, UltralyticsDetector  # noqa: E402


def _time(detector: object, frames: list[np.ndarray]) -> list[float]:
    detect = detector.detect  # type: ignore[attr-defined]
    for f in frames[:3]:
        detect(f)
    out = []
    for f in frames:
        t0 = time.perf_counter()
        detect(f)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--frames", type=int, default=50)
    ap.add_argument("--onnx", type=Path, default=DEFAULT_ONNX)
    ap.add_argument("--pt", type=Path, default=DEFAULT_PT)
    args = ap.parse_args()
    rng = np.random.default_rng(7)
    frames = [render_scene(rng, ALL_CODES, kind="table", size=(480, 640)).image for _ in range(min(args.frames, 10))]
    frames = (frames * (args.frames // len(frames) + 1))[: args.frames]
    rows = []
    try:
        runtime = OnnxDetector(args.onnx, threads=1)
        if runtime.classifier is not None:
            rows.append(("onnxruntime YOLO + crop classifier", _time(runtime, frames)))
        rows.append(("onnxruntime YOLO only (1 thread)", _time(OnnxDetector(args.onnx, threads=1, classifier=False),
                                                               frames)))
    except DetectorError as exc:
        print(f"onnx: {exc}", file=sys.stderr)
        return 2
    try:
        rows.append(("ultralytics predict (torch, 1 thread)", _time(UltralyticsDetector(args.pt, threads=1), frames)))
    except DetectorError as exc:
        print(f"ultralytics: skipped ({exc})", file=sys.stderr)
    print(f"{'backend':40s} {'median ms':>10s} {'mean ms':>10s} {'p90 ms':>10s}   ({args.frames} frames of 640x480)")
    for name, ms in rows:
        p90 = float(np.percentile(ms, 90))
        print(f"{name:40s} {statistics.median(ms):10.1f} {statistics.mean(ms):10.1f} {p90:10.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
