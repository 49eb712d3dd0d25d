"""Scene compositor: lays rendered cards out as a game (or a hand-held photo) does, and labels what is visible.

Why two kinds of scene: the table camera sees many small cards from above (a discard pile of overlapping rotated
cards with the top one whole, a face-down draw pile, fanned hands of backs, revealed hands, a card mid-air in a
hand), while real photos of single cards (the only real data we may measure on) show one card filling much of the
frame. The detector must be good at both, so `render_scene` mixes "table" and "closeup" scenes.

Cards are composited in a flat table plane, tracking which card owns each pixel (`owner`), then the whole plane is
seen through a slightly tilted camera (a homography), and photographic faults are added (light gradient, glare,
shadows, motion blur, sensor noise, white balance, JPEG). `render_scene` labels a card when at least `min_visible`
of it shows (default `MIN_VISIBLE`, half), its box the extent of its visible pixels, and reports each card's
visible share; data set builds label down to `datasets.export.LABEL_MIN_VISIBLE` and record every share.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np

from datasets.backgrounds import background
from datasets.faces import BACK, CARD_H, CARD_W, Face, render_face

MIN_VISIBLE = 0.5


@dataclass
class Scene:
    """A rendered image (BGR uint8) and its labels: `codes[i]` is inside `boxes[i]` = (x1, y1, x2, y2) pixels."""

    image: np.ndarray
    codes: list[str] = field(default_factory=list)
    boxes: list[tuple[float, float, float, float]] = field(default_factory=list)
    kind: str = ""
    visible: list[float] = field(default_factory=list)
    """`visible[i]`: the share of card i's face that shows (hands and other cards hide the rest)."""


class _Canvas:
    """The table plane being composited, with a per-pixel owner map (0 = table or hand, k = k-th card)."""

    def __init__(self, img: np.ndarray) -> None:
        self.img = img
        self.owner = np.zeros(img.shape[:2], np.int32)
        self.codes: list[str] = []
        self.quads: list[np.ndarray] = []

    def shadow(self, quad: np.ndarray, rng: np.random.Generator, strength: float) -> None:
        """A soft drop shadow under a card, offset away from the light."""
        h, w = self.owner.shape
        off = rng.normal(0, 4, 2) + 3
        q = quad + off
        x0, y0 = np.floor(q.min(axis=0)).astype(int) - 12
        x1, y1 = np.ceil(q.max(axis=0)).astype(int) + 12
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        if x0 >= x1 or y0 >= y1:
            return
        m = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(m, (q - np.array([x0, y0])).astype(np.int32), 255, cv2.LINE_AA)
        m = cv2.GaussianBlur(m, (0, 0), 4).astype(np.float32) / 255.0 * strength
        roi = self.img[y0:y1, x0:x1]
        roi[:] = (roi.astype(np.float32) * (1 - m[..., None])).astype(np.uint8)

    def add_card(self, face: Face, quad: np.ndarray, rng: np.random.Generator, shadow: float = 0.35) -> int:
        """Warp `face` onto the four corners `quad` (TL, TR, BR, BL) and return its owner id."""
        h, w = self.owner.shape
        if shadow > 0:
            self.shadow(quad, rng, shadow)
        x0, y0 = np.floor(quad.min(axis=0)).astype(int)
        x1, y1 = np.ceil(quad.max(axis=0)).astype(int)
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1 + 1), min(h, y1 + 1)
        self.codes.append(face.code)
        self.quads.append(quad.astype(np.float32))
        k = len(self.codes)
        if x0 >= x1 or y0 >= y1:
            return k
        src = np.array([[0, 0], [CARD_W - 1, 0], [CARD_W - 1, CARD_H - 1], [0, CARD_H - 1]], np.float32)
        dst = (quad - np.array([x0, y0])).astype(np.float32)
        m = cv2.getPerspectiveTransform(src, dst)
        size = (x1 - x0, y1 - y0)
        warped = cv2.warpPerspective(face.image, m, size, flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
        a = cv2.warpPerspective(face.alpha, m, size, flags=cv2.INTER_LINEAR)[..., None]
        roi = self.img[y0:y1, x0:x1]
        roi[:] = (roi.astype(np.float32) * (1 - a) + warped.astype(np.float32) * a).astype(np.uint8)
        self.owner[y0:y1, x0:x1][a[..., 0] > 0.5] = k
        return k

    def add_hand(self, rng: np.random.Generator, centre: np.ndarray, direction: float, scale: float) -> None:
        """A skin-toned hand (palm and fingers) reaching in along `direction` (degrees); it occludes cards."""
        h, w = self.owner.shape
        m = np.zeros((h, w), np.uint8)
        d = np.array([np.cos(np.radians(direction)), np.sin(np.radians(direction))])
        n = np.array([-d[1], d[0]])
        palm = centre - d * scale * 0.9
        cv2.ellipse(m, tuple(int(v) for v in palm), (int(scale * 0.75), int(scale * 0.55)),
                    float(direction), 0, 360, 255, -1, cv2.LINE_AA)
        arm_end = palm - d * scale * 3
        cv2.line(m, tuple(int(v) for v in palm), tuple(int(v) for v in arm_end), 255, int(scale * 0.9), cv2.LINE_AA)
        nf = int(rng.integers(2, 5))
        for i in range(nf):
            t = (i - (nf - 1) / 2) * 0.38
            base = palm + n * t * scale + d * scale * 0.4
            length = scale * rng.uniform(0.7, 1.1)
            bend = rng.normal(0, 0.15)
            tip = base + (d + n * bend) * length
            cv2.line(m, tuple(int(v) for v in base), tuple(int(v) for v in tip), 255, max(3, int(scale * 0.26)),
                     cv2.LINE_AA)
        if rng.random() < 0.7:  # thumb
            base = palm + n * scale * 0.5 * rng.choice([-1, 1])
            tip = base + (d * 0.6 + n * 0.6 * np.sign(np.dot(base - palm, n))) * scale * 0.8
            cv2.line(m, tuple(int(v) for v in base), tuple(int(v) for v in tip), 255, max(3, int(scale * 0.3)),
                     cv2.LINE_AA)
        tone = np.array(
            [rng.uniform(40, 170), rng.uniform(70, 190), rng.uniform(110, 235)], np.float32
        )  # BGR skin family, dark to light
        tone[1] = min(tone[1], tone[2] - 10)
        tone[0] = min(tone[0], tone[1] - 10)
        shade = cv2.GaussianBlur(rng.normal(0, 1, (h // 8 + 1, w // 8 + 1)).astype(np.float32), (0, 0), 2)
        shade = cv2.resize(shade, (w, h))[..., None] * 12
        a = cv2.GaussianBlur(m, (3, 3), 0).astype(np.float32)[..., None] / 255.0
        skin = np.clip(tone + shade, 0, 255)
        self.img[:] = (self.img.astype(np.float32) * (1 - a) + skin * a).astype(np.uint8)
        self.owner[m > 127] = 0


def card_quad(centre: np.ndarray, height: float, angle: float, rng: np.random.Generator,
              persp: float = 0.0) -> np.ndarray:
    """Corners TL, TR, BR, BL of a card of `height` pixels centred at `centre`, turned `angle` degrees."""
    hw, hh = height * CARD_W / CARD_H / 2, height / 2
    pts = np.array([[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]], np.float64)
    if persp > 0:
        pts += rng.uniform(-persp, persp, pts.shape) * height
    r = np.radians(angle)
    rot = np.array([[np.cos(r), -np.sin(r)], [np.sin(r), np.cos(r)]])
    return pts @ rot.T + centre


def _random_face_code(rng: np.random.Generator, codes: tuple[str, ...]) -> str:
    return str(codes[int(rng.integers(0, len(codes)))])


PAIR_SHARE = 0.4
"""Share of table scenes whose discard pile is topped by cards laid together, fanned (`_fanned_pair`)."""


def _fanned_pair(cv: _Canvas, rng: np.random.Generator, centre: np.ndarray, ch: float,
                 draw: Callable[[], Face]) -> None:
    """Two (now and then three) cards laid on the pile together, each fanned off the one below.

    Why: pairs, self-interception and several Skips at once are laid as a fan, so the lower card shows only as a
    strip along one side: its corner index and the edge of its central figure. The camera must name that card
    from the strip (a misnamed lower card is a wrong `play`), so the classifier learns from such strips. The
    shift and the turn vary in size and side, since players fan their cards every way."""
    cw = ch * CARD_W / CARD_H
    pos = centre + rng.normal(0, ch * 0.1, 2)
    ang = float(rng.uniform(0, 360))
    for _ in range(2 if rng.random() < 0.85 else 3):
        cv.add_card(draw(), card_quad(pos, ch, ang, rng, 0.01), rng)
        along_width = rng.random() < 0.75  # fanned sideways mostly; sometimes up the card
        shift = rng.uniform(0.28, 0.6) * (cw if along_width else ch) * rng.choice([-1.0, 1.0])
        r = np.radians(ang)
        axis = np.array([np.cos(r), np.sin(r)]) if along_width else np.array([-np.sin(r), np.cos(r)])
        pos = pos + axis * shift + rng.normal(0, ch * 0.02, 2)
        ang += float(rng.uniform(4, 26) * rng.choice([-1.0, 1.0]))


def _table_scene(cv: _Canvas, rng: np.random.Generator, codes: tuple[str, ...]) -> None:
    """An overhead view of a game in progress."""
    h, w = cv.owner.shape
    ch = rng.uniform(0.17, 0.3) * h  # card height in the table plane
    style = "classic" if rng.random() < 0.75 else "circle"

    def face(code: str) -> Face:
        return render_face(code, rng, style)

    centre = np.array([w / 2, h / 2]) + rng.normal(0, [w * 0.06, h * 0.06])
    # draw pile: a stack of backs, slightly messy, the top one whole
    if rng.random() < 0.8:
        pile = centre + np.array([-ch * rng.uniform(0.7, 1.1), rng.normal(0, ch * 0.2)])
        base_angle = rng.uniform(-40, 40)
        for _ in range(int(rng.integers(2, 5))):
            q = card_quad(pile + rng.normal(0, ch * 0.03, 2), ch, base_angle + rng.normal(0, 4), rng, 0.01)
            cv.add_card(face(BACK), q, rng)
        centre = centre + np.array([ch * rng.uniform(0.5, 0.8), 0])
    # discard pile: overlapping rotated faces, the top one whole
    for _ in range(int(rng.integers(2, 7))):
        q = card_quad(centre + rng.normal(0, ch * 0.15, 2), ch, rng.uniform(0, 360), rng, 0.01)
        cv.add_card(face(_random_face_code(rng, codes)), q, rng)
    if rng.random() < PAIR_SHARE:
        _fanned_pair(cv, rng, centre, ch, lambda: face(_random_face_code(rng, codes)))
    # seats around the table
    seats = rng.permutation(4)[: int(rng.integers(1, 5))]
    for s in seats:
        side_angle = float(s) * 90.0
        r = np.radians(side_angle)
        out = np.array([np.sin(r), -np.cos(r)])  # from table centre toward the seat
        dist = np.array([h, w, h, w])[s] / 2 * rng.uniform(0.6, 0.85)
        seat = np.array([w / 2, h / 2]) + out * dist
        n = int(rng.integers(2, 8))
        revealed = rng.random() < 0.4
        spread = rng.uniform(0.25, 0.55) * ch * CARD_W / CARD_H
        fan = rng.uniform(0, 12) if not revealed else rng.uniform(0, 6)
        tangent = np.array([-out[1], out[0]])
        for i in range(n):
            t = i - (n - 1) / 2
            pos = seat + tangent * t * spread + out * abs(t) * fan * 0.3 + rng.normal(0, 1.5, 2)
            ang = side_angle + 180 + t * fan + rng.normal(0, 2)
            code = _random_face_code(rng, codes) if revealed else BACK
            cv.add_card(face(code), card_quad(pos, ch, ang, rng, 0.02), rng)
        if not revealed and rng.random() < 0.5:
            cv.add_hand(rng, seat + out * ch * 0.35, side_angle - 90, ch * 0.35)
    # a card mid-air, held by a hand (bigger: nearer the camera)
    if rng.random() < 0.4:
        pos = np.array([rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h])
        ang = rng.uniform(0, 360)
        q = card_quad(pos, ch * rng.uniform(1.05, 1.3), ang, rng, 0.04)
        cv.add_card(face(_random_face_code(rng, codes)), q, rng, shadow=0.5)
        edge = (q[2] + q[3]) / 2
        cv.add_hand(rng, edge + (edge - pos) * 0.1, ang + 90 + 180, ch * 0.3)


def _closeup_scene(cv: _Canvas, rng: np.random.Generator, codes: tuple[str, ...]) -> None:
    """One or a few cards large in the frame, as in a hand-held photo."""
    h, w = cv.owner.shape
    n = 1 if rng.random() < 0.7 else int(rng.integers(2, 4))
    placed: list[np.ndarray] = []
    for i in range(n):
        frac = rng.uniform(0.35, 0.95) if n == 1 else rng.uniform(0.3, 0.55)
        ch = frac * min(h, w) * (1.0 if h >= w else 1.15)
        ang = rng.normal(0, 20) if rng.random() < 0.5 else rng.uniform(0, 360)
        for _ in range(20):
            pos = np.array([rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h])
            if all(np.linalg.norm(pos - p) > ch * 0.6 for p in placed):
                break
        placed.append(pos)
        code = _random_face_code(rng, codes) if rng.random() < 0.93 else BACK
        q = card_quad(pos, ch, ang, rng, rng.uniform(0.0, 0.09))
        cv.add_card(render_face(code, rng), q, rng, shadow=rng.uniform(0.0, 0.5))
        if i == 0 and rng.random() < 0.45:  # fingers holding the card at an edge
            j = int(rng.integers(0, 4))
            edge = (q[j] + q[(j + 1) % 4]) / 2
            direction = np.degrees(np.arctan2(*(pos - edge)[::-1]))
            cv.add_hand(rng, edge + (pos - edge) * rng.uniform(0.0, 0.25), direction, ch * rng.uniform(0.2, 0.3))


def _camera(img: np.ndarray, owner: np.ndarray, rng: np.random.Generator, tilt: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """See the plane through a slightly tilted camera: returns warped image, warped owner map, homography."""
    h, w = owner.shape
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    d = rng.uniform(-tilt, tilt, (4, 2)) * np.array([w, h])
    m = cv2.getPerspectiveTransform(src, (src + d).astype(np.float32))
    img2 = cv2.warpPerspective(img, m, (w, h), borderMode=cv2.BORDER_REFLECT)
    own2 = cv2.warpPerspective(owner, m, (w, h), flags=cv2.INTER_NEAREST, borderValue=0)
    return img2, own2, m


def _photo_faults(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Light gradient, glare, white balance, motion blur, sensor noise and JPEG artefacts."""
    h, w = img.shape[:2]
    f = img.astype(np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ang = rng.uniform(0, 2 * np.pi)
    grad = ((xx - w / 2) * np.cos(ang) + (yy - h / 2) * np.sin(ang)) / max(h, w)
    f *= (1.0 + grad * rng.uniform(0, 0.8))[..., None] * rng.uniform(0.6, 1.25)
    f *= rng.uniform(0.85, 1.15, 3)  # white balance
    if rng.random() < 0.35:  # glare: a bright soft spot
        g = np.zeros((h, w), np.float32)
        c = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
        cv2.ellipse(g, c, (int(rng.uniform(0.05, 0.25) * w), int(rng.uniform(0.03, 0.15) * h)),
                    rng.uniform(0, 180), 0, 360, 1.0, -1)
        g = cv2.GaussianBlur(g, (0, 0), rng.uniform(8, 25)) * rng.uniform(60, 200)
        f += g[..., None]
    out = np.clip(f, 0, 255).astype(np.uint8)
    if rng.random() < 0.25:  # motion blur
        k = int(rng.integers(3, 10))
        ker = np.zeros((k, k), np.float32)
        ker[k // 2, :] = 1.0 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1.0)
        ker = cv2.warpAffine(ker, rot, (k, k))
        ker /= max(ker.sum(), 1e-6)
        out = cv2.filter2D(out, -1, ker)
    elif rng.random() < 0.3:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.5, 1.5))
    if rng.random() < 0.7:
        noise = rng.normal(0, rng.uniform(2, 9), out.shape).astype(np.float32)
        out = np.clip(out.astype(np.float32) + noise, 0, 255).astype(np.uint8)
    q = int(rng.integers(35, 96))
    ok, enc = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])
    return cv2.imdecode(enc, cv2.IMREAD_COLOR) if ok else out


def render_scene(rng: np.random.Generator, codes: tuple[str, ...], kind: str | None = None,
                 size: tuple[int, int] | None = None, min_visible: float = MIN_VISIBLE) -> Scene:
    """Render one labelled scene. `kind` is "table", "closeup" or None (random, about half each).

    `codes` are the face codes to draw from (the card back is added by the scene itself). Cards showing less than
    `min_visible` of their face get no label (the analysis of a detector's misses renders with 0 to see them all).
    """
    if kind is None:
        kind = "table" if rng.random() < 0.5 else "closeup"
    if size is None:
        if kind == "table":
            size = (480, 640)
        else:
            size = [(640, 480), (480, 640), (540, 720), (720, 540), (600, 600)][int(rng.integers(0, 5))]
    h, w = size
    cv = _Canvas(background(rng, h, w, table=(kind == "table")))
    if kind == "table":
        _table_scene(cv, rng, codes)
        tilt = 0.06
    elif kind == "closeup":
        _closeup_scene(cv, rng, codes)
        tilt = 0.1
    else:
        raise ValueError(f"unknown scene kind {kind!r}; use 'table' or 'closeup'")
    img, owner, hom = _camera(cv.img, cv.owner, rng, tilt)
    img = _photo_faults(img, rng)
    scene = Scene(img, kind=kind)
    counts = np.bincount(owner.ravel(), minlength=len(cv.codes) + 1)
    for k, code in enumerate(cv.codes, start=1):
        if counts[k] == 0:
            continue
        quad = cv2.perspectiveTransform(cv.quads[k - 1][None].astype(np.float64), hom)[0]
        full = cv2.contourArea(quad.astype(np.float32))
        if full <= 0 or counts[k] / full < min_visible:
            continue
        ys, xs = np.nonzero(owner == k)
        scene.codes.append(code)
        scene.boxes.append((float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1)))
        scene.visible.append(float(min(1.0, counts[k] / full)))
    return scene
