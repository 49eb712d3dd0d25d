"""Table files and calibration: TOML round trip, clear errors, markers found in a rendered frame."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.calibration import CalibrationError, calibrate_image, draw_zones, write_marker_sheets
from vision.tablefile import TableFileError, default_table, read_table, write_table


def _frame(seed: int = 3, seats: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """A rendered frame of an empty table and the true table->image homography."""
    from datasets.gamevideo_draw import Camera, table_plane

    rng = np.random.default_rng(seed)
    table = default_table(seats)
    plane = table_plane(rng, table)
    cam = Camera(rng, table)
    return cam.shoot(plane, 0, 0.0), cam.table_to_image


@pytest.mark.parametrize("seats", [4, 6])
def test_markers_give_the_true_homography(seats: int) -> None:
    img, t2i = _frame(seats + 1, seats)
    table = calibrate_image(img, seats)
    pts = np.array([[[500.0, 280.0], [60.0, 60.0], [940.0, 500.0]]])
    got = cv2.perspectiveTransform(pts, table.table_to_image)
    want = cv2.perspectiveTransform(pts, t2i)
    assert np.abs(got - want).max() < 2.0  # pixels
    assert len(table.seat_zones()) == seats


def test_manual_corners_and_missing_markers() -> None:
    blank = np.full((540, 960, 3), 128, np.uint8)
    with pytest.raises(CalibrationError, match="found 0 of the table's 4 markers"):
        calibrate_image(blank, 4)
    t = calibrate_image(blank, 4, corners=np.array([[10, 10], [950, 20], [940, 530], [20, 520]]))
    corner = cv2.perspectiveTransform(np.array([[[1000.0, 560.0]]]), t.table_to_image)[0, 0]
    assert np.allclose(corner, [940, 530], atol=1e-3)
    with pytest.raises(CalibrationError):
        calibrate_image(blank, 4, corners=np.array([[0, 0], [1, 1], [2, 2], [3, 3]]))


def test_table_file_round_trip_and_errors(tmp_path: Path) -> None:
    img, _ = _frame()
    table = calibrate_image(img, 4)
    p = tmp_path / "table.toml"
    write_table(p, table)
    back = read_table(p)
    assert np.allclose(back.image_to_table, table.image_to_table)
    assert [z.name for z in back.zones] == [z.name for z in table.zones]
    assert np.allclose(back.discard.polygon, table.discard.polygon)
    preview = draw_zones(img, back)
    assert preview.shape == img.shape and not np.array_equal(preview, img)
    with pytest.raises(TableFileError, match="not found"):
        read_table(tmp_path / "missing.toml")
    (tmp_path / "bad.toml").write_text("[table\n")
    with pytest.raises(TableFileError, match="not valid TOML"):
        read_table(tmp_path / "bad.toml")
    text = p.read_text().replace('name = "discard"', 'name = "pile"')
    (tmp_path / "nodiscard.toml").write_text(text)
    with pytest.raises(TableFileError, match="no 'discard' zone"):
        read_table(tmp_path / "nodiscard.toml")
    (tmp_path / "noseats.toml").write_text(p.read_text().replace("seats = 4", "seats = 5"))
    with pytest.raises(TableFileError, match="seat zones must be seats 0..4"):
        read_table(tmp_path / "noseats.toml")


def test_marker_sheets_are_detectable(tmp_path: Path) -> None:
    paths = write_marker_sheets(tmp_path)
    pngs = [p for p in paths if p.suffix == ".png"]
    assert len(pngs) == 4
    from vision.calibration import find_markers

    for i, p in enumerate(sorted(pngs, key=lambda q: q.name)):
        found = find_markers(cv2.imread(str(p)))
        assert list(found) == [i]


def test_calibrate_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from unotable.cli import main

    img, _ = _frame()
    folder = tmp_path / "frames"
    folder.mkdir()
    cv2.imwrite(str(folder / "0001.png"), img)
    out = tmp_path / "t.toml"
    assert main(["calibrate", str(folder), "--out", str(out)]) == 0
    res = json.loads(capsys.readouterr().out)
    assert Path(res["preview"]).exists() and read_table(out).image_to_table is not None
    assert main(["calibrate", str(tmp_path / "nope.mp4"), "--out", str(out)]) == 2
    assert "not" in capsys.readouterr().err
