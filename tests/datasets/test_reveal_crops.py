"""The revealed-card crops (`datasets.reveal_crops`): what the reveal tracker would cut from a game video."""

from __future__ import annotations

import numpy as np

from datasets.reveal_crops import lay_hand, table_samples, visible_boxes
from tracker.cards import ALL_CODES
from vision.classifier import CROP
from vision.tablefile import CARD_H_MM, CARD_W_MM


def test_a_table_gives_labelled_crops_of_the_classifiers_size_the_same_for_a_seed() -> None:
    crops, codes = table_samples(3, frames=2)
    assert len(crops) == len(codes) >= 2
    assert all(c.shape == (CROP, CROP, 3) and c.dtype == np.uint8 for c in crops)
    assert set(codes) <= set(ALL_CODES)
    again, codes2 = table_samples(3, frames=2)
    assert codes == codes2
    assert max(float(np.abs(a.astype(int) - b.astype(int)).mean()) for a, b in zip(crops, again, strict=True)) < 1.0


def test_a_hand_is_laid_in_rows_of_overlapping_cards_in_front_of_the_seat() -> None:
    rng = np.random.default_rng(1)
    edge, inward = np.array([500.0, 560.0]), np.array([0.0, -1.0])  # the bottom seat
    for n in (3, 9, 18):
        cards = lay_hand(rng, n, edge, inward, 0.0)
        assert len(cards) == n
        depth = [float((edge - c)[1]) for c, _ in cards]
        assert 95 <= min(depth) and max(depth) <= 124 + 3 * 48 + 5
        gaps = np.diff([c[0] for c, _ in cards[:3]])
        assert all(20 < abs(g) < CARD_W_MM for g in gaps)  # overlapping, never laid apart


def test_visible_boxes_are_what_later_cards_leave_in_view() -> None:
    w, h = CARD_W_MM, CARD_H_MM
    card = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    quads = [card + [100, 100], card + [130, 100], card + [200, 300], card + [100, 100]]
    vis = visible_boxes(quads, (400, 500))
    assert vis[0] is None  # the same card laid again on top covers it whole
    box, share = vis[1]  # type: ignore[misc]  # the last card covers its left part
    assert np.allclose(box, [100 + w, 100, 130 + w, 100 + h], atol=1) and abs(share - 30 / w) < 0.03
    box, share = vis[3]  # type: ignore[misc]
    assert np.allclose(box, [100, 100, 100 + w, 100 + h], atol=1) and share > 0.99
    assert vis[2] is not None and vis[2][1] > 0.99
