"""One lower-card training round on a lent GPU machine, in one call: render fresh turned pair crops on every core
until a deadline, then fine-tune the shipped lower-card net on them on the GPU, one run per `--run`, side by side.

Why: the lower-card net (`models/card_lower.onnx`, grid head) names its own training crops 95-97% right and fresh
ones 74-78% (`models/README.md`): it learns its crops by heart, and two CPU cores render about 40 crops a second,
so every CPU round trained on 24,000-88,000 crops. A lent machine's 16 cores render several times that in minutes,
and the GPU trains on all of them in seconds an epoch. The crops are the shipped model's last recipe (turned so the
lower card lies left, a fifth singles, a quarter of the pairs identical, old piles of one to fifteen cards) from
seeds no earlier round used; a validation set of its own seed is scored by the shipped model and by each new one.

    python models/gpu_lower.py --out $OUT --render-s 300 --budget 510 --run a:5e-4:8 --run b:1.5e-3:12

Each run writes `lower_NAME.onnx` (+ `.json`, canonical) and `lower_NAME.pth` (after every epoch, so a run cut
short leaves its latest weights) to `--out`, and `report.json` holds the validation figures and each run's
accuracy by epoch (two runs and a log are the 8 files a lent machine hands back). Needs torch (on the
lent machine's image); numpy, OpenCV and tqdm render the crops.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
INIT = REPO / "models" / "card_classifier_parts" / "lower_gpu.pth"
"""The shipped lower-card net's weights (grid head, width 1.5): every run continues from them unless `--init`."""
RECIPE = dict(canonical=True, singles=0.2, identical=0.25, pile=(1, 15))
"""The shipped model's last crops (`models/README.md`, "fine-tuned on piles as deep as the games'")."""


def render_until(n_max: int, seed: int, deadline: float, workers: int, chunk: int,
                 log: Callable[..., None]) -> tuple[np.ndarray, np.ndarray]:
    """Crops in chunks of `chunk` (each its own seed, `seed` + k) until `n_max` or the `deadline` (seconds since
    the epoch): a chunk is begun only while the last one's time still fits before the deadline."""
    from datasets.export import CLASS_NAMES
    from datasets.pairs import build

    xs: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    k, took = 0, 0.0
    while sum(len(y) for y in ys) < n_max and time.time() + took < deadline:
        t = time.time()
        made = build(chunk, seed + k, CLASS_NAMES, workers=workers, progress=False, **RECIPE)  # type: ignore[arg-type]
        xs.append(made.crops)
        ys.append(made.labels)
        took, k = time.time() - t, k + 1
        log(f"chunk {k}: {len(made.labels)} crops in {took:.0f} s ({sum(len(y) for y in ys)} in all)")
    return np.concatenate(xs), np.concatenate(ys)


def _train(name: str, lr: float, epochs: int, minutes: float, data: Path, out: Path, device: str,
           init: Path = INIT) -> None:
    """One fine-tune (its own process, so that runs share the GPU side by side)."""
    from datasets.export import CLASS_NAMES
    from models.train_classifier import train_classifier
    from models.train_lower import mark_canonical

    z, v = np.load(data / "train.npz"), np.load(data / "val.npz")
    crops = (z["crops"], z["labels"], v["crops"], v["labels"])
    onnx = out / f"lower_{name}.onnx"
    hist = train_classifier(Path("."), onnx, list(CLASS_NAMES), epochs=epochs, batch=256, seed=7, minutes=minutes,
                            threads=2, init=init, lr=lr, width=1.5, crops=crops, crop=int(crops[0].shape[1]),
                            turn=False, head="grid", device=device)
    mark_canonical(onnx)
    (data / f"history_{name}.json").write_text(json.dumps(hist, indent=1) + "\n")  # $OUT returns 8 files at most


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--work", type=Path, default=Path("/tmp/gpu_lower"), help="where the rendered crops are kept")
    ap.add_argument("--seed", type=int, default=501,
                    help="first training chunk's seed (earlier rounds: 1-61, 301-305, 401-404)")
    ap.add_argument("--val-seed", type=int, default=291)
    ap.add_argument("--val", type=int, default=2560)
    ap.add_argument("--max-crops", type=int, default=200_000)
    ap.add_argument("--chunk", type=int, default=8000)
    ap.add_argument("--render-s", type=float, default=240, help="seconds of rendering (validation included)")
    ap.add_argument("--budget", type=float, default=500, help="seconds until everything must be in --out")
    ap.add_argument("--run", action="append", default=[], metavar="NAME:LR:EPOCHS")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--device", default="cuda:0")
    ap.add_argument("--init", type=Path, default=INIT, help="weights every run continues from (grid head, 1.5)")
    a = ap.parse_args()
    t0 = time.time()
    a.out.mkdir(parents=True, exist_ok=True)
    a.work.mkdir(parents=True, exist_ok=True)

    def log(*msg: object) -> None:
        print(f"[{time.time() - t0:6.1f}s]", *msg, flush=True)

    from datasets.export import CLASS_NAMES
    from datasets.pairs import build

    v = build(a.val, a.val_seed, CLASS_NAMES, workers=a.workers, progress=False, **RECIPE)  # type: ignore[arg-type]
    np.savez(a.work / "val.npz", crops=v.crops, labels=v.labels)
    log(f"validation: {len(v.labels)} crops")
    x, y = render_until(a.max_crops, a.seed, t0 + a.render_s, a.workers, a.chunk, log)
    np.savez(a.work / "train.npz", crops=x, labels=y)
    log(f"training: {len(y)} crops")
    minutes = max(0.5, (t0 + a.budget - time.time() - 40) / 60)
    ctx = multiprocessing.get_context("spawn")
    procs = []
    for spec in a.run:
        name, lr, epochs = spec.split(":")
        p = ctx.Process(target=_train, args=(name, float(lr), int(epochs), minutes, a.work, a.out, a.device,
                                                   a.init))
        p.start()
        procs.append((name, p))
        log(f"run {name} started ({minutes:.1f} min)")
    for name, p in procs:
        p.join(timeout=max(1.0, t0 + a.budget - time.time()))
        log(f"run {name} exit {p.exitcode}")

    from models.train_lower import accuracy_of_onnx

    report: dict[str, object] = {"train_crops": len(y), "val_crops": len(v.labels), "seconds": time.time() - t0}
    models = {"shipped": REPO / "models" / "card_lower.onnx"}
    models.update({name: a.out / f"lower_{name}.onnx" for name, _ in procs})
    for name, _ in procs:
        if (a.work / f"history_{name}.json").exists():
            report[f"history_{name}"] = json.loads((a.work / f"history_{name}.json").read_text())
    for name, path in models.items():
        if path.exists():
            report[f"val_accuracy_{name}"] = accuracy_of_onnx(path, v.crops, v.labels)
            log(name, report[f"val_accuracy_{name}"])
    (a.out / "report.json").write_text(json.dumps(report, indent=1) + "\n")
    log("done")


if __name__ == "__main__":
    main()
