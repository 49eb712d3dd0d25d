"""Procedural renderer of the 54 UNO faces and the card back, drawn with OpenCV only.

Why procedural: no card artwork may be downloaded or redistributed, so the detector learns from faces this module
draws. Each call draws one face with domain randomisation (shade of the printed colours, font, stroke, print offset,
tilt of the white oval, wear) so that the model learns the *layout* of a card rather than one exact bitmap. Two
print styles are drawn: the classic deck (a tilted white oval that nearly touches the corners) and the newer
"circle" design (a rounder, smaller white oval); `style` chooses, or the random generator does.

A face is returned as a BGR image plus an alpha mask (rounded corners), in portrait orientation, with the
top-left corner index up, at `CARD_W` x `CARD_H` pixels.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

CARD_W = 200
CARD_H = 310  # real cards are 56 x 87 mm (ratio 1.55)

BACK = "back"

# Nominal print colours (BGR), measured by eye on the real photos; jittered per face.
PRINT_BGR: dict[str, tuple[int, int, int]] = {
    "red": (45, 35, 215),
    "yellow": (25, 215, 240),
    "green": (70, 160, 45),
    "blue": (215, 150, 20),
    "black": (25, 25, 25),
}

FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
)

# Bold TrueType faces bundled with matplotlib (a dependency, so every machine has the same files). Hershey
# stroke fonts alone drew a "1" with a foot and a flat-topped "3", unlike the deck's heavy round digits, and the
# classifier then read real 1s as 7s and real 3s as 5s; outline fonts give real glyph shapes.
TTF_NAMES = (
    "DejaVuSans-Bold.ttf",
    "DejaVuSans-BoldOblique.ttf",
    "DejaVuSansMono-Bold.ttf",
    "DejaVuSerif-Bold.ttf",
    "STIXGeneralBol.ttf",
    "STIXGeneralBolIta.ttf",
)
TTF_SHARE = 0.6  # share of faces whose indices use a TrueType font rather than a Hershey one
OVAL_AS_TRAINED, OVAL_AS_PRINTED = -1, 1
# Which way the white oval leans. The real deck's oval runs from the top right to the bottom left, clear of the corner
# indices (the real photos); every model shipped so far was trained on faces drawn with it leaning the other way,
# over the top-left index. Drawn as printed, the shipped detector found 67-76% of the cards of rendered tables (its
# test asks 80%) and the lower-card and revealed-card models lost 6 and 1 points, so the default stays the oval the
# models know until a round retrains them all on faces as printed (`unotable dataset build --oval printed`).
OVAL_LEAN = OVAL_AS_TRAINED


@lru_cache(maxsize=1)
def ttf_paths() -> tuple[str, ...]:
    """The bundled TrueType files that exist here (empty when matplotlib is missing: Hershey fonts only)."""
    try:
        import matplotlib
    except ImportError:
        return ()
    folder = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
    return tuple(str(folder / n) for n in TTF_NAMES if (folder / n).exists())


@lru_cache(maxsize=256)
def _ttf_font(path: str, px: int):  # type: ignore[no-untyped-def]
    from PIL import ImageFont

    return ImageFont.truetype(path, px)


@dataclass(frozen=True)
class Face:
    """A rendered face: `image` BGR uint8 (H, W, 3) and `alpha` float32 (H, W) in [0, 1]."""

    code: str
    image: np.ndarray
    alpha: np.ndarray


def _jitter_colour(rng: np.random.Generator, bgr: tuple[int, int, int], amount: float) -> tuple[int, int, int]:
    """A shade of `bgr`: a small HSV-like change that keeps the hue family (red stays red)."""
    c = np.array(bgr, np.float32)
    scale = 1.0 + rng.uniform(-amount, amount)
    shift = rng.normal(0, amount * 40, 3)
    c = np.clip(c * scale + shift, 0, 255)
    return (int(c[0]), int(c[1]), int(c[2]))


def _rounded_mask(w: int, h: int, radius: int) -> np.ndarray:
    """A filled rounded rectangle as a uint8 mask, so cards have the round corners the real deck has."""
    m = np.zeros((h, w), np.uint8)
    r = max(1, radius)
    cv2.rectangle(m, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(m, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(m, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return m


def _text_mask(text: str, size: int, rng: np.random.Generator, font: int | str, bold: float) -> np.ndarray:
    """A tight mask of `text` about `size` pixels tall, drawn with a Hershey font and stroke `bold`, or with the
    TrueType file `font` (a path), thickened by `bold` when it is heavy."""
    if isinstance(font, str):
        return _ttf_text_mask(text, size, font, bold)
    scale = size / 22.0
    thick = max(1, int(round(size * bold)))
    (tw, th), base = cv2.getTextSize(text, font, scale, thick)
    pad = thick + 4
    m = np.zeros((th + base + 2 * pad, tw + 2 * pad), np.uint8)
    cv2.putText(m, text, (pad, pad + th), font, scale, 255, thick, cv2.LINE_AA)
    ys, xs = np.nonzero(m > 40)
    if len(xs) == 0:
        return m
    return m[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def _ttf_text_mask(text: str, size: int, path: str, bold: float) -> np.ndarray:
    """`text` rendered from a TrueType file, scaled so its ink is `size` pixels tall, tightly cropped."""
    from PIL import Image, ImageDraw

    px = max(8, int(size * 1.4))
    font = _ttf_font(path, px)
    x0, y0, x1, y1 = font.getbbox(text)
    pad = 4
    im = Image.new("L", (x1 - x0 + 2 * pad, y1 - y0 + 2 * pad), 0)
    ImageDraw.Draw(im).text((pad - x0, pad - y0), text, font=font, fill=255)
    m = np.asarray(im, np.uint8)
    ys, xs = np.nonzero(m > 40)
    if len(xs) == 0:
        return m
    m = m[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    scale = size / m.shape[0]
    m = cv2.resize(m, (max(1, int(round(m.shape[1] * scale))), size), interpolation=cv2.INTER_AREA)
    extra = int(round(size * (bold - 0.14) * 0.5))  # the deck's digits are heavier than most bold faces
    if extra > 0:
        m = np.pad(m, extra)
        m = cv2.dilate(m, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * extra + 1, 2 * extra + 1)))
    return m


def _deck_one(size: int, rng: np.random.Generator, bold: float) -> np.ndarray:
    """The deck's "1": a heavy upright stem with no foot (fonts mostly add one) and, at its top left, a flag as the
    real cards print it (looked at on the photos of stop 63): a thick bar, more than half the stem's width, running
    down to the left at 25-42 degrees, its lower tip a third or more down the height, its end cut square. A thin short wedge
    (the first drawing) made a real 1 lying on its side look more like a 7's bar than like any rendered 1."""
    w = int(size * rng.uniform(0.52, 0.64))
    stem = max(3, int(size * bold * rng.uniform(1.5, 2.0)))
    m = np.zeros((size, w), np.uint8)
    x1 = w - 1
    x0 = x1 - stem
    cv2.rectangle(m, (x0, 0), (x1, size - 1), 255, -1)
    slope = np.tan(np.radians(rng.uniform(25, 42)))  # the bar runs down to the left at this slope
    vt = stem * rng.uniform(0.55, 0.8) / np.cos(np.arctan(slope))  # its height at any x (its width across it ~stem)
    xs = x0 + stem * 0.3  # its upper edge leaves the stem's top here
    pts = np.array([[xs, 0], [0, xs * slope], [0, xs * slope + vt], [x0, (xs - x0) * slope + vt]], np.int32)
    cv2.fillPoly(m, [pts], 255, cv2.LINE_AA)
    return m


def _shear(mask: np.ndarray, k: float) -> np.ndarray:
    """Lean a glyph mask to the right by `k` (x shift per unit of height): the deck's indices are italic."""
    h, w = mask.shape
    extra = int(abs(k) * h) + 2
    m = np.array([[1, -k, k * h if k > 0 else 0], [0, 1, 0]], np.float32)
    return cv2.warpAffine(mask, m, (w + extra, h), flags=cv2.INTER_LINEAR)


def _symbol_mask(kind: str, size: int, rng: np.random.Generator) -> np.ndarray:
    """A mask, about `size` pixels tall, of a drawn symbol: skip, reverse, draw2 cards, draw4 cards."""
    s = size
    m = np.zeros((s, s), np.uint8)
    lw = max(2, int(s * rng.uniform(0.12, 0.17)))
    if kind == "skip":
        r = s // 2 - lw // 2 - 1
        cv2.circle(m, (s // 2, s // 2), r, 255, lw, cv2.LINE_AA)
        d = int(r * 0.72)
        cv2.line(m, (s // 2 - d, s // 2 + d), (s // 2 + d, s // 2 - d), 255, lw, cv2.LINE_AA)
    elif kind == "reverse":
        return _reverse_symbol(s, rng)[0]
    elif kind == "reverse-side-by-side":
        # two fat arrows side by side, each with its tail bent towards the other (the caller tilts the symbol)
        shaft = s * rng.uniform(0.1, 0.14)
        head_w, head_l = shaft * rng.uniform(2.2, 2.7), s * rng.uniform(0.18, 0.24)
        gap = s * rng.uniform(0.1, 0.16)
        lift = s * rng.uniform(0.06, 0.12)  # the up arrow sits higher than the down arrow: they never close a ring
        for sign in (1, -1):  # +1: the right arrow points up; -1: the left arrow points down
            x = s / 2 + sign * (gap / 2 + shaft / 2)
            tip_y = s / 2 - sign * s * 0.46
            base_y = tip_y + sign * head_l
            tail_y = s / 2 + sign * (s * 0.26 - lift)
            bend_x = x - sign * (shaft / 2 + gap * rng.uniform(0.3, 0.6))
            pts = np.array([
                [x, tip_y],
                [x + sign * head_w / 2, base_y],
                [x + sign * shaft / 2, base_y],
                [x + sign * shaft / 2, tail_y + sign * shaft / 2],
                [bend_x, tail_y + sign * shaft / 2],
                [bend_x, tail_y - sign * shaft / 2],
                [x - sign * shaft / 2, tail_y - sign * shaft / 2],
                [x - sign * shaft / 2, base_y],
                [x - sign * head_w / 2, base_y],
            ])
            cv2.fillPoly(m, [pts.astype(np.int32)], 255, cv2.LINE_AA)
    elif kind == "draw2":
        cw, ch = int(s * 0.38), int(s * 0.55)
        for ox, oy in ((0.18, 0.35), (0.42, 0.12)):
            x, y = int(s * ox), int(s * oy)
            cv2.rectangle(m, (x, y), (x + cw, y + ch), 255, -1)
    else:
        raise ValueError(f"unknown symbol kind {kind!r}")
    return m


def _reverse_symbol(s: int, rng: np.random.Generator) -> tuple[np.ndarray, float]:
    """A Reverse symbol in one of four prints, and the angle (degrees, as `_stamp` takes it) to turn it by.

    Half are `_hooked_reverse`, the print of the deck players own (drawn already on its diagonal, so it turns only a
    little); the rest are the earlier guesses at it, each drawn upright and leaning right by up to 50 degrees: they
    keep the net from learning one outline only."""
    pick = rng.random()
    if pick < 0.5:
        return _hooked_reverse(s, rng), float(rng.uniform(-8, 8))
    if pick < 0.78:
        m = _curved_reverse(s, rng)
    elif pick < 0.88:
        m = _straight_reverse(s, rng)
    else:
        m = _symbol_mask("reverse-side-by-side", s, rng)
    return m, float(rng.uniform(-50, 5))


def _hooked_reverse(s: int, rng: np.random.Generator) -> np.ndarray:
    """The Reverse of the classic deck, as photographed: two fat arrows on a diagonal, heads to the upper right and
    the lower left, each shaft offset to its own side of the diagonal and curling at its tail towards the other
    arrow, so the pair reads as an S; a thin gap (the caller's outline fills it black) parts the two tails.

    Why: the earlier prints were guesses with square bends or parallel arrows, and real Reverses were read as 4s
    (21 of 80 photos): a diagonal stroke with a big right-angled head is what a 4 is too, so the S between the heads
    is what tells them apart. Built with the arrows upright, then turned 35-45 degrees clockwise as printed."""
    sw = s * rng.uniform(0.14, 0.18)  # shaft width
    head_w = sw * rng.uniform(2.4, 2.9)
    head_l = head_w / 2 * rng.uniform(0.8, 1.0)  # a right-angled head: its wings square to the diagonal
    length = s * rng.uniform(0.92, 1.02)  # apex to apex
    a = sw * rng.uniform(0.2, 0.6)  # the shaft runs straight to this far above the centre ...
    r = sw * rng.uniform(1.0, 1.4)  # ... then curls towards the other arrow on this radius ...
    phi = np.deg2rad(rng.uniform(45, 70))  # ... by this much
    off = sw * rng.uniform(0.45, 0.7)  # each arrow's offset from the diagonal, to its own side
    top = -length / 2
    curl = [[-off + r - r * np.cos(u), -a + r * np.sin(u)] for u in np.linspace(0.0, phi, 14)]
    up = np.array([[-off, top + head_l - 1], *curl])
    head = np.array([[-off, top], [-off - head_w / 2, top + head_l], [-off + head_w / 2, top + head_l]])
    th = np.deg2rad(rng.uniform(35, 45))
    rot = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])  # clockwise on the image (y down)
    layers = []
    for path, tri in ((-up, -head), (up, head)):  # the down arrow is the up arrow turned half round
        layer = np.zeros((s, s), np.uint8)
        cv2.polylines(layer, [np.round((path @ rot.T + s / 2) * 8).astype(np.int32)], False, 255,
                      max(2, int(round(sw))), cv2.LINE_AA, shift=3)
        cv2.fillPoly(layer, [np.round((tri @ rot.T + s / 2) * 8).astype(np.int32)], 255, cv2.LINE_AA, shift=3)
        layers.append(layer)
    if rng.random() < 0.5:  # which tail lies over the other
        layers.reverse()
    gap = max(1, int(round(s * 0.02)))
    m = layers[0].copy()
    m[cv2.dilate(layers[1], cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * gap + 1, 2 * gap + 1))) > 0] = 0
    return np.maximum(m, layers[1])


def _curved_reverse(s: int, rng: np.random.Generator) -> np.ndarray:
    """The reverse symbol of the current deck: two fat arrows, one up and one down, each shaft curving into a short
    tail that tucks under the other arrow's bend, so the pair reads as an S (the caller tilts it along the oval)."""
    m = np.zeros((s, s), np.uint8)
    sw = s * rng.uniform(0.13, 0.18)
    head_w, head_l = sw * rng.uniform(2.2, 2.8), s * rng.uniform(0.2, 0.27)
    gap = s * rng.uniform(0.03, 0.06)
    xr = s / 2 + s * rng.uniform(0.06, 0.12)
    y_h = (s - sw - gap) / 2  # the up arrow's tail runs just above the centre, the down arrow's just below
    top = s * 0.03
    r = float(np.clip(s * rng.uniform(0.12, 0.2), sw * 0.6, max(sw * 0.6, y_h - top - head_l)))
    tail_x = (s - xr) - sw * rng.uniform(0.3, 1.0)
    bend = [[xr - r + r * np.cos(a), y_h - r + r * np.sin(a)] for a in np.linspace(0, np.pi / 2, 12)]
    shaft = np.array([[xr, top + head_l - 2], [xr, y_h - r], *bend, [tail_x, y_h]])
    head = np.array([[xr, top], [xr + head_w / 2, top + head_l], [xr - head_w / 2, top + head_l]])
    for pts, tri in ((shaft, head), (s - shaft, s - head)):  # the down arrow is the up arrow turned half round
        cv2.polylines(m, [np.round(pts * 8).astype(np.int32)], False, 255, max(2, int(round(sw))), cv2.LINE_AA,
                      shift=3)
        cv2.fillPoly(m, [np.round(tri * 8).astype(np.int32)], 255, cv2.LINE_AA, shift=3)
    return m


def _straight_reverse(s: int, rng: np.random.Generator) -> np.ndarray:
    """The reverse symbol as two straight diagonal arrows (an older print of the deck)."""
    m = np.zeros((s, s), np.uint8)
    for sign in (1, -1):
        c = np.array([s / 2 + sign * s * 0.13, s / 2 + sign * s * 0.13])
        d = np.array([sign * 0.7071, -sign * 0.7071])
        n = np.array([d[1], -d[0]])
        shaft = s * 0.13
        head = c + d * s * 0.36
        base = c + d * s * 0.12
        tail = c - d * s * 0.05
        pts = np.array([tail - n * shaft * 0.5 - d * s * 0.28, base - n * shaft * 0.5, base - n * shaft * 1.3, head,
                        base + n * shaft * 1.3, base + n * shaft * 0.5, tail + n * shaft * 0.5 - d * s * 0.28])
        pts = pts - n * sign * s * 0.12
        cv2.fillPoly(m, [pts.astype(np.int32)], 255, cv2.LINE_AA)
    return m


def _stamp(
    img: np.ndarray,
    mask: np.ndarray,
    centre: tuple[float, float],
    colour: tuple[int, int, int],
    outline: tuple[int, int, int] | None,
    outline_px: int,
    angle: float = 0.0,
    shadow: tuple[int, int] = (0, 0),
) -> None:
    """Paint `mask` (rotated by `angle` degrees) centred at `centre` in `colour`, with an outline ring around it.

    `shadow` (dx, dy) also paints the outline shifted by that many pixels: the deck's big indices and symbols
    carry a black drop shadow as well as the outline.
    """
    h, w = mask.shape
    pad = outline_px + 3 + max(abs(shadow[0]), abs(shadow[1]))
    big = np.zeros((h + 2 * pad, w + 2 * pad), np.uint8)
    big[pad : pad + h, pad : pad + w] = mask
    if angle:
        diag = int(np.hypot(*big.shape)) + 2
        canvas = np.zeros((diag, diag), np.uint8)
        oy, ox = (diag - big.shape[0]) // 2, (diag - big.shape[1]) // 2
        canvas[oy : oy + big.shape[0], ox : ox + big.shape[1]] = big
        rot = cv2.getRotationMatrix2D((diag / 2, diag / 2), angle, 1.0)
        big = cv2.warpAffine(canvas, rot, (diag, diag))
    layers = []
    if outline is not None and outline_px > 0:
        k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * outline_px + 1, 2 * outline_px + 1))
        ring = cv2.dilate(big, k)
        if shadow != (0, 0):
            moved = np.roll(ring, (shadow[1], shadow[0]), axis=(0, 1))
            layers.append((moved, outline))
        layers.append((ring, outline))
    layers.append((big, colour))
    bh, bw = big.shape
    x0 = int(round(centre[0] - bw / 2))
    y0 = int(round(centre[1] - bh / 2))
    H, W = img.shape[:2]
    xa, ya, xb, yb = max(0, x0), max(0, y0), min(W, x0 + bw), min(H, y0 + bh)
    if xa >= xb or ya >= yb:
        return
    for layer, col in layers:
        a = layer[ya - y0 : yb - y0, xa - x0 : xb - x0].astype(np.float32)[..., None] / 255.0
        roi = img[ya:yb, xa:xb].astype(np.float32)
        img[ya:yb, xa:xb] = (roi * (1 - a) + np.array(col, np.float32) * a).astype(np.uint8)


def _index_mask(value: str, size: int, rng: np.random.Generator, font: int | str, bold: float,
                italic: float) -> np.ndarray:
    """The mask of a card's index (digit, symbol or +2/+4) with the 6/9 underline the deck prints."""
    if value in ("skip", "reverse", "draw2"):
        if value == "draw2":
            return _shear(_text_mask("+2", size, rng, font, bold), italic)
        return _symbol_mask(value, int(size * 1.15), rng)
    if value == "wild-draw4":
        return _shear(_text_mask("+4", size, rng, font, bold), italic)
    if value == "0":  # Hershey fonts slash their zero; the deck's zero is a plain ring
        w0 = int(size * rng.uniform(0.62, 0.75))
        ring = np.zeros((size, w0), np.uint8)
        th = max(2, int(size * bold * 1.1))
        cv2.ellipse(ring, (w0 // 2, size // 2), (w0 // 2 - th // 2 - 1, size // 2 - th // 2 - 1), 0, 0, 360, 255, th,
                    cv2.LINE_AA)
        return _shear(ring, italic)
    if value == "1" and rng.random() < 0.7:  # the real deck's 1 has no foot; most fonts' have one
        m = _shear(_deck_one(size, rng, bold), italic)
    else:
        m = _shear(_text_mask(value, size, rng, font, bold), italic)
    if value in ("6", "9"):
        h, w = m.shape
        gap = max(2, int(size * 0.1))
        bar = max(2, int(size * rng.uniform(0.09, 0.14)))
        out = np.zeros((h + gap + bar, w), np.uint8)
        out[:h] = m
        x0, x1 = int(w * 0.12), int(w * 0.88)
        out[h + gap : h + gap + bar, x0:x1] = 255
        return out
    return m


def _wild_oval(img: np.ndarray, centre: tuple[int, int], axes: tuple[int, int], angle: float,
               rng: np.random.Generator, shades: dict[str, tuple[int, int, int]]) -> None:
    """The four-colour oval of the Wild card: quadrants red, blue, yellow, green in a rotated order."""
    order = ["red", "blue", "green", "yellow"]
    start = int(rng.integers(0, 4))
    for q in range(4):
        col = shades[order[(start + q) % 4]]
        cv2.ellipse(img, centre, axes, angle, q * 90, (q + 1) * 90, col, -1, cv2.LINE_AA)


def render_face(code: str, rng: np.random.Generator, style: str | None = None, lean: int | None = None) -> Face:
    """Draw card `code` (a tracker card code, or "back") with random print variation.

    `style` is "classic" (tilted white oval), "circle" (the newer rounder design) or None for a random pick; `lean`:
    `OVAL_AS_PRINTED` or `OVAL_AS_TRAINED` (default `OVAL_LEAN`), which way the oval leans.
    """
    lean = OVAL_LEAN if lean is None else lean
    if lean not in (OVAL_AS_TRAINED, OVAL_AS_PRINTED):
        raise ValueError(f"unknown oval lean {lean!r}; use OVAL_AS_PRINTED or OVAL_AS_TRAINED")
    if style is None:
        style = "classic" if rng.random() < 0.75 else "circle"
    if style not in ("classic", "circle"):
        raise ValueError(f"unknown print style {style!r}; use 'classic' or 'circle'")
    W, H = CARD_W, CARD_H
    shades = {k: _jitter_colour(rng, v, 0.12) for k, v in PRINT_BGR.items()}
    white = _jitter_colour(rng, (240, 242, 242), 0.05)
    if code == BACK:
        colour_name, value = "black", BACK
    elif code in ("wild", "wild-draw4"):
        colour_name, value = "black", code
    else:
        colour_name, value = code.split("-", 1)
    if colour_name not in shades:
        raise ValueError(f"unknown card code {code!r}")
    face_col = shades[colour_name]
    img = np.empty((H, W, 3), np.uint8)
    img[:] = white
    border = int(W * rng.uniform(0.05, 0.085))
    radius = int(W * rng.uniform(0.07, 0.11))
    inner = _rounded_mask(W - 2 * border, H - 2 * border, max(2, radius - border // 2))
    face_layer = np.zeros_like(img)
    face_layer[:] = face_col
    sub = img[border : H - border, border : W - border]
    sub[inner > 0] = face_layer[border : H - border, border : W - border][inner > 0]

    # print offset: the centre artwork shifts a little against the cut of the card
    cx = W / 2 + rng.normal(0, W * 0.015)
    cy = H / 2 + rng.normal(0, H * 0.012)
    if style == "classic":
        axes = (int(W * rng.uniform(0.29, 0.35)), int(H * rng.uniform(0.43, 0.49)))
        angle = lean * rng.uniform(24, 38)  # as printed (+1; cv2 turns clockwise): the top leans right
    else:
        axes = (int(W * rng.uniform(0.33, 0.39)), int(H * rng.uniform(0.27, 0.33)))
        angle = lean * rng.uniform(10, 30)
    centre = (int(cx), int(cy))
    ttfs = ttf_paths()
    font: int | str = str(rng.choice(ttfs)) if ttfs and rng.random() < TTF_SHARE else int(rng.choice(FONTS))
    bold = rng.uniform(0.12, 0.2)
    italic = rng.uniform(0.05, 0.22)
    outline_px = int(rng.integers(2, 5))
    shadow = (0, 0)
    if rng.random() < 0.6:  # the deck's drop shadow falls down and to one side
        d = int(rng.integers(2, 6))
        shadow = (int(rng.choice([-1, 1])) * d, d)

    if value == BACK:
        cv2.ellipse(img, centre, axes, angle, 0, 360, shades["red"], -1, cv2.LINE_AA)
        logo = _shear(_text_mask("UNO", int(H * 0.16), rng, font, bold * 1.2), italic + 0.1)
        _stamp(img, logo, (cx, cy), shades["yellow"], shades["black"], outline_px + 2, angle=rng.uniform(5, 20))
    elif value == "wild":
        _wild_oval(img, centre, axes, angle, rng, shades)
        cv2.ellipse(img, centre, axes, angle, 0, 360, white, max(2, int(W * 0.015)), cv2.LINE_AA)
        if rng.random() < 0.3:
            wtxt = _shear(_text_mask("WILD", int(H * 0.07), rng, font, bold), italic)
            _stamp(img, wtxt, (cx, cy + H * 0.2), white, shades["black"], 2)
    else:
        cv2.ellipse(img, centre, axes, angle, 0, 360, white, -1, cv2.LINE_AA)
        if value == "wild-draw4":
            cw, ch = int(W * 0.2), int(H * 0.2)
            offs = [(-0.23, -0.04), (-0.07, 0.1), (0.08, -0.1), (0.22, 0.04)]
            cols = ["blue", "green", "red", "yellow"]
            perm = rng.permutation(4) if rng.random() < 0.3 else np.arange(4)
            tilt = rng.uniform(-25, -5)
            for i in perm:
                ox, oy = offs[i]
                m = np.full((ch, cw), 255, np.uint8)
                _stamp(img, m, (cx + ox * W, cy + oy * H * 0.9), shades[cols[i]], shades["black"], 2, angle=tilt)
        elif value == "draw2":
            # two cards, the back one up and to the right; on the deck they lean like italics (a shear), on some
            # prints they are turned instead
            cw, ch = int(W * rng.uniform(0.22, 0.29)), int(H * rng.uniform(0.28, 0.37))  # tall, as printed
            lean = rng.random() < 0.7
            tilt = rng.uniform(-10, 0) if lean else rng.uniform(-30, -12)
            # offset by about half a mini card, so that both outlines show, as printed
            dx, dy = rng.uniform(0.05, 0.12), rng.uniform(0.04, 0.1)
            mini_outline = max(1, outline_px - int(rng.integers(0, 2)))  # the mini cards' rim is often finer
            k = rng.uniform(0.15, 0.4) if lean else 0.0
            inset = rng.uniform(0.1, 0.18)  # each mini card is a card: a white margin round its coloured face
            for ox, oy in ((dx, -dy), (-dx, dy)):  # the back card first, then the front one over it
                centre_xy = (cx + ox * W, cy + oy * H)
                m = np.full((ch, cw), 255, np.uint8)
                _stamp(img, _shear(m, k) if lean else m, centre_xy, white, shades["black"], mini_outline,
                       angle=tilt, shadow=shadow)
                iw, ih = max(2, int(cw * (1 - 2 * inset))), max(2, int(ch - cw * 2 * inset))
                inner = np.full((ih, iw), 255, np.uint8)
                _stamp(img, _shear(inner, k) if lean else inner, centre_xy, face_col, None, 0, angle=tilt)
        elif value in ("skip", "reverse"):
            # the reverse arrows run along most of the oval's long axis; skip is a smaller sign
            side = W * (rng.uniform(0.62, 0.82) if value == "reverse" else rng.uniform(0.5, 0.66))
            if value == "reverse":  # the reverse leans right, along the oval
                m, tilt = _reverse_symbol(int(side), rng)
            else:
                m, tilt = _symbol_mask(value, int(side), rng), rng.uniform(-40, 40)
            _stamp(img, m, (cx, cy), face_col, shades["black"], outline_px, angle=tilt, shadow=shadow)
        else:
            size = int(H * rng.uniform(0.3, 0.38))
            m = _index_mask(value, size, rng, font, bold * 1.15, italic)
            _stamp(img, m, (cx, cy), face_col, shades["black"], outline_px, shadow=shadow)

    # corner indices: white with a thin dark outline, top-left upright and bottom-right upside down
    if value != BACK:
        isize = int(H * rng.uniform(0.085, 0.11))
        if value == "wild":
            ci = np.zeros((isize, int(isize * 0.8)), np.uint8)
            cv2.ellipse(ci, (ci.shape[1] // 2, isize // 2), (ci.shape[1] // 2 - 1, isize // 2 - 1), 30, 0, 360, 255, -1)
            tmp = np.zeros((isize + 8, isize + 8, 3), np.uint8)
            _wild_oval(tmp, (tmp.shape[1] // 2, tmp.shape[0] // 2), (ci.shape[1] // 2 - 1, isize // 2 - 1), 30,
                       rng, shades)
            for flip, pos in ((False, (border + isize * 0.55, border + isize * 0.65)),
                              (True, (W - border - isize * 0.55, H - border - isize * 0.65))):
                patch = tmp[::-1, ::-1] if flip else tmp
                y0, x0 = int(pos[1] - patch.shape[0] / 2), int(pos[0] - patch.shape[1] / 2)
                region = img[y0 : y0 + patch.shape[0], x0 : x0 + patch.shape[1]]
                filled = patch.sum(axis=2) > 0
                region[filled] = patch[filled]
        else:
            m = _index_mask(value, isize, rng, font, bold, italic)
            col = white
            for rot, pos in ((0.0, (border + m.shape[1] * 0.5 + W * 0.03, border + m.shape[0] * 0.5 + H * 0.02)),
                             (180.0, (W - border - m.shape[1] * 0.5 - W * 0.03,
                                      H - border - m.shape[0] * 0.5 - H * 0.02))):
                _stamp(img, m, pos, col, shades["black"], 1, angle=rot)

    _wear(img, rng)
    alpha = _rounded_mask(W, H, radius).astype(np.float32) / 255.0
    return Face(code, img, alpha)


def _wear(img: np.ndarray, rng: np.random.Generator) -> None:
    """Scuffs, scratches and a slightly soft print: old cards are not crisp vectors."""
    H, W = img.shape[:2]
    if rng.random() < 0.6:
        n = int(rng.integers(5, 60))
        ys = rng.integers(0, H, n)
        xs = rng.integers(0, W, n)
        for x, y in zip(xs, ys, strict=True):
            cv2.circle(img, (int(x), int(y)), int(rng.integers(1, 3)), (225, 228, 228), -1)
    if rng.random() < 0.3:
        for _ in range(int(rng.integers(1, 4))):
            p = rng.integers(0, [W, H], 2)
            q = p + rng.integers(-60, 60, 2)
            cv2.line(img, (int(p[0]), int(p[1])), (int(q[0]), int(q[1])), (210, 215, 215), 1, cv2.LINE_AA)
    if rng.random() < 0.5:
        k = int(rng.choice([3, 5]))
        img[:] = cv2.GaussianBlur(img, (k, k), 0)
