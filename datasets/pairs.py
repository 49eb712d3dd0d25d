"""Crops of a pair's lower card as the discard tracker sees them, for the lower-card classifier.

Why a set of its own: two cards laid together and fanned leave the lower one showing as a strip a third to a half
of a card wide, and in a 960x540 table video its name is a corner index 7-9 pixels tall. The crop classifier
learnt whole and half-hidden cards in still scenes; here the crop is cut where `vision.lower_fit.fit_lower_box`
puts the lower card (the top card's box slid to explain the change), from a frame that went through the same
camera, the same video codec and the same rectification as a game video's, so the model learns exactly the
input it will be asked about.

Each sample: a table plane (`datasets.gamevideo_draw`) with an old pile of one to six cards, a pair laid on it
(the lower card shifted 14-38 mm along the top card's width, or, a quarter of the time, 20-50 mm along its
height, to either side, and turned 3-28 degrees either way), shot by a random camera, encoded to MPEG-4 with
the other samples of its table and read back, rectified at the tracker's scale; the change is the union of the
two cards' outlines on the motion raster, grown as the tracker grows it; the top card's box is jittered as a
detector's box is. The label is the lower card's code. One pair in twenty is two identical cards (`IDENTICAL`),
or the share given as `identical`.

With `singles`, that share of the samples lay one card only, and the change is still that of a pair: the card's
outline and a phantom lower card's where the pair's would be. Their label is "back", which the tracker reads as
"no lower card to name". Why: a single card whose change spreads past its outline (a hand's shadow, the pile
nudged) reaches the lower-card model too, and a model that has only seen pairs names an old card of the pile
there. Traced on 52 tuning games (sets 25000-29000, their table files): 224 of the 373 frames on which the model
was asked showed a single card, and on 8 of them (4 plays) the single was taken for a pair.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from datasets.gamevideo_draw import Camera, FaceBank, blit_card, card_corners, table_plane
from tracker.cards import ALL_CODES
from vision.classifier import CROP, square_crops
from vision.lower_fit import fit_lower_box, strip_turns
from vision.motion import LOW
from vision.readers import rectify
from vision.tablefile import default_table

SCALE = 1.5
"""Pixels per mm of the rectified crop (`vision.discard.DiscardTracker`'s scale)."""
PAD = 12.0
"""mm added around the discard zone (`vision.discard.ZoneCandidates`'s pad)."""
PUSH = (0.3, 0.7)
"""The crop is pushed this share of the shift further from the top card, towards the strip that shows (the
tracker reads at `vision.lower_fit.LOWER_PUSH`)."""
PER_TABLE = 16
"""Samples drawn on one table (one camera, one deck, one cloth)."""
PILE = (1, 6)
"""How many old cards lie under a pair (fewest, most), unless `build` is given `pile`. A game's pile holds every
card of the hand so far; `(1, 15)` draws piles as deep as the games' (`datasets.gamevideo_plan` lays each play
this spread around the pile's centre)."""
PILE_SPREAD_MM = 14.0
"""The old cards lie this far (mm, one standard deviation) around the pile's centre; a game's plays lie 16 mm,
clipped at 32 (`datasets.gamevideo_plan`)."""


@dataclass
class LowerCrops:
    crops: np.ndarray  # (N, CROP, CROP, 3) uint8 BGR
    labels: np.ndarray  # (N,) class index into `names`
    names: tuple[str, ...]


def _change_mask(shape: tuple[int, int], quads: list[np.ndarray]) -> np.ndarray:
    """The motion raster's change for cards laid at `quads` (table mm), grown as `ZoneCandidates.step` grows it."""
    m = np.zeros(shape, np.uint8)
    for q in quads:
        cv2.fillPoly(m, [np.round(q * LOW).astype(np.int32)], 1)
    return cv2.dilate(m, np.ones((5, 5), np.uint8)) > 0


def _lay_pair(rng: np.random.Generator, centre: np.ndarray) -> tuple[tuple[np.ndarray, float], tuple[np.ndarray, float]]:
    """((lower centre, angle), (top centre, angle)) of a fanned pair near `centre`."""
    base = centre + np.clip(rng.normal(0, 16, 2), -32, 32)
    ang = float(rng.uniform(0, 360))
    r = np.radians(ang)
    if rng.random() < 0.75:
        axis, d = np.array([np.cos(r), np.sin(r)]), rng.uniform(14, 38)
    else:
        axis, d = np.array([-np.sin(r), np.cos(r)]), rng.uniform(20, 50)
    d *= rng.choice([-1.0, 1.0])
    turn = float(rng.uniform(3, 28) * rng.choice([-1.0, 1.0]))
    return (base - axis * d, ang + turn), (base, ang)


def through_codec(frames: list[np.ndarray], fps: float = 30.0) -> list[np.ndarray]:
    """The frames as a game video stores them: MPEG-4 Part 2 (`mp4v`), as `datasets.gamevideo` writes."""
    h, w = frames[0].shape[:2]
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "pairs.mp4")
        writer = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*"mp4v"), fps, (w, h))
        for f in frames:
            writer.write(f)
        writer.release()
        cap = cv2.VideoCapture(path)
        out = []
        for _ in frames:
            ok, f = cap.read()
            if not ok:
                break
            out.append(f)
        cap.release()
    if len(out) != len(frames):  # a codec that will not write here: the raw frames, better than nothing
        return frames
    return out


IDENTICAL = 0.05
"""The share of pairs that are two identical cards, unless asked otherwise. The rulebooks' legal pairs are
mostly identical (OL-INTERCEPT's self-interception; two Skips or two Draw Twos of one colour under CH-PAIR), and
in 265 two-card plays of the rendered games 51 (18%) were identical, 42 of 102 under the Olympic rules; so a
model that is to name them is fine-tuned on crops with a larger share (`models/train_lower.py --identical`)."""

NO_LOWER = "back"
"""The label of a crop with no lower card in it (`singles`): the class the tracker already reads as "no card"."""


def table_samples(seed: int, n: int = PER_TABLE, codes: tuple[str, ...] = ALL_CODES,
                  crop: int = CROP, canonical: bool = False, singles: float = 0.0,
                  identical: float = IDENTICAL, pile: tuple[int, int] = PILE) -> tuple[list[np.ndarray], list[str]]:
    """`n` lower-card crops (`crop` pixels a side) from one random table, and the lower cards' codes; with
    `canonical`, each crop turned so that the lower card lies left of the top card (`strip_turns`), as the
    tracker turns it for a model that learnt them so; `singles`: the share of crops of one card laid with a
    pair's change, labelled `NO_LOWER`; `identical`: the share of pairs of two identical cards; `pile`: the
    fewest and most old cards under the pair (`PILE`)."""
    if not 0 <= pile[0] <= pile[1]:
        raise ValueError(f"pile is (fewest, most) old cards, 0 <= fewest <= most: got {pile}")
    rng = np.random.default_rng(seed)
    table = default_table(int(rng.choice([4, 6])))
    camera = Camera(rng, table)
    table.image_to_table = np.linalg.inv(camera.table_to_image)
    bank = FaceBank(rng)
    plane = table_plane(rng, table)
    dc = table.discard.centre
    x0, y0, x1, y1 = table.zone("discard").bounds()
    region = (max(0.0, x0 - PAD), max(0.0, y0 - PAD), min(table.width, x1 + PAD), min(table.height, y1 + PAD))
    shape = (int(table.height * LOW), int(table.width * LOW))
    frames, tops, quads_all, lowers = [], [], [], []
    for k in range(n):
        canvas = plane.copy()
        for _ in range(int(rng.integers(pile[0], pile[1] + 1))):  # the old pile, each card laid as a play is
            blit_card(canvas, bank, str(rng.choice(codes)), dc + rng.normal(0, PILE_SPREAD_MM, 2),
                      float(rng.uniform(0, 360)))
        top_code = str(rng.choice(codes))
        lower_code = top_code if rng.random() < identical else str(rng.choice(codes))
        (lc, la), (tc, ta) = _lay_pair(rng, dc)
        if singles > 0 and rng.random() < singles:  # one card; the change still spreads where a lower card would be
            ql, lower_code = card_corners(lc, la), NO_LOWER
        else:
            ql = blit_card(canvas, bank, lower_code, lc, la)
        qt = blit_card(canvas, bank, top_code, tc, ta)
        frames.append(camera.shoot(canvas, k, k / 30.0))
        tops.append(qt)
        quads_all.append([ql, qt])
        lowers.append(lower_code)
    frames = through_codec(frames)
    crops = []
    for image, qt, quads in zip(frames, tops, quads_all, strict=True):
        changed = _change_mask(shape, quads)
        jitter = rng.normal(0, 1.5, 4)
        top_box = (*(qt.min(axis=0) + jitter[:2]), *(qt.max(axis=0) + jitter[2:]))
        box, _ = fit_lower_box(top_box, changed)  # type: ignore[arg-type]
        dx, dy = box[0] - top_box[0], box[1] - top_box[1]
        push = rng.uniform(*PUSH)
        b = np.array(box) + push * np.array([dx, dy, dx, dy])
        rect = rectify(image, table, region, SCALE)
        px = (b - np.array([region[0], region[1], region[0], region[1]])) * SCALE
        cut = square_crops(rect, px[None].astype(np.float32), crop)[0]
        crops.append(np.ascontiguousarray(np.rot90(cut, strip_turns(dx, dy))) if canonical else cut)
    return crops, lowers


def _job(seed: int, crop: int = CROP, canonical: bool = False, singles: float = 0.0,
         identical: float = IDENTICAL, pile: tuple[int, int] = PILE) -> tuple[list[np.ndarray], list[str]]:
    return table_samples(seed, crop=crop, canonical=canonical, singles=singles, identical=identical, pile=pile)


def render_tables(job: Callable[[int], tuple[list[np.ndarray], list[str]]], n: int, seed: int,
                  names: tuple[str, ...], workers: int = 1, progress: bool = True,
                  desc: str = "crops") -> tuple[np.ndarray, np.ndarray]:
    """(crops, labels): `job(table seed)` run on tables seeded `seed * 100_003 + i` for i = 0, 1, ... until at
    least `n` crops are made, on `workers` processes; the labels are indices into `names`."""
    from contextlib import nullcontext
    from itertools import count
    from multiprocessing import Pool

    from tqdm import tqdm

    seeds = (seed * 100_003 + i for i in count())
    crops: list[np.ndarray] = []
    labels: list[int] = []
    bar = tqdm(total=n, desc=desc, unit="crop", disable=not progress)
    with Pool(workers) if workers > 1 else nullcontext() as pool:
        for c, codes in (pool.imap(job, seeds) if pool is not None else map(job, seeds)):
            crops += c
            labels += [names.index(x) for x in codes]
            bar.update(len(c))
            if len(crops) >= n:
                break
        if pool is not None:
            pool.terminate()
    bar.close()
    return np.stack(crops), np.array(labels, np.int64)


def build(n: int, seed: int, names: tuple[str, ...], workers: int = 1, progress: bool = True,
          crop: int = CROP, canonical: bool = False, singles: float = 0.0,
          identical: float = IDENTICAL, pile: tuple[int, int] = PILE) -> LowerCrops:
    """About `n` crops (whole tables of `PER_TABLE`, `crop` pixels a side), rendered on `workers` processes;
    `canonical`: turned so the lower card lies left of the top one; `singles`: the share of single cards laid
    with a pair's change, labelled `NO_LOWER` (`table_samples`); `identical`: the share of pairs of two
    identical cards; `pile`: the fewest and most old cards under the pair (`PILE`)."""
    from functools import partial

    crops, labels = render_tables(partial(_job, crop=crop, canonical=canonical, singles=singles,
                                          identical=identical, pile=pile), n, seed, names,
                                  workers, progress, desc="lower-card crops")
    return LowerCrops(crops, labels, names)
