"""Train the card detector with Ultralytics from a model YAML (random init: no weights are ever downloaded).

Why these settings:
- `YOLO_OFFLINE=1`, a project-local `YOLO_CONFIG_DIR` holding a copy of a local TTF as `Arial.ttf`, and `amp=False`
  stop every download Ultralytics would otherwise try (fonts, AMP check weights).
- The model is built from `yolo11n.yaml` (or any model YAML) so training starts from random weights.
- Colour is part of a card's identity, so hue augmentation is off, and so is left-right flipping (a mirrored card
  does not exist); rotations are already in the rendered data.
- Torch runs on `threads` threads (1 by default): the machine is shared, and 2 threads on a busy 2-core box stall.
This module imports torch/ultralytics lazily; they are the `train` extra, not runtime dependencies.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
CONFIG_DIR = REPO / ".cache" / "ultralytics"


def offline_ultralytics_env() -> Path:
    """Point Ultralytics at a project config folder with a local font, and forbid network use. Returns the dir."""
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ.setdefault("YOLO_CONFIG_DIR", str(CONFIG_DIR))
    cfg = Path(os.environ["YOLO_CONFIG_DIR"]) / "Ultralytics"
    cfg.mkdir(parents=True, exist_ok=True)
    font = cfg / "Arial.ttf"
    if not font.exists():
        candidates = [Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")]
        try:
            import matplotlib

            candidates.insert(0, Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf")
        except ImportError:
            pass
        for c in candidates:
            if c.exists():
                shutil.copy(c, font)
                break
    return cfg


def train(
    data: Path,
    project: Path,
    name: str = "detector",
    model: str = "yolo11n.yaml",
    imgsz: int = 320,
    epochs: int = 30,
    hours: float | None = None,
    batch: int = 32,
    threads: int = 1,
    workers: int = 1,
    resume: bool = False,
    fraction: float = 1.0,
    extra: dict[str, Any] | None = None,
    device: str = "cpu",
) -> Path:
    """Train and return the path of the best weights (`<project>/<name>/weights/best.pt`).

    `hours`, when given, makes Ultralytics fit the schedule into that wall-clock time (it overrides `epochs`).
    `resume=True` continues `<project>/<name>/weights/last.pt` after an interruption.
    `device`: "cpu" (the default here), or a GPU such as "0" where one is lent.
    """
    if not Path(data).exists():
        raise FileNotFoundError(f"data set description {data} does not exist (make one with `unotable dataset build`)")
    offline_ultralytics_env()
    import torch

    torch.set_num_threads(max(1, threads))
    from ultralytics import YOLO

    run_dir = Path(project).resolve() / name
    if resume:
        last = run_dir / "weights" / "last.pt"
        if not last.exists():
            raise FileNotFoundError(f"nothing to resume: {last} does not exist")
        YOLO(str(last)).train(resume=True)
    else:
        args: dict[str, Any] = dict(
            data=str(Path(data).resolve()), imgsz=imgsz, epochs=epochs, batch=batch, device=device, workers=workers,
            project=str(Path(project).resolve()), name=name, exist_ok=True, amp=False, plots=False, pretrained=False,
            optimizer="AdamW", lr0=0.0015, warmup_epochs=1, cos_lr=False, hsv_h=0.0, hsv_s=0.4, hsv_v=0.35,
            fliplr=0.0, mosaic=0.5, close_mosaic=2, degrees=0.0, scale=0.3, translate=0.1, patience=100,
            fraction=fraction, save_period=-1, val=True, verbose=False, seed=0, deterministic=False,
        )
        if hours:
            args["time"] = hours
        args.update(extra or {})
        YOLO(model).train(**args)
    best = run_dir / "weights" / "best.pt"
    if not best.exists():
        best = run_dir / "weights" / "last.pt"
    return best


def ship_weights(weights: Path, out: Path) -> Path:
    """Copy training weights to `out` without the optimizer state and EMA copy (a 16 MB last.pt becomes ~3 MB)."""
    offline_ultralytics_env()
    from ultralytics.utils.torch_utils import strip_optimizer

    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(weights, out)
    strip_optimizer(str(out))
    return out


def export_onnx(weights: Path, out: Path, imgsz: int, classifier: str | None = None) -> Path:
    """Export `weights` to ONNX at `out` (opset 17, static `imgsz` square input, no NMS inside) plus a JSON sidecar."""
    offline_ultralytics_env()
    import torch

    torch.set_num_threads(1)
    from ultralytics import YOLO

    model = YOLO(str(weights))
    produced = Path(model.export(format="onnx", imgsz=imgsz, opset=17, simplify=True, dynamic=False, nms=False))
    out.parent.mkdir(parents=True, exist_ok=True)
    if produced.resolve() != out.resolve():
        shutil.copy(produced, out)
    names = model.names
    meta: dict[str, Any] = {"imgsz": imgsz, "names": [names[i] for i in range(len(names))], "source": weights.name}
    if classifier:
        meta["classifier"] = classifier  # file name of the second stage, next to the ONNX model
    out.with_suffix(".json").write_text(json.dumps(meta, indent=1) + "\n")
    return out


def plot_results(results_csv: Path, png: Path) -> Path:
    """Plot an Ultralytics `results.csv` (losses and val mAP per epoch) to `png`, for the model card."""
    import csv

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(results_csv) as fh:
        rows = [{k.strip(): float(v) for k, v in r.items()} for r in csv.DictReader(fh)]
    if not rows:
        raise ValueError(f"{results_csv} has no epochs")
    ep = [r["epoch"] for r in rows]
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4), dpi=80)
    for key in ("train/box_loss", "train/cls_loss", "train/dfl_loss", "val/cls_loss"):
        a.plot(ep, [r[key] for r in rows], marker="o", label=key)
    a.set_xlabel("epoch")
    a.set_title("losses")
    a.legend()
    for key in ("metrics/mAP50(B)", "metrics/mAP50-95(B)"):
        b.plot(ep, [r[key] for r in rows], marker="o", label=key.replace("metrics/", ""))
    b.set_xlabel("epoch")
    b.set_ylim(0, 1)
    b.set_title("validation (synthetic val split)")
    b.legend()
    fig.tight_layout()
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png)
    plt.close(fig)
    return png
