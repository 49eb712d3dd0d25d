"""The draw tracker's counting helpers: boxes doubled over a pair, the region read ahead of the fingertips, and
the reads it takes (`vision.carry_counts` settles their count)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from vision.draws import DrawTracker, arm_down_turn, without_merged
from vision.readers import Seen
from vision.tablefile import CARD_H_MM


def _back(x0: float, y0: float, x1: float, y1: float) -> Seen:
    return Seen("back", (x0, y0, x1, y1), 0.8)


def test_a_box_around_two_carried_cards_is_not_a_third_card() -> None:
    a, b = _back(100, 100, 156, 187), _back(127, 100, 183, 187)  # a fan step of 27 mm: each card boxed
    merged = _back(98, 98, 185, 189)  # and the detector's box around both
    assert without_merged([a, b, merged]) == [a, b]


def test_overlapping_cards_of_a_fan_all_count() -> None:
    fan = [_back(100 + 27 * k, 100, 156 + 27 * k, 187) for k in range(4)]
    assert without_merged(fan) == fan
    assert without_merged([]) == []


def _tracker(edge: tuple[float, float]) -> Any:
    model = SimpleNamespace(edge_points=np.array([edge]), table=SimpleNamespace(width=1000.0, height=560.0))
    tracker = DrawTracker.__new__(DrawTracker)  # only what forward and count_region read
    tracker.model = model  # type: ignore[assignment]
    return tracker


def test_the_region_read_reaches_a_card_length_ahead_of_the_fingertips() -> None:
    """A hand from the right edge carrying cards to the left: the cards stick out up to a card's length beyond
    the tip the blob gives, so the region must hold them (it once ended 140 mm from the tip on every side)."""
    tracker = _tracker((1000.0, 280.0))
    hand = SimpleNamespace(seat=0, tip=np.array([780.0, 250.0]))
    x0, y0, x1, y1 = tracker.count_region(hand)
    assert x0 <= 780.0 - CARD_H_MM - 50  # ahead (to the left): a whole card and more
    assert x1 <= 780.0 + 100  # behind the tip only a little: the wrist, not the seat's own fan
    assert 0.0 <= y0 < 250.0 - 100 and 250.0 + 100 < y1 <= 560.0


def test_the_region_stays_on_the_table() -> None:
    tracker = _tracker((500.0, 560.0))
    hand = SimpleNamespace(seat=0, tip=np.array([480.0, 60.0]))  # reaching to the far edge
    x0, y0, x1, y1 = tracker.count_region(hand)
    assert x0 >= 0.0 and y0 == 0.0 and x1 <= 1000.0 and y1 <= 560.0 and x0 < x1 and y0 < y1


def test_backs_along_a_seat_edge_are_its_held_fan_not_a_carry() -> None:
    from vision.motion import ForegroundModel
    from vision.tablefile import default_table

    table = default_table(4)
    table.image_to_table = np.eye(3)
    tracker = DrawTracker(ForegroundModel(table), reader=None)  # type: ignore[arg-type]
    for z in table.seat_zones():
        edge = tracker.model.edge_points[z.seat]
        inward = (z.centre - edge) / np.hypot(*(z.centre - edge))
        assert tracker.in_held_fan(edge + inward * 30.0)  # a card lying at the edge: the held fan
        assert not tracker.in_held_fan(edge + inward * 120.0)  # out on the table: in transit


def test_the_region_holds_a_carried_fan_of_four_spread_beside_the_arm() -> None:
    """A fan of four carried backs spreads ~80 mm either side of the hand, and the blob's tip need not be its
    middle: the region reaches past that to either side of the arm (it once cut the outer card off)."""
    tracker = _tracker((1000.0, 280.0))
    hand = SimpleNamespace(seat=0, tip=np.array([700.0, 280.0]))  # arm along x: the sides are y
    _x0, y0, _x1, y1 = tracker.count_region(hand)
    assert y0 <= 280.0 - 150.0 and y1 >= 280.0 + 150.0


def test_a_reach_that_jumps_back_is_a_split_blob_not_the_hand_leaving() -> None:
    """The hand pauses over the pile; its palm and the cards in it come to rest and leave its blob, so for a few
    frames the tip found is the arm's, far back. Those frames neither end the visit nor count the carry; the
    hand found again near the pile goes on; a reach that stays back long enough is believed."""
    from vision.draws import MAX_JUMPS, Visit

    tracker = _tracker((1000.0, 280.0))
    v = Visit(seat=0, t=1.0, max_reach=360.0, reach=360.0)
    hand = lambda reach: SimpleNamespace(seat=0, reach=reach)  # noqa: E731
    assert tracker.jumped(v, hand(170.0))  # 190 mm back in a frame: the arm of a split blob
    assert tracker.jumped(v, hand(172.0))
    assert not tracker.jumped(v, hand(300.0))  # the hand again, pulling back with the cards
    assert v.reach == 300.0 and v.jumps == 0
    assert not tracker.jumped(v, hand(270.0))  # an ordinary step back
    for _ in range(MAX_JUMPS - 1):
        assert tracker.jumped(v, hand(60.0))
    assert not tracker.jumped(v, hand(60.0))  # still there: believed


def test_a_reach_that_jumps_back_and_keeps_going_back_is_the_hand_leaving() -> None:
    """A jump whose reach then falls frame after frame is the arm really going home (the blob on the pile was a
    change left there, not the hand): believed on the third falling frame, not after `MAX_JUMPS`."""
    from vision.draws import Visit

    tracker = _tracker((1000.0, 280.0))
    v = Visit(seat=0, t=1.0, max_reach=408.0, reach=408.0)
    hand = lambda reach: SimpleNamespace(seat=0, reach=reach)  # noqa: E731
    assert tracker.jumped(v, hand(131.0)) and tracker.jumped(v, hand(121.0))
    assert not tracker.jumped(v, hand(111.0))  # 131, 121, 111: going back
    assert v.reach == 111.0
    still = Visit(seat=0, t=1.0, max_reach=361.0, reach=361.0)
    assert all(tracker.jumped(still, hand(r)) for r in (168.0, 168.0, 168.0, 174.0, 174.0))  # an arm at rest


class _ReaderOf:
    """A card reader that sees the given boxes wherever it looks."""

    def __init__(self, seen: list[Seen]) -> None:
        self.seen = seen

    def read(self, *_args: Any, **_kwargs: Any) -> list[Seen]:
        return self.seen


def test_a_back_lifted_off_the_pile_counts_when_it_moves_and_the_pile_does_not() -> None:
    """A hand the colour of the table: the blob keeps the arm but loses the fingers, so the card they lift off the
    pile lies a card's length beyond the tip and still inside the draw zone as the arm withdraws. It is carried
    when it moves; a back lying still in the zone is the pile's own (messy) edge."""
    from vision.motion import LOW, ForegroundModel
    from vision.tablefile import CARD_W_MM, default_table

    table = default_table(4)
    table.image_to_table = np.eye(3)
    model = ForegroundModel(table)
    pile = table.draw.centre
    centre = pile + np.array([0.0, 45.0])  # slid 45 mm off the pile, towards seat 0
    assert table.draw.contains(centre)
    lifted = _back(centre[0] - CARD_W_MM / 2, centre[1] - CARD_H_MM / 2, centre[0] + CARD_W_MM / 2,
                   centre[1] + CARD_H_MM / 2)
    on_pile = _back(pile[0] - CARD_W_MM / 2, pile[1] - CARD_H_MM / 2, pile[0] + CARD_W_MM / 2, pile[1] + CARD_H_MM / 2)
    tracker = DrawTracker(model, reader=_ReaderOf([on_pile, lifted]))  # type: ignore[arg-type]
    hand = SimpleNamespace(seat=0, tip=centre + np.array([0.0, CARD_H_MM + 40.0]),
                           mask=np.zeros((model.raster.h, model.raster.w), bool))
    image = np.zeros((int(table.height), int(table.width), 3), np.uint8)
    model.motion = np.zeros((model.raster.h, model.raster.w), bool)
    assert tracker._count(image, hand, 1.0) == (0, 0)  # nothing moves: the pile
    x0, y0, x1, y1 = (np.array(lifted.box_mm) * LOW).astype(int)
    model.motion[y0:y1, x0:x1] = True  # the lifted card moves (and the pile's top shifts under it)
    model.motion[int(on_pile.box_mm[1] * LOW):y1, x0:x1] = True
    assert tracker._count(image, hand, 1.0) == (1, 0)  # the lifted card, never the pile


def test_a_back_on_the_move_far_beyond_the_tip_is_carried_but_one_lying_still_is_not() -> None:
    """On the way home, clear of the draw zone, the card held by fingers the blob lost lies further from the tip
    than `CARRY_MM`: it is carried because it moves with the arm; a back lying still there is not."""
    from vision.draws import CARRY_MM
    from vision.motion import LOW, ForegroundModel
    from vision.tablefile import CARD_W_MM, default_table

    table = default_table(4)
    table.image_to_table = np.eye(3)
    model = ForegroundModel(table)
    x0 = table.draw.bounds()[0] - CARD_W_MM - 10.0  # just left of the draw zone, towards seat 1
    centre = np.array([x0 + CARD_W_MM / 2, table.draw.centre[1]])
    assert not table.draw.contains(centre) and not any(z.contains(centre) for z in table.seat_zones())
    back = _back(x0, centre[1] - CARD_H_MM / 2, x0 + CARD_W_MM, centre[1] + CARD_H_MM / 2)
    tracker = DrawTracker(model, reader=_ReaderOf([back]))  # type: ignore[arg-type]
    hand = SimpleNamespace(seat=1, tip=np.array([x0 - CARRY_MM - 30.0, centre[1]]),
                           mask=np.zeros((model.raster.h, model.raster.w), bool))
    image = np.zeros((int(table.height), int(table.width), 3), np.uint8)
    model.motion = np.zeros((model.raster.h, model.raster.w), bool)
    assert tracker._count(image, hand, 1.0) == (0, 0)
    bx0, by0, bx1, by1 = (np.array(back.box_mm) * LOW).astype(int)
    model.motion[by0:by1, bx0:bx1] = True
    assert tracker._count(image, hand, 1.0) == (1, 0)


def _still_table() -> tuple[Any, Any, np.ndarray]:
    from vision.motion import ForegroundModel
    from vision.tablefile import default_table

    table = default_table(4)
    table.image_to_table = np.eye(3)
    model = ForegroundModel(table)
    model.motion = np.zeros((model.raster.h, model.raster.w), bool)
    return table, model, np.zeros((int(table.height), int(table.width), 3), np.uint8)


def _moving(model: Any, s: Seen) -> None:
    from vision.motion import LOW

    x0, y0, x1, y1 = (np.array(s.box_mm) * LOW).astype(int)
    model.motion[y0:y1, x0:x1] = True


def test_a_card_carried_home_through_the_seats_zone_counts_when_it_moves_with_the_fingers() -> None:
    """Skin the colour of the table: the blob is the sleeve, and the card the fingers hold is already in the
    seat's zone on the way home. It moves with the arm and lies at the fingers: carried. A back lying still
    there (a hand laid down) is not."""
    from vision.tablefile import CARD_W_MM

    table, model, image = _still_table()
    zone = next(z for z in table.seat_zones() if z.seat == 0)
    edge = model.edge_points[0]
    centre = edge + (zone.centre - edge) * 1.6  # in the zone, clear of the held fan along the edge
    assert zone.contains(centre)
    back = _back(centre[0] - CARD_W_MM / 2, centre[1] - CARD_H_MM / 2, centre[0] + CARD_W_MM / 2,
                 centre[1] + CARD_H_MM / 2)
    tracker = DrawTracker(model, reader=_ReaderOf([back]))  # type: ignore[arg-type]
    assert not tracker.in_held_fan(back.centre)
    hand = SimpleNamespace(seat=0, tip=centre + np.array([0.0, CARD_H_MM / 2 + 30.0]),
                           mask=np.zeros((model.raster.h, model.raster.w), bool))
    assert tracker._count(image, hand, 1.0) == (0, 0)  # lying still near the fingers
    _moving(model, back)
    assert tracker._count(image, hand, 1.0) == (1, 0)


def test_a_fans_far_cards_moving_through_the_seats_zone_beyond_the_fingers_count() -> None:
    """Skin the colour of the table: the tip is the sleeve's end, and a fan of three held below the palm reaches
    beyond `CARRY_MM` of it as it crosses into the seat's zone. The far cards move and overlap the card at the
    fingers: the same fan, carried (fresh 51007 of stop 34: a draw of four counted three). A moving back in the
    zone beyond the fingers that touches no carried card is not taken in, nor are the fan's cards lying still."""
    from vision.draws import CARRY_MM
    from vision.tablefile import CARD_W_MM

    table, model, image = _still_table()
    zone = next(z for z in table.seat_zones() if z.seat == 0)
    edge = model.edge_points[0]
    centre = edge + (zone.centre - edge) * 1.2
    fan = [_back(centre[0] - CARD_W_MM / 2 + 30 * k, centre[1] - CARD_H_MM / 2 - 25 * k,
                 centre[0] + CARD_W_MM / 2 + 30 * k, centre[1] + CARD_H_MM / 2 - 25 * k)
           for k in range(3)]  # spread aslant, away from the fingers
    apart = _back(centre[0] + 100, centre[1] - CARD_H_MM / 2 - 60, centre[0] + 100 + CARD_W_MM,
                  centre[1] + CARD_H_MM / 2 - 60)
    tip = centre + np.array([0.0, CARD_H_MM / 2 + 60.0])
    for s in [*fan, apart]:
        assert zone.contains(s.centre)
    assert [float(np.hypot(max(s.box_mm[0] - tip[0], 0.0), tip[1] - s.box_mm[3])) <= CARRY_MM
            for s in fan] == [True, False, False]
    tracker = DrawTracker(model, reader=_ReaderOf([*fan, apart]))  # type: ignore[arg-type]
    assert not any(tracker.in_held_fan(s.centre) for s in [*fan, apart])
    hand = SimpleNamespace(seat=0, tip=tip, mask=np.zeros((model.raster.h, model.raster.w), bool))
    assert tracker._count(image, hand, 1.0) == (0, 0)  # lying still
    for s in [*fan, apart]:
        _moving(model, s)
    assert tracker._count(image, hand, 1.0) == (3, 0)


def test_a_face_on_the_discard_pile_misread_as_a_back_beside_the_carried_card_is_not_carried() -> None:
    """A hand crossing the discard pile on its way back from the draw pile, the card it drew in its blob: the
    pile's dark Wild corner beside it, read as a back, is not in the hand, still or with the hand's motion all
    around it (held-out 21004 and 23018: a draw of one read as two), nor with the passing hand over most of it
    (fresh 41017: a draw of two read as three). Where the blob lost the fingers (a hand the
    colour of the table, no back in it), a back moving over the pile is carried, as on the way home."""
    from vision.draws import HELD_ON_DISCARD
    from vision.motion import LOW
    from vision.tablefile import CARD_W_MM

    table, model, image = _still_table()
    c = table.discard.centre
    misread = _back(c[0] - CARD_W_MM / 2, c[1] - CARD_H_MM / 2, c[0] + CARD_W_MM / 2, c[1] + CARD_H_MM / 2)
    held = _back(c[0] + CARD_W_MM / 2 + 5, c[1] - CARD_H_MM / 2, c[0] + 1.5 * CARD_W_MM + 5, c[1] + CARD_H_MM / 2)
    assert table.discard.contains(held.centre)
    mask = np.zeros((model.raster.h, model.raster.w), bool)
    hand = SimpleNamespace(seat=0, tip=c + np.array([CARD_W_MM, 20.0]), mask=mask)

    def box_px(s: Seen) -> tuple[int, int, int, int]:
        x0, y0, x1, y1 = (np.array(s.box_mm) * LOW).astype(int)
        return x0, y0, x1, y1

    hx0, hy0, hx1, hy1 = box_px(held)
    mask[hy0:hy1, hx0:hx1] = True  # the drawn card is in the hand's blob
    tracker = DrawTracker(model, reader=_ReaderOf([misread, held]))  # type: ignore[arg-type]
    _moving(model, held)
    assert tracker._count(image, hand, 1.0) == (1, 0)
    _moving(model, misread)
    assert tracker._count(image, hand, 1.0) == (1, 0)  # the hand's motion all around it
    x0, y0, x1, y1 = box_px(misread)
    cut = y0 + int((y1 - y0) * (HELD_ON_DISCARD - 0.15))
    mask[y0:cut, x0:x1] = True  # the hand over a third of it: still the pile's
    assert tracker._count(image, hand, 1.0) == (1, 0)
    # fresh 41017: a Wild under the passing hand, 0.58-0.61 of its box's middle half (which `inside_share` reads)
    mask[y0:y0 + int((y1 - y0) * (0.25 + 0.5 * 0.6)), x0:x1] = True
    assert tracker._count(image, hand, 1.0) == (1, 0)
    mask[y0:y1, x0:x1] = True  # in the hand's blob: held too
    assert tracker._count(image, hand, 1.0) == (2, 0)
    # ... unless the discard tracker read a face of the pile there (tuning 31015: the pile's Wild, 0.77-0.82 of it
    # in the blob spread over the pile, a draw of one read as two)
    wild = Seen("wild", (misread.box_mm[0] - 4, misread.box_mm[1] - 6, misread.box_mm[2] + 5, misread.box_mm[3] + 3), 0.9)
    knows = DrawTracker(model, reader=_ReaderOf([misread, held]), pile_faces=lambda: [wild])  # type: ignore[arg-type]
    assert knows._count(image, hand, 1.0) == (1, 0)
    moved = Seen("wild", (wild.box_mm[0] - 70, wild.box_mm[1], wild.box_mm[2] - 70, wild.box_mm[3]), 0.9)
    elsewhere = DrawTracker(model, reader=_ReaderOf([misread, held]),  # type: ignore[arg-type]
                            pile_faces=lambda: [moved])
    assert elsewhere._count(image, hand, 1.0) == (2, 0)  # a face read elsewhere says nothing of this back
    # fingers the blob lost: no back in it, and a back moving over the pile is the carry
    mask[:] = False
    alone = DrawTracker(model, reader=_ReaderOf([held]))  # type: ignore[arg-type]
    assert alone._count(image, hand, 1.0) == (1, 0)
    model.motion[:] = False
    assert alone._count(image, hand, 1.0) == (0, 0)  # lying still: the pile's


def test_a_hand_whose_palm_the_table_hides_reaches_the_pile_when_the_pile_moves_ahead_of_its_sleeve() -> None:
    """Skin the colour of the table: the blob (the sleeve) stops short of the draw pile while the fingers take a
    card. Motion on the pile just ahead of the tip is the palm; with the pile still, the hand stops short (it
    lays a card on the discard pile beside the draw pile)."""
    from vision.draws import PALM_MM

    table, model, image = _still_table()
    tracker = DrawTracker(model, reader=_ReaderOf([]))  # type: ignore[arg-type]
    seat = 0
    edge = model.edge_points[seat]
    pile = table.draw.centre
    way = (pile - edge) / np.hypot(*(pile - edge))
    tip = pile - way * 10.0
    while table.draw.contains(tip):  # walk back to just outside the zone
        tip = tip - way * 5.0
    tip = tip - way * (PALM_MM / 3)
    hand = SimpleNamespace(seat=seat, tip=tip, reach=float(np.hypot(*(tip - edge))),
                           mask=np.zeros((model.raster.h, model.raster.w), bool))
    assert not table.draw.contains(tip) and not tracker.reaches_pile(hand)  # type: ignore[arg-type]
    palm = tip + way * (PALM_MM * 0.8)
    _moving(model, _back(palm[0] - 20, palm[1] - 20, palm[0] + 20, palm[1] + 20))
    assert tracker.reaches_pile(hand)  # type: ignore[arg-type]
    far = SimpleNamespace(seat=seat, tip=pile - way * (PALM_MM + 160.0), reach=0.0, mask=hand.mask)
    assert not tracker.reaches_pile(far)  # type: ignore[arg-type]
    # an arm reaching in at a slant (tuning 43003): the palm moves on the pile beside the line from the seat's
    # edge point through the tip, within PALM_MM of the tip; motion on the pile further off is no palm of it
    side = np.array([-way[1], way[0]])
    for ahead, off, reaches in ((0.35, 0.6, True), (1.0, -0.9, False)):  # 42 mm from the tip; 81 mm
        _, model, _ = _still_table()
        tracker = DrawTracker(model, reader=_ReaderOf([]))  # type: ignore[arg-type]
        palm = tip + (way * ahead + side * off) * PALM_MM
        assert table.draw.contains(palm)
        _moving(model, _back(palm[0] - 8, palm[1] - 8, palm[0] + 8, palm[1] + 8))
        assert tracker.reaches_pile(hand) == reaches, off  # type: ignore[arg-type]
        # a hand already going home with its cards (tuning 45011) looks for the palm straight ahead only
        assert not tracker.reaches_pile(hand, all_round=False)  # type: ignore[arg-type]


class _CroppingReader:
    """A card reader that sees the given table boxes as a detector sees them on a crop: only within the region it
    is shown, a card cut by the region's side boxed as the part inside it."""

    def __init__(self, seen: list[Seen]) -> None:
        self.seen, self.regions = seen, []

    def read(self, image: Any, region: tuple[float, float, float, float], *_args: Any, **_kwargs: Any) -> list[Seen]:
        self.regions.append(region)
        x0, y0, x1, y1 = region
        out = []
        for s in self.seen:
            b = (max(s.box_mm[0], x0), max(s.box_mm[1], y0), min(s.box_mm[2], x1), min(s.box_mm[3], y1))
            if b[2] - b[0] > 4.0 and b[3] - b[1] > 4.0:
                out.append(Seen(s.code, b, s.confidence))
        return out


def test_a_fan_spreading_beyond_the_read_region_is_read_again_beyond_it() -> None:
    """The blob's tip is often a corner of the carried fan, so a fan of six spreads to one side of it further than
    the region reaches (measured: tuning game 1319, a draw of six read as five on every frame, the sixth card cut
    by the region's side to a sliver). The fan is read again in a region centred on the backs carried."""
    from vision.motion import ForegroundModel
    from vision.tablefile import CARD_W_MM, default_table

    table = default_table(4)
    table.image_to_table = np.eye(3)
    model = ForegroundModel(table)
    edge = model.edge_points[0]  # the middle of the near long side: the arm reaches straight in, along -y
    inward, side = np.array([0.0, -1.0]), np.array([-1.0, 0.0])
    tip = edge + inward * 200.0
    # six backs at a 27 mm pitch from the tip to one side, each card (axis-aligned here) boxed whole
    centres = [tip + inward * 20.0 + side * (27.0 * k + CARD_W_MM / 2) for k in range(6)]
    fan = [_back(c[0] - CARD_W_MM / 2, c[1] - CARD_H_MM / 2, c[0] + CARD_W_MM / 2, c[1] + CARD_H_MM / 2)
           for c in centres]
    reader = _CroppingReader(fan)
    tracker = DrawTracker(model, reader=reader)  # type: ignore[arg-type]
    hand = SimpleNamespace(seat=0, tip=tip, mask=np.zeros((model.raster.h, model.raster.w), bool))
    region = tracker.count_region(hand)
    assert sum(1 for b in fan if b.box_mm[0] >= region[0] and b.box_mm[2] <= region[2]
               and b.box_mm[1] >= region[1] and b.box_mm[3] <= region[3]) < 6  # the region alone cuts the fan
    model.motion = np.ones((model.raster.h, model.raster.w), bool)  # the carried fan moves with the arm
    assert tracker._count(np.zeros((int(table.height), int(table.width), 3), np.uint8), hand, 1.0)[0] == 6
    assert len(reader.regions) == 2  # one read more, centred on the fan

    # a fan that the region holds whole is read once
    small = _CroppingReader(fan[:3])
    tracker = DrawTracker(model, reader=small)  # type: ignore[arg-type]
    assert tracker._count(np.zeros((int(table.height), int(table.width), 3), np.uint8), hand, 1.0)[0] == 3
    assert len(set(small.regions)) == 1  # one region (read as the table lies and turned: `TURNED_UP_TO`)


def _fan_from_arm(n: int, side: np.ndarray) -> tuple[Any, Any, np.ndarray, list[Seen]]:
    """A 4-seat table, everything moving, seat 0's arm reaching 200 mm straight in (along -y) from the middle of
    its edge, and a fan of `n` backs at a 27 mm pitch from its tip towards `side`, each card boxed whole (axis-
    aligned): (table, model, tip, fan)."""
    from vision.motion import ForegroundModel
    from vision.tablefile import CARD_W_MM, default_table

    table = default_table(4)
    table.image_to_table = np.eye(3)
    model = ForegroundModel(table)
    model.motion = np.ones((model.raster.h, model.raster.w), bool)  # the carried fan moves with the arm
    inward = np.array([0.0, -1.0])
    tip = model.edge_points[0] + inward * 200.0
    centres = [tip + inward * 20.0 + side * (27.0 * k + CARD_W_MM / 2) for k in range(n)]
    fan = [_back(c[0] - CARD_W_MM / 2, c[1] - CARD_H_MM / 2, c[0] + CARD_W_MM / 2, c[1] + CARD_H_MM / 2)
           for c in centres]
    return table, model, tip, fan


def test_a_second_read_that_holds_the_fan_whole_stands_though_it_sees_fewer() -> None:
    """A fan of five runs out of the first region, and the detector boxes the cut card on top twice, its whole
    and a part of it (fresh 51003 of stop 34: a draw of five read as six on every frame). The second read, centred
    on the fan, holds it whole and sees five: it stands, clear of the discard pile. Over the discard pile a read
    that sees fewer is not believed (a face of the pile may be among the first read's backs, or not)."""
    for side, clear in ((np.array([-1.0, 0.0]), True), (np.array([1.0, 0.0]), False)):  # the discard pile: +x
        table, model, tip, fan = _fan_from_arm(5, side)
        reader = _CroppingReader(fan)

        def read(image: Any, region: tuple[float, float, float, float], *a: Any,
                 _reader: _CroppingReader = reader, **k: Any) -> list[Seen]:
            first = not _reader.regions
            seen = _reader.read(image, region)
            if first:  # the card the side cut, boxed again: its lower 25 mm
                x0, _, x1, y1 = seen[-1].box_mm
                seen.append(_back(x0, y1 - 25.0, x1, y1))
            return seen

        tracker = DrawTracker(model, reader=SimpleNamespace(read=read, calls=0))  # type: ignore[arg-type]
        hand = SimpleNamespace(seat=0, tip=tip, mask=np.zeros((model.raster.h, model.raster.w), bool))
        assert any(table.discard.contains(b.centre) for b in fan) == (not clear)
        n = tracker._read_carry(np.zeros((560, 1000, 3), np.uint8), hand, tracker.count_region(hand), 1.0, 0)[0]
        assert len(reader.regions) == 2  # the first read's fan ran out of it
        assert not tracker.runs_out(reader.regions[1], fan)  # the second holds it whole
        assert n == (5 if clear else 6), clear


def test_a_second_read_that_boxes_a_fan_of_two_as_one_does_not_undo_a_first_that_boxed_each() -> None:
    """A fan of two lies to one side of the tip, the second card's box ending at the first region's side, so it is
    read again centred on the fan; that read boxes both cards as one (fresh 79004 of stop 40: seat 2's draw of two,
    boxed as one card 91 x 70 mm, flat and turned alike, read as one). A centred read that sees fewer stands only
    where the first read boxed a card twice, one box mostly inside another (`boxed_twice`: 51003, above); the
    first read's two boxes overlap as neighbours in a fan do, by much less."""
    table, model, tip, fan = _fan_from_arm(2, np.array([-1.0, 0.0]))  # clear of the discard pile (+x)
    fan = [_back(b.box_mm[0] - 83.0, b.box_mm[1], b.box_mm[2] - 83.0, b.box_mm[3]) for b in fan]
    x0, y0 = min(b.box_mm[0] for b in fan), min(b.box_mm[1] for b in fan)
    x1, y1 = max(b.box_mm[2] for b in fan), max(b.box_mm[3] for b in fan)
    regions: list[tuple[float, float, float, float]] = []

    def read(image: Any, region: tuple[float, float, float, float], *a: Any, **k: Any) -> list[Seen]:
        regions.append(region)
        if len(regions) == 1:  # each card, the second cut by the region's side
            return _CroppingReader(fan).read(image, region)
        return [_back(x0, y0, x1, y1)]  # the two as one box

    tracker = DrawTracker(model, reader=SimpleNamespace(read=read, calls=0))  # type: ignore[arg-type]
    hand = SimpleNamespace(seat=0, tip=tip, mask=np.zeros((model.raster.h, model.raster.w), bool))
    assert not any(table.discard.contains(b.centre) for b in fan)
    n = tracker._read_carry(np.zeros((560, 1000, 3), np.uint8), hand, tracker.count_region(hand), 1.0, 0)[0]
    assert len(regions) == 2  # the first read's fan ran out of it: read again, centred
    assert not tracker.runs_out(regions[1], [_back(x0, y0, x1, y1)])  # the second holds its one box whole
    assert not DrawTracker.boxed_twice(_CroppingReader(fan).read(None, regions[0]))
    assert n == 2


def test_a_second_read_that_sees_more_only_within_the_first_region_is_not_believed() -> None:
    """Moving the region takes in other things: a dark face on the discard pile, moving under the arm, read as a
    back (tuning games 1101 and 1301, draws of two and one counted a card over). A second read is believed for
    as many more cards as it has middles beyond the first region: cards its side cut off."""
    region = (100.0, 100.0, 400.0, 400.0)
    cut = _back(360.0, 200.0, 420.0, 287.0)  # middle at 390: inside, though its box runs past the side
    past = _back(380.0, 200.0, 436.0, 287.0)  # middle at 408: beyond the side
    within = _back(300.0, 150.0, 356.0, 237.0)
    assert DrawTracker.outside(region, [cut, within]) == 0
    assert DrawTracker.outside(region, [cut, past, within]) == 1
    assert DrawTracker.outside(region, []) == 0


def test_a_small_carry_is_read_again_turned_so_the_arm_points_down_the_crop() -> None:
    """The detector boxes two fanned backs as one on some sides of the table (fresh 47011: a fan of two from a
    seat on the table's left read as one box); turned so the arm points down its crop, it boxes each. A carry read
    as `TURNED_UP_TO` backs or fewer is read again so turned (`arm_down_turn`), and the larger count stands; a
    larger fan is read once, as the table lies."""
    from vision.draws import TURNED_UP_TO

    for forward in ((1.0, 0.0), (-1.0, 0.0), (0.0, -1.0), (0.0, 1.0), (0.8, 0.6), (-0.3, -0.95)):
        f = np.array(forward)
        crop = np.zeros((21, 21), int)
        crop[10 + int(round(f[1] * 9)), 10 + int(round(f[0] * 9))] = 1  # a mark where the arm points
        row, col = np.argwhere(np.rot90(crop, arm_down_turn(f)))[0]
        assert row >= 15 and abs(col - 10) <= 6, forward  # now below the middle
    from vision.motion import ForegroundModel
    from vision.tablefile import default_table

    table = default_table(4)
    table.image_to_table = np.eye(3)
    model = ForegroundModel(table)
    model.motion = np.ones((model.raster.h, model.raster.w), bool)  # whatever is read moves with the arm
    turns: list[int] = []
    shown: dict[int, list[Seen]] = {}

    class _Turns:
        """Sees the backs `shown` for the turn it is asked for (none for another)."""

        calls = 0

        def read(self, image: Any, region: tuple[float, float, float, float], *a: Any, **k: Any) -> list[Seen]:
            turns.append(k.get("turn", 0))
            return list(shown.get(turns[-1], []))

    tracker = DrawTracker(model, reader=_Turns())  # type: ignore[arg-type]
    image = np.zeros((int(table.height), int(table.width), 3), np.uint8)
    for seat in range(4):  # each seat's arm reaching in from its edge, nothing carried
        edge = model.edge_points[seat]
        tip = edge + (np.array([table.width, table.height]) / 2 - edge) * 0.5
        hand = SimpleNamespace(seat=seat, tip=tip, mask=np.zeros((model.raster.h, model.raster.w), bool))
        turns.clear()
        assert tracker._count(image, hand, 1.0) == (0, 0)
        turn = arm_down_turn(tracker.forward(hand))
        assert turns == ([0] if turn == 0 else [0, turn]), seat
    # seat 1's arm (the table's left, pointing right): two cards boxed as one as the table lies, two turned
    edge = model.edge_points[1]
    hand = SimpleNamespace(seat=1, tip=edge + np.array([200.0, 0.0]), mask=np.zeros((model.raster.h, model.raster.w),
                                                                                    bool))
    turn = arm_down_turn(tracker.forward(hand))
    assert turn == 3
    x, y = hand.tip + np.array([20.0, 0.0])
    shown[0] = [_back(x, y - 40.0, x + CARD_H_MM, y + 44.0)]
    shown[turn] = [_back(x, y - 40.0, x + CARD_H_MM, y + 17.0), _back(x, y - 13.0, x + CARD_H_MM, y + 44.0)]
    turns.clear()
    assert tracker._count(image, hand, 1.0)[0] == 2
    assert turns == [0, turn]
    # a fan larger than `TURNED_UP_TO`, read whole as the table lies, is read once
    shown[0] = [_back(x, y - 80.0 + 25.0 * k, x + CARD_H_MM, y - 23.0 + 25.0 * k) for k in range(TURNED_UP_TO + 1)]
    turns.clear()
    assert tracker._count(image, hand, 1.0)[0] == TURNED_UP_TO + 1
    assert turns == [0]


def test_a_second_read_that_sees_more_within_the_first_region_is_believed_clear_of_the_discard_pile() -> None:
    """A fan's first read misses two cards within its region (the detector sees a fan otherwise in another
    framing), and one more is cut by its side; the second read, clear of the discard pile, sees all six: believed
    (fresh 47011: a fan of six read as four). Over the discard pile, a card more within the first region may be
    a face of the pile read as a back: not believed."""
    for side, believed in ((np.array([-1.0, 0.0]), True), (np.array([1.0, 0.0]), False)):  # the discard pile: +x
        table, model, tip, fan = _fan_from_arm(6, side)
        reader = _CroppingReader(fan)
        missed = [fan[1].box_mm, fan[2].box_mm]

        def read(image: Any, region: tuple[float, float, float, float], *a: Any,
                 _reader: _CroppingReader = reader, _missed: list[Any] = missed, **k: Any) -> list[Seen]:
            first = not _reader.regions
            return [s for s in _reader.read(image, region) if not (first and s.box_mm in _missed)]

        tracker = DrawTracker(model, reader=SimpleNamespace(read=read, calls=0))  # type: ignore[arg-type]
        hand = SimpleNamespace(seat=0, tip=tip, mask=np.zeros((model.raster.h, model.raster.w), bool))
        assert any(table.discard.contains(b.centre) for b in fan) == (not believed)
        n = tracker._read_carry(np.zeros((560, 1000, 3), np.uint8), hand, tracker.count_region(hand), 1.0, 0)[0]
        assert len(reader.regions) == 2  # read again, around the fan
        assert DrawTracker.outside(reader.regions[0], fan) == 1  # one card more beyond the first region, not two
        assert n == (6 if believed else 4), believed


class _Frames:
    """A seat's hand, frame by frame, for `DrawTracker.step`: the model's hands are set before each step."""

    def __init__(self, model: Any, tracker: DrawTracker) -> None:
        self.model, self.tracker, self.events = model, tracker, []

    def step(self, t: float, tip: np.ndarray | None) -> None:
        edge = self.model.edge_points[0]
        mask = np.zeros((self.model.raster.h, self.model.raster.w), bool)
        self.model.hands = [] if tip is None else [
            SimpleNamespace(seat=0, tip=tip, reach=float(np.hypot(*(tip - edge))), mask=mask)]
        self.events += self.tracker.step(np.zeros((560, 1000, 3), np.uint8), t)


def _carrying_tracker() -> tuple[Any, DrawTracker, list[Seen]]:
    """A 4-seat table whose reader sees the backs it is given wherever it looks; nothing moves (`moving` sets it)."""
    from vision.motion import ForegroundModel
    from vision.tablefile import default_table

    table = default_table(4)
    table.image_to_table = np.eye(3)
    model = ForegroundModel(table)
    model.motion = np.zeros((model.raster.h, model.raster.w), bool)
    model.withdrawing = lambda *_a, **_k: False  # type: ignore[method-assign]
    backs: list[Seen] = []
    tracker = DrawTracker(model, reader=_ReaderOf(backs))  # type: ignore[arg-type]
    return model, tracker, backs


def _cut_short_trip(carried: int = 2) -> tuple[Any, _Frames, list[Seen], np.ndarray]:
    """A hand on the draw pile at 1.0 s, leaving with two backs (`carried`: the first of them only; read once at
    1.1 s, 120 mm out towards its seat, the backs moving with it), and on the pile again at 1.2 s before the reads
    were done: (model, frames, backs the reader sees, the point it left to)."""
    from vision.motion import LOW

    model, tracker, backs = _carrying_tracker()
    pile = model.table.draw.centre
    home = model.edge_points[0]
    out = pile + (home - pile) / np.hypot(*(home - pile)) * 120.0  # out of the pile's zone, towards the seat
    assert model.table.draw.contains(pile) and not model.table.draw.contains(out)
    frames = _Frames(model, tracker)
    frames.step(1.0, pile)
    backs[:] = [_back(out[0] - 60.0, out[1] - 45.0, out[0] - 4.0, out[1] + 42.0),
                _back(out[0] + 4.0, out[1] - 45.0, out[0] + 60.0, out[1] + 42.0)][:carried]
    y0, y1, x0, x1 = (int(c * LOW) for c in (out[1] - 45, out[1] + 42, out[0] - 60, out[0] + 60))
    model.motion[y0:y1, x0:x1] = True
    model.motion &= ~tracker.pile_mask  # the pile lies still
    frames.step(1.1, out)
    frames.step(1.2, pile)
    assert frames.events == []
    return model, frames, backs, out


def test_a_carry_cut_short_by_the_hand_on_the_pile_again_is_not_lost() -> None:
    """Tuning game 1207: a hand shown at a challenge and picked up over the draw pile left its ghost there. The
    hand carrying six cards home was read once, then its blob merged with the ghost, the "hand" was on the pile
    again, and the visit began anew: the six cards were lost. Now what was read carries over: the draw is made
    when the visit ends, at the first trip's time, of what the last trip that read any back showed."""
    _, frames, _, _ = _cut_short_trip()
    for k in range(8):  # the hand is gone
        frames.step(1.3 + 0.1 * k, None)
    assert [(e["count"], e["t"]) for e in frames.events] == [(2, 1.0)]

    def home_again(frames: _Frames, out: np.ndarray) -> list[tuple[int, float]]:
        for k in range(6):
            frames.step(1.3 + 0.03 * k, out)
        return [(e["count"], e["t"]) for e in frames.events]

    # the hand read again on its way home, the same two cards in it: one draw of two, not four (tuning game 1107)
    _, frames, _, out = _cut_short_trip()
    assert home_again(frames, out) == [(2, 1.0)]

    # a hand that goes back for more comes home holding all it took: one draw of three
    _, frames, backs, out = _cut_short_trip()
    backs.append(_back(out[0] + 20.0, out[1] - 45.0, out[0] + 76.0, out[1] + 42.0))
    assert home_again(frames, out) == [(3, 1.0)]

    # a trip cut short whose read took in something more, then a whole trip home: the whole trip's count stands
    _, frames, backs, out = _cut_short_trip()
    backs[:] = backs[:1]
    assert home_again(frames, out) == [(1, 1.0)]

    # the seat's "hand" then goes on over the pile to the discard pile (tuning game 1207: the ghost's visit taken
    # on by the hand laying a card): the cards carried home on the first trip stay drawn
    model, frames, _, _ = _cut_short_trip()
    frames.step(1.3, model.table.discard.centre)
    assert [(e["count"], e["t"]) for e in frames.events] == [(2, 1.0)]


def test_a_trip_cut_short_after_one_read_of_one_back_carried_nothing() -> None:
    """Fresh 59006 of stop 35: a hand carrying a Wild Draw Four to the discard pile lingered by the draw pile, its
    dark face boxed as a back on the one read its "trip" got; the hand then went on over the pile to the discard
    pile, and that one back was made a draw of one. One box on one frame is no carry (`ONE_READ_BACKS`); two on
    it are, and one back read on every frame of a whole trip home is a draw of one."""
    for carried, drawn in ((1, []), (2, [2])):
        model, frames, _, _ = _cut_short_trip(carried)
        frames.step(1.3, model.table.discard.centre)
        assert [e["count"] for e in frames.events] == drawn, carried
        _, frames, _, out = _cut_short_trip(carried)
        for k in range(8):  # the hand is gone
            frames.step(1.3 + 0.1 * k, None)
        assert [e["count"] for e in frames.events] == drawn, carried
    _, frames, _, out = _cut_short_trip(1)
    for k in range(6):  # the whole trip home, read on every frame
        frames.step(1.3 + 0.03 * k, out)
    assert [e["count"] for e in frames.events] == [1]


def test_a_card_taken_before_the_discard_pile_holds_one_is_the_starter_not_a_draw() -> None:
    """Held-out 49003: the dealer turned a Wild Draw Four for the starter and carried it over the discard pile, its
    dark face boxed as a back: read as a draw of one. Before any card lies on the discard pile, a carry of one is
    the starter turned (`DrawTracker.without_starter`); a carry of two is a draw all the same, and once the pile holds a card, a
    carry of one is a draw."""
    for started, backs_kept, drawn in ((False, 1, []), (False, 2, [2]), (True, 1, [1])):
        _, frames, backs, out = _cut_short_trip()
        backs[:] = backs[:backs_kept]  # the whole trip home carries this many
        frames.tracker.pile_started = lambda started=started: started
        for k in range(6):
            frames.step(1.3 + 0.03 * k, out)
        assert [e["count"] for e in frames.events] == drawn, (started, backs_kept)


def test_a_drawn_fan_spreading_over_the_discard_pile_is_no_hand_going_on() -> None:
    """Held-out game 17015: a hand on the draw pile took eight cards and fanned them out 87 mm to the side in one
    frame; the blob's far point, the fan's end, lay in the discard pile's zone, and the visit was dropped as a
    hand passing over the pile to lay a card. A tip that gets there faster than a hand moves (`SPREAD_MM_S`) is
    the fan: the draw is counted as the hand goes home. A hand that moves there is still a hand going on."""
    from vision.motion import LOW

    def visit(hop_s: float) -> list[tuple[int, float]]:
        model, tracker, backs = _carrying_tracker()
        frames = _Frames(model, tracker)
        on_pile, fan_end = np.array([440.0, 300.0]), np.array([520.0, 300.0])  # 80 mm apart
        assert model.table.draw.contains(on_pile) and model.table.discard.contains(fan_end)
        assert 0 not in tracker.crossing
        frames.step(1.0, on_pile)
        frames.step(1.0 + hop_s, fan_end)
        home = model.edge_points[0]
        out = on_pile + (home - on_pile) / np.hypot(*(home - on_pile)) * 110.0  # a few frames later, going home
        backs[:] = [_back(out[0] - 60.0, out[1] - 45.0, out[0] - 4.0, out[1] + 42.0),
                    _back(out[0] + 4.0, out[1] - 45.0, out[0] + 60.0, out[1] + 42.0)]
        y0, y1, x0, x1 = (int(c * LOW) for c in (out[1] - 45, out[1] + 42, out[0] - 60, out[0] + 60))
        model.motion[y0:y1, x0:x1] = True
        model.motion &= ~tracker.pile_mask  # the pile lies still
        for k in range(10):
            frames.step(1.2 + hop_s + 0.033 * k, out)
        return [(e["count"], e["t"]) for e in frames.events]

    assert visit(1 / 30) == [(2, 1.0)]  # 80 mm in a frame: the fan spread
    assert visit(0.2) == []  # 80 mm in 0.2 s: a hand going on to the discard pile


def test_a_hand_that_left_the_pile_and_goes_on_beyond_it_to_the_discard_pile_drew_nothing() -> None:
    """Fresh 59006 of stop 35: seat 1's way to the discard pile crossed the draw zone's corner, a frame whose blob
    lost the hand made that "visit" leave the pile, and the Wild Draw Four in the hand, boxed as a back, was read
    on the way on and made a draw of one. A hand that reaches the discard pile further from its seat than it ever
    reached on the draw pile (`BEYOND_MM`) is going on to lay a card; one going home with a card is a draw."""
    for way, drawn in (("on", []), ("home", [1])):
        model, tracker, backs = _carrying_tracker()
        model.motion[:] = True  # the card moves with the hand ...
        model.motion &= ~tracker.pile_mask  # ... and the pile lies still: no palm on it once the hand is off it
        edge = model.edge_points[1]  # seat 1, the table's left edge: the draw pile lies before the discard pile
        mask = np.zeros((model.raster.h, model.raster.w), bool)
        events = []
        on_pile = np.array([440.0, 280.0])
        left = np.array([410.0, 380.0])  # a frame whose blob lost the hand: off the pile, the reach 18 mm short
        assert model.table.draw.contains(on_pile) and not model.table.draw.contains(left)
        steps = ([(470.0, 340.0), (510.0, 320.0), (550.0, 300.0), (590.0, 290.0), (630.0, 280.0)] if way == "on"
                 else [(370.0 - 40.0 * k, 400.0 + 10.0 * k) for k in range(6)])
        assert way == "home" or model.table.discard.contains(np.array(steps[1]))
        out = [left, *(np.array(p) for p in steps)]
        for k, tip in enumerate([on_pile, *out, *([None] * 20)]):
            if tip is None:
                model.hands = []
            else:
                model.hands = [SimpleNamespace(seat=1, tip=tip, reach=float(np.hypot(*(tip - edge))), mask=mask)]
                backs[:] = [_back(tip[0] - 20.0, tip[1] - 60.0, tip[0] + 36.0, tip[1] + 27.0)]
            events += tracker.step(np.zeros((560, 1000, 3), np.uint8), 1.0 + k / 30)
        assert [e["count"] for e in events] == drawn, way


def test_a_hand_back_on_the_pile_before_it_went_home_draws_only_what_it_took_more() -> None:
    """Fresh 71003 of stop 38: seat 2's hand took one card, its blob lost the fingers for a few frames so the visit
    "left" and was decided, a draw of one; on the next frame the card dragged off the pile joined the blob and
    reached over the pile again, and the hand's way home was read as a second draw of one. A hand on the pile
    again before it came home (`REVISIT_S`, `REVISIT_MM`) goes on with that draw: the same card is not drawn
    twice, a card more is. A hand that went home and came back draws anew."""

    def visit(carried_after: int, home_between: bool) -> list[int]:
        model, tracker, backs = _carrying_tracker()
        model.motion[:] = True  # the cards move with the hand ...
        model.motion &= ~tracker.pile_mask  # ... and the pile lies still
        frames = _Frames(model, tracker)
        on_pile, dip = np.array([400.0, 365.0]), np.array([400.0, 385.0])  # just in the zone; 18 mm nearer the seat
        assert model.table.draw.contains(on_pile) and not model.table.draw.contains(dip)

        def carrying(tip: np.ndarray, n: int) -> np.ndarray:
            backs[:] = [_back(tip[0] - 28.0 + 20.0 * k, tip[1] - 3.0, tip[0] + 28.0 + 20.0 * k, tip[1] + 84.0)
                        for k in range(n)]
            return tip

        t = iter(1.0 + k / 30 for k in range(100))
        frames.step(next(t), on_pile)
        for _ in range(5):  # the visit "leaves" and is read five times: a draw of one
            frames.step(next(t), carrying(dip, 1))
        assert [e["count"] for e in frames.events] == [1]
        if home_between:
            for k in range(3):
                frames.step(next(t), carrying(np.array([400.0, 430.0 + 40.0 * k]), 1))
        frames.step(next(t), on_pile)  # on the pile again
        for k in range(8):  # and home
            frames.step(next(t), carrying(np.array([400.0, 390.0 + 25.0 * k]), carried_after))
        return [e["count"] for e in frames.events]

    assert visit(1, home_between=False) == [1]  # the same card seen again on its way home
    assert visit(2, home_between=False) == [1, 1]  # one card more taken
    assert visit(1, home_between=True) == [1, 1]  # home and back: a draw of its own
