"""Detections behave like parallel arrays: masks, sorting, class filters; NMS and IoU are right."""

from __future__ import annotations

import numpy as np
import pytest

from vision.detections import Detections, box_iou, nms

NAMES = ("red-1", "blue-2", "back")


def _dets() -> Detections:
    return Detections(
        np.array([[0, 0, 10, 10], [5, 5, 15, 15], [20, 20, 30, 40]], np.float32),
        np.array([0, 1, 2]),
        np.array([0.5, 0.9, 0.7], np.float32),
        NAMES,
    )


def test_mask_and_index_select_every_field() -> None:
    d = _dets()
    sub = d[d.confidence > 0.6]
    assert len(sub) == 2 and sub.cards == ["blue-2", "back"]
    assert sub.xyxy.tolist() == [[5, 5, 15, 15], [20, 20, 30, 40]]
    assert d[1].cards == ["blue-2"] and len(d[1:]) == 2


def test_sorted_and_to_list_most_confident_first() -> None:
    rows = _dets().to_list()
    assert [r["card"] for r in rows] == ["blue-2", "back", "red-1"]
    assert rows[0] == {"card": "blue-2", "confidence": 0.9, "box": [5.0, 5.0, 15.0, 15.0]}


def test_with_class_area_center_and_merge() -> None:
    d = _dets()
    assert d.with_class("back", "nope").cards == ["back"]
    assert d.area.tolist() == [100, 100, 200]
    assert d.center[2].tolist() == [25, 30]
    assert len(Detections.merge([d, d])) == 6
    assert len(Detections.empty(NAMES)) == 0


def test_shape_and_range_checks() -> None:
    with pytest.raises(ValueError, match="xyxy"):
        Detections(np.zeros((2, 3), np.float32), np.zeros(2, int), np.zeros(2, np.float32), NAMES)
    with pytest.raises(ValueError, match="out of range"):
        Detections(np.zeros((1, 4), np.float32), np.array([7]), np.zeros(1, np.float32), NAMES)


def test_iou_and_nms() -> None:
    a = np.array([[0, 0, 10, 10]], np.float32)
    b = np.array([[0, 0, 10, 10], [5, 0, 15, 10], [20, 20, 30, 30]], np.float32)
    assert np.allclose(box_iou(a, b)[0], [1.0, 50 / 150, 0.0])
    boxes = np.array([[0, 0, 10, 10], [1, 1, 10, 10], [20, 20, 30, 30]], np.float32)
    keep = nms(boxes, np.array([0.8, 0.9, 0.3]), 0.5)
    assert keep.tolist() == [1, 2]


def test_presence_defaults_to_confidence_and_follows_every_selection() -> None:
    d = _dets()
    assert d.presence.tolist() == d.confidence.tolist()  # type: ignore[union-attr]
    named = Detections(d.xyxy, d.class_id, d.confidence, NAMES, np.array([0.6, 0.95, 0.8], np.float32))
    assert named.sorted().presence.tolist() == pytest.approx([0.95, 0.8, 0.6])  # type: ignore[union-attr]
    assert named[named.presence > 0.7].cards == ["blue-2", "back"]  # type: ignore[operator]
    assert Detections.merge([named, d]).presence.tolist() == pytest.approx([0.6, 0.95, 0.8, 0.5, 0.9, 0.7])  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="presence"):
        Detections(d.xyxy, d.class_id, d.confidence, NAMES, np.zeros(2, np.float32))
