"""The lower-card crops (`datasets.pairs`): what the discard tracker would cut from a game video, with the truth."""

from __future__ import annotations

import numpy as np
import pytest

from datasets.pairs import _change_mask, _lay_pair, table_samples
from tracker.cards import ALL_CODES
from vision.classifier import CROP
from vision.motion import LOW


def test_a_table_gives_crops_of_the_classifiers_size_labelled_with_real_cards_the_same_for_a_seed() -> None:
    crops, codes = table_samples(5, n=4)
    assert len(crops) == len(codes) == 4
    assert all(c.shape == (CROP, CROP, 3) and c.dtype == np.uint8 for c in crops)
    assert set(codes) <= set(ALL_CODES)
    again, codes2 = table_samples(5, n=4)
    assert codes == codes2
    assert max(float(np.abs(a.astype(int) - b.astype(int)).mean()) for a, b in zip(crops, again, strict=True)) < 1.0
    assert float(np.std(crops[0])) > 10  # a picture of cards, not a blank


def test_the_lower_card_is_fanned_from_the_top_one_as_a_pair_is_laid() -> None:
    rng = np.random.default_rng(0)
    for _ in range(200):
        (lc, la), (tc, ta) = _lay_pair(rng, np.array([500.0, 280.0]))
        shift = float(np.hypot(*(lc - tc)))
        turn = abs((la - ta + 180) % 360 - 180)
        assert 14 <= shift <= 50 and 3 <= turn <= 28


def test_the_change_is_the_union_of_the_cards_grown_on_the_motion_raster() -> None:
    quad = np.array([[100.0, 100.0], [157.0, 100.0], [157.0, 188.0], [100.0, 188.0]])
    m = _change_mask((224, 400), [quad, quad + 30])
    assert m[int(140 * LOW), int(120 * LOW)] and m[int(200 * LOW), int(170 * LOW)]
    assert not m[int(60 * LOW), int(300 * LOW)]
    union_mm2 = 2 * 57 * 88 - (57 - 30) * (88 - 30)
    assert union_mm2 < m.sum() / LOW**2 < 1.4 * union_mm2  # the two overlapping cards, grown a few mm


def test_crops_can_be_cut_larger_for_a_model_that_reads_finer_and_show_the_same_view() -> None:
    """`crop`: the side a lower-card model reads (its JSON says which); the same table at twice the side is the same
    picture, sharper, so a 96-pixel model scored on it (resized) sees what it would have seen."""
    import cv2

    small, codes = table_samples(5, n=3)
    big, codes2 = table_samples(5, n=3, crop=2 * CROP)
    assert codes == codes2 and all(c.shape == (2 * CROP, 2 * CROP, 3) for c in big)
    for s, b in zip(small, big, strict=True):
        down = cv2.resize(b, (CROP, CROP), interpolation=cv2.INTER_AREA).astype(int)
        assert float(np.abs(down - s.astype(int)).mean()) < 6.0


def test_canonical_crops_are_the_same_crops_turned_so_the_lower_card_lies_left() -> None:
    """The canonical set is the plain one turned by quarter-turns (`vision.lower_fit.strip_turns`), crop by crop:
    the same tables, cards and codec, only turned so the lower card lies left of the top one."""
    plain, codes = table_samples(11, n=6)
    turned, codes2 = table_samples(11, n=6, canonical=True)
    assert codes == codes2
    turns = []
    for p, c in zip(plain, turned, strict=True):
        diffs = [float(np.abs(np.rot90(p, k).astype(int) - c.astype(int)).mean()) for k in range(4)]
        assert min(diffs) < 1.0
        turns.append(int(np.argmin(diffs)))
    assert len(set(turns)) > 1  # the table's pairs lie at several angles: not all turned alike


def test_singles_are_one_card_laid_with_a_pairs_change_labelled_no_lower_card() -> None:
    """`singles`: that share of crops hold one card only, cut where a pair's change puts the lower card, and say
    "no lower card" (`NO_LOWER`, the class the tracker reads as none); the rest are pairs as before."""
    from datasets.pairs import NO_LOWER

    crops, codes = table_samples(7, n=6, singles=1.0)
    assert codes == [NO_LOWER] * 6
    assert all(c.shape == (CROP, CROP, 3) and float(np.std(c)) > 10 for c in crops)
    _, mixed = table_samples(7, n=16, singles=0.5)
    assert 0 < mixed.count(NO_LOWER) < 16 and set(mixed) - {NO_LOWER} <= set(ALL_CODES)
    assert NO_LOWER not in table_samples(7, n=16)[1]  # by default every crop is a pair's lower card


def test_identical_sets_the_share_of_pairs_whose_lower_card_is_the_top_card(monkeypatch: pytest.MonkeyPatch) -> None:
    """`identical`: that share of pairs are two identical cards (OL-INTERCEPT's self-interception, CH-PAIR's two
    Skips), the lower card's label then the top card's code; by default one in twenty (`IDENTICAL`)."""
    import datasets.pairs as pairs

    laid: list[str] = []
    real_blit, real_shoot = pairs.blit_card, pairs.Camera.shoot

    def blit(canvas: np.ndarray, bank: object, code: str, *a: object, **kw: object) -> np.ndarray:
        laid.append(code)
        return real_blit(canvas, bank, code, *a, **kw)  # type: ignore[arg-type]

    def shoot(self: object, *a: object, **kw: object) -> np.ndarray:
        laid.append("|")  # one sample laid: its last card is the top one
        return real_shoot(self, *a, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(pairs, "blit_card", blit)
    monkeypatch.setattr(pairs.Camera, "shoot", shoot)

    def tops_and_lowers(**kw: float) -> tuple[list[str], list[str]]:
        laid.clear()
        _, lowers = table_samples(7, n=12, **kw)  # type: ignore[arg-type]
        return [laid[i - 1] for i, c in enumerate(laid) if c == "|"], lowers

    tops, lowers = tops_and_lowers(identical=1.0)
    assert tops == lowers and len(set(tops)) > 1
    tops, lowers = tops_and_lowers(identical=0.0)
    assert sum(t == lo for t, lo in zip(tops, lowers, strict=True)) <= 1  # only by chance, 1 in 54 a pair
    assert pairs.IDENTICAL == 0.05


def test_a_deeper_pile_lies_more_old_cards_around_the_pair() -> None:
    """`pile`: a game's pile holds every card of the hand so far, so a pair may lie on fifteen old cards where the
    default table lays one to six; the crop then shows more card edges around the strip (more of the crop
    differs from the cloth), and the same seed still gives the same samples."""
    shallow, codes = table_samples(5, n=4, pile=(1, 1))
    deep, codes2 = table_samples(5, n=4, pile=(15, 15))
    again, _ = table_samples(5, n=4, pile=(15, 15))
    assert all(np.array_equal(a, b) for a, b in zip(deep, again, strict=True))

    def busy(crop: np.ndarray) -> float:  # the share of the crop's pixels far from its border's colour (the cloth)
        cloth = np.median(np.concatenate([crop[0], crop[-1], crop[:, 0], crop[:, -1]]), axis=0)
        return float((np.abs(crop.astype(int) - cloth).sum(axis=2) > 60).mean())

    assert np.mean([busy(c) for c in deep]) > np.mean([busy(c) for c in shallow])
    with pytest.raises(ValueError, match="fewest <= most"):
        table_samples(5, n=1, pile=(3, 1))
