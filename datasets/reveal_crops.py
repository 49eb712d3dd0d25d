"""Crops of the cards of a revealed hand as the reveal tracker sees them, for the revealed-card classifier.

Why a set of its own: a hand revealed at the end is laid in overlapping rows (seven or so to a row, the second row
over the first), so most of its cards show as a strip a card's pitch wide, many with their corner index under the
next card or the next row. The crop classifier learnt cards in still scenes with a few neighbours; on the rendered
game videos it named about four revealed cards in five right, and a hand is only scored right when every card is.
Here each crop is cut at the box of the part of a card that shows (as the detector boxes it, or as
`vision.reveal_rows` boxes a hidden card's strip), from a frame that went through the same camera, video codec and
rectification as a game video's.

Each table (`datasets.gamevideo_draw`): a random seat of a four- or six-seat table, a hand of 2-18 cards laid in
rows of 5-8 at a pitch of 26-38 mm, each row 32-48 mm further in and shifted 4-18 mm along the edge, each card turned
a degree or two; a third of the hands are laid right to left (the other card of each overlap on top). The frame is
shot by a random camera, encoded to MPEG-4 with the other frames of its table and read back, and the seat zone is
rectified at the reveal tracker's scale and pad. A card whose visible part is under a sixth of it is skipped (no
reader would box it); the others' boxes are jittered as a detector's are. The label is the card's code.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from datasets.gamevideo_draw import Camera, FaceBank, blit_card, table_plane
from datasets.pairs import render_tables, through_codec
from tracker.cards import ALL_CODES
from vision.classifier import CROP, square_crops
from vision.readers import rectify
from vision.tablefile import default_table, seat_layout

SCALE = 1.5
"""Pixels per mm of the rectified crop (`vision.reveals.RevealTracker`'s scale)."""
PAD = 8.0
"""mm added around the seat zone (the reveal tracker's pad)."""
FRAMES = 4
"""Hands drawn on one table (one camera, one deck, one cloth)."""
MASK_PX = 2.0
"""Pixels per mm of the raster on which the visible part of each card is worked out."""
MIN_VISIBLE = 1 / 6
"""A card showing less than this share of itself is not in the set: no reader boxes it."""


@dataclass
class RevealCrops:
    crops: np.ndarray  # (N, CROP, CROP, 3) uint8 BGR
    labels: np.ndarray  # (N,) class index into `names`
    names: tuple[str, ...]


def lay_hand(rng: np.random.Generator, n: int, edge: np.ndarray, inward: np.ndarray,
             angle: float) -> list[tuple[np.ndarray, float]]:
    """(centre, angle) of each of `n` cards of a hand revealed in rows in front of the seat at `edge`, in the order
    they are laid (a later card lies over an earlier one)."""
    tang = np.array([-inward[1], inward[0]])
    per_row = int(rng.integers(5, 9))
    pitch, step, shift = rng.uniform(26, 38), rng.uniform(32, 48), rng.uniform(4, 18)
    depth = rng.uniform(100, 124)
    flip = -1.0 if rng.random() < 1 / 3 else 1.0  # laid right to left
    out = []
    for i in range(n):
        row, col = divmod(i, per_row)
        k = col - (min(per_row, n - row * per_row) - 1) / 2
        pos = edge + inward * (depth + row * step) + tang * flip * (k * pitch + row * shift)
        out.append((pos + rng.normal(0, 1.2, 2), angle + float(rng.normal(0, 1.5))))
    return out


def visible_boxes(quads: list[np.ndarray], shape_mm: tuple[float, float]) -> list[tuple[np.ndarray, float] | None]:
    """For each card (in laying order), the box (x0, y0, x1, y1 table mm) of the part that later cards leave in
    view and the share of the card it is; None for a card entirely covered."""
    h, w = int(shape_mm[1] * MASK_PX), int(shape_mm[0] * MASK_PX)
    cover = np.zeros((h, w), np.uint8)
    out: list[tuple[np.ndarray, float] | None] = [None] * len(quads)
    for i in range(len(quads) - 1, -1, -1):
        m = np.zeros((h, w), np.uint8)
        cv2.fillPoly(m, [np.round(quads[i] * MASK_PX).astype(np.int32)], 1)
        whole = int(m.sum())
        vis = m & (1 - cover)
        cover |= m
        ys, xs = np.nonzero(vis)
        if whole and len(xs):
            box = np.array([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1], np.float64) / MASK_PX
            out[i] = (box, len(xs) / whole)
    return out


def table_samples(seed: int, frames: int = FRAMES, codes: tuple[str, ...] = ALL_CODES,
                  crop: int = CROP) -> tuple[list[np.ndarray], list[str]]:
    """The crops (`crop` pixels a side) of the visible cards of `frames` revealed hands on one random table, and
    their codes."""
    rng = np.random.default_rng(seed)
    seats = int(rng.choice([4, 6]))
    table = default_table(seats)
    camera = Camera(rng, table)
    table.image_to_table = np.linalg.inv(camera.table_to_image)
    bank = FaceBank(rng)
    plane = table_plane(rng, table)
    layout = seat_layout(seats, table.width, table.height)
    shots, hands = [], []
    for k in range(frames):
        s = int(rng.integers(seats))
        edge, ang = layout[s]
        inward = np.array([np.cos(np.radians(ang)), np.sin(np.radians(ang))])
        n = int(rng.integers(2, 19))
        hand = [str(c) for c in rng.choice(codes, n)]
        canvas = plane.copy()
        quads = [blit_card(canvas, bank, code, c, a, shadow=0.2)
                 for code, (c, a) in zip(hand, lay_hand(rng, n, edge, inward, ang - 90 + 180), strict=True)]
        shots.append(camera.shoot(canvas, k, k / 30.0))
        hands.append((s, hand, quads))
    shots = through_codec(shots)
    crops, labels = [], []
    for image, (s, hand, quads) in zip(shots, hands, strict=True):
        zone = table.seat_zones()[s]
        x0, y0, x1, y1 = zone.bounds()
        region = (max(0.0, x0 - PAD), max(0.0, y0 - PAD), min(table.width, x1 + PAD), min(table.height, y1 + PAD))
        rect = rectify(image, table, region, SCALE)
        boxes, codes_here = [], []
        for code, vis in zip(hand, visible_boxes(quads, (table.width, table.height)), strict=True):
            if vis is None or vis[1] < MIN_VISIBLE:
                continue
            box = vis[0] + rng.normal(0, 1.5, 4)
            if not zone.contains((box[:2] + box[2:]) / 2):
                continue
            boxes.append((box - np.array([region[0], region[1], region[0], region[1]])) * SCALE)
            codes_here.append(code)
        if boxes:
            crops += list(square_crops(rect, np.array(boxes, np.float32), crop))
            labels += codes_here
    return crops, labels


def _job(seed: int, crop: int = CROP) -> tuple[list[np.ndarray], list[str]]:
    return table_samples(seed, crop=crop)


def build(n: int, seed: int, names: tuple[str, ...], workers: int = 1, progress: bool = True,
          crop: int = CROP) -> RevealCrops:
    """At least `n` crops (whole tables, `crop` pixels a side), rendered on `workers` processes."""
    from functools import partial

    crops, labels = render_tables(partial(_job, crop=crop), n, seed, names, workers, progress,
                                  desc="revealed-card crops")
    return RevealCrops(crops, labels, names)
