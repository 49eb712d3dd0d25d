"""The live camera view: frames a rig posts, zones and detections drawn on, served as MJPEG.

A rig posts its latest frame (JPEG) with the zones it watches and the cards it detected; the server draws them (so
that every page and the referee see the same picture the detector saw) and keeps only the newest frame per table in
memory. Browsers show `multipart/x-mixed-replace` in a plain <img>, so the live page needs no video player.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

BOUNDARY = "unotableframe"
COLOR_BGR = {
    "red": (40, 40, 220), "yellow": (0, 210, 240), "green": (60, 170, 40), "blue": (220, 110, 20), None: (40, 40, 40),
}


class FrameError(ValueError):
    """A posted frame or overlay that can't be used; the message says why."""


@dataclass
class Latest:
    jpeg: bytes = b""
    t: float = 0.0
    counter: int = 0


def parse_overlay(raw: str | None) -> dict[str, Any]:
    """Check the overlay JSON: {"zones": [{"name", "points": [[x, y], ...]}], "detections": [{"card", "box",
    "confidence"}]}; boxes and points are in pixels of the frame."""
    import json

    if not raw:
        return {"zones": [], "detections": []}
    try:
        obj = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise FrameError(f"overlay is not valid JSON ({exc.msg} at column {exc.colno})") from None
    except (RecursionError, ValueError):
        raise FrameError("overlay is not valid JSON (nested too deeply, or a number too long)") from None
    if not isinstance(obj, dict):
        raise FrameError("overlay must be a JSON object with 'zones' and/or 'detections'")
    zones, dets = obj.get("zones", []), obj.get("detections", [])
    if not isinstance(zones, list) or not isinstance(dets, list):
        raise FrameError("overlay 'zones' and 'detections' must be lists")
    for z in zones:
        pts = z.get("points") if isinstance(z, dict) else None
        if not isinstance(pts, list) or len(pts) < 3 or not all(_is_xy(p) for p in pts):
            raise FrameError("each zone needs 'points': at least three [x, y] pixel pairs")
    for d in dets:
        box = d.get("box") if isinstance(d, dict) else None
        if not isinstance(box, list) or len(box) != 4 or not all(_is_px(v) for v in box):
            raise FrameError(f"each detection needs 'box': [x1, y1, x2, y2] in pixels (0 to {MAX_PX})")
        conf = d.get("confidence")
        if conf is not None and (isinstance(conf, bool) or not isinstance(conf, int | float) or not 0 <= conf <= 1):
            raise FrameError(f"a detection's 'confidence' must be a number from 0 to 1, got {conf!r}")
    return {"zones": zones, "detections": dets}


MAX_PX = 100_000  # pixels: far beyond any camera, well inside what OpenCV draws


def _is_px(v: Any) -> bool:
    return not isinstance(v, bool) and isinstance(v, int | float) and math.isfinite(v) and -MAX_PX <= v <= MAX_PX


def _is_xy(p: Any) -> bool:
    return isinstance(p, list) and len(p) == 2 and all(_is_px(v) for v in p)


def annotate(jpeg: bytes, overlay: dict[str, Any]) -> bytes:
    """Draw zones (outlines, named) and detections (boxes in the card's colour, labelled) on a JPEG."""
    import cv2

    img = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    if img is None:
        raise FrameError("frame is not a JPEG/PNG image OpenCV can decode")
    if not overlay["zones"] and not overlay["detections"]:
        return jpeg
    for z in overlay["zones"]:
        pts = np.array(z["points"], dtype=np.int32).reshape(-1, 1, 2)
        cv2.polylines(img, [pts], True, (255, 255, 255), 2, cv2.LINE_AA)
        if z.get("name"):
            x, y = pts[0, 0]
            cv2.putText(img, str(z["name"]), (int(x) + 4, int(y) + 18), cv2.FONT_HERSHEY_SIMPLEX, 0.6,
                        (255, 255, 255), 2, cv2.LINE_AA)
    for d in overlay["detections"]:
        x1, y1, x2, y2 = (int(v) for v in d["box"])
        code = str(d.get("card", "?"))
        colour = COLOR_BGR.get(code.split("-")[0] if "-" in code else None, (40, 40, 40))
        cv2.rectangle(img, (x1, y1), (x2, y2), colour, 3)
        label = code if d.get("confidence") is None else f"{code} {float(d['confidence']):.2f}"
        (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, 0.55, 2)
        cv2.rectangle(img, (x1, max(0, y1 - th - 8)), (x1 + tw + 6, y1), colour, -1)
        cv2.putText(img, label, (x1 + 3, y1 - 5), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (255, 255, 255), 2, cv2.LINE_AA)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 85])
    if not ok:
        raise FrameError("could not encode the annotated frame")
    return bytes(buf)


class CameraHub:
    """The newest annotated frame of every table, and a condition MJPEG streams wait on."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._latest: dict[str, Latest] = {}
        self.closed = False

    def put(self, table: str, jpeg: bytes, t: float) -> None:
        with self._cond:
            cur = self._latest.setdefault(table, Latest())
            cur.jpeg, cur.t, cur.counter = jpeg, t, cur.counter + 1
            self._cond.notify_all()

    def latest(self, table: str) -> Latest | None:
        with self._cond:
            cur = self._latest.get(table)
            return Latest(cur.jpeg, cur.t, cur.counter) if cur else None

    def wait_newer(self, table: str, counter: int, timeout: float) -> Latest | None:
        with self._cond:
            self._cond.wait_for(
                lambda: self.closed or (table in self._latest and self._latest[table].counter > counter), timeout
            )
            cur = self._latest.get(table)
            return Latest(cur.jpeg, cur.t, cur.counter) if cur else None

    def close(self) -> None:
        with self._cond:
            self.closed = True
            self._cond.notify_all()


_PART_HEAD = b"Content-Type: image/jpeg\r\n\r\n"
MJPEG_START = f"--{BOUNDARY}\r\n".encode() + _PART_HEAD


def mjpeg_part(jpeg: bytes) -> bytes:
    """One frame of a multipart/x-mixed-replace stream, followed at once by the next part's boundary and headers:
    Chromium shows a part only when it has parsed the next part's headers, so a frame must not wait for the next
    frame to be displayed. (Streams begin with MJPEG_START.)"""
    return jpeg + f"\r\n--{BOUNDARY}\r\n".encode() + _PART_HEAD


def placeholder_jpeg(text: str = "no camera yet") -> bytes:
    """A grey 640x360 frame, so that the view is never a broken image before the rig's first frame."""
    import cv2

    img = np.full((360, 640, 3), 48, np.uint8)
    cv2.putText(img, text, (170, 190), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (200, 200, 200), 2, cv2.LINE_AA)
    ok, buf = cv2.imencode(".jpg", img)
    return bytes(buf) if ok else b""
