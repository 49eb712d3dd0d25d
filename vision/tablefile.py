"""The table file: where the table is in the camera image and where its zones are, in table coordinates.

Why a file: calibration (finding the ArUco markers, or clicking four corners) happens once per rig; every later
`watch` reads the result. Zones live in *table* coordinates (millimetres on the table top, origin at the top-left
marker side, x right, y down as seen from the camera), so they survive a camera that is moved and re-calibrated:
only the homography changes.

Format (TOML, written by `write_table`, read by `read_table`):

    [table]
    width_mm = 1000.0
    height_mm = 560.0
    seats = 4
    image_size = [960, 540]
    image_to_table = [[...], [...], [...]]      # 3x3 homography, image pixels -> table mm

    [markers]
    dictionary = "DICT_4X4_50"
    size_mm = 50.0
    ids = [0, 1, 2, 3]                            # TL, TR, BR, BL
    centres_mm = [[40.0, 40.0], ...]

    [[zones]]
    name = "discard"        # "draw", "discard", or "seat0".."seatN-1"
    kind = "discard"        # "draw" | "discard" | "seat"
    seat = -1               # the seat for kind = "seat"
    polygon = [[x, y], ...] # table mm
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

TABLE_W = 1000.0
TABLE_H = 560.0
MARKER_SIZE = 50.0
MARKER_INSET = 40.0  # marker centre distance from the table's sides
MARKER_DICT = "DICT_4X4_50"
MARKER_IDS = (0, 1, 2, 3)
CARD_W_MM = 56.0
CARD_H_MM = 87.0


class TableFileError(ValueError):
    """A table file that is missing, unreadable, or names impossible zones."""


@dataclass(frozen=True)
class Zone:
    name: str
    kind: str
    polygon: np.ndarray  # (K, 2) float64 table mm
    seat: int = -1

    @property
    def centre(self) -> np.ndarray:
        return self.polygon.mean(axis=0)

    def bounds(self) -> tuple[float, float, float, float]:
        x0, y0 = self.polygon.min(axis=0)
        x1, y1 = self.polygon.max(axis=0)
        return float(x0), float(y0), float(x1), float(y1)

    def contains(self, xy: np.ndarray) -> bool:
        return cv2.pointPolygonTest(self.polygon.astype(np.float32), (float(xy[0]), float(xy[1])), False) >= 0

    def mask(self, shape: tuple[int, int], scale: float) -> np.ndarray:
        """A uint8 mask of this zone on a table raster of `shape` at `scale` pixels per mm."""
        m = np.zeros(shape, np.uint8)
        cv2.fillPoly(m, [np.round(self.polygon * scale).astype(np.int32)], 255)
        return m


@dataclass
class Table:
    width: float = TABLE_W
    height: float = TABLE_H
    seats: int = 4
    zones: list[Zone] = field(default_factory=list)
    image_to_table: np.ndarray | None = None  # 3x3
    image_size: tuple[int, int] | None = None  # (w, h)
    marker_dict: str = MARKER_DICT
    marker_size: float = MARKER_SIZE
    marker_ids: tuple[int, ...] = MARKER_IDS
    marker_centres: np.ndarray = field(default_factory=lambda: marker_centres())

    def zone(self, name: str) -> Zone:
        for z in self.zones:
            if z.name == name:
                return z
        raise TableFileError(f"the table has no zone named {name!r} (zones: {', '.join(z.name for z in self.zones)})")

    @property
    def draw(self) -> Zone:
        return self.zone("draw")

    @property
    def discard(self) -> Zone:
        return self.zone("discard")

    def seat_zones(self) -> list[Zone]:
        return sorted((z for z in self.zones if z.kind == "seat"), key=lambda z: z.seat)

    @property
    def table_to_image(self) -> np.ndarray:
        if self.image_to_table is None:
            raise TableFileError("the table is not calibrated (no image_to_table homography)")
        return np.linalg.inv(self.image_to_table)


def marker_centres(width: float = TABLE_W, height: float = TABLE_H, inset: float = MARKER_INSET) -> np.ndarray:
    """Marker centres TL, TR, BR, BL in table mm."""
    return np.array([[inset, inset], [width - inset, inset], [width - inset, height - inset], [inset, height - inset]])


def marker_corners_mm(centre: np.ndarray, size: float = MARKER_SIZE) -> np.ndarray:
    """The four corners of a marker (TL, TR, BR, BL, the order cv2.aruco reports) in table mm."""
    h = size / 2
    return np.array([[-h, -h], [h, -h], [h, h], [-h, h]]) + centre


def _rect(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)


def seat_layout(seats: int, width: float = TABLE_W, height: float = TABLE_H) -> list[tuple[np.ndarray, float]]:
    """Where each seat sits: (the point on the table's edge in front of the player, the direction in degrees from
    that point into the table). Seats run clockwise as seen from the camera, seat 0 at the bottom."""
    if not 2 <= seats <= 8:
        raise TableFileError(f"seats must be 2..8, got {seats}")
    w, h = width, height
    # points on the perimeter, clockwise on screen starting bottom-centre-right
    bottom = lambda x: (np.array([x, h]), -90.0)  # noqa: E731
    left = lambda y: (np.array([0.0, y]), 0.0)  # noqa: E731
    top = lambda x: (np.array([x, 0.0]), 90.0)  # noqa: E731
    right = lambda y: (np.array([w, y]), 180.0)  # noqa: E731
    layouts = {
        2: [bottom(w / 2), top(w / 2)],
        3: [bottom(w / 2), left(h / 2), right(h / 2)],
        4: [bottom(w / 2), left(h / 2), top(w / 2), right(h / 2)],
        5: [bottom(w * 0.66), bottom(w * 0.34), left(h / 2), top(w / 2), right(h / 2)],
        6: [bottom(w * 0.71), bottom(w * 0.29), left(h / 2), top(w * 0.29), top(w * 0.71), right(h / 2)],
        7: [bottom(w * 0.71), bottom(w * 0.29), left(h / 2), top(w * 0.25), top(w * 0.5), top(w * 0.75), right(h / 2)],
        8: [bottom(w * 0.75), bottom(w * 0.5), bottom(w * 0.25), left(h / 2), top(w * 0.25), top(w * 0.5),
            top(w * 0.75), right(h / 2)],
    }
    return layouts[seats]


SEAT_DEPTH = 186.0
SEAT_SPAN = 300.0


def default_zones(seats: int, width: float = TABLE_W, height: float = TABLE_H) -> list[Zone]:
    """The standard layout: the draw pile left of centre, the discard pile right of centre, a seat zone along the
    edge in front of each player (deep enough for a held fan and a revealed row of cards)."""
    cx, cy = width / 2, height / 2
    zones = [
        Zone("draw", "draw", _rect(cx - 200, cy - 90, cx - 40, cy + 90)),
        Zone("discard", "discard", _rect(cx + 0, cy - 92, cx + 210, cy + 92)),
    ]
    span = SEAT_SPAN if seats <= 4 else 280.0
    for s, (p, ang) in enumerate(seat_layout(seats, width, height)):
        d = np.array([math.cos(math.radians(ang)), math.sin(math.radians(ang))])
        n = np.array([-d[1], d[0]])
        sp = span if abs(d[1]) > 0.5 else min(span, height - 2 * (MARKER_INSET + MARKER_SIZE))
        corners = np.array([p + n * sp / 2, p - n * sp / 2, p - n * sp / 2 + d * SEAT_DEPTH, p + n * sp / 2 + d * SEAT_DEPTH])
        x0, y0 = corners.min(axis=0)
        x1, y1 = corners.max(axis=0)
        zones.append(Zone(f"seat{s}", "seat", _rect(max(0, x0), max(0, y0), min(width, x1), min(height, y1)), seat=s))
    return zones


def default_table(seats: int = 4) -> Table:
    return Table(seats=seats, zones=default_zones(seats))


# ---------------------------------------------------------------------------------------------------- TOML


def _fmt(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, np.ndarray):
        return _fmt(v.tolist())
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    raise TypeError(f"cannot write {type(v).__name__} to TOML")


def table_to_toml(table: Table) -> str:
    lines = ["# unotable table file: zones in table millimetres (see vision/tablefile.py)", "[table]",
             f"width_mm = {_fmt(table.width)}", f"height_mm = {_fmt(table.height)}", f"seats = {table.seats}"]
    if table.image_size is not None:
        lines.append(f"image_size = {_fmt(list(table.image_size))}")
    if table.image_to_table is not None:
        lines.append(f"image_to_table = {_fmt(np.round(table.image_to_table, 12))}")
    lines += ["", "[markers]", f"dictionary = {_fmt(table.marker_dict)}", f"size_mm = {_fmt(table.marker_size)}",
              f"ids = {_fmt(list(table.marker_ids))}", f"centres_mm = {_fmt(table.marker_centres)}"]
    for z in table.zones:
        lines += ["", "[[zones]]", f"name = {_fmt(z.name)}", f"kind = {_fmt(z.kind)}", f"seat = {z.seat}",
                  f"polygon = {_fmt(np.round(z.polygon, 3))}"]
    return "\n".join(lines) + "\n"


def write_table(path: Path, table: Table) -> None:
    Path(path).write_text(table_to_toml(table))


def read_table(path: Path) -> Table:
    """Read and check a table file; every problem is a `TableFileError` naming the file and the field."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise TableFileError(f"table file {path} not found (make one with `unotable calibrate SOURCE`)") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise TableFileError(f"table file {path} is not valid TOML: {exc}") from None
    try:
        t = data["table"]
        table = Table(width=float(t["width_mm"]), height=float(t["height_mm"]), seats=int(t["seats"]))
        if "image_to_table" in t:
            h = np.array(t["image_to_table"], np.float64)
            if h.shape != (3, 3) or not np.all(np.isfinite(h)) or abs(np.linalg.det(h)) < 1e-12:
                raise TableFileError(f"{path}: image_to_table must be an invertible 3x3 matrix")
            table.image_to_table = h
        if "image_size" in t:
            table.image_size = (int(t["image_size"][0]), int(t["image_size"][1]))
        m = data.get("markers", {})
        table.marker_dict = str(m.get("dictionary", MARKER_DICT))
        table.marker_size = float(m.get("size_mm", MARKER_SIZE))
        table.marker_ids = tuple(int(i) for i in m.get("ids", MARKER_IDS))
        table.marker_centres = np.array(m.get("centres_mm", marker_centres(table.width, table.height)), np.float64)
        for i, z in enumerate(data.get("zones", [])):
            poly = np.array(z["polygon"], np.float64)
            if poly.ndim != 2 or poly.shape[1] != 2 or len(poly) < 3:
                raise TableFileError(f"{path}: zone {i + 1} ({z.get('name')}) polygon needs 3+ [x, y] points")
            kind = str(z["kind"])
            if kind not in ("draw", "discard", "seat"):
                raise TableFileError(f"{path}: zone {z.get('name')!r} has kind {kind!r}; use draw, discard or seat")
            table.zones.append(Zone(str(z["name"]), kind, poly, int(z.get("seat", -1))))
    except KeyError as exc:
        raise TableFileError(f"{path}: missing field {exc.args[0]!r}") from None
    except (TypeError, ValueError) as exc:
        if isinstance(exc, TableFileError):
            raise
        raise TableFileError(f"{path}: bad value: {exc}") from None
    names = {z.name for z in table.zones}
    for need in ("draw", "discard"):
        if need not in names:
            raise TableFileError(f"{path}: no {need!r} zone")
    seats = sorted(z.seat for z in table.zones if z.kind == "seat")
    if seats != list(range(table.seats)):
        raise TableFileError(f"{path}: seat zones must be seats 0..{table.seats - 1}, found {seats}")
    return table
