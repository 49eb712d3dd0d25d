"""Does the video pipeline keep up with a 30 fps 960x540 stream on this machine?

Decodes a rendered game video (rendered first if absent) and runs the whole pipeline (foreground model, trackers,
and the card detector on rectified crops when something comes to rest) on every frame, one process, one
onnxruntime thread. Prints frames per second (decode + pipeline, and pipeline alone), the share of frames that
reached the detector, and whether it keeps up with 30 fps.

    .venv/bin/python benchmarks/bench_video.py [--video V.mp4] [--weights M.onnx] [--seconds 60]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--video", type=Path, default=None, help="a rendered game (default: render game seed 500)")
    ap.add_argument("--weights", default=None, help="detector ONNX (default: models/card_detector.onnx)")
    ap.add_argument("--seconds", type=float, default=60.0, help="video seconds to process (default 60)")
    args = ap.parse_args()

    import cv2

    from datasets.gamevideo_set import GameSpec, ensure_game
    from vision.calibration import calibrate_image
    from vision.pipeline import Watcher
    from vision.readers import load_reader
    from vision.sources import VideoFileSource

    video = args.video or ensure_game(GameSpec(0, 500, "mattel", 4), progress=True)
    cap = cv2.VideoCapture(str(video))
    ok, first = cap.read()
    cap.release()
    seats = json.loads(Path(str(video.with_suffix("")) + ".truth.json").read_text())["seats"] \
        if Path(str(video.with_suffix("")) + ".truth.json").exists() else 4
    table = calibrate_image(first, seats)
    watcher = Watcher(table, load_reader(table, args.weights))
    src = VideoFileSource(video)
    start = time.perf_counter()
    n = 0
    size = (0, 0)
    for frame in src:
        if frame.t > args.seconds:
            break
        size = (frame.image.shape[1], frame.image.shape[0])
        watcher.process(frame)
        n += 1
    wall = time.perf_counter() - start
    st = watcher.stats
    res = {
        "video": str(video), "size": f"{size[0]}x{size[1]}", "frames": n,
        "fps_with_decode": round(n / wall, 1), "fps_pipeline": round(st.fps, 1),
        "detector_frame_share": round(st.frames_read / max(1, n), 4), "detector_calls": st.reads,
        "ms_per_frame": round(1000 * wall / max(1, n), 2), "keeps_up_30fps": n / wall >= 30.0,
    }
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
