"""Table calibration: four ArUco markers at the table's corners give the homography image -> table plane.

Why markers: a referee cannot be asked to measure the camera's pose; four printed markers taped at the corners are
found in any frame, and their 16 corners give a least-squares homography that is robust to one marker being a
little off. When the markers can't be found (covered, bad light) the four table corners can be given by hand.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.tablefile import (
    MARKER_DICT,
    MARKER_IDS,
    MARKER_SIZE,
    Table,
    TableFileError,
    default_table,
    marker_corners_mm,
)


class CalibrationError(RuntimeError):
    """The markers (or the manual corners) do not give a usable homography."""


def aruco_dictionary(name: str = MARKER_DICT) -> cv2.aruco.Dictionary:
    if not hasattr(cv2.aruco, name):
        raise CalibrationError(f"unknown ArUco dictionary {name!r}")
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))


def marker_image(marker_id: int, pixels: int = 200, border_bits: int = 1, name: str = MARKER_DICT) -> np.ndarray:
    """The marker `marker_id` as a grey uint8 image of `pixels` square (black bits, no white margin)."""
    return cv2.aruco.generateImageMarker(aruco_dictionary(name), marker_id, pixels, borderBits=border_bits)


def find_markers(image: np.ndarray, name: str = MARKER_DICT) -> dict[int, np.ndarray]:
    """Marker id -> its four corners (TL, TR, BR, BL) in image pixels, for every marker found."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    det = cv2.aruco.ArucoDetector(aruco_dictionary(name), params)
    out: dict[int, np.ndarray] = {}
    # a dim or noisy frame: try again with the contrast stretched and the noise smoothed
    for img in (grey, cv2.equalizeHist(grey), cv2.GaussianBlur(cv2.equalizeHist(grey), (3, 3), 0)):
        corners, ids, _ = det.detectMarkers(img)
        if ids is not None:
            for c, i in zip(corners, ids.ravel(), strict=False):
                out.setdefault(int(i), c.reshape(4, 2).astype(np.float64))
        if len(out) >= 4:
            break
    return out


def homography_from_markers(found: dict[int, np.ndarray], table: Table) -> np.ndarray:
    """Least-squares homography image -> table from every corner of the table's markers that was found."""
    src, dst = [], []
    for mid, centre in zip(table.marker_ids, table.marker_centres, strict=False):
        if mid in found:
            src.append(found[mid])
            dst.append(marker_corners_mm(centre, table.marker_size))
    if len(src) < 2:
        ids = sorted(found)
        raise CalibrationError(
            f"found {len(src)} of the table's 4 markers {list(table.marker_ids)} (seen ids: {ids or 'none'}); "
            "need at least 2 — check light and focus, or give the corners with --corners")
    h, _ = cv2.findHomography(np.concatenate(src), np.concatenate(dst), 0)
    if h is None:
        raise CalibrationError("the markers found do not give a homography (are they all on one line?)")
    return h


def homography_from_corners(corners: np.ndarray, table: Table) -> np.ndarray:
    """Manual fallback: the image positions of the table's four corners TL, TR, BR, BL."""
    corners = np.asarray(corners, np.float64).reshape(-1, 2)
    if corners.shape != (4, 2):
        raise CalibrationError("give exactly four corners x1,y1,x2,y2,x3,y3,x4,y4 (TL, TR, BR, BL)")
    dst = np.array([[0, 0], [table.width, 0], [table.width, table.height], [0, table.height]], np.float64)
    h = cv2.getPerspectiveTransform(corners.astype(np.float32), dst.astype(np.float32))
    if abs(np.linalg.det(h)) < 1e-12:
        raise CalibrationError("the four corners are degenerate (three on a line?)")
    return h


def calibrate_image(image: np.ndarray, seats: int = 4, corners: np.ndarray | None = None) -> Table:
    """A calibrated `Table` with the default zones for `seats`, from markers or from manual corners."""
    table = default_table(seats)
    if corners is not None:
        table.image_to_table = homography_from_corners(corners, table)
    else:
        table.image_to_table = homography_from_markers(find_markers(image, table.marker_dict), table)
    table.image_size = (int(image.shape[1]), int(image.shape[0]))
    check_homography(table)
    return table


def check_homography(table: Table) -> None:
    """Refuse a homography that folds the table (corners out of order) — a sign of a wrong marker."""
    try:
        t2i = table.table_to_image
    except TableFileError as exc:
        raise CalibrationError(str(exc)) from None
    quad = np.array([[0, 0], [table.width, 0], [table.width, table.height], [0, table.height]], np.float64)
    img = cv2.perspectiveTransform(quad[None], t2i)[0]
    area = cv2.contourArea(img.astype(np.float32), oriented=True)
    if abs(area) < 1000:
        raise CalibrationError("the calibrated table covers almost nothing of the image")
    if not cv2.isContourConvex(img.astype(np.float32)):
        raise CalibrationError("the calibrated table is not convex in the image: a marker is misplaced")


def draw_zones(image: np.ndarray, table: Table, thickness: int = 2) -> np.ndarray:
    """A copy of `image` with the table outline and its zones drawn (the calibration preview)."""
    out = image.copy()
    t2i = table.table_to_image
    colours = {"draw": (255, 160, 0), "discard": (0, 200, 255), "seat": (80, 220, 80)}
    outline = np.array([[0, 0], [table.width, 0], [table.width, table.height], [0, table.height]], np.float64)
    pts = cv2.perspectiveTransform(outline[None], t2i)[0]
    cv2.polylines(out, [np.round(pts).astype(np.int32)], True, (255, 255, 255), thickness, cv2.LINE_AA)
    for z in table.zones:
        pts = cv2.perspectiveTransform(z.polygon[None].astype(np.float64), t2i)[0]
        c = colours.get(z.kind, (200, 200, 200))
        cv2.polylines(out, [np.round(pts).astype(np.int32)], True, c, thickness, cv2.LINE_AA)
        cx, cy = pts.mean(axis=0)
        cv2.putText(out, z.name, (int(cx) - 25, int(cy)), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 3, cv2.LINE_AA)
        cv2.putText(out, z.name, (int(cx) - 25, int(cy)), cv2.FONT_HERSHEY_SIMPLEX, 0.6, c, 1, cv2.LINE_AA)
    return out


def write_marker_sheets(out_dir: Path, size_mm: float = MARKER_SIZE, dpi: int = 300) -> list[Path]:
    """The four corner markers as PNGs (and one A4 PDF page with all four at true size) for a real rig."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    px = int(round(size_mm / 25.4 * dpi))
    written: list[Path] = []
    names = ("top-left", "top-right", "bottom-right", "bottom-left")
    tiles = []
    for mid, where in zip(MARKER_IDS, names, strict=False):
        img = marker_image(mid, px)
        img = cv2.copyMakeBorder(img, px // 5, px // 5, px // 5, px // 5, cv2.BORDER_CONSTANT, value=255)
        cv2.putText(img, f"id {mid} {where}", (4, img.shape[0] - 8), cv2.FONT_HERSHEY_SIMPLEX, px / 400, 0, 1)
        p = out_dir / f"marker_{mid}_{where}.png"
        cv2.imwrite(str(p), img)
        written.append(p)
        tiles.append(img)
    try:
        from PIL import Image

        a4 = Image.new("L", (int(8.27 * dpi), int(11.69 * dpi)), 255)
        for k, tile in enumerate(tiles):
            x = int(dpi * 0.8) + (k % 2) * int(dpi * 3.5)
            y = int(dpi * 0.8) + (k // 2) * int(dpi * 3.5)
            a4.paste(Image.fromarray(tile), (x, y))
        pdf = out_dir / "markers_a4.pdf"
        a4.save(pdf, "PDF", resolution=float(dpi))
        written.append(pdf)
    except ImportError:  # Pillow comes with matplotlib/ultralytics; PNGs are enough without it
        pass
    return written
