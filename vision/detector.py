"""Card detectors behind one interface: `detect(image_bgr) -> Detections`.

Two backends run the same trained weights:
- `OnnxDetector` (the runtime): onnxruntime on one intra-op thread, letterbox + decode + NMS in numpy, so the main
  job needs neither torch nor ultralytics and does not fight other jobs for cores.
- `UltralyticsDetector` (the `train` extra): Ultralytics' own predict on the `.pt` weights; used to check that the
  ONNX path gives the same answers and to compare speed in `benchmarks/bench_detector.py`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from vision.detections import Detections, nms

MODELS_DIR = Path(__file__).resolve().parents[1] / "models"
DEFAULT_ONNX = MODELS_DIR / "card_detector.onnx"
DEFAULT_PT = MODELS_DIR / "card_detector.pt"
DEFAULT_CLASSIFIER = MODELS_DIR / "card_classifier.onnx"
DEFAULT_LOWER = MODELS_DIR / "card_lower.onnx"
"""The lower-card classifier: names a pair's half-hidden lower card (`models/train_lower.py`)."""
DEFAULT_REVEAL = MODELS_DIR / "card_reveal.onnx"
"""The revealed-card classifier: names a revealed hand's cards (`models/train_lower.py --set reveals`)."""


class DetectorError(RuntimeError):
    """The detector cannot run: missing weights, a broken model file, an unreadable image."""


class CardDetector(Protocol):
    names: tuple[str, ...]

    def detect(self, image: np.ndarray) -> Detections: ...


def letterbox(image: np.ndarray, size: int) -> tuple[np.ndarray, float, tuple[float, float]]:
    """Resize keeping aspect ratio into a `size` square padded with grey 114 (as Ultralytics trains).

    Returns the padded image, the scale applied and the (x, y) padding, to map boxes back.
    """
    h, w = image.shape[:2]
    r = min(size / h, size / w)
    nw, nh = int(round(w * r)), int(round(h * r))
    resized = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_LINEAR) if (nw, nh) != (w, h) else image
    px, py = (size - nw) / 2, (size - nh) / 2
    top, left = int(round(py - 0.1)), int(round(px - 0.1))
    out = cv2.copyMakeBorder(resized, top, size - nh - top, left, size - nw - left, cv2.BORDER_CONSTANT,
                             value=(114, 114, 114))
    return out, r, (float(left), float(top))


def decode_yolo(
    output: np.ndarray, conf: float, iou: float, agnostic: bool, max_det: int = 100, any_class: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Decode a YOLOv8/11 head output (4 + nc, A) into boxes (xyxy, input pixels), class ids and scores after NMS.

    `any_class=True` scores each box by the chance that it holds *some* card, 1 - prod(1 - s_c), which stays high
    when the per-class scores of an unsure model are spread over look-alike faces (the two-stage mode).
    """
    boxes, cls, score, _ = decode_yolo_top(output, conf, iou, agnostic, max_det, any_class)
    return boxes, cls, score


def decode_yolo_top(
    output: np.ndarray, conf: float, iou: float, agnostic: bool, max_det: int = 100, any_class: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`decode_yolo` plus each kept box's top single-class score (what the two-stage path uses to skip backs)."""
    pred = output.T  # (A, 4 + nc)
    scores_all = pred[:, 4:]
    cls = scores_all.argmax(axis=1)
    if any_class:
        score = 1.0 - np.exp(np.log1p(-np.clip(scores_all, 0.0, 1.0 - 1e-6)).sum(axis=1))
    else:
        score = scores_all[np.arange(len(pred)), cls]
    top = scores_all[np.arange(len(pred)), cls]
    keep = score >= conf
    pred, cls, score, top = pred[keep], cls[keep], score[keep], top[keep]
    if not len(pred):
        empty = np.zeros((0,), np.float32)
        return np.zeros((0, 4), np.float32), np.zeros((0,), np.int64), empty, empty
    cx, cy, w, h = pred[:, 0], pred[:, 1], pred[:, 2], pred[:, 3]
    boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1)
    # per-class NMS by shifting each class to its own far-apart region (the usual trick)
    shifted = boxes if agnostic else boxes + (cls[:, None] * 4096.0)
    idx = nms(shifted, score, iou)[:max_det]
    return (boxes[idx].astype(np.float32), cls[idx].astype(np.int64), score[idx].astype(np.float32),
            top[idx].astype(np.float32))


def check_names(names: tuple[str, ...], source: str, classes: int | None = None) -> None:
    """Refuse a model whose class names the log can't take: each becomes the card of a `play`, `starter` or
    `reveal` event (EVENTS.md spells cards `red-7`, `wild-draw4`; `back` is a card's back), so a name that is no card
    code would be refused there and the play lost; and a list shorter than the model's outputs would fail on the
    first box of a class it does not name, mid-game. `classes`: the model's number of outputs, where known."""
    from tracker.cards import CardError, card

    for name in names:
        if name == "back":
            continue
        try:
            card(name)
        except CardError as exc:
            raise DetectorError(f"{source} names class {name!r}, which is no card code (EVENTS.md: red-7, "
                                f"blue-reverse, green-draw2, wild, wild-draw4, or back): {exc}") from None
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise DetectorError(f"{source} names {', '.join(twice)} more than once")
    if classes is not None and classes != len(names):
        raise DetectorError(f"{source} names {len(names)} classes but the model has {classes} class outputs")


def _output_classes(session: object) -> int | None:
    """The number of classes of a YOLO head (4 box values + one score a class, in its output's second axis), or
    None where the exported shape leaves it open."""
    shape = session.get_outputs()[0].shape  # type: ignore[attr-defined]
    width = shape[1] if len(shape) == 3 else None
    return width - 4 if isinstance(width, int) and width > 4 else None


def _check_image(image: np.ndarray) -> np.ndarray:
    if not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or image.size == 0:
        raise DetectorError("image must be a non-empty HxW or HxWx3 numpy array (BGR)")
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif image.shape[2] == 4:
        image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    return image


class OnnxDetector:
    """The runtime detector: the exported YOLO model on onnxruntime (CPU, one intra-op thread by default)."""

    def __init__(self, model_path: Path = DEFAULT_ONNX, conf: float = 0.25, iou: float = 0.5,
                 agnostic: bool = False, threads: int = 1, classifier: Path | None | bool = None,
                 back_skip: float = 0.6, presence: float | None = None) -> None:
        """`classifier`: a crop-classifier ONNX path, False for YOLO classes only, or None for the file named in
        the detector's JSON (`"classifier"`) when it exists next to the model. `back_skip`: boxes YOLO calls a
        card back with at least this class score skip the classifier (above 1 classifies every box).
        `presence`: also keep boxes whose any-card score reaches this, however unsure their name (their
        `confidence` stays low; `Detections.presence` carries the box score), for readers that count cards."""
        import onnxruntime as ort

        from vision.classifier import OnnxClassifier

        model_path = Path(model_path)
        meta_path = model_path.with_suffix(".json")
        if not model_path.exists():
            raise DetectorError(f"detector weights {model_path} not found (train and export with `unotable train`)")
        if not meta_path.exists():
            raise DetectorError(f"class-name file {meta_path} not found next to {model_path.name}")
        meta = json.loads(meta_path.read_text())
        self.names: tuple[str, ...] = tuple(meta["names"])
        self.imgsz = int(meta["imgsz"])
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        opts.log_severity_level = 3
        try:
            self.session = ort.InferenceSession(str(model_path), opts, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own exception types for corrupt files
            raise DetectorError(f"cannot load ONNX model {model_path}: {exc}") from exc
        check_names(self.names, meta_path.name, _output_classes(self.session))
        self.input_name = self.session.get_inputs()[0].name
        self.conf, self.iou, self.agnostic = conf, iou, agnostic
        self.presence = presence
        self.back_id = self.names.index("back") if "back" in self.names else -1
        self.back_skip = float(back_skip)
        if classifier is None and meta.get("classifier"):
            candidate = model_path.parent / meta["classifier"]
            classifier = candidate if candidate.exists() else False
        self.classifier = OnnxClassifier(Path(classifier), threads) if classifier else None
        if self.classifier is not None and self.classifier.names != self.names:
            raise DetectorError("the crop classifier's class names differ from the detector's")

    def detect(self, image: np.ndarray) -> Detections:
        image = _check_image(image)
        padded, r, (px, py) = letterbox(image, self.imgsz)
        blob = cv2.dnn.blobFromImage(padded, 1 / 255.0, swapRB=True)  # NCHW float32 RGB
        out = self.session.run(None, {self.input_name: blob})[0][0]
        two_stage = self.classifier is not None
        floor = self.conf if self.presence is None or not two_stage else min(self.conf, self.presence)
        boxes, cls, score, top = decode_yolo_top(out, floor, self.iou, self.agnostic or two_stage,
                                                 any_class=two_stage)
        present = score.astype(np.float32)
        if len(boxes):
            boxes = (boxes - np.array([px, py, px, py], np.float32)) / r
            h, w = image.shape[:2]
            boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, w)
            boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, h)
        if two_stage and len(boxes):
            assert self.classifier is not None
            # a card back is the one class YOLO learns quickly and surely; a table shows up to ~25 of them in
            # the seats' hands, so sure backs keep YOLO's answer and only the rest pay for the classifier
            ask = ~((cls == self.back_id) & (top >= self.back_skip))  # back_id -1 (no back class) matches none
            if ask.any():
                probs = self.classifier.probabilities(image, boxes[ask])
                c2 = probs.argmax(axis=1)
                cls = cls.copy()
                cls[ask] = c2
                score = score.copy()
                score[ask] = score[ask] * probs[np.arange(len(c2)), c2]
            score = score.astype(np.float32)
            keep = score >= self.conf
            if self.presence is not None:
                keep |= present >= self.presence
            boxes, cls, score, present = boxes[keep], cls[keep], score[keep], present[keep]
        return Detections(boxes, cls, score.astype(np.float32), self.names, present).sorted()


class UltralyticsDetector:
    """Ultralytics' predict on `.pt` weights (needs the `train` extra: torch + ultralytics)."""

    def __init__(self, model_path: Path = DEFAULT_PT, conf: float = 0.25, iou: float = 0.5,
                 agnostic: bool = False, threads: int = 1, imgsz: int | None = None) -> None:
        model_path = Path(model_path)
        if not model_path.exists():
            raise DetectorError(f"detector weights {model_path} not found")
        try:
            from models.train import offline_ultralytics_env

            offline_ultralytics_env()
            import torch
            from ultralytics import YOLO
        except ImportError as exc:
            raise DetectorError(f"the ultralytics backend needs the train extra (torch, ultralytics): {exc}") from exc
        torch.set_num_threads(threads)
        self.model = YOLO(str(model_path))
        self.names = tuple(self.model.names[i] for i in range(len(self.model.names)))
        check_names(self.names, model_path.name)
        meta = model_path.with_suffix(".json")
        self.imgsz = imgsz or (json.loads(meta.read_text())["imgsz"] if meta.exists() else 320)
        self.conf, self.iou, self.agnostic = conf, iou, agnostic

    def detect(self, image: np.ndarray) -> Detections:
        image = _check_image(image)
        res = self.model.predict(image, imgsz=self.imgsz, conf=self.conf, iou=self.iou, agnostic_nms=self.agnostic,
                                 device="cpu", verbose=False)[0]
        b = res.boxes
        return Detections(
            b.xyxy.numpy().astype(np.float32), b.cls.numpy().astype(np.int64), b.conf.numpy().astype(np.float32),
            self.names,
        ).sorted()


def load_detector(weights: Path | None = None, backend: str = "onnx", conf: float = 0.25, iou: float = 0.5,
                  agnostic: bool = False, classifier: bool = True, presence: float | None = None) -> CardDetector:
    """The detector for `backend` ("onnx" or "ultralytics") with the shipped weights unless `weights` is given.

    `classifier=False` keeps the ONNX detector to the YOLO classes (no second stage); `presence`, see
    `OnnxDetector`."""
    if backend == "onnx":
        return OnnxDetector(weights or DEFAULT_ONNX, conf=conf, iou=iou, agnostic=agnostic,
                            classifier=None if classifier else False, presence=presence)
    if backend == "ultralytics":
        return UltralyticsDetector(weights or DEFAULT_PT, conf=conf, iou=iou, agnostic=agnostic)
    raise DetectorError(f"unknown backend {backend!r}; use 'onnx' or 'ultralytics'")


def read_image(path: Path) -> np.ndarray:
    """Read an image file as BGR, applying its EXIF orientation (phone photos carry one)."""
    if not Path(path).is_file():
        raise DetectorError(f"image {path} does not exist")
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise DetectorError(f"cannot read image {path} (missing, or not an image OpenCV can decode)")
    from vision.sources import cut_short

    why = cut_short(path)
    if why:
        raise DetectorError(f"image {path}: {why} (OpenCV would fill the rest with grey)")
    return img
