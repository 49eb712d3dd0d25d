"""Procedural backgrounds: table tops (wood, felt, laminate) and the cluttered desks of hand-held photos.

Why procedural clutter matters: real card photos show keyboards, monitors, mice, paper and wooden desks around the
card. A detector trained only on plain tables fires on any bright rectangle; coloured and white distractor shapes
teach it that a card is the *layout*, not the colour of a rectangle.
"""

from __future__ import annotations

import cv2
import numpy as np


def _noise(rng: np.random.Generator, h: int, w: int, scale: float) -> np.ndarray:
    """Smooth noise in about [-1, 1] with features about `scale` pixels wide."""
    sh, sw = max(2, int(h / scale)), max(2, int(w / scale))
    n = rng.normal(0, 1, (sh, sw)).astype(np.float32)
    n = cv2.resize(n, (w, h), interpolation=cv2.INTER_CUBIC)
    return np.clip(n / 2.0, -1.5, 1.5)


def _wood(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    base = np.array([rng.uniform(60, 150), rng.uniform(100, 185), rng.uniform(140, 225)], np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ang = rng.uniform(0, np.pi)
    u = xx * np.cos(ang) + yy * np.sin(ang)
    warp = _noise(rng, h, w, 60) * rng.uniform(5, 30)
    grain = np.sin((u + warp) / rng.uniform(2, 8)) * 0.5 + _noise(rng, h, w, 8) * 0.3
    f = base * (1 + grain[..., None] * rng.uniform(0.03, 0.12))
    if rng.random() < 0.4:  # planks
        period = rng.uniform(80, 220)
        seams = (np.mod(u, period) < 2).astype(np.float32)
        f *= (1 - 0.4 * seams)[..., None]
    return f


def _felt(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    base = rng.uniform(20, 200, 3).astype(np.float32)
    f = base * (1 + (_noise(rng, h, w, 2) * 0.08 + _noise(rng, h, w, 40) * 0.08)[..., None])
    return f


def _plain(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    grey = rng.uniform(40, 235)
    base = np.clip(grey + rng.normal(0, 15, 3), 0, 255).astype(np.float32)
    return base * (1 + _noise(rng, h, w, 100)[..., None] * 0.06) * np.ones((h, w, 1), np.float32)


def _keyboard(img: np.ndarray, rng: np.random.Generator) -> None:
    """A dark (or silver) grid of keys somewhere in the frame."""
    h, w = img.shape[:2]
    key = int(rng.uniform(12, 40))
    col = rng.uniform(15, 60) if rng.random() < 0.7 else rng.uniform(150, 200)
    x0, y0 = int(rng.uniform(-0.3, 0.6) * w), int(rng.uniform(-0.3, 0.6) * h)
    cols, rows = int(rng.integers(6, 16)), int(rng.integers(3, 7))
    frame = (col * 0.8,) * 3
    cv2.rectangle(img, (x0 - 5, y0 - 5), (x0 + cols * key + 5, y0 + rows * key + 5), frame, -1)
    for r in range(rows):
        for c in range(cols):
            x, y = x0 + c * key, y0 + r * key
            cv2.rectangle(img, (x + 2, y + 2), (x + key - 2, y + key - 2), (col,) * 3, -1)
            if rng.random() < 0.5:
                cv2.putText(img, chr(int(rng.integers(65, 91))), (x + key // 4, y + key * 3 // 4),
                            cv2.FONT_HERSHEY_SIMPLEX, key / 40, (230, 230, 230), 1)


def _clutter(img: np.ndarray, rng: np.random.Generator, n: int) -> None:
    """Monitors, papers, mice, cables and coloured blobs: things that are not cards."""
    h, w = img.shape[:2]
    for _ in range(n):
        t = rng.random()
        col = tuple(float(v) for v in rng.uniform(0, 255, 3))
        p = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
        if t < 0.25:  # screen or paper: a big rectangle, sometimes with text lines
            q = (p[0] + int(rng.uniform(0.2, 0.6) * w), p[1] + int(rng.uniform(0.1, 0.4) * h))
            fill = (rng.uniform(200, 255),) * 3 if rng.random() < 0.4 else col
            cv2.rectangle(img, p, q, fill, -1)
            for k in range(int(rng.integers(0, 8))):
                y = p[1] + 10 + k * 12
                cv2.line(img, (p[0] + 8, y), (p[0] + int(rng.uniform(20, 150)), y), (40, 40, 40), 2)
        elif t < 0.4:
            cv2.ellipse(img, p, (int(rng.uniform(10, 80)), int(rng.uniform(10, 60))), rng.uniform(0, 180), 0, 360,
                        col, -1, cv2.LINE_AA)
        elif t < 0.55:  # cable
            pts = np.cumsum(rng.normal(0, 30, (8, 2)), axis=0) + np.array(p)
            cv2.polylines(img, [pts.astype(np.int32)], False, col, int(rng.integers(2, 6)), cv2.LINE_AA)
        elif t < 0.7:
            _keyboard(img, rng)
        elif t < 0.85:  # a plain coloured rectangle, a near-miss for a card
            c = np.array(p, np.float32)
            sz = rng.uniform(20, 120)
            box = cv2.boxPoints(((float(c[0]), float(c[1])), (sz, sz * rng.uniform(0.5, 1.8)), rng.uniform(0, 180)))
            cv2.fillConvexPoly(img, box.astype(np.int32), col, cv2.LINE_AA)
        else:  # an edge of a wall / window: a large bright region
            pts = np.array([[0, 0], [w, 0], [w, int(rng.uniform(0, 0.4) * h)], [0, int(rng.uniform(0, 0.4) * h)]])
            cv2.fillConvexPoly(img, pts.astype(np.int32), (rng.uniform(150, 255),) * 3)


def background(rng: np.random.Generator, h: int, w: int, table: bool) -> np.ndarray:
    """A BGR background of `h` x `w`: a table top (table=True) or a cluttered desk scene."""
    t = rng.random()
    if t < 0.4:
        f = _wood(rng, h, w)
    elif t < 0.7:
        f = _felt(rng, h, w)
    else:
        f = _plain(rng, h, w)
    img = np.clip(f, 0, 255).astype(np.uint8)
    n = int(rng.integers(0, 3)) if table else int(rng.integers(0, 7))
    if n:
        _clutter(img, rng, n)
        if rng.random() < 0.5:
            img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.5, 3))  # out of focus, as behind a close card
    return img
