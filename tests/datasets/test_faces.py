"""The face renderer draws every card, with variation, and refuses unknown codes."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from datasets.faces import BACK, CARD_H, CARD_W, OVAL_AS_PRINTED, render_face
from tracker.cards import ALL_CODES


@pytest.mark.parametrize("code", [*ALL_CODES, BACK])
def test_every_face_renders(code: str) -> None:
    face = render_face(code, np.random.default_rng(0))
    assert face.image.shape == (CARD_H, CARD_W, 3)
    assert face.image.dtype == np.uint8
    assert face.alpha.shape == (CARD_H, CARD_W)
    # rounded corners: the very corner pixel is transparent, the centre opaque
    assert face.alpha[0, 0] < 0.5 and face.alpha[CARD_H // 2, CARD_W // 2] == 1.0


def test_colour_family_is_kept() -> None:
    """Jitter changes the shade, never the colour: a red card's face is dominated by red."""
    for seed in range(5):
        img = render_face("red-5", np.random.default_rng(seed), style="classic").image.astype(int)
        corner = img[int(CARD_H * 0.5), int(CARD_W * 0.1)]  # coloured face left of the oval
        assert corner[2] > corner[1] + 60 and corner[2] > corner[0] + 60


def test_faces_vary_between_draws() -> None:
    a = render_face("blue-7", np.random.default_rng(1)).image
    b = render_face("blue-7", np.random.default_rng(2)).image
    assert np.abs(a.astype(int) - b.astype(int)).mean() > 3


def test_oval_can_lean_right_as_printed() -> None:
    """Drawn as printed (`OVAL_AS_PRINTED`), the deck's white oval runs from the top right to the bottom left (the real photos), so the corner indices,
    top left and bottom right, sit on the colour: the upper right and the lower left of the face are white."""
    for seed in range(5):
        img = render_face("blue-2", np.random.default_rng(seed), style="classic", lean=OVAL_AS_PRINTED).image.astype(int)
        upper_right, upper_left = img[int(CARD_H * 0.25), int(CARD_W * 0.75)], img[int(CARD_H * 0.25), int(CARD_W * 0.2)]
        assert upper_right.min() > 180  # white
        assert upper_left[0] > upper_left[2] + 60  # blue


def test_hooked_reverse_is_an_s_on_the_diagonal() -> None:
    """The classic deck's Reverse (`_hooked_reverse`): two arrows on the rising diagonal, parted by a thin gap.

    Why: real Reverses were read as 4s; the print must be the real one, heads upper right and lower left."""
    from datasets.faces import _hooked_reverse

    for seed in range(5):
        m = _hooked_reverse(200, np.random.default_rng(seed)) > 127
        ys, xs = np.nonzero(m)
        # ink on the rising diagonal: the upper right and lower left quarters hold more than the other two
        up_right = np.sum((xs > 100) & (ys < 100)) + np.sum((xs < 100) & (ys > 100))
        assert up_right > 1.5 * (m.sum() - up_right)
        n, _ = cv2.connectedComponents(m.astype(np.uint8))
        assert n - 1 == 2  # two arrows, not one blob: the caller's outline draws the gap between them black


def test_six_and_nine_differ() -> None:
    rng = np.random.default_rng(3)
    six = render_face("green-6", np.random.default_rng(3), style="classic").image
    nine = render_face("green-9", np.random.default_rng(3), style="classic").image
    assert rng is not None and np.abs(six.astype(int) - nine.astype(int)).mean() > 1


def test_unknown_code_and_style_are_rejected() -> None:
    with pytest.raises(ValueError, match="unknown card code"):
        render_face("purple-3", np.random.default_rng(0))
    with pytest.raises(ValueError, match="print style"):
        render_face("red-3", np.random.default_rng(0), style="gothic")


def test_truetype_faces_are_found_and_used() -> None:
    """matplotlib's bundled bold faces are there (a dependency), and indices drawn with them are real glyphs."""
    from datasets.faces import _index_mask, ttf_paths

    paths = ttf_paths()
    assert len(paths) >= 4, f"bundled TrueType faces missing: {paths}"
    rng = np.random.default_rng(0)
    three = _index_mask("3", 60, rng, paths[0], 0.16, 0.1)
    five = _index_mask("5", 60, rng, paths[0], 0.16, 0.1)
    assert three.shape[0] >= 55 and five.shape[0] >= 55  # scaled to the asked height
    a = cv2.resize(three, (40, 60)) > 127
    b = cv2.resize(five, (40, 60)) > 127
    assert (a ^ b).mean() > 0.1, "a 3 and a 5 drawn from a TrueType face look the same"


def test_deck_one_has_a_flag_and_no_foot() -> None:
    """The deck's 1: ink at the top left (the flag) and none at the bottom left (no foot)."""
    from datasets.faces import _deck_one

    m = _deck_one(80, np.random.default_rng(1), 0.16)
    h, w = m.shape
    assert m[int(h * 0.15) : int(h * 0.3), : w // 3].max() > 0
    assert m[int(h * 0.85) :, : w // 3].max() == 0
