"""Second stage of the card detector: a small CNN that names the card inside each detected box.

Why two stages: on the shared 2-core machine the YOLO model gets only a handful of epochs, enough to learn *where*
cards are but not to tell 55 look-alike faces apart. Classifying square crops is ~100x cheaper per sample, so a
dedicated classifier can see every training card many times over. The runtime (`OnnxDetector`) uses the YOLO boxes
and, when `models/card_classifier.onnx` exists, replaces each box's class with the classifier's answer.

Crops are squares around the box centre (side = longest box side + a margin), so a card at any rotation fits the
same way in training and at runtime.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

CROP = 96  # the shipped classifier's side (runtime reads it from card_classifier.json); 64 lost corner indices
MARGIN = 0.08


def square_crops(image: np.ndarray, boxes: np.ndarray, size: int = CROP, margin: float = MARGIN) -> np.ndarray:
    """(N, size, size, 3) uint8 BGR crops: squares around each (x1, y1, x2, y2) box, grey-padded at the borders."""
    out = np.empty((len(boxes), size, size, 3), np.uint8)
    h, w = image.shape[:2]
    for i, (x1, y1, x2, y2) in enumerate(np.asarray(boxes, np.float32)):
        side = max(x2 - x1, y2 - y1) * (1 + 2 * margin)
        cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
        s = size / max(side, 1.0)
        # affine map: crop square -> size x size, border filled with the letterbox grey
        m = np.array([[s, 0, size / 2 - cx * s], [0, s, size / 2 - cy * s]], np.float32)
        interp = cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR
        out[i] = cv2.warpAffine(image, m, (size, size), flags=interp, borderMode=cv2.BORDER_CONSTANT,
                                borderValue=(114, 114, 114))
    _ = (h, w)
    return out


def resized_crops(crops: np.ndarray, size: int) -> np.ndarray:
    """Crops (N, S, S, 3) at another side: a model that reads `size` pixels scored on crops cut at a larger side
    sees what `square_crops` would have cut for it (area averaging, as it uses when shrinking)."""
    if crops.shape[1] == size:
        return crops
    return np.stack([cv2.resize(c, (size, size), interpolation=cv2.INTER_AREA) for c in crops])


def to_blob(crops: np.ndarray) -> np.ndarray:
    """NCHW float32 RGB in [0, 1], the classifier's input."""
    return np.ascontiguousarray(crops[..., ::-1].transpose(0, 3, 1, 2), dtype=np.float32) / 255.0


class OnnxClassifier:
    """The crop classifier on onnxruntime (one intra-op thread)."""

    def __init__(self, model_path: Path, threads: int = 1) -> None:
        import onnxruntime as ort

        meta = json.loads(Path(model_path).with_suffix(".json").read_text())
        self.names: tuple[str, ...] = tuple(meta["names"])
        self.size = int(meta["crop"])
        self.margin = float(meta.get("margin", MARGIN))
        self.canonical = bool(meta.get("canonical", False))  # learnt crops in one orientation (`datasets.pairs`)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        self.session = ort.InferenceSession(str(model_path), opts, providers=["CPUExecutionProvider"])
        self.input_name = self.session.get_inputs()[0].name

    def probabilities(self, image: np.ndarray, boxes: np.ndarray, turns: int = 1) -> np.ndarray:
        """(N, classes) softmax probabilities for the card in each box; with `turns` = 4, the mean over the crop
        and its three quarter-turns (`quarter_turns`)."""
        if not len(boxes):
            return np.zeros((0, len(self.names)), np.float32)
        return self.crop_probabilities(square_crops(image, boxes, self.size, self.margin), turns)

    def crop_probabilities(self, crops: np.ndarray, turns: int = 1) -> np.ndarray:
        """(N, classes) softmax probabilities for crops already cut at the model's side (N, size, size, 3);
        with `turns` = 4, the mean over each crop and its three quarter-turns."""
        logits = self.session.run(None, {self.input_name: to_blob(quarter_turns(crops, turns))})[0]
        logits = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        probs = e / e.sum(axis=1, keepdims=True)
        if turns > 1:
            probs = probs.reshape(turns, len(crops), -1).mean(axis=0)
        return probs.astype(np.float32)


def quarter_turns(crops: np.ndarray, turns: int) -> np.ndarray:
    """The crops (N, S, S, 3) turned by 0, 90, 180, ... degrees, `turns` of them, stacked turn by turn.

    Why: a model that learnt cards at every angle still reads a glyph a few pixels tall better at some angles
    than at others, and its errors at different angles disagree. On the lower-card validation crops (2,048 pairs
    rendered as `datasets.pairs` renders them) the mean over four quarter-turns names 71.5% right against 68.1%
    for the crop alone, and is better calibrated (at a mean probability of 0.35, 90% right against 85%). Mirror
    images do not help: they turn a card's glyphs into ones it never showed (42-44% right)."""
    if turns < 1 or turns > 4:
        raise ValueError(f"quarter_turns: turns must be 1 to 4, got {turns}")
    if turns == 1:
        return crops  # the common case (every detector box): no copy
    return np.concatenate([np.rot90(crops, k, axes=(1, 2)) for k in range(turns)], axis=0)
