"""`Detections`: what the card detector found in one image, as parallel numpy arrays.

Why parallel arrays (the roboflow/supervision style) rather than a list of objects: the video pipeline filters,
sorts and tracks detections every frame, and a boolean mask or an index array applied to every field at once is both
fast and hard to get wrong (`dets[dets.confidence > 0.5]`, `dets[dets.class_id != BACK_ID]`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Detection:
    """One detection, for code that wants a record: card code, confidence, box (x1, y1, x2, y2) in pixels."""

    card: str
    confidence: float
    box: tuple[float, float, float, float]

    def to_dict(self) -> dict[str, Any]:
        return {"card": self.card, "confidence": round(self.confidence, 4), "box": [round(v, 1) for v in self.box]}


@dataclass(frozen=True)
class Detections:
    """N detections: `xyxy` (N, 4) float32 pixels, `class_id` (N,) int, `confidence` (N,) float32,
    and `names`, the class names that `class_id` indexes (card codes, plus "back").

    `presence` (N,) float32 is the chance that the box holds *a* card, whatever its name. A one-stage model gives
    one score, so it equals `confidence` (the default); the two-stage detector's is the box score before the crop
    classifier names it. Counting cards (a revealed hand) wants `presence`: a half-hidden card is surely a card
    even when its name is unsure."""

    xyxy: np.ndarray
    class_id: np.ndarray
    confidence: np.ndarray
    names: tuple[str, ...]
    presence: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.presence is None:
            object.__setattr__(self, "presence", np.asarray(self.confidence, np.float32).copy())
        n = len(self.xyxy)
        if self.xyxy.shape != (n, 4):
            raise ValueError(f"xyxy must have shape (N, 4), got {self.xyxy.shape}")
        if self.class_id.shape != (n,) or self.confidence.shape != (n,):
            raise ValueError(
                f"class_id and confidence must have shape ({n},), got {self.class_id.shape} and {self.confidence.shape}"
            )
        assert self.presence is not None
        if self.presence.shape != (n,):
            raise ValueError(f"presence must have shape ({n},), got {self.presence.shape}")
        if n and (self.class_id.min() < 0 or self.class_id.max() >= len(self.names)):
            raise ValueError(f"class_id out of range for {len(self.names)} class names")

    @classmethod
    def empty(cls, names: Sequence[str]) -> Detections:
        return cls(np.zeros((0, 4), np.float32), np.zeros((0,), np.int64), np.zeros((0,), np.float32), tuple(names))

    def __len__(self) -> int:
        return len(self.xyxy)

    def __getitem__(self, index: np.ndarray | slice | int | Sequence[int]) -> Detections:
        """Select by boolean mask, index array, slice or single index (which still returns a `Detections`)."""
        if isinstance(index, (int, np.integer)):
            index = [int(index)]
        return Detections(
            np.asarray(self.xyxy[index], np.float32).reshape(-1, 4),
            np.asarray(self.class_id[index]).reshape(-1),
            np.asarray(self.confidence[index], np.float32).reshape(-1),
            self.names,
            np.asarray(self.presence[index], np.float32).reshape(-1),  # type: ignore[index]
        )

    @property
    def cards(self) -> list[str]:
        """The class name of each detection (a card code or "back")."""
        return [self.names[int(i)] for i in self.class_id]

    @property
    def area(self) -> np.ndarray:
        return (self.xyxy[:, 2] - self.xyxy[:, 0]).clip(0) * (self.xyxy[:, 3] - self.xyxy[:, 1]).clip(0)

    @property
    def center(self) -> np.ndarray:
        return np.stack([(self.xyxy[:, 0] + self.xyxy[:, 2]) / 2, (self.xyxy[:, 1] + self.xyxy[:, 3]) / 2], axis=1)

    def sorted(self) -> Detections:
        """Most confident first (the order `unotable detect --json` prints)."""
        return self[np.argsort(-self.confidence, kind="stable")]

    def with_class(self, *names: str) -> Detections:
        """Only detections whose class name is one of `names`."""
        wanted = [self.names.index(n) for n in names if n in self.names]
        return self[np.isin(self.class_id, wanted)]

    def __iter__(self) -> Iterator[Detection]:
        for i in range(len(self)):
            yield Detection(
                self.names[int(self.class_id[i])], float(self.confidence[i]), tuple(float(v) for v in self.xyxy[i])  # type: ignore[arg-type]
            )

    def to_list(self) -> list[dict[str, Any]]:
        """JSON-ready dicts, most confident first: {"card", "confidence", "box": [x1, y1, x2, y2]}."""
        return [d.to_dict() for d in self.sorted()]

    @classmethod
    def merge(cls, parts: Sequence[Detections]) -> Detections:
        """One `Detections` of all the parts' boxes. The parts must share their class names (ValueError otherwise):
        `class_id` only means a card under the names it was given with."""
        if not parts:
            raise ValueError("merge needs at least one Detections to know the class names")
        first = tuple(parts[0].names)
        for p in parts[1:]:  # class_id indexes its own part's names: under another list a blue 2 would read red 1
            other = tuple(p.names)
            if other != first:
                i = next((i for i, (a, b) in enumerate(zip(first, other, strict=False)) if a != b),
                         min(len(first), len(other)))
                raise ValueError(f"cannot merge detections named by different class lists ({len(first)} and "
                                 f"{len(other)} names; class {i} is {first[i] if i < len(first) else 'missing'!r} "
                                 f"in one, {other[i] if i < len(other) else 'missing'!r} in the other)")
        return cls(
            np.concatenate([p.xyxy for p in parts]).astype(np.float32),
            np.concatenate([p.class_id for p in parts]),
            np.concatenate([p.confidence for p in parts]).astype(np.float32),
            parts[0].names,
            np.concatenate([p.presence for p in parts]).astype(np.float32),  # type: ignore[misc]
        )


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of every box in `a` (N, 4) with every box in `b` (M, 4), as an (N, M) array."""
    tl = np.maximum(a[:, None, :2], b[None, :, :2])
    br = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.prod((br - tl).clip(0), axis=2)
    area_a = np.prod((a[:, 2:] - a[:, :2]).clip(0), axis=1)
    area_b = np.prod((b[:, 2:] - b[:, :2]).clip(0), axis=1)
    return inter / np.maximum(area_a[:, None] + area_b[None, :] - inter, 1e-9)


def nms(boxes: np.ndarray, scores: np.ndarray, iou_threshold: float) -> np.ndarray:
    """Greedy non-maximum suppression; returns kept indices, highest score first."""
    order = np.argsort(-scores, kind="stable")
    keep: list[int] = []
    while order.size:
        i = int(order[0])
        keep.append(i)
        if order.size == 1:
            break
        ious = box_iou(boxes[i : i + 1], boxes[order[1:]])[0]
        order = order[1:][ious <= iou_threshold]
    return np.array(keep, np.int64)
