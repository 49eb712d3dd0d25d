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


def test_a_plain_sleeve_stays_foreground_while_its_hand_moves() -> None:
    """An arm from the right edge, its sleeve one flat colour: frame to frame only the hand at its end changes,
    yet the sleeve must not melt into the table (it once did, leaving the hand a blob cut off from its seat)."""
    model, empty = _model()
    model.update(empty, 0.0)
    for k in range(15):
        frame = empty.copy()
        x = 700 - 8 * k  # the hand reaches left a little every frame
        frame[260:300, x + 40:1000] = (60, 160, 60)  # the sleeve, from the table edge
        frame[255:305, x:x + 40] = (120, 150, 210)  # the hand
        model.update(frame, 0.1 * (k + 1))
    assert len(model.hands) == 1
    sleeve = np.zeros_like(model.fg)
    sleeve[int(265 * LOW):int(295 * LOW), int(900 * LOW):int(990 * LOW)] = True
    assert (model.fg & sleeve).sum() > 0.9 * sleeve.sum()
    assert model.hands[0].tip[0] < 600  # the hand's tip, joined to its arm
