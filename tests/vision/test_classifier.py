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


def test_quarter_turns_stacks_each_turn_of_every_crop() -> None:
    from vision.classifier import quarter_turns

    crops = np.zeros((2, 4, 4, 3), np.uint8)
    crops[0, 0, 3] = 255  # crop 0: a mark at the top-right corner
    crops[1, 3, 3] = 255  # crop 1: a mark at the bottom-right corner
    turned = quarter_turns(crops, 4)
    assert turned.shape == (8, 4, 4, 3)
    assert np.array_equal(turned[:2], crops)  # turn 0 first, crops in order
    assert turned[2, 0, 0, 0] == 255  # crop 0 turned 90 degrees anticlockwise: top-right -> top-left
    assert turned[3, 0, 3, 0] == 255  # crop 1: bottom-right -> top-right
    assert turned[4, 3, 0, 0] == 255  # crop 0 turned 180 degrees: top-right -> bottom-left
    with pytest.raises(ValueError, match="turns must be 1 to 4"):
        quarter_turns(crops, 5)


@pytest.mark.skipif(not DEFAULT_CLASSIFIER.exists(), reason=f"{DEFAULT_CLASSIFIER} not shipped")
def test_probabilities_over_turns_are_the_mean_of_each_turn() -> None:
    """`turns=4` is the mean of what the classifier says on the crop turned each way, one row per box."""
    from vision.classifier import OnnxClassifier, to_blob

    clf = OnnxClassifier(DEFAULT_CLASSIFIER)
    scene = render_scene(np.random.default_rng(7), ("red-7", "blue-skip"), kind="closeup")
    boxes = np.array(scene.boxes, np.float32)
    mean = clf.probabilities(scene.image, boxes, turns=4)
    assert mean.shape == (len(boxes), len(clf.names))
    crops = square_crops(scene.image, boxes, clf.size, clf.margin)
    each = []
    for k in range(4):
        logits = clf.session.run(None, {clf.input_name: to_blob(np.rot90(crops, k, axes=(1, 2)))})[0]
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        each.append(e / e.sum(axis=1, keepdims=True))
    assert np.allclose(mean, np.mean(each, axis=0), atol=1e-5)
    assert np.allclose(mean.sum(axis=1), 1.0, atol=1e-5)
    assert np.allclose(clf.probabilities(scene.image, boxes, turns=1), each[0], atol=1e-5)
