"""Detector evaluation: COCO-style mAP on a synthetic YOLO-format set, top-1 accuracy on real photos.

Why our own metric code instead of `ultralytics val`: the figures must describe the runtime path (the ONNX model
with our letterbox, decode and NMS), and must be computable without torch. The mAP follows the Ultralytics/COCO
recipe (greedy IoU matching per threshold, 101-point interpolated precision envelope, integrated as Ultralytics
does), so it is comparable with `ultralytics val`.

Which cards are scored: where a data set carries `visibility/` files (every visible card with the share of its
face that shows), the cards showing at least half their face are scored and the others are ignored, as the
Caltech and CityPersons pedestrian benchmarks ignore heavily occluded people: a detection of a half-hidden card is
neither a hit nor a false alarm, and not finding one is not a miss. Without those files every label is scored.
The report gives both figures when it can (`map50` with ignores, `map50_all_labels` without).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from tqdm import tqdm

from datasets.labels import read_rows
from vision.detections import box_iou
from vision.detector import CardDetector, read_image

IOU_THRESHOLDS = np.linspace(0.5, 0.95, 10)
SCORED_MIN_VISIBLE = 0.5
"""A card is scored when at least half of its face shows; less visible cards are ignored (see the module doc)."""


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
    """Area under the precision envelope, sampled at 101 recall points and integrated by trapezoids, as Ultralytics
    does: the recall gap above the last hit closes linearly to zero precision (COCO's rule gives that gap nothing)."""
    mrec = np.concatenate(([0.0], recall, [1.0]))
    mpre = np.concatenate(([1.0], precision, [0.0]))
    mpre = np.flip(np.maximum.accumulate(np.flip(mpre)))
    x = np.linspace(0, 1, 101)
    return float(np.trapezoid(np.interp(x, mrec, mpre), x))


def ignored_predictions(correct: np.ndarray, iou_scored: np.ndarray, iou_ignored: np.ndarray) -> np.ndarray:
    """(P, 10) bool: prediction p, not a hit at threshold t, lies on an ignored (half-hidden) card.

    "Lies on" means IoU at least 0.5 with an ignored card's visible box, and more than with any scored card, so
    a false alarm on a card that must be seen is never excused by a hidden card beneath it.
    """
    if not iou_ignored.shape[1] or not len(correct):
        return np.zeros_like(correct)
    best_ign = iou_ignored.max(axis=1)
    best_scored = iou_scored.max(axis=1) if iou_scored.shape[1] else np.zeros(len(correct))
    on_hidden = (best_ign >= IOU_THRESHOLDS[0]) & (best_ign > best_scored)
    return ~correct & on_hidden[:, None]


def ap_per_class(tp: np.ndarray, conf: np.ndarray, pred_cls: np.ndarray, gt_cls: np.ndarray,
                 ignore: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """AP (C, 10) for each class present in the ground truth, and those class ids.

    `ignore` (P, 10) marks predictions that count neither as hits nor as false alarms at that threshold.
    """
    order = np.argsort(-conf, kind="stable")
    tp, pred_cls = tp[order], pred_cls[order]
    ignore = np.zeros_like(tp) if ignore is None else ignore[order]
    classes = np.unique(gt_cls)
    ap = np.zeros((len(classes), tp.shape[1]))
    for ci, c in enumerate(classes):
        sel = pred_cls == c
        n_gt = int((gt_cls == c).sum())
        if not sel.any():
            continue
        for t in range(tp.shape[1]):
            hits = tp[sel, t][~ignore[sel, t]]  # ignored predictions leave the ranking altogether
            if not len(hits):
                continue
            tpc = np.cumsum(hits)
            fpc = np.cumsum(~hits)
            ap[ci, t] = average_precision(tpc / n_gt, tpc / (tpc + fpc))
    return ap, classes


def _to_pixels(a: np.ndarray, w: int, h: int) -> tuple[np.ndarray, np.ndarray]:
    cx, cy, bw, bh = a[:, 1] * w, a[:, 2] * h, a[:, 3] * w, a[:, 4] * h
    return a[:, 0].astype(np.int64), np.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], axis=1)


def _yolo_labels(path: Path, w: int, h: int) -> tuple[np.ndarray, np.ndarray]:
    return _to_pixels(read_rows(path, 5), w, h)


class _Truth(NamedTuple):
    """One val image's truth: scored cards, ignored (half-hidden) boxes, and the plain label file's rows."""

    cls: np.ndarray
    boxes: np.ndarray
    ignored: np.ndarray
    label_cls: np.ndarray
    label_boxes: np.ndarray


def _ground_truth(image: Path, w: int, h: int) -> _Truth:
    root, stem = image.parents[2], image.stem
    lab_c, lab_b = _yolo_labels(root / "labels" / "val" / f"{stem}.txt", w, h)
    vis_path = root / "visibility" / "val" / f"{stem}.txt"
    if not vis_path.exists():
        return _Truth(lab_c, lab_b, np.zeros((0, 4), np.float32), lab_c, lab_b)
    rows = read_rows(vis_path, 6)
    scored = rows[:, 5] >= SCORED_MIN_VISIBLE
    gc, gb = _to_pixels(rows[scored], w, h)
    return _Truth(gc, gb, _to_pixels(rows[~scored], w, h)[1], lab_c, lab_b)


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
    """mAP50 and mAP50-95 of `detector` on the val split of a YOLO-format data set (detector at low conf).

    Cards showing less than half their face are ignored where the set has `visibility/` files (module doc);
    `map50_all_labels` scores every label file row instead, for comparison.
    """
    images = _val_images(Path(dataset))[:limit]
    tps, igns, confs, pcls, gcls, tps_all, gcls_all = [], [], [], [], [], [], []
    n_ignored = 0
    for img_path in tqdm(images, desc="synthetic set", unit="img"):
        img = read_image(img_path)
        h, w = img.shape[:2]
        gt_c, gt_b, ign_b, lab_c, lab_b = _ground_truth(img_path, w, h)
        dets = detector.detect(img)
        iou = box_iou(dets.xyxy, gt_b)  # (P, G), empty when either side is
        iou_ign = box_iou(dets.xyxy, ign_b)
        correct = match_predictions(dets.class_id, gt_c, iou)
        tps.append(correct)
        igns.append(ignored_predictions(correct, iou, iou_ign))
        iou_lab = box_iou(dets.xyxy, lab_b)
        tps_all.append(match_predictions(dets.class_id, lab_c, iou_lab))
        confs.append(dets.confidence)
        pcls.append(dets.class_id)
        gcls.append(gt_c)
        gcls_all.append(lab_c)
        n_ignored += len(ign_b)
    conf, pred = np.concatenate(confs), np.concatenate(pcls)
    gt = np.concatenate(gcls)
    ap, classes = ap_per_class(np.concatenate(tps), conf, pred, gt, np.concatenate(igns))
    ap_all, _ = ap_per_class(np.concatenate(tps_all), conf, pred, np.concatenate(gcls_all))
    per_class = {detector.names[int(c)]: round(float(ap[i, 0]), 4) for i, c in enumerate(classes)}
    return {
        "images": len(images),
        "instances": int(len(gt)),
        "ignored_half_hidden": n_ignored,
        "map50": float(ap[:, 0].mean()) if len(ap) else 0.0,
        "map50_95": float(ap.mean()) if len(ap) else 0.0,
        "map50_all_labels": float(ap_all[:, 0].mean()) if len(ap_all) else 0.0,
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
