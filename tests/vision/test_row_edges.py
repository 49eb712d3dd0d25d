"""A revealed row counted from the picture (`vision.row_edges`): rows of rendered card faces, overlapping at a
pitch, on cloth; the comb of their edges gives the count."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from datasets.faces import render_face
from vision.row_edges import PROFILE_SCALE, count_row, edge_profile
from vision.tablefile import CARD_H_MM, CARD_W_MM

CODES = ("red-3", "yellow-7", "blue-skip", "green-reverse", "wild", "red-draw2", "yellow-0", "blue-9", "green-5",
         "wild-draw4", "red-1", "yellow-skip")
PAD = 8.0


def laid_row(n: int, pitch: float, right_on_top: bool = False, seed: int = 0, cloth: tuple[int, int, int] = (60, 110, 50),
             noise: float = 4.0, turn: float = 0.0) -> tuple[np.ndarray, float, float]:
    """A seat-frame crop (columns along u, `PROFILE_SCALE` px/mm, from u = -PAD) of `n` faces laid left to right
    at `pitch` (each on the one before unless `right_on_top`, then the other way), and the row's two ends."""
    rng = np.random.default_rng(seed)
    span = (n - 1) * pitch + CARD_W_MM
    w, h = int(round((span + 2 * PAD) * PROFILE_SCALE)), int(round(CARD_H_MM * PROFILE_SCALE))
    img = np.empty((h, w, 3), np.float32)
    img[:] = cloth
    cw, ch = int(round(CARD_W_MM * PROFILE_SCALE)), h
    order = range(n) if right_on_top else range(n - 1, -1, -1)  # later cards lie on earlier ones
    for i in order:
        face = render_face(CODES[(i + seed) % len(CODES)], rng)
        card = cv2.resize(face.image, (cw, ch), interpolation=cv2.INTER_AREA).astype(np.float32)
        alpha = cv2.resize(face.alpha, (cw, ch), interpolation=cv2.INTER_AREA)[..., None]
        x = int(round((PAD + i * pitch) * PROFILE_SCALE))
        if turn:
            m = cv2.getRotationMatrix2D((cw / 2, ch / 2), turn * (1 if i % 2 else -1), 1.0)
            card = cv2.warpAffine(card, m, (cw, ch))
            alpha = cv2.warpAffine(alpha[..., 0], m, (cw, ch))[..., None]
        region = img[:, x:x + cw]
        region[:] = region * (1 - alpha[:, :region.shape[1]]) + card[:, :region.shape[1]] * alpha[:, :region.shape[1]]
    img += rng.normal(0, noise, img.shape)
    crop = cv2.GaussianBlur(np.clip(img, 0, 255).astype(np.uint8), (0, 0), 1.2)
    return crop, 0.0, span


@pytest.mark.parametrize("n, pitch, right_on_top", [
    (7, 32.0, False),   # a first row as a player lays it
    (7, 32.0, True),    # laid the other way: each card's left edge shows
    (3, 30.0, False),   # a short lone row
    (8, 22.0, False),   # a tight row: 22 mm strips
    (5, 45.0, True),    # a loose row
    (2, 34.0, False),   # two cards
])
def test_a_rows_cards_are_counted_from_its_edges(n: int, pitch: float, right_on_top: bool) -> None:
    crop, left, right = laid_row(n, pitch, right_on_top, seed=n)
    comb = count_row(edge_profile(crop), -PAD, left, right)
    assert comb is not None
    assert comb.n == n
    assert comb.pitch == pytest.approx(pitch, abs=3.5)  # a border's inner edge lies 3 mm in from its outer
    assert comb.shown == ("left" if right_on_top else "right")


def test_cards_turned_a_little_are_still_counted() -> None:
    """A player's cards lie a degree or so off square: each edge moves 1-2 mm down the row."""
    crop, left, right = laid_row(6, 31.0, seed=3, turn=1.0)
    comb = count_row(edge_profile(crop), -PAD, left, right)
    assert comb is not None and comb.n == 6


def test_the_count_does_not_hang_on_the_cloth() -> None:
    """A light cloth (little contrast with the cards' white border) and a dark one count alike."""
    for cloth in ((200, 205, 210), (30, 30, 35), (40, 40, 150)):
        crop, left, right = laid_row(6, 33.0, seed=5, cloth=cloth)
        comb = count_row(edge_profile(crop), -PAD, left, right)
        assert comb is not None and comb.n == 6, cloth


def test_no_comb_on_plain_cloth_or_cards_laid_apart() -> None:
    """Nothing is counted where nothing overlaps: plain cloth has no edges; cards laid apart (their pitch over a
    card's width) leave gaps of cloth, and no comb of an overlapping row fits their edges."""
    rng = np.random.default_rng(1)
    cloth = np.clip(rng.normal(90, 4, (348, 900, 3)), 0, 255).astype(np.uint8)
    assert count_row(edge_profile(cloth), -PAD, 0.0, 200.0) is None
    crop, left, right = laid_row(3, CARD_W_MM + 12.0, seed=2)
    comb = count_row(edge_profile(crop), -PAD, left, right)
    assert comb is None or comb.n <= 3


def test_visible_parts_and_the_card_a_box_holds() -> None:
    crop, left, right = laid_row(5, 30.0, seed=4)
    comb = count_row(edge_profile(crop), -PAD, left, right)
    assert comb is not None and comb.n == 5
    assert comb.visible(0) == pytest.approx((0.0, CARD_W_MM), abs=3.5)  # the top card shows whole
    assert comb.visible(2)[1] - comb.visible(2)[0] == pytest.approx(30.0, abs=1.5)  # the others a pitch
    # a detector's box of card 2's strip: its shown (right) edge, reaching 10 mm under the card on it
    u1 = CARD_W_MM + 2 * 30.0
    assert comb.card_of((u1 - 40.0, u1 + 1.0, 0.0, 87.0)) == 2
    assert comb.card_of((u1 + 200.0, u1 + 260.0, 0.0, 87.0)) is None


@pytest.mark.parametrize("n, pitch, right_on_top", [
    (7, 32.0, False),   # fresh 87012 of stop 42: a second row of seven, its far box 5.7 mm past the last edge
    (7, 32.0, True),
    (8, 22.0, False),
    (9, 28.0, False),
])
def test_a_far_end_box_past_its_card_is_counted_with_the_end_free(n: int, pitch: float, right_on_top: bool) -> None:
    """The far end's box overshoots its card's edge by 5.7 mm: the comb hung on it misses its last inner edge and
    counts nothing; with the far end free (`FAR_END_SLACK_MM`, every tooth checked) the row is counted, and a row
    whose ends are right is counted the same either way."""
    from vision.row_edges import FAR_END_SLACK_MM

    crop, left, right = laid_row(n, pitch, right_on_top, seed=11)
    profile = edge_profile(crop)
    if right_on_top:  # the far end is the left one: the first-laid card lies at the right
        left -= 5.7
    else:
        right += 5.7
    assert count_row(profile, -PAD, left, right) is None
    comb = count_row(profile, -PAD, left, right, end_slack=FAR_END_SLACK_MM)
    assert comb is not None and comb.n == n
    crop, left, right = laid_row(n, pitch, right_on_top, seed=11)
    exact = count_row(edge_profile(crop), -PAD, left, right, end_slack=FAR_END_SLACK_MM)
    assert exact is not None and exact.n == n
