"""The crop classifier: square crops are centred and padded; the shipped classifier names rendered cards."""

from __future__ import annotations

import numpy as np
import pytest

from datasets.scenes import render_scene
from tracker.cards import ALL_CODES
from vision.classifier import square_crops
from vision.detector import DEFAULT_CLASSIFIER


def test_square_crops_centre_the_box_and_pad_grey() -> None:
    img = np.zeros((100, 200, 3), np.uint8)
    img[40:60, 90:110] = 255  # a white square in the middle
    crop = square_crops(img, np.array([[90, 40, 110, 60]], np.float32), size=32, margin=0.0)[0]
    assert crop.shape == (32, 32, 3)
    assert crop[16, 16].tolist() == [255, 255, 255]
    edge = square_crops(img, np.array([[0, 0, 10, 40]], np.float32), size=32, margin=0.0)[0]
    assert edge[16, 0].tolist() == [114, 114, 114]  # outside the image: letterbox grey


@pytest.mark.skipif(not DEFAULT_CLASSIFIER.exists(), reason=f"{DEFAULT_CLASSIFIER} not shipped")
def test_shipped_classifier_names_rendered_cards() -> None:
    from vision.classifier import OnnxClassifier

    clf = OnnxClassifier(DEFAULT_CLASSIFIER)
    rng = np.random.default_rng(2024)
    right = total = 0
    for i in range(30):
        code = ALL_CODES[(i * 7) % len(ALL_CODES)]
        scene = render_scene(rng, (code,), kind="closeup")
        probs = clf.probabilities(scene.image, np.array(scene.boxes, np.float32))
        for c, p in zip(scene.codes, probs, strict=True):
            total += 1
            right += clf.names[int(p.argmax())] == c
    assert right >= 0.8 * total, f"classifier right on {right}/{total} rendered cards"
