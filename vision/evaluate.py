"""Detector evaluation: COCO-style mAP on a synthetic YOLO-format set, top-1 accuracy on real photos.

Why our own metric code instead of `ultralytics val`: the figures must describe the runtime path (the ONNX model
with our letterbox, decode and NMS), and must be computable without torch. The mAP follows the Ultralytics/COCO
recipe (greedy IoU matching per threshold, 101-point interpolated precision envelope), so it is comparable.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from vision.detections import box_iou
from vision.detector import CardDetector, read_image

IOU_THRESHOLDS = np.linspace(0.5, 0.95, 10)


def default_real_photos() -> Path:
    """`../shared/datasets/real-photos` next to the repository root."""
    return Path(__file__).resolve().parents[1] / ".." / "shared" / "datasets" / "real-photos"


def match_predictions(pred_cls: np.ndarray, gt_cls: np.ndarray, iou: np.ndarray) -> np.ndarray:
    """(P, 10) bool: prediction p is a true positive at IoU threshold t (same class, one match per ground truth)."""
    correct = np.zeros((len(pred_cls), len(IOU_THRESHOLDS)), bool)
    if not len(pred_cls) or not len(gt_cls):
        return correct
    same = gt_cls[:, None] == pred_cls[None, :]  # (G, P)
    iou = iou.T * same  # (G, P)
    for ti, t in enumerate(IOU_THRESHOLDS):
        g, p = np.nonzero(iou >= t)
        if not len(g):
            continue
        order = np.argsort(-iou[g, p], kind="stable")
        g, p = g[order], p[order]
        _, first_p = np.unique(p, return_index=True)
        g, p = g[np.sort(first_p)], p[np.sort(first_p)]
        _, first_g = np.unique(g, return_index=True)
        correct[p[first_g], ti] = True
    return correct


def average_precision(recall: np.ndarray, precision: np.ndarray) -> float:
    """Area under the precision envelope, sampled at 101 recall points (COCO)."""
    mrec = np.concatenate(([0.0], recall, [1.0]))
    mpre = np.concatenate(([1.0], precision, [0.0]))
    mpre = np.flip(np.maximum.accumulate(np.flip(mpre)))
    x = np.linspace(0, 1, 101)
    return float(np.trapezoid(np.interp(x, mrec, mpre), x))


def ap_per_class(tp: np.ndarray, conf: np.ndarray, pred_cls: np.ndarray, gt_cls: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """AP (C, 10) for each class present in the ground truth, and those class ids."""
    order = np.argsort(-conf, kind="stable")
    tp, pred_cls = tp[order], pred_cls[order]
    classes = np.unique(gt_cls)
    ap = np.zeros((len(classes), tp.shape[1]))
    for ci, c in enumerate(classes):
        sel = pred_cls == c
        n_gt = int((gt_cls == c).sum())
        if not sel.any():
            continue
        tpc = np.cumsum(tp[sel], axis=0)
        fpc = np.cumsum(1 - tp[sel], axis=0)
        recall = tpc / n_gt
        precision = tpc / (tpc + fpc)
        for t in range(tp.shape[1]):
            ap[ci, t] = average_precision(recall[:, t], precision[:, t])
    return ap, classes


def _yolo_labels(path: Path, w: int, h: int) -> tuple[np.ndarray, np.ndarray]:
    if not path.exists():
        return np.zeros((0,), np.int64), np.zeros((0, 4), np.float32)
    rows = [list(map(float, line.split())) for line in path.read_text().splitlines() if line.strip()]
    if not rows:
        return np.zeros((0,), np.int64), np.zeros((0, 4), np.float32)
    a = np.array(rows, np.float32)
    cx, cy, bw, bh = a[:, 1] * w, a[:, 2] * h, a[:, 3] * w, a[:, 4] * h
    return a[:, 0].astype(np.int64), np.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], axis=1)


def _val_images(dataset: Path) -> list[Path]:
    root = dataset.parent if dataset.suffix in (".yaml", ".yml") else dataset
    folder = root / "images" / "val"
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder} not found: expected a data set made by `unotable dataset build`")
    images = sorted(folder.glob("*.jpg"))
    if not images:
        raise FileNotFoundError(f"no .jpg images in {folder}")
    return images


def evaluate_synthetic(detector: CardDetector, dataset: Path, limit: int | None = None) -> dict[str, Any]:
    """mAP50 and mAP50-95 of `detector` on the val split of a YOLO-format data set (detector at low conf)."""
    images = _val_images(Path(dataset))[:limit]
    tps, confs, pcls, gcls = [], [], [], []
    for img_path in tqdm(images, desc="synthetic set", unit="img"):
        img = read_image(img_path)
        h, w = img.shape[:2]
        gt_c, gt_b = _yolo_labels(img_path.parents[2] / "labels" / "val" / f"{img_path.stem}.txt", w, h)
        dets = detector.detect(img)
        iou = box_iou(dets.xyxy, gt_b) if len(dets) and len(gt_b) else np.zeros((len(dets), len(gt_b)))
        tps.append(match_predictions(dets.class_id, gt_c, iou))
        confs.append(dets.confidence)
        pcls.append(dets.class_id)
        gcls.append(gt_c)
    tp = np.concatenate(tps)
    gt = np.concatenate(gcls)
    ap, classes = ap_per_class(tp, np.concatenate(confs), np.concatenate(pcls), gt)
    per_class = {detector.names[int(c)]: round(float(ap[i, 0]), 4) for i, c in enumerate(classes)}
    return {
        "images": len(images),
        "instances": int(len(gt)),
        "map50": float(ap[:, 0].mean()) if len(ap) else 0.0,
        "map50_95": float(ap.mean()) if len(ap) else 0.0,
        "ap50_per_class": per_class,
    }


def evaluate_real(detector: CardDetector, root: Path, out: Path, limit: int | None = None) -> dict[str, Any]:
    """Share of real photos whose most confident detection is the card named by the photo's folder.

    Writes `confusion_real.png` (rows: true card, columns: top detection or "none") into `out`.
    """
    codes = sorted(p.name for p in root.iterdir() if p.is_dir() and p.name in detector.names)
    if not codes:
        raise FileNotFoundError(f"no sub-folders named by card codes in {root}")
    cols = [*detector.names, "none"]
    conf_mat = np.zeros((len(codes), len(cols)), np.int64)
    photos: list[tuple[str, Path]] = []
    for code in codes:
        files = sorted(q for q in (root / code).iterdir() if q.suffix.lower() in (".jpg", ".jpeg", ".png"))
        photos += [(code, f) for f in files[:limit]]
    wrong: list[dict[str, Any]] = []
    for code, path in tqdm(photos, desc="real photos", unit="img"):
        dets = detector.detect(read_image(path)).with_class(*[n for n in detector.names if n != "back"])
        top = dets.cards[0] if len(dets) else "none"
        conf_mat[codes.index(code), cols.index(top)] += 1
        if top != code:
            wrong.append({"image": str(path), "truth": code, "top": top,
                          "confidence": float(dets.confidence[0]) if len(dets) else 0.0})
    correct = int(sum(conf_mat[i, cols.index(c)] for i, c in enumerate(codes)))
    per_class = {c: (int(conf_mat[i, cols.index(c)]), int(conf_mat[i].sum())) for i, c in enumerate(codes)}
    png = out / "confusion_real.png"
    plot_confusion(conf_mat, codes, cols, png)
    return {
        "photos": len(photos),
        "correct": correct,
        "accuracy": correct / max(1, len(photos)),
        "per_class": per_class,
        "table": per_class_table(per_class),
        "confusion_png": str(png),
        "wrong": wrong,
    }


def per_class_table(per_class: dict[str, tuple[int, int]]) -> str:
    """A Markdown table: card, right / photos, accuracy."""
    lines = ["| card | right / photos | top-1 |", "|---|---|---|"]
    for code, (ok, n) in per_class.items():
        lines.append(f"| {code} | {ok} / {n} | {ok / max(1, n):.0%} |")
    return "\n".join(lines)


def plot_confusion(mat: np.ndarray, rows: Sequence[str], cols: Sequence[str], png: Path) -> None:
    """Save the confusion matrix (true card vs. most confident detection) as a PNG heat map."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    used = [j for j, c in enumerate(cols) if mat[:, j].any() or c in rows]
    m = mat[:, used]
    fig, ax = plt.subplots(figsize=(14, 12), dpi=80)
    ax.imshow(m, cmap="Blues")
    ax.set_xticks(range(len(used)), [cols[j] for j in used], rotation=90, fontsize=7)
    ax.set_yticks(range(len(rows)), rows, fontsize=7)
    ax.set_xlabel("most confident detection")
    ax.set_ylabel("true card (photo folder)")
    acc = sum(mat[i, list(cols).index(r)] for i, r in enumerate(rows)) / max(1, mat.sum())
    ax.set_title(f"Real photos: top-1 confusion ({acc:.1%} right)")
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            if m[i, j]:
                ax.text(j, i, str(m[i, j]), ha="center", va="center", fontsize=6,
                        color="white" if m[i, j] > m.max() / 2 else "black")
    fig.tight_layout()
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png)
    plt.close(fig)
