"""One training round on a lent GPU machine, in one call: render fresh scenes on every core, then train the YOLO
detector and the crop classifiers side by side on the GPU, copying stripped checkpoints to `--out` as they come.

Why one script: a lent machine starts bare and is held for minutes, so rendering, both trainings and the hand-back
of results must fit one command with a deadline (`--budget`), and a run cut short must still leave its latest
weights behind. This round's shipped weights came from two such calls (see models/README.md):

    python models/gpu_round.py --out $OUT --mixed 8000 --mixed-seed 41 --close 2500 --close-seed 42 \\
        --yolo-init models/card_detector.pt --yolo-lr 1e-3 --cls-copies 2 --close-copies 2 \\
        --cls ft:1.0:models/card_classifier_parts/narrow.pth:1e-3:12 --cls wide:1.5:none:3e-3:36 --budget 465
    python models/gpu_round.py --out $OUT --mixed 4000 --mixed-seed 44 --close 3000 --close-seed 43 \\
        --yolo-init ROUND1/yolo_last.pt --yolo-lr 5e-4 --yolo-warmup 0.3 --cls-copies 1 --close-copies 4 \\
        --cls wide2:1.5:ROUND1/cls_wide.pth:1e-3:30 --budget 280

Needs torch and ultralytics (the `train` extra); on a machine without Polars, Ultralytics' results reader is
replaced (it only feeds checkpoint metadata).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
WORK = Path("/tmp/gpu_round")
"""Scratch space on the lent machine: the rendered scenes, the YOLO run, the classifier outputs."""


def _yolo(data: Path, hours: float, init: str, lr: float, warmup: float, workers: int, device: str) -> None:
    """The YOLO run (its own process: its data loader forks workers)."""
    import models.train as mt

    mt.offline_ultralytics_env()
    try:
        import polars  # noqa: F401
    except ImportError:
        from ultralytics.engine.trainer import BaseTrainer

        BaseTrainer.read_results_csv = lambda self: {}  # type: ignore[method-assign]
    mt.train(data, WORK, "yolo", str(REPO / "models" / "yolo11-card.yaml"), imgsz=320,
             hours=hours, batch=64, threads=4, workers=workers, device=device,
             extra=dict(pretrained=init, lr0=lr, warmup_epochs=warmup, close_mosaic=3, cache="ram", amp=False))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True, help="where the weights and logs go")
    ap.add_argument("--mixed", type=int, default=8000, help="mixed scenes to render (table and close-up)")
    ap.add_argument("--mixed-seed", type=int, default=41)
    ap.add_argument("--close", type=int, default=2500, help="close-up scenes to render (classifier only)")
    ap.add_argument("--close-seed", type=int, default=42)
    ap.add_argument("--yolo-init", default="models/card_detector.pt", help="weights YOLO continues from")
    ap.add_argument("--yolo-lr", type=float, default=1e-3)
    ap.add_argument("--yolo-warmup", type=float, default=1.0)
    ap.add_argument("--yolo-workers", type=int, default=10)
    ap.add_argument("--cls", action="append", default=[], metavar="NAME:WIDTH:INIT|none:LR:EPOCHS",
                    help="a classifier run (repeatable; they share one set of crops)")
    ap.add_argument("--cls-copies", type=int, default=2, help="crops per card from the mixed scenes")
    ap.add_argument("--close-copies", type=int, default=2, help="crops per card from the close-up scenes")
    ap.add_argument("--budget", type=float, default=465, help="seconds until everything must be in --out")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="rendering processes")
    ap.add_argument("--device", default="0", help="GPU index for YOLO; the classifier uses cuda:<index>")
    ap.add_argument("--yolo-only-child", nargs=2, metavar=("DATA", "HOURS"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.yolo_only_child:
        _yolo(Path(a.yolo_only_child[0]), float(a.yolo_only_child[1]), a.yolo_init, a.yolo_lr, a.yolo_warmup,
              a.yolo_workers, a.device)
        return

    t0 = time.time()
    deadline = t0 + a.budget
    a.out.mkdir(parents=True, exist_ok=True)

    def log(*msg: object) -> None:
        print(f"[{time.time() - t0:6.1f}s]", *msg, flush=True)

    from datasets.export import CLASS_NAMES, build_dataset
    from models.train import offline_ultralytics_env
    from models.train_classifier import load_crops, train_classifier

    mixed, close = WORK / "mixed", WORK / "close"
    build_dataset(mixed, a.mixed, seed=a.mixed_seed, val_fraction=0.03, workers=a.workers)
    log("rendered", a.mixed, "mixed scenes")
    build_dataset(close, a.close, seed=a.close_seed, val_fraction=0.04, workers=a.workers, kind="closeup")
    log("rendered", a.close, "close-up scenes")

    yolo_s = max(60.0, deadline - time.time() - 45)
    child = [sys.executable, __file__, "--out", str(a.out), "--yolo-only-child", str(mixed / "data.yaml"),
             str(yolo_s / 3600), "--yolo-init", a.yolo_init, "--yolo-lr", str(a.yolo_lr), "--yolo-warmup",
             str(a.yolo_warmup), "--yolo-workers", str(a.yolo_workers), "--device", a.device]
    yolo = subprocess.Popen(child, stdout=open(a.out / "yolo.log", "w"), stderr=subprocess.STDOUT)
    log(f"YOLO started with {yolo_s:.0f} s")
    offline_ultralytics_env()
    weights = WORK / "yolo" / "weights"

    def hand_back(name: str) -> None:
        from ultralytics.utils.torch_utils import strip_optimizer

        src = weights / name
        if src.exists():
            tmp = WORK / f"copy_{name}"
            shutil.copy(src, tmp)
            strip_optimizer(str(tmp))  # 3.4 MB instead of ~16: the returned files are size-limited
            shutil.move(str(tmp), a.out / f"yolo_{name}")
        if (weights.parent / "results.csv").exists():
            shutil.copy(weights.parent / "results.csv", a.out / "yolo_results.csv")

    def keep_copying() -> None:
        while yolo.poll() is None:
            time.sleep(20)
            try:
                hand_back("last.pt")
            except Exception as exc:  # a half-written checkpoint: the next pass copies it
                log("copy failed:", exc)

    threading.Thread(target=keep_copying, daemon=True).start()

    if a.cls:
        crops = load_crops(mixed, a.cls_copies, ((close, a.close_copies),), seed=51, crop=96, workers=6)
        log(f"crops: {len(crops[0])} train, {len(crops[2])} val")
    for spec in a.cls:
        name, width, init, lr, epochs = spec.split(":")
        left = (deadline - time.time() - 50) / 60
        if left < 0.5:
            log("no time left for", name)
            continue
        hist = train_classifier(mixed, WORK / f"{name}.onnx", list(CLASS_NAMES), epochs=int(epochs),
                                batch=256, seed=51, minutes=left, init=None if init == "none" else Path(init),
                                lr=float(lr), crop=96, device="cpu" if a.device == "cpu" else f"cuda:{a.device}", width=float(width), crops=crops)
        log("classifier", name, hist)
        shutil.copy(WORK / f"{name}.pth", a.out / f"cls_{name}.pth")
    yolo.wait(timeout=max(1.0, deadline - time.time() + 30))
    log("YOLO exit", yolo.returncode)
    hand_back("last.pt")
    hand_back("best.pt")
    log("done")


if __name__ == "__main__":
    main()
