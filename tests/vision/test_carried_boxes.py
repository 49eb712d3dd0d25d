"""Which boxes of a carried fan's read are cards: a card boxed again with the palm holding it is not a second card,
while a fan's pair boxed as one keeps what `without_merged` makes of it."""

from __future__ import annotations

import numpy as np

from datasets.gamevideo_draw import FaceBank, Skin, blit_card, draw_hand
from vision.carried_boxes import PALM_RATIO, with_palms
from vision.readers import Seen
from vision.tablefile import CARD_H_MM, default_table


def _box(quads: list[np.ndarray]) -> Seen:
    pts = np.concatenate(quads)
    x0, y0 = pts.min(axis=0)
    x1, y1 = pts.max(axis=0)
    return Seen("back", (float(x0), float(y0), float(x1), float(y1)), 0.9)


def test_a_card_boxed_again_with_the_palm_holding_it_is_no_second_card() -> None:
    """Fresh 59007 of stop 35: a card carried home at the fingertips was boxed, and boxed again from its far edge
    over the palm behind it; two draws of one were read as two. The part of that box beyond the card shows no
    card back's black field (`PALM_DARK`). A fan of two boxed whole beside its top card shows the lower card's
    strip there, and stays (`without_merged` decides what it is)."""
    table = default_table(4)
    table.image_to_table = np.eye(3)
    canvas = np.full((560, 1000, 3), 150, np.uint8)
    bank = FaceBank(np.random.default_rng(5))
    # a card at the fingertips of a hand reaching up the table, the palm behind it (as the renderer holds one)
    card = blit_card(canvas, bank, "back", np.array([650.0, 280.0]), 0.0)
    palm = np.array([650.0, 280.0 + CARD_H_MM / 2 + 32])
    draw_hand(canvas, np.array([650.0, 700.0]), palm, Skin((120, 150, 200), (90, 60, 40)))
    inner = _box([card])
    outer = Seen("back", (inner.box_mm[0] - 2, inner.box_mm[1], inner.box_mm[2] + 2, palm[1] + 40), 0.8)
    assert outer.area >= PALM_RATIO * inner.area
    assert with_palms(canvas, table, [inner, outer]) == [outer]
    # a fan of two at the renderer's pitch and turn: the pair's box beyond the top card is the lower card's strip
    lower = blit_card(canvas, bank, "back", np.array([300.0, 280.0]), -3.0)
    top = blit_card(canvas, bank, "back", np.array([300.0 + 27.0, 280.0]), 3.0)
    pair, top_box = _box([lower, top]), _box([top])
    assert pair.area >= PALM_RATIO * top_box.area
    assert with_palms(canvas, table, [top_box, pair]) == []
    assert with_palms(canvas, table, [inner]) == []
