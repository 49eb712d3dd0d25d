"""Drawing primitives for the game-video renderer: cards, hands and markers on a top-down table plane, and the
camera (perspective, light, noise) that turns the plane into a video frame.

Why a flat plane at 1 px/mm: every object of the game lives on the table top, so the renderer composes in table
millimetres (the same coordinates as the table file's zones) and a single homography per game plays the camera. The
pipeline under test never sees the plane, only the camera frames; the plane is also where the truth is measured.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from datasets.backgrounds import background
from datasets.faces import BACK, CARD_H, CARD_W, render_face
from vision.calibration import marker_image
from vision.tablefile import CARD_H_MM, CARD_W_MM, MARKER_IDS, Table

PX_PER_MM = 1.0  # the table plane raster


class FaceBank:
    """Each card's face drawn once per game (one print style, as a real deck has), pre-shrunk for fast blits."""

    def __init__(self, rng: np.random.Generator, style: str | None = None, scale: float = 2.0) -> None:
        self.rng = rng
        self.style = style or ("classic" if rng.random() < 0.75 else "circle")
        self.scale = scale
        self.cache: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def get(self, code: str) -> tuple[np.ndarray, np.ndarray]:
        """(BGR, alpha) of `code` at `scale` times the plane's card size."""
        if code not in self.cache:
            f = render_face(code, self.rng, self.style)
            w, h = int(round(CARD_W_MM * PX_PER_MM * self.scale)), int(round(CARD_H_MM * PX_PER_MM * self.scale))
            img = cv2.resize(f.image, (w, h), interpolation=cv2.INTER_AREA)
            alpha = cv2.resize(f.alpha, (w, h), interpolation=cv2.INTER_AREA)
            self.cache[code] = (img, alpha.astype(np.float32))
        return self.cache[code]


def card_corners(centre: np.ndarray, angle: float, scale: float = 1.0) -> np.ndarray:
    """Corners TL, TR, BR, BL (table mm) of a card centred at `centre`, turned `angle` degrees."""
    hw, hh = CARD_W_MM * scale / 2, CARD_H_MM * scale / 2
    pts = np.array([[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]])
    r = np.radians(angle)
    rot = np.array([[np.cos(r), -np.sin(r)], [np.sin(r), np.cos(r)]])
    return pts @ rot.T + np.asarray(centre, np.float64)


def blit_card(canvas: np.ndarray, bank: FaceBank, code: str, centre: np.ndarray, angle: float,
              scale: float = 1.0, shadow: float = 0.3) -> np.ndarray:
    """Draw card `code` on the plane (in place) and return its corners in table mm."""
    quad = card_corners(centre, angle, scale)
    img, alpha = bank.get(code)
    H, W = canvas.shape[:2]
    q = quad * PX_PER_MM
    x0, y0 = np.floor(q.min(axis=0)).astype(int) - 4
    x1, y1 = np.ceil(q.max(axis=0)).astype(int) + 5
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
    if x0 >= x1 or y0 >= y1:
        return quad
    roi = canvas[y0:y1, x0:x1]
    h, w = img.shape[:2]
    src = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1]], np.float32)
    m = cv2.getAffineTransform(src, (q[:3] - np.array([x0, y0])).astype(np.float32))
    size = (x1 - x0, y1 - y0)
    a = cv2.warpAffine(alpha, m, size, flags=cv2.INTER_LINEAR)
    if shadow > 0:
        sh = cv2.GaussianBlur(np.roll(a, (2, 2), axis=(0, 1)), (0, 0), 2.0) * shadow
        roi[:] = (roi * (1 - sh[..., None])).astype(np.uint8)
    warped = cv2.warpAffine(img, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    a3 = a[..., None]
    roi[:] = (roi * (1 - a3) + warped * a3).astype(np.uint8)
    return quad


@dataclass
class Skin:
    tone: tuple[int, int, int]
    sleeve: tuple[int, int, int]


def random_skin(rng: np.random.Generator) -> Skin:
    tone = np.array([rng.uniform(50, 160), rng.uniform(80, 185), rng.uniform(120, 235)])
    tone[1] = min(tone[1], tone[2] - 12)
    tone[0] = min(tone[0], tone[1] - 12)
    sleeve = rng.uniform(20, 220, 3)
    return Skin(tuple(int(v) for v in tone), tuple(int(v) for v in sleeve))  # type: ignore[arg-type]


def draw_hand(canvas: np.ndarray, body: np.ndarray, palm: np.ndarray, skin: Skin, mask: np.ndarray | None = None,
              spread: float = 0.0) -> None:
    """An arm from `body` (off the table's edge) to `palm`, a palm and fingers pointing away from the body.

    `mask` (uint8, same raster) receives the hand's pixels — the renderer's truth of what the hand covers."""
    d = palm - body
    n_ = np.linalg.norm(d)
    d = d / max(n_, 1e-6)
    n = np.array([-d[1], d[0]])
    s = PX_PER_MM
    targets = [canvas] if mask is None else [canvas, mask]
    for k, img in enumerate(targets):
        col_sleeve = skin.sleeve if k == 0 else 255
        col_skin = skin.tone if k == 0 else 255
        wrist = palm - d * 45
        cv2.line(img, tuple(int(v) for v in body * s), tuple(int(v) for v in wrist * s), col_sleeve,
                 int(62 * s), cv2.LINE_AA)
        cv2.line(img, tuple(int(v) for v in wrist * s), tuple(int(v) for v in (palm - d * 10) * s), col_skin,
                 int(48 * s), cv2.LINE_AA)
        cv2.ellipse(img, tuple(int(v) for v in palm * s), (int(30 * s), int(40 * s)),
                    float(np.degrees(np.arctan2(d[1], d[0]))), 0, 360, col_skin, -1, cv2.LINE_AA)
        for i in range(4):
            t = (i - 1.5) * 0.42
            base = palm + n * t * 30 + d * 25
            tip = base + (d + n * t * (0.3 + spread)) * 38
            cv2.line(img, tuple(int(v) for v in base * s), tuple(int(v) for v in tip * s), col_skin, int(13 * s),
                     cv2.LINE_AA)
        thumb_base = palm + n * 26
        cv2.line(img, tuple(int(v) for v in thumb_base * s), tuple(int(v) for v in (thumb_base + (n + d) * 22) * s),
                 col_skin, int(15 * s), cv2.LINE_AA)


def table_plane(rng: np.random.Generator, table: Table) -> np.ndarray:
    """The empty table top with the four markers (each on a white quiet zone) at its corners."""
    H, W = int(table.height * PX_PER_MM), int(table.width * PX_PER_MM)
    plane = background(rng, H, W, table=True)
    # keep the table away from near-black so dark card backs stay visible, as a real rig's cloth would
    plane = np.clip(plane.astype(np.float32) * 0.7 + 55, 0, 255).astype(np.uint8)
    size = table.marker_size * PX_PER_MM
    for mid, c in zip(MARKER_IDS, table.marker_centres, strict=False):
        quiet = size * 0.3
        x0, y0 = (c * PX_PER_MM - size / 2 - quiet).astype(int)
        x1, y1 = (c * PX_PER_MM + size / 2 + quiet).astype(int)
        cv2.rectangle(plane, (x0, y0), (x1, y1), (245, 245, 245), -1)
        m = cv2.resize(marker_image(mid, 120), (int(size), int(size)), interpolation=cv2.INTER_AREA)
        mx, my = (c * PX_PER_MM - size / 2).astype(int)
        plane[my:my + m.shape[0], mx:mx + m.shape[1]] = m[..., None]
    return plane


class Camera:
    """One game's camera: a perspective view of the plane, an uneven light, a flicker and sensor noise."""

    def __init__(self, rng: np.random.Generator, table: Table, size: tuple[int, int] = (960, 540),
                 tilt: float = 0.035, noise: float | None = None) -> None:
        w, h = size
        self.size = size
        margin = np.array([w, h]) * 0.02
        dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
        dst = dst + np.array([[1, 1], [-1, 1], [-1, -1], [1, -1]]) * margin
        dst = dst + rng.uniform(-tilt, tilt, (4, 2)) * np.array([w, h])
        src = np.array([[0, 0], [table.width, 0], [table.width, table.height], [0, table.height]], np.float64)
        self.table_to_image = cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32))
        self.plane_to_image = self.table_to_image @ np.diag([1 / PX_PER_MM, 1 / PX_PER_MM, 1.0])
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        ang = rng.uniform(0, 2 * np.pi)
        grad = ((xx - w / 2) * np.cos(ang) + (yy - h / 2) * np.sin(ang)) / max(w, h)
        light = (1.0 + grad * rng.uniform(0.1, 0.6)) * rng.uniform(0.75, 1.15)
        self.light = np.repeat(light[..., None], 3, axis=2) * rng.uniform(0.9, 1.1, 3).astype(np.float32)
        sigma = rng.uniform(2, 6) if noise is None else noise
        self.noise = [rng.normal(0, sigma, (h, w, 3)).astype(np.int16) for _ in range(6)]
        self.flicker = (rng.uniform(0, 0.03), rng.uniform(0.3, 1.5))
        self.blur = rng.random() < 0.3
        self.border = tuple(int(v) for v in rng.uniform(20, 90, 3))

    def shoot(self, plane: np.ndarray, k: int, t: float) -> np.ndarray:
        img = cv2.warpPerspective(plane, self.plane_to_image, self.size, flags=cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_CONSTANT, borderValue=self.border)
        gain = 1.0 + self.flicker[0] * np.sin(2 * np.pi * self.flicker[1] * t)
        img = cv2.multiply(img, self.light, scale=gain, dtype=cv2.CV_8U)
        if self.blur:
            img = cv2.GaussianBlur(img, (3, 3), 0.6)
        img = cv2.add(img.astype(np.int16), self.noise[k % len(self.noise)])
        return np.clip(img, 0, 255).astype(np.uint8)


BACK_CODE = BACK
CARD_PX = (CARD_W, CARD_H)
