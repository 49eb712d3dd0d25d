"""The mAP code gives 1 for perfect detections, less for misses and wrong classes (COCO recipe); detections of
half-hidden cards are ignored, never excused on a card that must be seen (Caltech-style ignore regions)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vision.detections import box_iou
from vision.evaluate import (
    ap_per_class,
    average_precision,
    evaluate_synthetic,
    ignored_predictions,
    match_predictions,
    per_class_table,
)


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


def test_a_detection_of_a_half_hidden_card_is_neither_hit_nor_false_alarm() -> None:
    gt_b = np.array([[0, 0, 10, 10]], np.float32)
    hidden = np.array([[50, 50, 60, 60]], np.float32)
    preds = np.array([[0, 0, 10, 10], [50, 50, 60, 61], [100, 100, 110, 110]], np.float32)
    cls = np.array([0, 0, 0])
    tp = match_predictions(cls, np.array([0]), box_iou(preds, gt_b))
    ign = ignored_predictions(tp, box_iou(preds, gt_b), box_iou(preds, hidden))
    assert ign[:, 0].tolist() == [False, True, False]
    conf = np.array([0.5, 0.9, 0.1])
    ap_ignored, _ = ap_per_class(tp, conf, cls, np.array([0]), ign)
    ap_counted, _ = ap_per_class(tp, conf, cls, np.array([0]))
    assert ap_ignored[0, 0] > 0.99 and ap_counted[0, 0] < 0.6  # the confident hidden-card detection costs half


def test_a_false_alarm_on_a_visible_card_is_not_excused_by_a_hidden_one_beneath() -> None:
    visible = np.array([[0, 0, 10, 10]], np.float32)
    hidden = np.array([[0, 0, 10, 9]], np.float32)  # a card under it, a sliver showing
    pred = np.array([[0, 0, 10, 10]], np.float32)
    tp = match_predictions(np.array([3]), np.array([0]), box_iou(pred, visible))  # wrong class
    assert not ignored_predictions(tp, box_iou(pred, visible), box_iou(pred, hidden)).any()


class _FixedDetector:
    names = ["red-0", "red-1"]

    def __init__(self, dets: object) -> None:
        self.dets = dets

    def detect(self, image: np.ndarray) -> object:
        return self.dets


def _one_image_set(root: Path, side: int, labels: str, visibility: str) -> Path:
    """A val split of one black `side` x `side` image with these label and visibility file texts."""
    import cv2

    for part in ("images", "labels", "visibility"):
        (root / part / "val").mkdir(parents=True)
    cv2.imwrite(str(root / "images" / "val" / "a.jpg"), np.zeros((side, side, 3), np.uint8))
    (root / "labels" / "val" / "a.txt").write_text(labels)
    (root / "visibility" / "val" / "a.txt").write_text(visibility)
    return root


def test_evaluate_synthetic_scores_visible_cards_and_reports_both_figures(tmp_path: Path) -> None:
    from vision.detections import Detections

    # card 0 fully visible at (10..30), card 1 35% visible at (60..80): labelled (>= 0.3) but not scored
    _one_image_set(tmp_path, 100, "0 0.2 0.2 0.2 0.2\n1 0.7 0.7 0.2 0.2\n",
                   "0 0.2 0.2 0.2 0.2 1.0\n1 0.7 0.7 0.2 0.2 0.35\n")
    dets = Detections(xyxy=np.array([[10, 10, 30, 30]], np.float32), confidence=np.array([0.9], np.float32),
                      class_id=np.array([0]), names=tuple(_FixedDetector.names))
    report = evaluate_synthetic(_FixedDetector(dets), tmp_path)  # type: ignore[arg-type]
    assert report["instances"] == 1 and report["ignored_half_hidden"] == 1
    assert report["map50"] > 0.99 and report["map50_all_labels"] < 0.6  # missing card 1 costs only the 2nd figure


def test_a_malformed_visibility_file_is_named(tmp_path: Path) -> None:
    import pytest

    _one_image_set(tmp_path, 50, "0 0.5 0.5 0.2 0.2\n", "0 0.5 0.5 0.2\n")
    dets = _FixedDetector(None)
    with pytest.raises(ValueError, match=r"visibility/val/a.txt:1: expected 6 numbers"):
        evaluate_synthetic(dets, tmp_path)  # type: ignore[arg-type]
