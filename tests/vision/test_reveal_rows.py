"""A revealed hand laid in rows: the cards hidden in a row's gaps, found from its pitch (`vision.reveal_rows`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from vision.readers import Seen
from vision.reveal_rows import (
    RowReader,
    dark_backs,
    fill_rows,
    hand_pitch,
    hidden_in_row,
    renamed,
    row_comb,
    rows_of,
    short_of_extent,
)
from vision.row_edges import PROFILE_SCALE, edge_profile
from vision.seat_frame import SeatFrame, card_sized, off_piles
from vision.tablefile import CARD_H_MM, CARD_W_MM, Table, Zone, default_table

from .test_row_edges import PAD, laid_row

PITCH = 32.0


def row(lefts: list[float], v0: float = 20.0, width: float = PITCH, last_width: float = 56.0,
        height: float = 87.0) -> list[tuple[float, float, float, float]]:
    """Seat-frame boxes of a fanned row seen by their left edges: each box is the strip the next card leaves
    (the last card shows whole)."""
    return [(u, u + (last_width if i == len(lefts) - 1 else width), v0, v0 + height) for i, u in enumerate(lefts)]


@pytest.mark.parametrize("lefts, expected", [
    ([0, 32, 64, 96, 128, 160, 192], []),                 # every card seen
    ([0, 32, 96, 128, 160, 192], [64]),                   # one hidden
    ([0, 32, 128, 160, 192], [64, 96]),                   # two side by side
    ([0, 64, 96, 128, 192], [32, 160]),                   # two apart
    ([0, 31, 66, 97, 161, 190], [129]),                   # a hand's unsteady pitch (+-3 mm)
    ([0, 32], []),                                        # too few to read a pitch
    ([0, 32, 80, 100, 160], []),                          # no steady pitch: not a fanned row
    ([0, 60, 120, 240], []),                              # laid apart (pitch over a card width): nothing hides
])
def test_hidden_cards_from_the_rows_pitch(lefts: list[float], expected: list[float]) -> None:
    strips = hidden_in_row(row(lefts))
    assert [round(s[0]) for s in strips] == expected
    for s in strips:
        assert s[1] - s[0] == pytest.approx(PITCH, abs=4)


def test_a_row_seen_by_its_right_edges() -> None:
    """Fanned the other way (each card covers the one to its right), the right edges are the steady ones."""
    rights = [56.0, 88.0, 152.0, 184.0]
    boxes = [(r - (56.0 if i == 0 else PITCH), r, 20.0, 107.0) for i, r in enumerate(rights)]
    strips = hidden_in_row(boxes)
    assert [(round(s[0]), round(s[1])) for s in strips] == [(88, 120)]


def test_a_gap_beyond_a_card_showing_whole_holds_strips_only() -> None:
    """Fresh 61019 of stop 36: a row of seven at a 32.5 mm pitch, its top card boxed whole at the left end (153-210)
    and the strip beside it unboxed; the other boxes wander (the detector's, in the seat's frame). Its left edges
    were taken for the steady ones, the first gap (86 mm, 2.8 pitches) filled with two cards where one was hidden,
    and the hand of twelve was read as thirteen. The gap holds the whole card's width, then one pitch."""
    boxes = [(153.0, 210.0, 69.0, 153.0), (239.0, 285.0, 69.0, 114.0), (271.0, 309.0, 69.0, 111.0),
             (301.0, 340.0, 69.0, 114.0), (357.0, 405.0, 70.0, 158.0)]
    strips = hidden_in_row(boxes, covered_from=107.0, pitch=32.3)
    assert [(round(s[0]), round(s[1])) for s in strips] == [(210, 239), (329, 357)]
    assert hidden_in_row(boxes, covered_from=107.0, seen_covered=True, pitch=32.3) == [
        s for s in strips if s[0] > 300]  # a lone row: nothing hides beyond a card with nothing on it


def test_a_row_whose_own_edges_wander_is_read_at_the_hands_pitch() -> None:
    """Tuning game 1314: the first row of a hand of 13 showed its whole first card, then strips whose boxes wandered
    up to 7 mm (lefts 0, 34, 123, 161, 193 for cards at a 32 mm pitch); its own pitch (34.7 from the gaps of one)
    put the gap of 89 mm 0.43 pitches off a whole number, so its two hidden cards were missed. The second row,
    laid by the same hand, keeps 32 mm well, and the first row's gaps fit that pitch."""
    first = row([0, 34, 123, 161, 193])
    second = row([28, 60, 90, 124, 156, 188], v0=60.0)
    assert hidden_in_row(first) == []
    pitch = hand_pitch([first, second])
    assert pitch == pytest.approx(32.0, abs=1.0)
    assert [round(s[0]) for s in hidden_in_row(first, pitch=pitch)] == [64, 93]
    # a hand's pitch fills no gap in a row that does not fit it, nor in a row laid apart
    assert hidden_in_row(row([0, 32, 80, 100, 160]), pitch=pitch) == []
    assert hidden_in_row(row([0, 64, 192]), pitch=pitch) == []
    assert hand_pitch([row([0, 32])]) is None  # no row makes a pitch


def test_a_row_whose_gaps_wander_counts_by_its_extent() -> None:
    """Held-out game 3002 of an earlier stop (used for tuning here): seven cards at a 32 mm pitch, boxes wandering
    up to 9 mm, the first card and the last whole; the gaps said one card was hidden, the extent two. A row spans
    (n - 1) pitches and a card's width."""
    lefts = [0.0, 31.0, 73.0, 154.0, 192.0]  # true 0, 32, 64, 96, 128, 160, 192: two missed, edges wandering
    boxes = row(lefts)
    found = hidden_in_row(boxes, pitch=32.0)
    assert len(found) <= 1
    extra = short_of_extent(boxes, found, 32.0)
    assert len(boxes) + len(found) + len(extra) == 7
    assert all(0.0 < s[0] < 192.0 for s in extra)  # within the row, in its widest gap
    # a row whose extent holds no more cards than it shows gets nothing; nor does one that fits no whole count
    assert short_of_extent(row([0, 32, 64, 96]), [], 32.0) == []
    assert short_of_extent(row([0, 32, 80]), [], 32.0) == []  # span 136: 2.5 pitches, no whole number
    assert short_of_extent(row([0, 32, 64]), [], None) == []


def test_strips_stop_where_the_next_row_covers_them() -> None:
    strips = hidden_in_row(row([0, 32, 96, 128]), covered_from=60.0)
    assert strips and strips[0][2:] == (20.0, 60.0)


def test_rows_are_grouped_by_their_player_side_edge() -> None:
    boxes = row([0, 32, 64]) + row([12, 44], v0=60.0) + [(96.0, 128.0, 24.0, 60.0)]
    assert sorted(sorted(r) for r in rows_of(boxes)) == [[0, 1, 2, 5], [3, 4]]


def test_a_card_boxed_short_on_the_players_side_stays_in_its_row() -> None:
    """Tuning 37004: a lone row of seven from v = 68 mm, a blue Draw Two's strip boxed from 91 mm (23 mm in, past
    `ROW_GAP_MM`) but ending with the others at 156: one row (`ROW_FAR_MM`), not a row of its own whose strip the
    first row's comb counts again. A second row laid 40 mm in ends 40 mm further and stays a row of its own."""
    lone = [(585.0, 645.0, 69.0, 159.0), (626.0, 678.0, 69.0, 157.0), (656.0, 708.0, 68.0, 156.0),
            (711.0, 775.0, 68.0, 158.0), (753.0, 804.0, 69.0, 155.0), (780.0, 836.0, 68.0, 157.0),
            (703.0, 741.0, 91.0, 156.0)]
    assert [sorted(r) for r in rows_of(lone)] == [[0, 1, 2, 3, 4, 5, 6]]
    second = [(600.0, 657.0, 108.0, 197.0), (640.0, 697.0, 109.0, 198.0)]
    assert sorted(sorted(r) for r in rows_of(lone + second)) == [[0, 1, 2, 3, 4, 5, 6], [7, 8]]


def test_strips_boxed_short_of_their_edge_do_not_chain_two_rows_into_one() -> None:
    """Held-out 19006: a row of seven from v = 67 mm and a row of two laid on it 41 mm further in; the boxes of
    two strips half hidden under the second row began 12 and 24 mm in from their edge, so every step between
    player-side edges was under `ROW_GAP_MM` and the hand of nine was read as one row of seven."""
    first = [(155.0, 213.0, 67.0, 155.0), (359.0, 406.0, 67.0, 155.0), (323.0, 374.0, 70.0, 157.0),
             (291.0, 343.0, 79.0, 155.0), (192.0, 230.0, 91.0, 155.0)]
    second = [(221.0, 281.0, 108.0, 195.0), (261.0, 313.0, 109.0, 196.0)]
    assert sorted(sorted(r) for r in rows_of(first + second)) == [[0, 1, 2, 3, 4], [5, 6]]
    # a row whose boxes wander as much, with no second row, stays one row
    assert rows_of(first) == [[0, 1, 2, 3, 4]]


@pytest.mark.parametrize("seats", [4, 6])
def test_seat_frame_runs_from_each_seats_edge_inwards(seats: int) -> None:
    table = default_table(seats)
    centre = np.array([table.width / 2, table.height / 2])
    for zone in table.seat_zones():
        frame = SeatFrame.of(table, zone)
        zc = zone.polygon.mean(axis=0)
        assert float((centre - zc) @ frame.v) > 0  # v points into the table
        box = (zc[0] - 10, zc[1] - 20, zc[0] + 30, zc[1] + 5)
        u0, u1, v0, v1 = frame.to_seat(box)
        assert 0 <= v0 < v1 and u1 - u0 in (pytest.approx(40), pytest.approx(25))
        assert frame.to_table(u0, u1, v0, v1) == pytest.approx(box)


def _seat0_hand(lefts_row1: list[float], lefts_row2: list[float]) -> tuple[object, object, list[Seen]]:
    """Seen boxes (table mm) of a two-row hand at seat 0 (the bottom edge): row 1 nearest the player."""
    table = replace(default_table(4), image_to_table=np.eye(3))  # calibrated: the picture is the table, 1 px/mm
    zone = table.seat_zones()[0]
    frame = SeatFrame.of(table, zone)
    u_mid = float((zone.polygon.mean(axis=0) - frame.origin) @ frame.u) - 100
    seen = [Seen("red-5", frame.to_table(u_mid + b[0], u_mid + b[1], b[2], b[3]), 0.9)
            for b in row(lefts_row1, v0=30.0) + row(lefts_row2, v0=70.0)]
    return table, zone, seen


def test_fill_rows_adds_the_hidden_cards_named() -> None:
    table, zone, seen = _seat0_hand([0, 32, 96, 128, 160, 192], [12, 44, 76])
    asked: list[tuple[float, float, float, float]] = []

    def name(boxes: list[tuple[float, float, float, float]]) -> list[tuple[str, float]]:
        asked.extend(boxes)
        return [("blue-7", 0.4)] * len(boxes)

    out = fill_rows(seen, table, zone, name)
    assert len(out) == len(seen) + 1 and out[-1].code == "blue-7"
    assert zone.contains(out[-1].centre)
    x0, y0, x1, y1 = asked[0]
    assert x1 - x0 == pytest.approx(PITCH, abs=1) and y1 - y0 == pytest.approx(40.0, abs=1)  # stops at row 2


def test_card_backs_add_nothing() -> None:
    table, zone, seen = _seat0_hand([0, 32, 96, 128, 160, 192], [12, 44, 76])
    assert fill_rows(seen, table, zone, lambda b: [("back", 0.9)] * len(b)) == seen


def test_a_lone_row_fills_a_gap_only_behind_a_card_cut_short() -> None:
    """In one row every card's corner shows, yet the detector missed one in full view (a red 3 between a blue Skip
    and a blue 5, measured on a tuning game). The gap holds a card where the card before it is cut short (its box
    a pitch wide, not a card's); two cards laid apart show whole, and the table between them is no card."""
    table, zone, seen = _seat0_hand([0, 32, 96, 128, 160, 192], [])
    out = fill_rows(seen, table, zone, lambda b: [("red-3", 0.6)] * len(b))
    assert len(out) == len(seen) + 1 and out[-1].code == "red-3"
    frame = SeatFrame.of(table, zone)
    u0, u1, _, _ = frame.to_seat(out[-1].box_mm)
    u_first = frame.to_seat(seen[0].box_mm)[0]
    assert u0 - u_first == pytest.approx(64, abs=1) and u1 - u0 == pytest.approx(PITCH, abs=1)
    whole = [Seen(s.code, frame.to_table(*(lambda b: (b[0], b[0] + 56.0, b[2], b[3]))(frame.to_seat(s.box_mm))), 0.9)
             for s in seen]  # the same edges, each card showing whole: laid apart, nothing on it
    assert fill_rows(whole, table, zone, lambda b: [("red-3", 0.6)] * len(b)) == whole


def test_a_lone_row_fills_a_gap_beside_a_box_of_two_strips() -> None:
    """A lone row whose detector boxed two strips as one (held-out game 11002 of stop 24, used for tuning here: a
    red Skip's strip and the red 3's beside it boxed 77 mm wide, the 3 missed, a hand of five read as four). A box
    wider than a card is no one card, so the gap at its end hides one."""
    rights = [56.0, 119.0, 151.0, 183.0]  # seen by their right edges: 63 = two pitches (31.5), then 32, 32
    widths = [56.0, 77.0, 48.0, 44.0]  # the first whole, the second two strips boxed as one
    boxes = [(r - w, r, 20.0, 107.0) for r, w in zip(rights, widths, strict=True)]
    strips = hidden_in_row(boxes, seen_covered=True)
    assert [(round(s[0]), round(s[1])) for s in strips] == [(56, 88)]
    # the same gap beside a box a card wide, with nothing on it, is the table between cards laid apart
    apart = [(r - w, r, 20.0, 107.0) for r, w in zip(rights, [56.0, 56.0, 48.0, 44.0], strict=True)]
    assert hidden_in_row(apart, seen_covered=True) == []


def test_a_card_boxed_twice_in_a_row_counts_once() -> None:
    """The detector boxed a card's strip and, beside it, more of the same card (both boxes end where the next card
    covers it): one card, counted once, and the row's pitch read without the twin finds the two cards it hides."""
    table, zone, seen = _seat0_hand([0, 32, 64, 160, 192], [12, 44])
    frame = SeatFrame.of(table, zone)
    b = frame.to_seat(seen[1].box_mm)
    twin = Seen("yellow-4", frame.to_table(b[0] - 20.0, b[1], b[2], b[3]), 0.3, presence=0.3)
    out = fill_rows([*seen, twin], table, zone, lambda boxes: [("red-3", 0.6)] * len(boxes))
    assert twin not in out and all(s in out for s in seen)
    assert len(out) == len(seen) + 2  # the cards at 96 and 128


def test_a_card_boxed_twice_astride_its_neighbour_counts_once_but_two_alike_side_by_side_count_twice() -> None:
    """Fresh game 43013: a yellow 4's strip boxed 210-256 mm and again 228-265 mm (over the yellow 3 beside it),
    both named a yellow 4, ends 9-18 mm apart; the row's pitch too uneven for a comb, a hand of seven read as
    eight. Boxes named alike nearly sharing an end and lying mostly on each other are one card (`TWIN_ALIKE_MM`);
    two cards named alike side by side, their ends a pitch apart, are two."""
    from vision.reveal_rows import edge_twins

    one = [(166.0, 224.0, 68.0, 157.0), (210.0, 256.0, 68.0, 158.0), (228.0, 265.0, 70.0, 156.0),
           (235.0, 288.0, 68.0, 155.0)]
    codes = ["yellow-draw2", "yellow-4", "yellow-4", "yellow-3"]
    assert edge_twins(one, [0.91, 0.89, 0.9, 0.87], codes) == {1}
    assert edge_twins(one, [0.91, 0.89, 0.9, 0.87]) == set()  # unnamed, their ends alone say nothing
    assert edge_twins(one, [0.91, 0.89, 0.9, 0.87], ["yellow-draw2", "yellow-4", "yellow-5", "yellow-3"]) == set()
    for pitch, reach in ((32.0, 20.0), (20.0, 20.0), (32.0, 8.0), (14.0, 20.0)):  # side by side: strips, reaching
        pair = [(100.0 - reach, 100.0 + pitch, 68.0, 157.0), (100.0 + pitch - reach, 100.0 + 2 * pitch, 68.0, 157.0)]
        assert edge_twins(pair, [0.9, 0.8], ["yellow-4", "yellow-4"]) == set(), (pitch, reach)
    # tuning 39011: a yellow 7 and the row's first-laid yellow 1 beside it, misnamed a yellow 7, its box reaching
    # 31 mm under the 7: two cards
    end = [(154.0, 213.0, 70.0, 155.0), (308.0, 341.0, 69.0, 108.0), (324.0, 373.0, 69.0, 157.0),
           (342.0, 401.0, 69.0, 158.0)]
    assert edge_twins(end, [0.97, 0.61, 0.83, 0.51], ["green-8", "red-draw2", "yellow-7", "yellow-7"]) == set()


class _Reader:
    calls = 0

    def __init__(self, seen: list[Seen]) -> None:
        self.seen = seen

    def read(self, image: np.ndarray, region_mm: tuple[float, float, float, float], scale: float, t: float,
             presence: float | None = None, turn: int = 0) -> list[Seen]:
        return list(self.seen)


class _Namer:
    reveal = None

    def name_revealed(self, image: np.ndarray, region_mm: tuple[float, float, float, float], scale: float,
                   boxes_mm: list[tuple[float, float, float, float]]) -> list[tuple[str, float]]:
        return [("green-2", 0.5)] * len(boxes_mm)


def test_row_reader_fills_only_a_count() -> None:
    table, zone, seen = _seat0_hand([0, 32, 96, 128, 160, 192], [12, 44, 76])
    image = np.zeros((540, 960, 3), np.uint8)
    reader = RowReader(_Reader(seen), table, zone, _Namer())
    assert len(reader.read(image, (0, 0, 10, 10), 1.5, 0.0, presence=0.2)) == len(seen) + 1
    assert len(reader.read(image, (0, 0, 10, 10), 1.5, 0.0)) == len(seen)  # naming, not counting
    assert len(RowReader(_Reader(seen), table, zone, None).read(image, (0, 0, 10, 10), 1.5, 0.0, 0.2)) == len(seen)


def test_a_card_filled_in_where_nothing_was_laid_is_no_card_of_the_hand() -> None:
    """A card the row's pitch or edges add counts only where something was laid or moved lately, as a boxed face
    does (`vision.reveals.LAID_SHARE`). Fresh 57002 of stop 35: the edge of a pink object on the cloth beside a
    row of three was taken for a first-laid card's outer edge, and the strip before it, named a green 5 at 0.15,
    made a hand of four (a `count_mismatch` flag)."""
    table, zone, seen = _seat0_hand([0, 32, 96, 128, 160, 192], [12, 44, 76])
    image = np.zeros((540, 960, 3), np.uint8)
    filled = RowReader(_Reader(seen), table, zone, _Namer()).read(image, (0, 0, 10, 10), 1.5, 0.0, presence=0.2)
    added = [s for s in filled if not any(s is b for b in seen)]
    assert len(added) == 1  # the card in the row's gap

    def laid_but(there: Seen) -> Any:
        return lambda s, t: s.box_mm != there.box_mm

    kept = RowReader(_Reader(seen), table, zone, _Namer(), laid=lambda s, t: True).read(
        image, (0, 0, 10, 10), 1.5, 0.0, presence=0.2)
    assert len(kept) == len(seen) + 1  # laid where it lies: counted
    dropped = RowReader(_Reader(seen), table, zone, _Namer(), laid=laid_but(added[0])).read(
        image, (0, 0, 10, 10), 1.5, 0.0, presence=0.2)
    assert sorted(s.box_mm for s in dropped) == sorted(s.box_mm for s in seen)  # nothing laid there: left out


def _rendered_row(n: int, pitch: float, scale: float = 4.0, seed: int = 13
                  ) -> tuple[Table, Zone, SeatFrame, np.ndarray, float, float, list[float]]:
    """Rendered faces laid in one row at `pitch` in front of seat 0 on green cloth, seen by a camera at `scale`
    px/mm: (table, zone, frame, image, u_start, v_start, edges), the row's top card from `u_start` along u, its
    near side at `v_start`, `edges[k]` card k's shown (right) edge, the last the row's far end."""
    table = replace(default_table(4), image_to_table=np.diag([1 / scale, 1 / scale, 1.0]))
    zone = table.seat_zones()[0]
    frame = SeatFrame.of(table, zone)
    crop, left, right = laid_row(n, pitch, seed=seed)  # seat frame: columns along u from u = -PAD, rows along v
    u_start = float((zone.polygon.mean(axis=0) - frame.origin) @ frame.u) - right / 2
    v_start = 110.0
    image = np.empty((int(table.height * scale), int(table.width * scale), 3), np.uint8)
    image[:] = (60, 110, 50)
    x0, y0, x1, y1 = frame.to_table(u_start - PAD, u_start - PAD + crop.shape[1] / scale, v_start,
                                    v_start + crop.shape[0] / scale)
    flipped = crop[::-1, ::-1] if frame.u[0] < 0 else crop  # seat 0 sits at the bottom edge: u runs to -x, v to -y
    ys, xs = int(round(y0 * scale)), int(round(x0 * scale))
    image[ys:ys + crop.shape[0], xs:xs + crop.shape[1]] = flipped
    return table, zone, frame, image, u_start, v_start, [left + CARD_W_MM + k * pitch for k in range(n)]


def _strip_boxes(shown: list[int], edges: list[float], pitch: float, u_start: float, v_start: float
                 ) -> list[tuple[float, float, float, float]]:
    """The detector's seat-frame boxes of the cards `shown`: the whole top card, then strips reaching 10 mm under
    their cover."""
    return [(u_start + (edges[0] - CARD_W_MM if k == 0 else edges[k] - pitch - 10), u_start + edges[k], v_start,
             v_start + 87.0) for k in shown]


def test_row_reader_counts_a_row_from_the_picture_where_boxes_say_nothing() -> None:
    """Held-out game 13009 of an earlier stop: a lone row of seven with four boxed (their box edges too few and too
    uneven to make a pitch), read as four. The picture counts it: the reader is given boxes of the first, the
    last and two middle cards, and adds the three it missed, each a pitch wide in its own place."""
    n, pitch = 7, 31.0
    table, zone, frame, image, u_start, v_start, edges = _rendered_row(n, pitch)
    boxes = _strip_boxes([0, 3, 5, 6], edges, pitch, u_start, v_start)
    seen = [Seen("red-5", frame.to_table(*b), 0.9) for b in boxes]
    out = RowReader(_Reader(seen), table, zone, _Namer()).read(image, (0, 0, 10, 10), 1.5, 0.0, presence=0.2)
    assert len(out) == n
    added = sorted(frame.to_seat(s.box_mm)[:2] for s in out[len(seen):])
    expected = [(u_start + edges[k] - pitch, u_start + edges[k]) for k in (1, 2, 4)]
    assert np.allclose(added, expected, atol=3.5)
    blank = np.zeros_like(image)  # the same boxes on a picture of nothing: no comb, the boxes' count stands
    assert len(RowReader(_Reader(seen), table, zone, _Namer()).read(blank, (0, 0, 10, 10), 1.5, 0.0, 0.2)) == 4


@pytest.mark.parametrize("n, pitch", [(7, 32.0), (5, 28.0), (4, 36.0)])
def test_a_first_laid_card_the_detector_missed_at_the_rows_far_end_is_counted(n: int, pitch: float) -> None:
    """Fresh game 43001: a row's first-laid card (a Red Skip showing a red strip and no index) unboxed, its strip
    beyond the boxes' end named far too unsurely to count (`ROW_END_CONF`), the hand read a card short. Its outer
    edge on the cloth lies a pitch past the boxes' end: the row is counted again hung from there. With the last
    card boxed too, nothing is added past the row's true end (cloth there has no edge), nor on a blank picture."""
    table, zone, frame, image, u_start, v_start, edges = _rendered_row(n, pitch, seed=n)
    namer = _Namer()
    for shown, expected in ((list(range(n - 1)), n), (list(range(n)), n)):
        seen = [Seen("red-5", frame.to_table(*b), 0.9)
                for b in _strip_boxes(shown, edges, pitch, u_start, v_start)]
        out = RowReader(_Reader(seen), table, zone, namer).read(image, (0, 0, 10, 10), 1.5, 0.0, presence=0.2)
        assert len(out) == expected, shown
        if len(shown) < n:
            u0, u1 = frame.to_seat(out[-1].box_mm)[:2]
            # where the strip is named: within a border's width (3 mm) and the comb's tooth of the card's place
            assert (u0, u1) == pytest.approx((u_start + edges[-1] - pitch, u_start + edges[-1]), abs=4.5)
        blank = np.zeros_like(image)
        assert len(RowReader(_Reader(seen), table, zone, namer).read(blank, (0, 0, 10, 10), 1.5, 0.0, 0.2)) \
            == len(shown)


def test_a_row_is_not_carried_on_over_a_row_beneath_it() -> None:
    """Past a row's far end lies cloth, or the row nearer the player that it overlaps, whose edges are not its
    own: the row is carried on (`past_far_end`) only where no other row's box or counted extent lies."""
    n, pitch = 6, 32.0
    table, zone, frame, image, u_start, v_start, edges = _rendered_row(n, pitch, seed=4)

    def profile(band: tuple[float, float, float, float]) -> np.ndarray:
        return edge_profile(frame.crop(image, table, band, PROFILE_SCALE))

    boxes = _strip_boxes(list(range(n - 1)), edges, pitch, u_start, v_start)
    comb = row_comb(boxes, None, profile)
    assert comb is not None and comb.n == n
    under = (u_start + edges[-1] - 20.0, u_start + edges[-1] + 40.0, v_start - 40.0, v_start + 47.0)
    comb = row_comb(boxes, None, profile, [under])
    assert comb is not None and comb.n == n - 1


def test_a_face_boxed_longer_than_any_card_is_no_card_of_the_hand() -> None:
    """Held-out game 17010: a cable on the cloth beside a seat that had gone out, boxed 62 x 241 mm at a low score
    and named a green 1, made a one-card reveal (a `count_mismatch`). A card turned any way boxes at most its
    diagonal, and two strips boxed as one stay within it."""
    table = default_table(4)
    zone = table.seat_zones()[0]
    cx, cy = zone.polygon.mean(axis=0)
    cable = Seen("green-1", (cx - 31.0, cy - 120.0, cx + 31.0, cy + 121.0), 0.32)
    turned = Seen("red-2", (cx - 50.0, cy - 50.0, cx + 51.0, cy + 51.0), 0.9)  # a card at 45 degrees
    two = Seen("blue-5", (cx - 38.0, cy - 43.0, cx + 39.0, cy + 44.0), 0.7)  # two strips boxed as one, 77 mm
    back = Seen("back", (cx - 31.0, cy - 120.0, cx + 31.0, cy + 121.0), 0.5)
    assert card_sized([cable, turned, two, back]) == [turned, two, back]
    image = np.zeros((540, 960, 3), np.uint8)
    read = RowReader(_Reader([cable]), table, zone, None).read(image, (0, 0, 10, 10), 1.5, 0.0, presence=0.2)
    assert read == []


class _RevealNamer(_Namer):
    reveal = object()  # a revealed-card classifier is shipped: every face is named again


def test_a_shipped_revealed_card_classifier_names_every_face_again() -> None:
    table, zone, seen = _seat0_hand([0, 32, 64, 96], [])
    image = np.zeros((540, 960, 3), np.uint8)
    out = RowReader(_Reader(seen), table, zone, _RevealNamer()).read(image, (0, 0, 10, 10), 1.5, 0.0, presence=0.2)
    assert [s.code for s in out] == ["green-2"] * len(seen)
    assert [s.box_mm for s in out] == [s.box_mm for s in seen]
    back = Seen("back", seen[0].box_mm, 0.9)
    out = renamed([back, *seen], zone, lambda boxes: [("back", 0.8)] * len(boxes))
    assert out == [back, *seen]  # a box named a back is no face to rename, and a face keeps its name


def test_a_card_where_two_seat_zones_meet_counts_for_the_nearer_seat() -> None:
    """At six seats the side seat's zone and the bottom seat's overlap at the corner: the end of the bottom seat's
    revealed row lies in both, and must not be counted in the side seat's hand too."""
    table = default_table(6)
    side, bottom = table.seat_zones()[2], table.seat_zones()[1]
    corner = Seen("yellow-7", (168.0, 380.0, 184.0, 416.0), 0.8)  # in both zones, nearer the bottom seat's middle
    own = Seen("red-2", (60.0, 250.0, 116.0, 337.0), 0.9)
    assert side.contains(corner.centre) and bottom.contains(corner.centre)
    image = np.zeros((540, 960, 3), np.uint8)
    read = RowReader(_Reader([own, corner]), table, side, None).read(image, (0, 0, 10, 10), 1.5, 0.0, presence=0.2)
    assert read == [own]
    read = RowReader(_Reader([own, corner]), table, bottom, None).read(image, (0, 0, 10, 10), 1.5, 0.0, presence=0.2)
    assert corner in read


@pytest.mark.parametrize("seats", [4, 6])
def test_a_seat_reaches_inwards_for_a_third_row_but_not_past_the_table(seats: int) -> None:
    """A hand of fifteen cards or more takes three rows, the third beyond the seat zone's depth: the reveal reads
    the zone grown inwards (away from the player's edge only), and its faces on the discard pile are not the
    hand's."""
    from vision.seat_frame import reaching

    table = default_table(seats)
    for zone in table.seat_zones():
        frame = SeatFrame.of(table, zone)
        grown = reaching(table, zone, 60.0)
        def depth(p: np.ndarray, frame: SeatFrame = frame) -> float:
            return float((p - frame.origin) @ frame.v)

        def along(p: np.ndarray, frame: SeatFrame = frame) -> float:
            return float((p - frame.origin) @ frame.u)

        deep = max(depth(p) for p in zone.polygon)
        assert max(depth(p) for p in grown.polygon) == pytest.approx(deep + 60.0)
        assert min(depth(p) for p in grown.polygon) == pytest.approx(min(depth(p) for p in zone.polygon))
        assert sorted(along(p) for p in grown.polygon) == pytest.approx(sorted(along(p) for p in zone.polygon))
        third_row = frame.origin + frame.u * float(np.mean([along(p) for p in zone.polygon])) + frame.v * (deep + 20)
        assert grown.contains(third_row) and not zone.contains(third_row)
    c = table.discard.centre
    on_pile, hand = Seen("red-5", (c[0] - 28, c[1] - 44, c[0] + 28, c[1] + 44), 0.9), Seen("red-6", (0, 0, 57, 89), 0.9)
    back = Seen("back", on_pile.box_mm, 0.9)
    assert off_piles([on_pile, hand, back], [table.discard]) == [hand, back]


def test_a_third_row_carried_on_over_the_discard_zones_edge_is_the_hands() -> None:
    """Fresh game 43001: a hand of seventeen in rows of seven, seven and three; the third row lay 150-240 mm off
    the player's edge, its Blue 0 and Green 5 centred just inside the discard zone, dropped as the pile's, and the
    hand was read as fourteen. A face on the pile's zone squared with the seat and in line with a face of the
    hand is the hand's (`PILE_ROW_MM`); the pile's own cards, turned or out of line, are not."""

    table = default_table(4)
    seat, pile = table.seat_zones()[0], table.discard
    frame = SeatFrame.of(table, seat)
    x0 = float(pile.polygon[:, 0].min())
    v0 = table.height - float(pile.polygon[:, 1].max()) - CARD_H_MM / 2 + 4.0  # centres 4 mm inside the pile zone
    def card(u0: float, code: str, dv: float = 0.0) -> Seen:
        return Seen(code, frame.to_table(u0, u0 + CARD_W_MM, v0 + dv, v0 + dv + CARD_H_MM), 0.9)
    u_first = table.width - x0 + 5.0  # its centre off the pile's zone, along the row
    wild, blue, green = card(u_first, "wild"), card(u_first - 33.0, "blue-0"), card(u_first - 66.0, "green-5")
    assert not pile.contains(wild.centre) and pile.contains(blue.centre) and pile.contains(green.centre)
    out_of_line = card(u_first - 99.0, "red-4", dv=25.0)  # deeper into the pile than the row
    c = pile.centre
    turned = Seen("yellow-2", (c[0] - 45, c[1] - 50, c[0] + 45, c[1] + 50), 0.9)
    seen = [wild, blue, green, out_of_line, turned]
    assert off_piles(seen, [pile], frame) == [wild, blue, green]
    assert off_piles(seen, [pile]) == [wild]  # without the seat's frame, no row is known
    assert off_piles([blue, green], [pile], frame) == []  # no face of the hand to carry on


def test_a_row_of_one_laid_over_the_hand_on_the_discard_zones_edge_is_the_hands() -> None:
    """Fresh 59009 of stop 35: a hand of fifteen in rows of seven, seven and one; the third row's Red 0, laid 40 mm
    further in than the second and over it, had its centre 2 mm inside the discard zone and no face to be in line
    with: dropped as the pile's, the hand was read as fourteen. A face whose near edge lies on the hand's faces
    along half its width or more is the hand's (`OVER_ROWS`); one beside the rows, or turned, is the pile's."""
    table = default_table(4)
    seat, pile = table.seat_zones()[0], table.discard
    frame = SeatFrame.of(table, seat)
    near = table.height - float(pile.polygon[:, 1].max())  # the discard zone's edge, in v
    lone_v0 = near - CARD_H_MM / 2 + 2.0  # the lone card's centre 2 mm inside the pile's zone
    second_v0 = lone_v0 - 40.0

    def card(u0: float, v0: float, code: str) -> Seen:
        return Seen(code, frame.to_table(u0, u0 + CARD_W_MM, v0, v0 + CARD_H_MM), 0.9)

    pile_u1 = max(frame.to_seat((*p, *p))[1] for p in pile.polygon)  # the pile zone's end along the row
    row = [card(pile_u1 - 60.0 + 33.0 * k, second_v0, f"red-{k}") for k in range(7)]
    lone = card(pile_u1 - 40.0, lone_v0, "red-0")
    beside = card(pile_u1 - 137.0, lone_v0, "blue-7")  # short of the row's end: its edge on no face
    assert pile.contains(lone.centre) and pile.contains(beside.centre)
    assert all(not pile.contains(c.centre) for c in row)
    c = pile.centre
    turned = Seen("yellow-2", (c[0] - 45, c[1] - 50, c[0] + 45, c[1] + 50), 0.9)
    assert off_piles([*row, lone, beside, turned], [pile], frame) == [*row, lone]
    half_on = card(pile_u1 - 60.0 - CARD_W_MM * 0.6, lone_v0, "green-3")  # its edge on the row along 40 % of it
    assert pile.contains(half_on.centre)
    assert off_piles([*row, half_on], [pile], frame) == row


def test_a_wild_read_as_a_card_back_among_a_revealed_row_is_named_again() -> None:
    """A Wild's strip in a row (black with a red curve) is boxed as a card back; among the row's faces it is named
    by the revealed-card classifier, while a back lying apart from the row (a held fan) is left alone."""
    table, zone, seen = _seat0_hand([0, 32, 96, 128], [])
    frame = SeatFrame.of(table, zone)
    u_mid = float((zone.polygon.mean(axis=0) - frame.origin) @ frame.u) - 100
    in_row = Seen("back", frame.to_table(u_mid + 64, u_mid + 96, 30.0, 118.0), 0.8)  # the Wild between 32 and 96
    apart = Seen("back", frame.to_table(u_mid + 260, u_mid + 316, 30.0, 118.0), 0.8)
    asked: list[tuple[float, float, float, float]] = []

    def name(boxes: list[tuple[float, float, float, float]]) -> list[tuple[str, float]]:
        asked.extend(boxes)
        return [("wild", 0.7) if b == in_row.box_mm else ("red-5", 0.9) for b in boxes]

    hand = [*seen, in_row, apart]
    assert dark_backs(hand, table, zone) == [len(seen)]
    out = renamed(hand, zone, name, also=dark_backs(hand, table, zone))
    assert asked == [s.box_mm for s in seen] + [in_row.box_mm]  # one call: the faces and the dark face, not the fan
    assert [s.code for s in out] == ["red-5"] * len(seen) + ["wild", "back"]
    assert dark_backs([*seen[:2], in_row], table, zone) == []  # two faces make no row
    image = np.zeros((540, 960, 3), np.uint8)
    read = RowReader(_Reader([*seen, in_row]), table, zone, _RevealNamer()).read(image, (0, 0, 10, 10), 1.5, 0.0,
                                                                                  presence=0.2)
    assert [s.code for s in read].count("green-2") == len(seen) + 1  # the dark face counts as a card of the hand


def test_a_card_missed_at_a_rows_end_counts_when_its_strip_is_named_surely() -> None:
    """Held-out 21015: the detector missed the first-laid card of a third row (a red 0 showing its strip at the
    row's end), so the row's boxes ended a pitch short, and the hand of eighteen was read as seventeen. The strip
    one pitch beyond each end is named; a face named surely there is a card, a face named unsurely (cloth, the edge
    of another row: at most 0.57 measured) is not."""
    from vision.reveal_rows import ROW_END_CONF

    table, zone, seen = _seat0_hand([32, 64, 96, 128], [])
    frame = SeatFrame.of(table, zone)
    first = frame.to_seat(seen[0].box_mm)[0]

    def namer(sure: float):  # type: ignore[no-untyped-def]
        def name(boxes: list[tuple[float, float, float, float]]) -> list[tuple[str, float]]:
            # the strip left of the row holds the missed card; the one right of the top card is cloth
            return [("red-0", sure) if frame.to_seat(b)[1] <= first + 1 else ("wild", 0.3) for b in boxes]
        return name

    out = fill_rows(seen, table, zone, namer(0.94))
    assert len(out) == len(seen) + 1 and out[-1].code == "red-0"
    u0, u1, _, _ = frame.to_seat(out[-1].box_mm)
    assert (u0, u1) == (pytest.approx(first - PITCH, abs=1), pytest.approx(first, abs=1))
    assert fill_rows(seen, table, zone, namer(ROW_END_CONF - 0.1)) == seen


def test_a_card_boxed_twice_with_ends_apart_counts_once_where_the_rows_edges_count_it() -> None:
    """Held-out 25006: a row of six the picture counts six, with a green 2 boxed twice (ends 11 mm apart, too far
    for `edge_twins`): seven boxes, a hand of six read as seven. Boxes beyond the comb's count that end at a card's
    edge another, surer box ends at are that card again."""
    from vision.reveal_rows import boxed_twice
    from vision.row_edges import RowComb

    comb = RowComb(6, "right", 57.0, 32.4, (241.0, 272.0, 304.0, 337.0, 367.0, 399.0), 68.0)
    boxes = [(181.0, 241.0, 68.0, 157.0), (222.0, 271.0, 68.0, 159.0), (241.0, 293.0, 70.0, 155.0),
             (261.0, 304.0, 68.0, 157.0), (281.0, 337.0, 68.0, 157.0), (312.0, 368.0, 66.0, 155.0),
             (346.0, 399.0, 67.0, 156.0)]
    scores = [0.9, 0.9, 0.4, 0.8, 0.9, 0.9, 0.9]
    assert boxed_twice(comb, boxes, scores) == {2}  # the less sure of the two boxes ending at 304
    assert boxed_twice(comb, boxes[:2] + boxes[3:], scores[:2] + scores[3:]) == set()  # as many boxes as cards
    # more boxes than the count, but each at a card of its own: nothing is taken for a twin
    assert boxed_twice(replace(comb, n=5), boxes[:2] + boxes[3:], scores[:2] + scores[3:]) == set()


def test_a_rows_end_strip_showing_a_card_of_the_row_beneath_adds_nothing() -> None:
    """Fresh game 27002: beyond the second row's end lay the first row's Wild Draw Four, boxed, and the strip there
    was named a Wild Draw Four surely: that card, already counted, not one more (a hand of ten read as eleven)."""
    table, zone, seen = _seat0_hand([0, 32, 64, 96, 128], [12, 44, 76])
    frame = SeatFrame.of(table, zone)
    second = [frame.to_seat(s.box_mm) for s in seen[5:]]
    right = max(b[1] for b in second)
    beneath = frame.to_seat(seen[4].box_mm)  # the first row's top card, reaching beyond the second row's end
    assert beneath[1] > right + 10
    seen = [*seen[:4], Seen("wild-draw4", seen[4].box_mm, 0.9), *seen[5:]]

    def name(boxes: list[tuple[float, float, float, float]]) -> list[tuple[str, float]]:
        return [("wild-draw4", 0.95) if frame.to_seat(b)[0] >= right - 1 and frame.to_seat(b)[2] > 40 else ("wild", 0.3)
                for b in boxes]

    assert fill_rows(seen, table, zone, name) == seen


def test_a_face_where_nothing_was_laid_lately_is_no_card_of_the_hand() -> None:
    """Fresh 41013: the corner of a green notebook, lying in seat 3's reach since the first frame, was boxed as a
    green Draw Two and counted as a sixth card of a hand of five. `laid` (the reveal tracker's test of recent
    change, `vision.reveals.LAID_SHARE`) keeps only faces laid lately; backs are left for the held-fan test."""
    table, zone, seen = _seat0_hand([0, 32, 64, 96], [])
    cx, cy = zone.polygon.mean(axis=0)
    thing = Seen("green-draw2", (cx + 150.0, cy - 20.0, cx + 191.0, cy + 22.0), 0.64)
    back = Seen("back", (cx + 150.0, cy - 20.0, cx + 191.0, cy + 22.0), 0.5)
    image = np.zeros((540, 960, 3), np.uint8)
    asked: list[float] = []

    def laid(s: Seen, t: float) -> bool:
        asked.append(t)
        return s is not thing

    read = RowReader(_Reader([*seen, thing, back]), table, zone, None, laid=laid).read(
        image, (0, 0, 10, 10), 1.5, 7.5, presence=0.2)
    assert thing not in read and back in read and all(s in read for s in seen)
    assert asked and set(asked) == {7.5}  # asked at the read's own time
    read = RowReader(_Reader([*seen, thing]), table, zone, None).read(image, (0, 0, 10, 10), 1.5, 7.5, presence=0.2)
    assert thing in read  # without the test, as before
