"""A revealed hand laid in overlapping rows: the cards the detector missed, found from the row's steady pitch.

Why: a hand of eight or more cards is laid in two rows, the second overlapping the first. The first row's middle
cards then show only a strip (their corner index under the next card or the second row), and the detector misses
some of them, so the hand is counted short and the engine flags a `count_mismatch` that did not happen. A player
lays a row at a steady pitch, and each card in it is still seen by one edge: the edge the next card does not
cover. So a gap of two pitches between two such edges in a row holds a card, and its strip is where the next pitch
starts. A row whose own edges wander too much to make a pitch is read at the pitch of the hand's best row (one
player lays a hand at one pitch), and a row of a hand laid in rows spans (n - 1) pitches and a card's width,
which counts cards its gaps hide too unevenly to show. The strip is named by the reader's revealed-card namer;
the count is what matters most (the engine's flag), the name goes into the hand's score.

Geometry is in the seat's frame: `u` along the table edge in front of the player, `v` from that edge into the
table. A seat zone lies along one table edge (`vision.tablefile.default_zones`), so both axes are table axes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from vision.readers import CardReader, Seen
from vision.row_edges import (
    FAR_END_SLACK_MM,
    MAX_PITCH_MM,
    MIN_PITCH_MM,
    PROFILE_SCALE,
    RowComb,
    count_row,
    edge_floor,
    edge_profile,
    past_far_end,
)
from vision.seat_frame import SeatFrame, card_sized, off_piles, owned
from vision.tablefile import CARD_H_MM, CARD_W_MM, Table, Zone

ROW_GAP_MM = 20.0
"""Cards whose player-side edges lie this far apart (along `v`) are in different rows."""
ROW_SPAN_MM = 30.0
"""... and a row's player-side edges span at most this much: a strip half hidden under the next row is boxed
short of its own edge (by up to 24 mm, measured), and such boxes can chain two rows laid 40 mm apart into one
(held-out 19006: a hand of nine, a row of seven and one of two, read as one row of seven). A chain spanning more
is cut at its widest gap. Rows are laid 32-48 mm apart."""
ROW_FAR_MM = 10.0
"""... but boxes whose player-side edges lie past that gap while their far edges (`v1`) lie this near the row's
are cards of that row boxed short on the player's side: a second row lies 32-48 mm further at both edges (tuning
game 37004: a row of seven, a blue Draw Two's strip boxed from 91 mm where the others began at 68, all ending at
155-159; it made a row of its own, the first row's comb counted its strip again, and the hand was read as eight)."""
MIN_ROW = 3
"""A pitch is read from a row of at least this many boxes (two give one gap, which says nothing of the pitch)."""
PITCH_FIT = 0.25
"""A row's edges are steady when every gap between them is within this many pitches of a whole number."""
COVERED_WIDTH = 0.85
"""A card's box narrower than this share of a card's width (along the row) is cut short by a card lying on it.
The detector's box of a card under the next reaches 8-14 mm past the edge that covers it (the visible strip is a
pitch, 30-34 mm, wide; boxes measured 40-46 mm), well short of the 57 mm of a card with nothing on it."""
TWO_STRIPS = 1.2
"""A face's box wider than this many card widths (along the row) is no one card: the detector boxed two strips of
a row as one (a red Skip's strip and the red 3's beside it boxed 77 mm wide, the 3 missed), so a gap at its end
hides a card even in a lone row. A card turned a little in its row boxes at most 64 mm (5 degrees)."""
TWIN_MM = 5.0
"""Two boxes of one row whose ends along the row lie this near are one card boxed twice (`edge_twins`): the
detector's boxes wander a few millimetres, cards in a row lie a pitch (10 mm or more) apart."""
TWIN_SHARE = 0.6
TWIN_ALIKE_MM = 12.0
"""... and two boxes of one row named alike, with an end within `TWIN_ALIKE_MM` of each other's and one lying on
`TWIN_SHARE` of the narrower along the row, are one card boxed twice (fresh game 43013: a yellow 4's strip boxed
210-256 mm and again 228-265 mm, over the strip of the yellow 3 beside it, both named a yellow 4; the row's cards
lay 27-32 mm apart, too unevenly for a comb, and a hand of seven was read as eight). Two cards side by side lie a
pitch apart at both ends (strips of a revealed row are 14 mm wide or more), though their boxes may share much
more: a row's first-laid card shows whole and its box may reach 31 mm under the card on it (tuning game 39011: a
yellow 7 boxed 324-373 mm and the yellow 1 beside it, misnamed a yellow 7, 342-401 mm: ends 18 and 28 mm apart)."""
EXTENT_MAX = 2
"""A row's extent adds at most this many cards to what its boxes and gaps found (`short_of_extent`)."""
ROW_END_CONF = 0.8
"""A strip one pitch beyond a row's end holds a card the detector missed (the row's first-laid card, showing its
index only) when the revealed-card classifier names it a face this surely (`beyond_ends`). Measured on the 154
reveals of the tuning games collected then (sets 17000-23000): the strips beyond every row's true ends (cloth, or
the edge of another row) were named at most 0.57, the one missed end card (held-out 21015, a red 0 at the end of a third row, the hand of
eighteen read as seventeen) 0.94. Gaps inside a row need no such bar: the row's own edges say a card is there."""
END_SHOWS_BOX = 0.25
"""... unless it is named as a face of the hand already boxed that covers this share of the strip: the strip beyond
a row's end may show a card of the row beneath it, which is that card (fresh game 27002: a second row's end strip
over the first row's Wild Draw Four, named it at 0.8 or more, and a hand of ten was read as eleven)."""



def rows_of(boxes: list[tuple[float, float, float, float]]) -> list[list[int]]:
    """Indices of seat-frame boxes grouped into rows by their player-side edge (`v0`): a later row overlaps the
    one before it from the table's side, so each row's player-side edge stays in view. A box past a row's gap
    whose far edge is that row's (`ROW_FAR_MM`) is a card of the row boxed short."""
    order = sorted(range(len(boxes)), key=lambda i: boxes[i][2])
    rows: list[list[int]] = []
    for i in order:
        if rows and boxes[i][2] - boxes[rows[-1][-1]][2] <= ROW_GAP_MM:
            rows[-1].append(i)
        else:
            rows.append([i])
    joined: list[list[int]] = []
    for part in (part for row in rows for part in _cut_chain(row, boxes)):
        if joined:  # a card of the row before boxed short on the player's side ends where that row does
            moved = [i for i in part if _same_far_edge(i, part, joined[-1], boxes)]
            joined[-1] += moved
            part = [i for i in part if i not in moved]
        if part:
            joined.append(part)
    return joined


def _same_far_edge(i: int, part: list[int], row: list[int], boxes: list[tuple[float, float, float, float]]) -> bool:
    """Box `i` of `part` (past `row`'s player-side edges) ends where `row` does (`ROW_FAR_MM`) rather than where the
    rest of `part` does, within a row's span of `row`'s player-side edge."""
    gap = abs(boxes[i][3] - float(np.median([boxes[j][3] for j in row])))
    rest = [boxes[j][3] for j in part if j != i]
    return (gap <= ROW_FAR_MM and boxes[i][2] - min(boxes[j][2] for j in row) <= ROW_SPAN_MM
            and (not rest or gap < abs(boxes[i][3] - float(np.median(rest)))))


def _cut_chain(row: list[int], boxes: list[tuple[float, float, float, float]]) -> list[list[int]]:
    """`row` (indices sorted by `v0`) cut at its widest gap in `v0`, and again, until no part spans more than
    `ROW_SPAN_MM`."""
    v0 = [boxes[i][2] for i in row]
    if len(row) < 2 or v0[-1] - v0[0] <= ROW_SPAN_MM:
        return [row]
    k = int(np.argmax(np.diff(v0))) + 1
    return _cut_chain(row[:k], boxes) + _cut_chain(row[k:], boxes)


def _pitch(edges: list[float], given: float | None = None) -> tuple[float, float] | None:
    """(pitch, misfit) of sorted edges, or None when there is no steady pitch. The pitch is the one gap that the
    most other gaps match (the mean of those), so half the gaps may be doubles; the misfit is the largest distance
    (in pitches) of any gap from a whole number of pitches. `given`: try that pitch only (`hand_pitch`), which
    as many gaps must match."""
    gaps = np.diff(np.array(edges))
    best: tuple[int, float, float] | None = None
    for g in gaps if given is None else [given]:
        if not MIN_PITCH_MM <= g <= MAX_PITCH_MM:
            continue
        ones = gaps[np.abs(gaps / g - 1) < PITCH_FIT]
        if not len(ones):
            continue
        pitch = float(ones.mean()) if given is None else given
        misfit = float(np.abs(gaps / pitch - np.maximum(np.round(gaps / pitch), 1)).max())
        if best is None or (len(ones), -misfit) > (best[0], -best[2]):
            best = (len(ones), pitch, misfit)
    if best is None or best[0] < max(2, (len(gaps) + 1) // 2):
        return None
    return best[1], best[2]


def _row_fit(boxes: list[tuple[float, float, float, float]],
             given: float | None = None) -> tuple[float, float, str, list[float]] | None:
    """(pitch, misfit, side, edges) of the side of a row whose edges keep a steady pitch (the better of the two),
    or None; `given`: that pitch only."""
    if len(boxes) < MIN_ROW:
        return None
    lefts, rights = sorted(b[0] for b in boxes), sorted(b[1] for b in boxes)
    fits = [(f[0], f[1], side, edges) for side, edges in (("left", lefts), ("right", rights))
            if (f := _pitch(edges, given)) is not None and f[1] < PITCH_FIT]
    return min(fits, key=lambda x: x[1]) if fits else None


def hand_pitch(rows: list[list[tuple[float, float, float, float]]]) -> float | None:
    """The pitch a hand's rows were laid at: that of the row whose edges fit their pitch best. One player lays a
    hand's rows with one movement of the hand, at one pitch (the layouts the revealed-card classifier learnt
    from, `datasets.reveal_crops`, keep one pitch a hand); a row whose own edges are too few or wander too much
    to make its pitch (the detector's boxes of half-hidden strips wander 5-7 mm) is read at this one."""
    fits = [f for row in rows if (f := _row_fit(row)) is not None]
    return min(fits, key=lambda f: f[1])[0] if fits else None


def _strip_band(boxes: list[tuple[float, float, float, float]], covered_from: float | None) -> tuple[float, float]:
    """(v0, v1) of the strips added to a row: the row's typical extent from the player's edge, stopping where the
    next row starts covering it (`covered_from`), so a strip's crop shows its own card."""
    v0 = float(np.median([b[2] for b in boxes]))
    v1 = float(np.median([b[3] for b in boxes]))
    if covered_from is not None and covered_from > v0 + MIN_PITCH_MM:
        v1 = min(v1, covered_from)
    return v0, v1


def hidden_in_row(boxes: list[tuple[float, float, float, float]], covered_from: float | None = None,
                  seen_covered: bool = False,
                  pitch: float | None = None) -> list[tuple[float, float, float, float]]:
    """Seat-frame strips (u0, u1, v0, v1) of the cards hidden in one row's gaps.

    Each card is seen by one edge, the same side for the whole row (the side the next card does not cover): on
    that side every gap is a whole number of pitches, while the covered side's edges (where a box ends at the
    next card) fall anywhere. A gap of k pitches hides k - 1 cards. `covered_from`: where (in `v`) the next row
    starts covering this one; the strips stop there, so a strip's crop shows its own card. `seen_covered`: a gap
    hides a card only where the card seen at its near edge is itself cut short (its box narrower than
    `COVERED_WIDTH` of a card), as it is under the card laid next on it, or boxed with a neighbour's strip
    (wider than `TWO_STRIPS` cards); a card with nothing on it shows whole, and a gap beside it is only the
    table between two cards laid apart. `pitch`: the hand's pitch (`hand_pitch`), tried where the row's own
    edges make none.

    A gap that starts at a card showing whole (its box `COVERED_WIDTH` to `TWO_STRIPS` of a card wide: nothing lies
    on it) holds that card's width and then strips only: the cards it hides are the whole pitches between its far
    side and the gap's other edge. Why: fresh 61019 of stop 36: a row of seven, its top card boxed whole (57 mm) at
    one end and the next strip unboxed; the row's edges were taken on the side where that card's width made the
    first gap 86 mm, 2.8 pitches, and two cards were filled in where one was hidden: the hand of twelve read as
    thirteen, a `count_mismatch` that did not happen."""
    fit = _row_fit(boxes)
    if fit is None and pitch is not None:
        fit = _row_fit(boxes, pitch)
    if fit is None:
        return []
    pitch, _, side, edges = fit
    v0, v1 = _strip_band(boxes, covered_from)
    out = []
    for a, b in zip(edges, edges[1:], strict=False):
        near = [bx for bx in boxes if (bx[0] if side == "left" else bx[1]) == (a if side == "left" else b)]
        whole = [bx[1] - bx[0] for bx in near if COVERED_WIDTH * CARD_W_MM <= bx[1] - bx[0] <= TWO_STRIPS * CARD_W_MM]
        if whole and len(whole) == len(near):
            # the card seen at the gap's near edge shows whole: the gap beyond it holds strips only (see above)
            lo, hi = (a + max(whole), b) if side == "left" else (a, b - max(whole))
            m = round((hi - lo) / pitch) if hi - lo > 0 else 0
            if m < 1 or seen_covered:
                continue
            out += [(lo + j * (hi - lo) / m, lo + (j + 1) * (hi - lo) / m, v0, v1) for j in range(m)]
            continue
        k = round((b - a) / pitch)
        if k < 2:
            continue
        if seen_covered and not near:
            continue
        step = (b - a) / k
        for j in range(1, k):
            e = a + j * step
            out.append((e, e + step, v0, v1) if side == "left" else (e - step, e, v0, v1))
    return out


def short_of_extent(boxes: list[tuple[float, float, float, float]], found: list[tuple[float, float, float, float]],
                    pitch: float | None, covered_from: float | None = None) -> list[tuple[float, float, float, float]]:
    """Seat-frame strips of the cards a row's extent says it holds beyond its boxes and the strips `found` in its
    gaps (`hidden_in_row`), at most `EXTENT_MAX` of them, in its widest gaps.

    Why: the detector's boxes of half-hidden strips wander 5-9 mm against a pitch of about 32, so a gap of two
    pitches may not look like one (held-out games 3002 and 11018 of earlier stops, used for tuning here: hands
    of eleven and ten read a card short, their rows' edges 0.3 pitches off). The row's two ends wander less: its
    last card shows whole, its first shows its outer edge. A row of n cards laid at the hand's pitch (`hand_pitch`)
    spans (n - 1) pitches and a card's width; that count is believed when the span fits it within `PITCH_FIT`."""
    if pitch is None or len(boxes) < MIN_ROW:
        return []
    span = max(b[1] for b in boxes) - min(b[0] for b in boxes)
    n = (span - CARD_W_MM) / pitch + 1
    extra = round(n) - len(boxes) - len(found)
    if abs(n - round(n)) >= PITCH_FIT or not 1 <= extra <= EXTENT_MAX:
        return []
    v0, v1 = _strip_band(boxes, covered_from)
    lefts = sorted([b[0] for b in boxes] + [f[0] for f in found])
    widest = sorted(zip(np.diff(lefts), lefts[:-1], strict=True), reverse=True)[:extra]
    return [(a + g / 2 - pitch / 2, a + g / 2 + pitch / 2, v0, v1) for g, a in widest]


def edge_twins(boxes: list[tuple[float, float, float, float]], scores: list[float],
               codes: Sequence[str] | None = None) -> set[int]:
    """Indices of seat-frame boxes that box a card another box of the same row already boxes: the two share an end
    along the row (within `TWIN_MM`), or, named alike (`codes`), nearly share one and lie mostly on each other
    (`TWIN_ALIKE_MM`). Cards in
    a row lie a pitch apart, so two of them never end together; the detector, though, may box a card's strip and,
    beside it, more of the card (a yellow strip boxed 37 and 68 mm wide, both ending at the card that covers it),
    and the hand was counted a card over, and its row's pitch broken by a gap of nothing. Of twins the box of the
    higher score stays."""
    def alike(i: int, j: int) -> bool:
        if abs(boxes[i][0] - boxes[j][0]) <= TWIN_MM or abs(boxes[i][1] - boxes[j][1]) <= TWIN_MM:
            return True
        if codes is None or codes[i] != codes[j]:
            return False
        near = min(abs(boxes[i][0] - boxes[j][0]), abs(boxes[i][1] - boxes[j][1])) <= TWIN_ALIKE_MM
        shared = min(boxes[i][1], boxes[j][1]) - max(boxes[i][0], boxes[j][0])
        return near and shared >= TWIN_SHARE * min(boxes[i][1] - boxes[i][0], boxes[j][1] - boxes[j][0])

    drop: set[int] = set()
    for row in rows_of(boxes):
        for i in sorted(row, key=lambda k: (scores[k], -k)):  # the least sure first: dropped before its twin
            if any(j != i and j not in drop and alike(i, j) for j in row):
                drop.add(i)
    return drop


Namer = Callable[[list[tuple[float, float, float, float]]], list[tuple[str, float]]]
"""Names table boxes: (code, confidence) for each."""

Profiler = Callable[[tuple[float, float, float, float]], np.ndarray]
"""The edge profile (`vision.row_edges.edge_profile`) of a seat-frame band (u0, u1, v0, v1) of the frame read:
`PROFILE_SCALE` columns a mm from u0."""

PROFILE_PAD_MM = 8.0
"""The band profiled runs this far past the row's ends along it (the comb's end teeth sit on the row's ends)..."""
PROFILE_INSET_MM = 3.0
"""... and stops this far inside its near and far sides (the card's own rounded corners and the cloth)."""


def row_comb(boxes: list[tuple[float, float, float, float]], covered_from: float | None,
             profile: Profiler, others: Sequence[tuple[float, float, float, float]] = ()) -> RowComb | None:
    """The picture's count of one row (`vision.row_edges.count_row`), profiled over the depth that the next row
    leaves uncovered (`_strip_band`), or None where it makes none; with a card more past its far end where the
    picture shows one there (`vision.row_edges.past_far_end`) and no box of the hand's `others` rows lies in
    that strip (another row's card, whose edges are not this row's)."""
    left, right = min(b[0] for b in boxes), max(b[1] for b in boxes)
    v0, v1 = _strip_band(boxes, covered_from)
    if v1 - v0 < 2 * PROFILE_INSET_MM + MIN_PITCH_MM:
        return None
    # the far end's next tooth, whichever end it is; a whole number of the profile's columns past the row's band
    beyond = PROFILE_PAD_MM + np.ceil((MAX_PITCH_MM + PROFILE_PAD_MM) * PROFILE_SCALE) / PROFILE_SCALE
    u0 = left - beyond
    full = profile((u0, right + beyond, v0 + PROFILE_INSET_MM, v1 - PROFILE_INSET_MM))
    skip = int(round((beyond - PROFILE_PAD_MM) * PROFILE_SCALE))
    own = full[skip:len(full) - skip]  # the row's own band, as the comb has always been counted on
    comb = count_row(own, left - PROFILE_PAD_MM, left, right)
    if comb is None:  # the far end's box may overshoot its card's edge: the comb's end free a little
        comb = count_row(own, left - PROFILE_PAD_MM, left, right, end_slack=FAR_END_SLACK_MM)
    if comb is None:
        return None
    longer = past_far_end(comb, full, u0, left, right, edge_floor(own))
    if longer is comb:
        return comb
    strip = (*sorted((comb.edges[-1], longer.edges[-1])), v0, v1)
    return comb if any(_overlap(strip, b) > 0.0 for b in others) else longer


def _row_span(comb: RowComb | None, boxes: list[tuple[float, float, float, float]]) -> tuple[float, float]:
    """(u0, u1) of a row: as far as its comb counts it, and its boxes reach."""
    lo, hi = min(b[0] for b in boxes), max(b[1] for b in boxes)
    if comb is None:
        return lo, hi
    return min(lo, comb.extent[0]), max(hi, comb.extent[1])


def unboxed(comb: RowComb, boxes: list[tuple[float, float, float, float]],
            covered_from: float | None) -> list[tuple[float, float, float, float]]:
    """Seat-frame strips (u0, u1, v0, v1) of the cards of `comb` beyond the row's boxes: as many as the comb
    counts more, at the cards no box holds (a box holds the card whose shown edge its own end on that side lies
    at), those farthest from any box's end first (two boxes of one strip leave a held card looking free)."""
    missing = comb.n - len(boxes)
    if missing <= 0:
        return []
    held = {comb.card_of(b) for b in boxes}
    ends = np.array([b[1] if comb.shown == "right" else b[0] for b in boxes])
    free = sorted((k for k in range(comb.n) if k not in held), key=lambda k: -np.abs(ends - comb.edges[k]).min())
    v0, v1 = _strip_band(boxes, covered_from)
    return [(*comb.visible(k), v0, v1) for k in sorted(free[:missing])]


def fill_rows(seen: list[Seen], table: Table, zone: Zone, name: Namer, profile: Profiler | None = None) -> list[Seen]:
    """`seen` (a seat zone's read) with the cards hidden in its rows' gaps added, named by `name`; a strip named
    as a card back is no card of the hand and is left out. `profile`: the frame's edge profiles; a row the
    picture counts (`row_comb`) gets the cards of its count that no box holds, and the box-based steps below
    are for rows it does not count."""
    faces = [s for s in seen if s.code != "back" and zone.contains(s.centre)]
    if len(faces) < (1 if profile is not None else MIN_ROW):
        return seen
    frame = SeatFrame.of(table, zone)
    twins = edge_twins([frame.to_seat(s.box_mm) for s in faces], [s.card_score for s in faces],
                       [s.code for s in faces])
    if twins:  # one card boxed twice: counted once, and its edge once in the row's pitch
        dropped = {id(faces[i]) for i in twins}
        seen = [s for s in seen if id(s) not in dropped]
        faces = [s for s in faces if id(s) not in dropped]
    boxes = [frame.to_seat(s.box_mm) for s in faces]
    rows = rows_of(boxes)
    starts = [min(boxes[i][2] for i in row) for row in rows]  # rows run from the player's edge inwards
    # a lone row: every card's corner shows, but the detector may still miss one (a red 3 between a blue Skip and
    # a blue 5, in full view); a gap there is taken for a card only where the card before it is cut short
    pitch = hand_pitch([[boxes[i] for i in row] for row in rows])
    strips, ends = [], []
    twice: set[int] = set()  # faces boxed a second time in a row the picture counts
    beneath: list[tuple[float, float, float, float]] = []
    for k, row in enumerate(rows):
        row_boxes = [boxes[i] for i in row]
        covered_from = starts[k + 1] if k + 1 < len(rows) else None
        # what lies in this row's band beyond its ends that is not this row's: other rows' boxes, and the rows
        # already counted (nearer the player, lying under this one) as far as their combs reach, boxed or not
        others = [boxes[i] for i in range(len(boxes)) if i not in row] + beneath
        comb = row_comb(row_boxes, covered_from, profile, others) if profile is not None else None
        v_near = min(b[2] for b in row_boxes)
        beneath.append((*_row_span(comb, row_boxes), v_near, v_near + CARD_H_MM))
        row_pitch = comb.pitch if comb is not None else pitch
        if row_pitch is not None and len(row_boxes) >= 2:
            # a strip beyond the boxes' end that the comb counted already is no end of the row
            ends += [e for e in beyond_ends(row_boxes, covered_from, row_pitch)
                     if comb is None or not comb.extent[0] < (e[0] + e[1]) / 2 < comb.extent[1]]
        if comb is not None:
            doubled = boxed_twice(comb, row_boxes, [faces[i].card_score for i in row])
            twice |= {id(faces[row[j]]) for j in doubled}
            row_boxes = [b for j, b in enumerate(row_boxes) if j not in doubled]
            strips += unboxed(comb, row_boxes, covered_from)
            continue
        if len(faces) < MIN_ROW:
            continue
        in_gaps = hidden_in_row(row_boxes, covered_from, seen_covered=len(rows) < 2, pitch=pitch)
        strips += in_gaps
        if len(rows) > 1:  # in a lone row every corner shows: a card missed there is one in a gap (above)
            strips += short_of_extent(row_boxes, in_gaps, pitch, covered_from)
    ends = [e for e in ends if zone.contains(np.mean(np.reshape(frame.to_table(*e), (2, 2)), axis=0))]
    seen = [s for s in seen if id(s) not in twice]
    if not strips and not ends:
        return seen
    table_boxes = [frame.to_table(*s) for s in strips + ends]
    names = name(table_boxes)
    cards = [Seen(code, box, conf, presence=None) for box, (code, conf) in zip(table_boxes, names, strict=True)]
    added = [c for c in cards[:len(strips)] if c.code != "back"]
    for strip, c in zip(ends, cards[len(strips):], strict=True):
        # beyond a row's end, only a face named surely, and not the face of a boxed card the strip shows
        shows_boxed = any(f.code == c.code and _overlap(strip, b) >= END_SHOWS_BOX
                          for f, b in zip(faces, boxes, strict=True))
        if c.code != "back" and c.confidence >= ROW_END_CONF and not shows_boxed:
            added.append(c)
    return seen + added


def _overlap(strip: tuple[float, float, float, float], box: tuple[float, float, float, float]) -> float:
    """The share of seat-frame `strip` (u0, u1, v0, v1) that `box` covers."""
    du = min(strip[1], box[1]) - max(strip[0], box[0])
    dv = min(strip[3], box[3]) - max(strip[2], box[2])
    area = (strip[1] - strip[0]) * (strip[3] - strip[2])
    return max(du, 0.0) * max(dv, 0.0) / area if area > 0 else 0.0


def boxed_twice(comb: RowComb, boxes: list[tuple[float, float, float, float]], scores: list[float]) -> set[int]:
    """Indices of the boxes of a row beyond `comb`'s count that box a card another box holds already: the detector
    boxed one card's strip twice, the two boxes' ends too far apart for `edge_twins` (11-21 mm, measured: held-out
    25006 and 25014, a green 2 boxed twice, hands of six and eleven read a card over). The row's own edges count
    its cards; a box whose shown end lies at a card's edge that a surer box's end lies at too is that card again
    (`RowComb.card_of`). Only as many as the boxes exceed the count are dropped, the least sure first."""
    excess = len(boxes) - comb.n
    if excess <= 0:
        return set()
    by_card: dict[int, list[int]] = {}
    for j, b in enumerate(boxes):
        k = comb.card_of(b)
        if k is not None:
            by_card.setdefault(k, []).append(j)
    second = [j for js in by_card.values() for j in sorted(js, key=lambda j: -scores[j])[1:]]
    return set(sorted(second, key=lambda j: scores[j])[:excess])


def beyond_ends(boxes: list[tuple[float, float, float, float]], covered_from: float | None,
                pitch: float) -> list[tuple[float, float, float, float]]:
    """Seat-frame strips (u0, u1, v0, v1) one `pitch` beyond either end of a row: where a card the detector missed
    at the row's end would show. Every other step counts between the row's ends, which the boxes give; a missed
    end card moves the end, so only naming the strip can find it (`ROW_END_CONF`)."""
    left, right = min(b[0] for b in boxes), max(b[1] for b in boxes)
    v0, v1 = _strip_band(boxes, covered_from)
    return [(left - pitch, left, v0, v1), (right, right + pitch, v0, v1)]


def renamed(seen: list[Seen], zone: Zone, name: Namer, also: Sequence[int] = ()) -> list[Seen]:
    """`seen` with the faces in the zone, and the boxes at indices `also` (`dark_backs`), named again by `name`
    (the revealed-card classifier, which learnt them half hidden in rows), in one call; a box it calls a card
    back keeps its name."""
    idx = sorted({i for i, s in enumerate(seen) if s.code != "back" and zone.contains(s.centre)} | set(also))
    if not idx:
        return seen
    out = list(seen)
    for i, (code, conf) in zip(idx, name([seen[i].box_mm for i in idx]), strict=True):
        if code != "back":
            out[i] = Seen(code, seen[i].box_mm, conf, seen[i].presence)
    return out


def dark_backs(seen: list[Seen], table: Table, zone: Zone) -> list[int]:
    """Indices of the "card backs" among a revealed hand's rows, for `renamed` to name again: a Wild or Wild Draw
    Four half hidden in a row shows a strip of black with a red curve, which the detector takes for a card back,
    and the hand was read a card short (a `count_mismatch` flag). Only a back whose middle lies within the extent
    of the zone's faces, once there are enough of them to make a row, counts; a held fan of backs lies apart."""
    faces = [s for s in seen if s.code != "back" and zone.contains(s.centre)]
    if len(faces) < MIN_ROW:
        return []
    frame = SeatFrame.of(table, zone)
    boxes = [frame.to_seat(s.box_mm) for s in faces]
    u0, u1 = min(b[0] for b in boxes), max(b[1] for b in boxes)
    v0, v1 = min(b[2] for b in boxes), max(b[3] for b in boxes)

    def among(s: Seen) -> bool:
        b = frame.to_seat(s.box_mm)
        u, v = (b[0] + b[1]) / 2, (b[2] + b[3]) / 2
        return u0 <= u <= u1 and v0 <= v <= v1

    return [i for i, s in enumerate(seen) if s.code == "back" and zone.contains(s.centre) and among(s)]


class RowReader:
    """A seat zone's reader for a revealed hand: `reader`'s count (`presence` given), less the faces no card could
    box (`card_sized`) and those a neighbouring seat's zone owns (`owned`), with the cards its rows hide added
    (`fill_rows`: counted from the picture's edges, `vision.row_edges`, or from the boxes' gaps), all named by
    `namer`'s `name_revealed` (a `DetectorReader`: its revealed-card classifier, where shipped, names every face
    again). Reads that do not count pass through; without a namer, nothing is added or renamed."""

    def __init__(self, reader: CardReader, table: Table, zone: Zone, namer: object | None,
                 others: list[Zone] | None = None, laid: Callable[[Seen, float], bool] | None = None) -> None:
        """`others`: the other seats' zones as they are read (grown as this one is, `reaching`); the table's
        seat zones when None. `laid(seen, t)`: whether a face read at `t` lies where something changed lately;
        a face that does not is the room's furniture, not the hand (`vision.reveals.LAID_SHARE`)."""
        self.reader, self.table, self.zone, self.namer = reader, table, zone, namer
        self.laid = laid
        self.others = others if others is not None else [z for z in table.seat_zones() if z.name != zone.name]
        self.piles = [table.discard]  # the draw pile is backs only: a face on it is the hand's

    @property
    def calls(self) -> int:
        return self.reader.calls

    def read(self, image: np.ndarray, region_mm: tuple[float, float, float, float], scale: float,
             t: float, presence: float | None = None) -> list[Seen]:
        seen = self.reader.read(image, region_mm, scale, t, presence=presence)
        if presence is None:
            return seen
        seen = owned(off_piles(card_sized(seen), self.piles, SeatFrame.of(self.table, self.zone)), self.zone,
                     self.others)
        if self.laid is not None:
            seen = [s for s in seen if s.code == "back" or self.laid(s, t)]
        name_revealed = getattr(self.namer, "name_revealed", None)
        if name_revealed is None:
            return seen

        def name(boxes: list[tuple[float, float, float, float]]) -> list[tuple[str, float]]:
            return name_revealed(image, region_mm, scale, boxes)  # type: ignore[no-any-return]

        if getattr(self.namer, "reveal", None) is not None:
            # the faces read, and the dark faces taken for backs; the strips below are named once, as added
            seen = renamed(seen, self.zone, name, also=dark_backs(seen, self.table, self.zone))
        frame = SeatFrame.of(self.table, self.zone)

        def profile(band: tuple[float, float, float, float]) -> np.ndarray:
            return edge_profile(frame.crop(image, self.table, band, PROFILE_SCALE))

        filled = fill_rows(seen, self.table, self.zone, name, profile)
        if self.laid is None:
            return filled
        # a card filled in counts only where something was laid, as a boxed face does (`vision.reveals.LAID_SHARE`):
        # past a row's end, the edge of a thing lying on the cloth can pass for a first-laid card's outer edge (fresh
        # 57002 of stop 35: a pink object beside a row of three; the strip before its edge, named a green 5 at 0.15,
        # made a hand of four)
        before = {id(s) for s in seen}
        return [s for s in filled if id(s) in before or self.laid(s, t)]
