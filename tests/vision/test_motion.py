"""The foreground model: what stands still is absorbed into the background, unless a candidate holds it; a hold
given up lets it be absorbed again (a hold never released kept a ghost in the foreground for good)."""

from __future__ import annotations

import numpy as np

from vision.motion import LOW, ForegroundModel
from vision.tablefile import default_table


def _model() -> tuple[ForegroundModel, np.ndarray]:
    table = default_table(4)
    table.image_to_table = np.eye(3)  # one image pixel per table millimetre
    model = ForegroundModel(table, absorb_frames=5)
    empty = np.full((int(table.height), int(table.width), 3), 90, np.uint8)
    return model, empty


def _with_patch(empty: np.ndarray) -> np.ndarray:
    frame = empty.copy()
    frame[200:300, 560:640] = (30, 200, 230)  # a yellow card on the discard pile
    return frame


def _patch_mask(model: ForegroundModel) -> np.ndarray:
    m = np.zeros((model.raster.h, model.raster.w), bool)
    m[int(200 * LOW):int(300 * LOW), int(560 * LOW):int(640 * LOW)] = True
    return m


def test_a_still_change_is_absorbed() -> None:
    model, empty = _model()
    model.update(empty, 0.0)
    for k in range(12):
        model.update(_with_patch(empty), 0.1 * (k + 1))
    assert not model.fg.any()


def test_a_held_change_stays_until_released_then_is_absorbed() -> None:
    model, empty = _model()
    model.update(empty, 0.0)
    frame = _with_patch(empty)
    model.update(frame, 0.1)
    model.hold_mask(_patch_mask(model))
    for k in range(12):
        model.update(frame, 0.2 + 0.1 * k)
    assert (model.fg & _patch_mask(model)).sum() > 0.5 * _patch_mask(model).sum()  # held: still foreground
    model.release(_patch_mask(model))
    for k in range(12):
        model.update(frame, 1.5 + 0.1 * k)
    assert not model.fg.any()
