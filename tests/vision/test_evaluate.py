"""The mAP code gives 1 for perfect detections, less for misses and wrong classes (COCO recipe)."""

from __future__ import annotations

import numpy as np

from vision.detections import box_iou
from vision.evaluate import ap_per_class, average_precision, match_predictions, per_class_table


def test_perfect_predictions_score_one() -> None:
    gt_b = np.array([[0, 0, 10, 10], [20, 20, 40, 40]], np.float32)
    gt_c = np.array([0, 1])
    tp = match_predictions(gt_c, gt_c, box_iou(gt_b, gt_b))
    assert tp.all()
    ap, classes = ap_per_class(tp, np.array([0.9, 0.8]), gt_c, gt_c)
    assert classes.tolist() == [0, 1] and np.all(ap > 0.99)  # 0.995, as Ultralytics reports


def test_wrong_class_and_loose_box_are_penalised() -> None:
    gt_b = np.array([[0, 0, 10, 10]], np.float32)
    gt_c = np.array([0])
    wrong = match_predictions(np.array([1]), gt_c, box_iou(gt_b, gt_b))
    assert not wrong.any()
    loose = np.array([[0, 0, 10, 14]], np.float32)  # IoU 0.71: right at 0.5..0.7, wrong above
    tp = match_predictions(np.array([0]), gt_c, box_iou(loose, gt_b))
    assert tp[0].tolist() == [True] * 5 + [False] * 5


def test_one_match_per_ground_truth() -> None:
    gt_b = np.array([[0, 0, 10, 10]], np.float32)
    preds = np.array([[0, 0, 10, 10], [0, 0, 10, 10]], np.float32)
    tp = match_predictions(np.array([0, 0]), np.array([0]), box_iou(preds, gt_b))
    assert tp[:, 0].sum() == 1


def test_average_precision_half_recall() -> None:
    half = average_precision(np.array([0.5]), np.array([1.0]))
    full = average_precision(np.array([0.5, 1.0]), np.array([1.0, 1.0]))
    assert 0.5 <= half < full and full > 0.99


def test_table_format() -> None:
    assert "| red-1 | 3 / 4 | 75% |" in per_class_table({"red-1": (3, 4)})
