"""Scenes are labelled consistently, builds are reproducible, and the CLI writes a YOLO data set."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from datasets.export import CLASS_NAMES, build_dataset
from datasets.faces import BACK
from datasets.scenes import render_scene
from tracker.cards import ALL_CODES
from unotable.cli import main


@pytest.mark.parametrize("kind", ["table", "closeup"])
def test_scene_labels_lie_inside_the_image(kind: str) -> None:
    for seed in range(4):
        scene = render_scene(np.random.default_rng(seed), ALL_CODES, kind=kind)
        h, w = scene.image.shape[:2]
        assert scene.codes, "every scene shows at least one whole card"
        for code, (x1, y1, x2, y2) in zip(scene.codes, scene.boxes, strict=True):
            assert code in ALL_CODES or code == BACK
            assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h
            assert (x2 - x1) > 8 and (y2 - y1) > 8


def test_table_scenes_show_backs_and_faces() -> None:
    codes = [c for s in range(6) for c in render_scene(np.random.default_rng(s), ALL_CODES, kind="table").codes]
    assert BACK in codes
    assert any(c != BACK for c in codes)


def test_closeup_card_is_big() -> None:
    scene = render_scene(np.random.default_rng(11), ("red-7",), kind="closeup")
    h, w = scene.image.shape[:2]
    areas = [(b[2] - b[0]) * (b[3] - b[1]) for b in scene.boxes]
    assert max(areas) > 0.05 * h * w


def test_unknown_kind_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown scene kind"):
        render_scene(np.random.default_rng(0), ALL_CODES, kind="underwater")


def test_build_is_reproducible_and_in_yolo_format(tmp_path: Path) -> None:
    a = build_dataset(tmp_path / "a", 6, seed=5, val_fraction=0.34, workers=1)
    build_dataset(tmp_path / "b", 6, seed=5, val_fraction=0.34, workers=1)
    assert "nc: 55" in a.read_text() and "54: back" in a.read_text()
    la = sorted((tmp_path / "a" / "labels").rglob("*.txt"))
    lb = sorted((tmp_path / "b" / "labels").rglob("*.txt"))
    assert [p.name for p in la] == [p.name for p in lb] and len(la) == 6
    assert len(list((tmp_path / "a" / "images" / "val").glob("*.jpg"))) == 2
    for pa, pb in zip(la, lb, strict=True):
        assert pa.read_text() == pb.read_text()
        for line in pa.read_text().splitlines():
            cls, *xywh = line.split()
            assert 0 <= int(cls) < len(CLASS_NAMES)
            assert all(0.0 <= float(v) <= 1.0 for v in xywh)


def test_cli_build_and_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dataset", "build", "--out", str(tmp_path / "d"), "--images", "3", "--seed", "1",
                 "--workers", "1"]) == 0
    assert (tmp_path / "d" / "data.yaml").exists()
    assert main(["dataset", "build", "--out", str(tmp_path / "e"), "--images", "0"]) == 2
    assert "--images must be at least 1" in capsys.readouterr().err


def test_visibility_files_list_every_card_and_labels_keep_the_visible_ones(tmp_path: Path) -> None:
    from datasets.export import LABEL_MIN_VISIBLE

    build_dataset(tmp_path / "d", 4, seed=7, val_fraction=0.0, workers=1, kind="table")
    hidden = 0
    for vis_file in sorted((tmp_path / "d" / "visibility" / "train").glob("*.txt")):
        rows = [line.split() for line in vis_file.read_text().splitlines()]
        labels = (tmp_path / "d" / "labels" / "train" / vis_file.name).read_text().splitlines()
        kept = [" ".join(r[:5]) for r in rows if float(r[5]) >= LABEL_MIN_VISIBLE]
        assert labels == kept  # the label file is the visibility file's rows above the threshold, in order
        assert all(0.0 < float(r[5]) <= 1.0 for r in rows)
        hidden += sum(float(r[5]) < LABEL_MIN_VISIBLE for r in rows)
    assert hidden > 0  # table scenes do hide cards under others


def test_render_scene_reports_visibility() -> None:
    scene = render_scene(np.random.default_rng(4), ALL_CODES, kind="table", min_visible=0.0)
    assert len(scene.visible) == len(scene.codes) == len(scene.boxes)
    clear = render_scene(np.random.default_rng(4), ALL_CODES, kind="table", min_visible=0.9)
    assert sorted(clear.codes) == sorted(c for c, v in zip(scene.codes, scene.visible, strict=True) if v >= 0.9)


def test_a_fanned_pair_shows_the_lower_card_as_a_labelled_strip() -> None:
    """Cards laid together (CH-PAIR, OL-INTERCEPT) fan: the lower one shows partly, enough to be labelled and named
    (`datasets.scenes._fanned_pair`), and the top one shows whole."""
    from datasets.faces import render_face
    from datasets.scenes import _Canvas, _fanned_pair

    strips = 0
    for seed in range(12):
        rng = np.random.default_rng(seed)
        cv = _Canvas(np.full((480, 640, 3), 90, np.uint8))
        faces = iter([render_face(c, rng, "classic") for c in ("red-6", "blue-skip", "green-2")])
        _fanned_pair(cv, rng, np.array([320.0, 240.0]), 120.0, faces.__next__)
        assert cv.codes[:2] == ["red-6", "blue-skip"]
        shown = np.bincount(cv.owner.ravel(), minlength=len(cv.codes) + 1)[1:]
        areas = [float(np.hypot(*(q[1] - q[0])) * np.hypot(*(q[3] - q[0]))) for q in cv.quads]
        share = shown / np.array(areas)
        assert share[-1] > 0.97, "the top card shows whole"
        assert 0.1 < share[0] < 0.9, f"the lower card shows as a strip, not {share[0]:.2f} of it"
        strips += share[0] >= 0.3  # labelled (`datasets.export.LABEL_MIN_VISIBLE`)
    assert strips >= 9
