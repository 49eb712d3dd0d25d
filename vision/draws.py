"""Draws: a hand that reaches the draw pile and turns back carrying card backs becomes a `draw` with a count.

How: each seat's hand is followed by its tip (the blob point farthest from the seat's edge). A reach whose
turning point lies on the draw pile is a visit; a tip that only passes over the pile on the way to the discard
pile (the seat beside the draw pile) goes on and is not a visit. Once the returning hand has left the pile, the
backs it carries are counted on `reads` frames from a rectified crop around it; the largest count read is the
count (a back hidden under fingers on one frame shows on the next); a fan running out of the region read is read
again around it. A visit that carries no back (a hand that only touched the pile) is no draw. A visit cut short
(the seat's "hand" on the pile again before the reads are done) hands what it read to the next, so no carry is
lost and none counted twice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from vision.carried_boxes import fan_members, with_palms, without_merged
from vision.carry_counts import carry_count, hidden_in_fan, still_rising
from vision.discard import inside_share
from vision.lower_fit import strip_turns
from vision.motion import LOW, ForegroundModel, Hand
from vision.readers import CardReader, Seen
from vision.tablefile import CARD_H_MM, CARD_W_MM

CARRY_MM = 80.0  # how far from the fingertips a carried card may reach: the outer cards of a held fan of four
MIN_SHOWN = 0.25  # a carried back shows at least this share of a card (the detector learns cards from 30% visible)
HELD_FAN_MM = 60.0  # a back whose centre lies this near a seat's edge belongs to that seat's held fan
JUMP_MM = 120.0  # a visiting hand's reach this far from what it last was is the arm of a split blob ...
MAX_JUMPS = 10  # ... unless it stays there this many frames
LIFTED_MOVING = 0.5  # a back in the draw zone, clear of the pile's centre, whose box moves this much is lifted
HELD_ON_DISCARD = 0.65
"""Where the hand's own blob holds some of the carry, a back over the discard pile is carried only when at least
this share of its box lies in that blob. The pile shows faces, and a Wild, a Wild Draw Four or a Draw Two half
hidden by a hand crossing it is boxed as a back (a dark face, the classifier unsure); it moves with nothing, and the
motion around it is the hand's (held-out 21004 and 23018: draws of one read as two, on two frames each). Measured
on 53 games: the backs over the pile on reads that saw more cards than were drawn had 0-0.48 of themselves in the
blob where the blob held the true card, and of 1,039 backs over the pile on the other reads, all but five had 0.67 or
more. Those five were carried by hands whose blob had lost the fingers (a hand the colour of the table: no back of
that read in the blob), so where the blob holds none of the carry, motion decides, as on the way home. The bar
was 0.5 until fresh game 41017 of a later stop: a hand carrying two backs across the pile, a Wild on it boxed as a
back at 0.36-0.51 with 0.58-0.61 of its box under the passing hand, on two reads; a draw of two read as three. A
back is read on several frames and the count is the most any read saw, so a carried back dropped on one read
costs nothing, a stray one kept on one read costs a card."""
PILE_FACE_SHARE = 0.6
PILE_FACES = 4
"""A back over the discard pile lying this share of itself in the box of one of the pile's last `PILE_FACES` faces as
the discard tracker read them is that face, half hidden by the passing hand, not a card carried. Why: where the
hand's blob spreads over the pile, the pile's Wild under it is in the blob as much as the carry (tuning game
31015: a Wild on top of the pile, boxed as a back at 0.47-0.66 with 0.77-0.82 of it in the blob, on two frames;
a draw of one read as two). A carried card lies in one face's box on a frame or two at most, as the hand sweeps
over at 30-60 mm a frame, and the count is the most seen on two reads."""
SIDE_MM = 160.0  # the read reaches this far to either side of the arm: a carried fan of four spreads beyond the tip
PALM_MM = 60.0
"""A hand the colour of the table shows only its sleeve: its fingertips may reach this far beyond the blob's tip.
`DrawTracker.reaches_pile` then looks for the unseen palm as motion on the draw pile this far ahead of the tip, or
this near it all round."""
PALM_MOTION_PX = 12  # motion raster pixels on the pile near the tip (about 75 mm^2 in all) that make a palm
BEYOND_MM = 15.0
"""A visit's hand that has left the pile and reaches the discard pile this much further from its seat than it ever
reached on the draw pile is going on to lay a card, not home with a carry: the visit is dropped as a hand passing
over the pile. Why: fresh 59006 of stop 35: seat 1's path to the discard pile crossed the draw zone's corner; a
frame whose blob lost the hand (reach 312 -> 242 mm) made the visit "leave", and the Wild Draw Four in the hand,
boxed as a back, was read on the way on (reach 307-344 mm against 277 on the pile) and made a draw of one."""
TRIPS_S = 2.0  # the trips of one draw (a hand going back to the pile for more) follow within this many seconds
RUNS_OUT_MM = 3.0  # a carried back whose box ends this near the read's side runs out of it: the fan goes on beyond
SPREAD_MM_S = 2000.0
"""A tip that leaves the draw pile for the discard pile faster than this (mm a second of video time; 67 mm a frame
at 30 fps, where a reaching hand moves 15-30) did not move there: the cards just taken spread beyond the palm, and
the blob's far point is now the fan's end (held-out game 17015: a draw of eight fanned out 87 mm to the side in one
frame, its end over the discard pile's zone, and the visit was dropped as a hand passing on to lay a card)."""


@dataclass
class Visit:
    seat: int
    t: float
    max_reach: float
    counts: list[int] = field(default_factory=list)
    hidden: list[int] = field(default_factory=list)  # cards each read found hidden in the fan (`hidden_in_fan`)
    left: bool = False
    frames_out: int = 0
    last_seen: float = 0.0
    reach: float | None = None  # the hand's reach when last taken as real (see `DrawTracker.jumped`)
    jumps: int = 0
    jumped_reach: list[float] = field(default_factory=list)
    before: int = 0  # cards read carried on an earlier trip of this draw, cut short by this one (`cut_short`)
    first_t: float | None = None  # that trip's time on the pile
    tip: np.ndarray | None = None  # the tip when last on the pile
    spread: bool = False  # the tip hopped to the discard pile's zone: a fan spread (`SPREAD_MM_S`), no hand going on
    drawn: int = 0  # cards of this carry already drawn by a visit decided just before, never taken home (`REVISIT_S`)


REVISIT_S = 0.5
REVISIT_MM = 60.0
"""A hand on the draw pile again within `REVISIT_S` of the frame its seat's draw was decided on, having come no
nearer its seat since than `REVISIT_MM` short of its reach on the pile, never took that draw home: the visit goes
on, and only what it carries beyond the draw already made is drawn (`Drawn`). Why: fresh 71003 of stop 38: seat
2's hand took one card, the blob lost the fingers for a few frames (its reach 253 -> 214-232 mm), so the visit
"left" and its five reads (0, 0, 0, 1, 1) made a draw of one; on the next frame the card, dragged off the pile,
joined the blob, whose far end lay on the pile again (reach 263 mm), and the hand's real way home was read as a
second draw of one (replayed: two `wrong_draw` flags and a `missed_uno` that did not happen). A hand going home
comes 20-35 mm nearer its seat a frame, and a seat's next draw of the renderer's games starts at least 0.6 s after
the last was decided, the hand home between. At a real table a player who takes cards one at a time is such a
hand too: each card is drawn once, where the trip's count alone would count the first again."""


@dataclass
class Drawn:
    """A seat's draw just decided (`REVISIT_S`): when, the visit's reach on the pile, the cards the hand holds, and
    the least reach of the seat's hand since."""

    t: float
    reach: float
    count: int
    nearest: float


ONE_READ_BACKS = 2
"""A trip cut short (`DrawTracker.cut_short`) after one read counts only when that read saw this many backs: one box
on one frame is what a dark face in a passing hand makes, and `settled_count` counts no box read on one frame only.
Why: fresh 59006 of stop 35: a hand carrying a Wild Draw Four to the discard pile lingered by the draw pile, was
taken for a visit, and on its one read (turned, `TURNED_UP_TO`) the dark face was boxed as a back at 0.72; the
"hand" was on the pile again, then went on to the discard pile, and the trip's one back was made a draw of one,
which replayed as a flag that did not happen. A trip that read two backs or more on its one frame (tuning 1207:
six) still counts."""


def draw_event(seat: int, t: float, count: int, confidence: float, seen_t: float) -> dict[str, Any]:
    """A `draw` event of EVENTS.md: `t` when the hand was last on the pile, `seen_t` when it was decided."""
    return {"t": round(t, 3), "type": "draw", "seat": seat, "count": count, "source": "vision",
            "confidence": round(confidence, 3), "seen_t": round(seen_t, 3)}


TURNED_UP_TO = 3
"""A carry read as this many backs or fewer is read once more, its crop turned so the arm points down
(`arm_down_turn`), and the larger count stands. Why: the detector boxes two fanned backs as one on some sides of
the table. A fan of two carried from a seat on the table's left (its arm pointing right, the fan spreading down
the table) got one box round both cards on most frames, read as the table lies (fresh 47011 of stop 33: both of
seat 1's draws of two read as one; tuning 41005, the same), and a box for each card on every frame turned arm-down.
Larger fans the detector reads best as the table lies: turned arm-down on every read, a tuning set's draws
went from 2 wrong to 3 (41000: fans of four and six read a card short). Replayed over the carries of 42 games
(798 draws: sets 45000 and 47000, and 39011, 41005, 43004, 43007), counted by the two largest reads: as the table
lies 786 right; with the second read up to one back 789, up to two 789, up to three 790, on every read 789 (a fan
of six read as seven). Then on whole sets: draw counts 41000 99.75 -> 100%, 43000 98.7 -> 99.0% (the rest:
draws missed whole), 47000 99.1 -> 100% (its flags 14 -> 15 of 15 fully seen games); 39000 and 45000 the same.
What it costs (stop 39, every carry read of sets 69000 and 71000, 40 games): the turned read saw more on 65 reads,
the true count on 55, still short on 7, over on 3: fresh 71018's draw of three read as four, a box at 0.21-0.39 half
or more inside the flat read's boxes on two of five reads. The boxes it adds to right counts look the same (6 of
the 55 hold one scored under 0.45 lying half or more in a flat box), so no cut on score or overlap is made."""


def arm_down_turn(forward: np.ndarray) -> int:
    """The quarter-turns (as `np.rot90`) that bring a crop's arm, pointing `forward` on the table, nearest to
    pointing down the crop: the way up the detector tells a small carried fan's cards apart (`TURNED_UP_TO`).
    `strip_turns` brings a direction to the left; one more anticlockwise quarter-turn takes the left down."""
    return (strip_turns(float(forward[0]), float(forward[1])) + 1) % 4


class DrawTracker:
    def __init__(self, model: ForegroundModel, reader: CardReader, scale: float = 1.2, reads: int = 5,
                 pile_faces: Callable[[], list[Seen]] | None = None,
                 pile_started: Callable[[], bool] | None = None) -> None:
        """`pile_faces`: the discard pile's cards as last read there, with their boxes (`PILE_FACE_SHARE`).
        `pile_started`: whether a card lies on the discard pile (`without_starter`)."""
        self.model, self.reader, self.scale, self.reads = model, reader, scale, reads
        self.pile_faces, self.pile_started = pile_faces, pile_started
        self.zone = model.table.draw
        self.pile_mask = model.raster.zone_mask(self.zone.name)
        self.discard = model.table.discard
        self.visits: dict[int, Visit] = {}
        self.drawn: dict[int, Drawn] = {}  # each seat's draw just decided (`REVISIT_S`)
        # seats whose way to the draw pile crosses the discard pile (it lies nearer them by a card's length)
        edges = model.edge_points
        self.crossing = {i for i, e in enumerate(edges)
                         if np.hypot(*(self.discard.centre - e)) < np.hypot(*(self.zone.centre - e)) - 87.0}
        self.seat_zones = model.table.seat_zones()

    def in_held_fan(self, centre: np.ndarray) -> bool:
        """A card lying along a seat's edge, where that seat's players keep their hands: not a card in transit.
        (A carry is counted while the hand is on its way back, well out from the edge.)"""
        return any(z.contains(centre) and self.model.edge_depth(z.seat, centre) < HELD_FAN_MM
                   for z in self.seat_zones)

    def step(self, image: np.ndarray, t: float) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        by_seat: dict[int, Hand] = {}
        # one hand a seat: the one moving most (a change left at rest on the pile can pass for a second, still
        # "hand" of the seat; the arm going back is the one that moves), then the largest
        key = lambda h: (int((h.mask & self.model.motion).sum()), int(h.mask.sum()))  # noqa: E731
        for h in self.model.hands:
            if h.seat not in by_seat or key(h) > key(by_seat[h.seat]):
                by_seat[h.seat] = h
        for seat, h in by_seat.items():
            v = self.visits.get(seat)
            d = self.drawn.get(seat)
            if d is not None and t - d.t > REVISIT_S:
                d = self.drawn.pop(seat)
            elif d is not None:
                d.nearest = min(d.nearest, h.reach)
            # the palm looked for ahead of the sleeve starts a visit; one going on ends as the tip leaves the zone
            # (the frames just after, the drawn cards still spread, are the best to count on)
            on_pile = self.zone.contains(h.tip) if v is not None and not v.left else self.reaches_pile(h, v is None)
            if self.discard.contains(h.tip) and v is not None and (not v.left or h.reach > v.max_reach + BEYOND_MM):
                if v.spread or self.hopped(v, h, t):
                    v.spread = True  # the drawn fan reaches over the discard pile: the hand is still at the pile
                    continue
                if seat not in self.crossing or h.reach > v.max_reach - 15:
                    del self.visits[seat]  # passing over the draw pile on to the discard pile
                    out += self.earlier_trip(v, t)  # what an earlier trip carried home stays drawn
                    continue
                # coming back from the draw pile over the discard pile, which lies between this seat and the
                # draw pile: the hand is leaving with what it took
                v.left = True
                on_pile = False
            if on_pile:
                if v is None or v.left:
                    if self.model.withdrawing(h, 15.0):
                        continue  # coming back over the pile from further in (the discard pile): not a visit
                    before, first_t = self.cut_short(v)
                    drawn = v.drawn if v is not None else self.not_taken_home(seat, t)
                    v = self.visits[seat] = Visit(seat, t, h.reach, last_seen=t, before=before, first_t=first_t,
                                                  drawn=drawn)
                if v.first_t is not None and t - v.first_t > TRIPS_S:
                    # no second trip of one draw stays this long: the earlier trip's cards are a draw of their own
                    out += self.earlier_trip(v, t)
                v.t, v.max_reach, v.tip = t, max(v.max_reach, h.reach), h.tip.copy()
                v.reach, v.jumps, v.jumped_reach = h.reach, 0, []
                continue
            if v is None:
                continue
            if self.jumped(v, h):
                continue
            if not v.left:
                if h.reach < v.max_reach - 15:
                    v.left = True
                else:
                    continue
            v.frames_out += 1
            if not self.settled(v.counts):
                seen, hidden = self._count(image, h, t)
                v.counts.append(seen)
                v.hidden.append(hidden)
            if self.settled(v.counts):
                del self.visits[seat]
                n = carry_count(v.counts, v.hidden)
                if (n or v.before) > v.drawn:
                    agree = sum(1 for c, k in zip(v.counts, v.hidden, strict=True) if c + k == n) / len(v.counts)
                    out.append(draw_event(seat, v.t if v.first_t is None else v.first_t, (n or v.before) - v.drawn,
                                          0.5 + 0.5 * agree, t))
                self.took(seat, v, n or v.before, h, t)
        for seat in list(self.visits):  # the hand left the table (or was lost for a while): decide with what was read
            v = self.visits[seat]
            if seat in by_seat:
                v.last_seen = t
            elif t - v.last_seen > 0.5:
                self.visits.pop(seat)
                count, first_t = self.cut_short(v)
                if count > v.drawn:
                    out.append(draw_event(seat, v.t if first_t is None else first_t, count - v.drawn, 0.5, t))
        return self.without_starter(out)

    def took(self, seat: int, v: Visit, count: int, h: Hand, t: float) -> None:
        """Remember the draw `v` decided (`REVISIT_S`): the hand holds `count` cards, or what an earlier visit's
        draw left it holding."""
        if max(count, v.drawn) > 0:
            self.drawn[seat] = Drawn(t, v.max_reach, max(count, v.drawn), h.reach)

    def not_taken_home(self, seat: int, t: float) -> int:
        """The cards of the seat's draw just decided when its hand, on the pile again now, never took them home
        (`REVISIT_S`, `REVISIT_MM`); else 0."""
        d = self.drawn.pop(seat, None)
        if d is None or t - d.t > REVISIT_S or d.nearest < d.reach - REVISIT_MM:
            return 0
        return d.count

    def without_starter(self, out: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """`out` without its draws of one while no card lies on the discard pile (`pile_started`).

        Why: such a carry is the dealer turning the starter, never a draw: under every rulebook the starter is the
        first card taken from the draw pile once the cards are dealt. The dealer carries it face up to the discard
        pile, and from a seat where the discard pile lies between the seat and the draw pile it crosses the pile
        like a card drawn and carried home. Held-out 49003 of stop 34: a Wild Draw Four turned for the starter,
        its dark face boxed as a back at 0.42-0.90 on four reads (the crop classifier as unsure: "back" at
        0.49-0.57, "wild-draw4" at 0.63-0.68), was read as a draw of one and replayed as a `wrong_draw` flag that
        did not happen. In 120 games read that stop (sets 39000-49000) it was the only draw decided before the
        starter. Draws of more than one card stand (no starter is two cards); a camera that joins a game under
        way loses a draw of one only until the first card it sees laid."""
        if not out or self.pile_started is None or self.pile_started():
            return out
        return [e for e in out if e["count"] != 1]

    @staticmethod
    def earlier_trip(v: Visit, t: float) -> list[dict[str, Any]]:
        """The draw of the cards an earlier trip of `v` carried home (`Visit.before`), as a draw of its own, taken
        off the visit; none when there were none."""
        if not v.before or v.first_t is None:
            return []
        count, first_t = v.before - v.drawn, v.first_t  # what a draw already made counted is not drawn again
        v.before, v.first_t, v.drawn = 0, None, 0
        return [draw_event(v.seat, first_t, count, 0.5, t)] if count > 0 else []

    @staticmethod
    def cut_short(v: Visit | None) -> tuple[int, float | None]:
        """(cards, time on the pile) of a draw whose visit ended before its reads were done, decided on what was
        read and what earlier trips of it carried; (0, None) when no back was read. A visit ends so when the hand
        is lost for a while, or when the seat's "hand" is on the pile again before the reads are done: the tip
        hopping onto a change left lying in the pile's zone (measured: tuning game 1207, a hand shown at a
        challenge and picked up over the draw pile left its ghost there; the hand carrying six cards home was
        read once, then its blob merged with the ghost, the visit began again, and the draw was lost), a hand
        passing back over the pile, or one going back for more. The next visit carries the count over, and the
        draw is what the last trip that read any back showed: a hand going back for more comes home holding all
        it took, a hand read again on its way home holds the same cards (measured: summing the trips counted
        tuning game 1107's draw of four as eight). The larger of the two would keep whatever else a short trip's
        few reads took in; the last trip's reads are the whole set of `reads`. A trip read on one frame only, that
        saw fewer than `ONE_READ_BACKS` there, carried nothing."""
        if v is None:
            return 0, None
        read = carry_count(v.counts, v.hidden) if v.left and v.counts and max(v.counts) > 0 else 0
        if len(v.counts) < 2 and read < ONE_READ_BACKS:
            read = 0
        count = read or v.before
        return count, (v.first_t if v.first_t is not None else v.t) if count > 0 else None

    def reaches_pile(self, h: Hand, all_round: bool = True) -> bool:
        """The hand's fingers are on the draw pile: its tip is in the pile's zone, or the tip (a sleeve whose hand
        the background swallowed, skin the colour of the table) stops short of the zone and the pile moves where
        the palm is: in a strip from the tip to `PALM_MM` straight ahead of it, or, `all_round`, within `PALM_MM`
        of it all round. (A hand laying a card on the discard pile beside the draw pile stops short of it too, but
        nothing moves on the draw pile then.)

        All round as well as ahead: the way ahead is taken from the seat's edge point, and an arm reaching in at
        a slant from the side of its seat has its palm off that line (tuning 43003: seat 2's sleeve, the colour
        of the table, stopped 10 mm short of the zone, the palm moving on the pile 40 mm from the tip but 30 mm
        beside the line; three draws were missed, and with the palm looked for all round, all 37 of the game's
        draws read right). Only for a hand not yet on a visit (`DrawTracker.step`): a hand going home with the
        cards it drew leaves the pile moving behind it, and looked for all round, that motion kept it "on the
        pile" past the frames its carry is read on (tuning 45011: a draw of six, read as six on one frame, then
        as nothing once the hand stood still at its seat; the draw was lost)."""
        if self.zone.contains(h.tip):
            return True
        forward = self.forward(h)
        ahead = [h.tip + forward * d for d in np.arange(10.0, PALM_MM + 1.0, 10.0)]
        # the strip and the disc, drawn in a window around them only (this runs on every frame a hand hovers near
        # the pile)
        r = self.model.raster
        a, b = (np.round(np.array([h.tip, ahead[-1]]) * LOW)).astype(int)
        width = max(3, int(40 * LOW))
        radius = max(1, int(round(PALM_MM * LOW)))
        x0, y0 = max(0, min(a[0], b[0]) - radius), max(0, min(a[1], b[1]) - radius)
        x1, y1 = min(r.w, max(a[0], b[0]) + radius + 1), min(r.h, max(a[1], b[1]) + radius + 1)
        if x1 <= x0 or y1 <= y0:
            return False
        window = (slice(y0, y1), slice(x0, x1))
        if not self.pile_mask[window].any():
            return False
        palm = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.line(palm, (int(a[0] - x0), int(a[1] - y0)), (int(b[0] - x0), int(b[1] - y0)), 1, thickness=width)
        if all_round:
            cv2.circle(palm, (int(a[0] - x0), int(a[1] - y0)), radius, 1, thickness=-1)
        on_pile = (palm > 0) & self.pile_mask[window] & self.model.motion[window] & ~h.mask[window]
        return int(on_pile.sum()) >= PALM_MOTION_PX

    @staticmethod
    def hopped(v: Visit, h: Hand, t: float) -> bool:
        """The tip left the pile faster than a hand moves (`SPREAD_MM_S`), from the frame it was last on it, and no
        further than a fan in the hand spreads (`SIDE_MM`): a blob's tip found that far off is some other thing."""
        if v.tip is None or t <= v.t:
            return False
        hop = float(np.hypot(*(h.tip - v.tip)))
        return SPREAD_MM_S * (t - v.t) < hop <= SIDE_MM

    def jumped(self, v: Visit, h: Hand) -> bool:
        """True when the visiting hand's reach jumped from what it last was: the hand paused over the pile, its
        palm and the cards in it came to rest and left the hand's blob, and the tip found is the arm's. Such a
        frame is neither the hand leaving nor a frame to count the carry on; the hand found again near where it
        paused goes on. (A hand moves a few centimetres a frame; `JUMP_MM` is twice that. The reach, not the
        tip: the tip may hop between the corners of a carried fan, at the same reach.) A jumped reach that falls
        on three frames in a row is the arm really going home (what stayed on the pile was a change left there),
        and one that stays away `MAX_JUMPS` frames is believed too."""
        if v.reach is not None and abs(h.reach - v.reach) > JUMP_MM:
            v.jumps += 1
            v.jumped_reach.append(h.reach)
            going_back = len(v.jumped_reach) >= 3 and all(
                b < a - 3.0 for a, b in zip(v.jumped_reach[-3:], v.jumped_reach[-2:], strict=False))
            if v.jumps < MAX_JUMPS and not going_back:
                return True
        v.reach, v.jumps, v.jumped_reach = h.reach, 0, []
        return False

    def settled(self, counts: list[int]) -> bool:
        """A carry's reads are done: the usual number of them, and the count no longer rising (`still_rising`)."""
        return len(counts) >= self.reads and not still_rising(counts, self.reads)

    def forward(self, h: Hand) -> np.ndarray:
        """The unit vector from the hand's seat edge to its tip: the way the arm points."""
        v = h.tip - self.model.edge_points[h.seat]
        return v / max(float(np.hypot(*v)), 1e-6)

    def count_region(self, h: Hand) -> tuple[float, float, float, float]:
        """The table box (mm) read for the cards a hand carries: around the tip, reaching a card's length and more
        ahead of it (see `forward`). Fast-moving cards blur into the background model, so the blob (and its tip)
        often ends at the fingers while the cards stick out beyond them."""
        forward = self.forward(h)
        side = np.array([-forward[1], forward[0]])
        corners = [h.tip + forward * a + side * b for a in (-70.0, CARD_H_MM + 60.0) for b in (-SIDE_MM, SIDE_MM)]
        xs, ys = [c[0] for c in corners], [c[1] for c in corners]
        return (max(0.0, min(xs)), max(0.0, min(ys)), min(self.model.table.width, max(xs)),
                min(self.model.table.height, max(ys)))

    def _count(self, image: np.ndarray, h: Hand, t: float) -> tuple[int, int]:
        """(backs seen carried, cards hidden between them in the fan) on this frame: read as the table lies
        (`_read_carry`), and where that sees `TURNED_UP_TO` backs or fewer, read once more turned so the arm
        points down the crop (`arm_down_turn`); the read that sees more stands."""
        region = self.count_region(h)
        n, hidden = self._read_carry(image, h, region, t, 0)
        turn = arm_down_turn(self.forward(h))
        if turn and n <= TURNED_UP_TO:
            m, also_hidden = self._read_carry(image, h, region, t, turn)
            if m > n:
                return m, also_hidden
        return n, hidden

    def _read_carry(self, image: np.ndarray, h: Hand, region: tuple[float, float, float, float], t: float,
                    turn: int) -> tuple[int, int]:
        """(backs seen carried, cards hidden between them in the fan) in `region`, its crop turned `turn`.

        The tip is the blob's point farthest from the seat, often a corner of the fan, so a fan of six or more
        may spread from it to one side further than the region reaches (`SIDE_MM`; measured: a fan of six read
        as five on every frame, its last card cut by the region's side to a sliver). Where a carried back runs
        out of the region, the fan is read once more in a region of the same size centred on the backs carried
        (`recentred`), and that read is taken if it sees more: as many more as it has beyond the first region
        (`outside`), or any number more where none of its backs lies over the discard pile. Where none does and
        the second read holds the fan whole (no back runs out of it: `runs_out`), it is taken though it sees
        fewer: the cut read is the worse framing (fresh 51003 of stop 34: a fan of five whose card on top the
        first region's side cut, that card boxed whole and its lower edge boxed again, 0.94 of it inside, at
        0.24-0.46, on every read; the second read saw five each time, and the draw was read as six). A second
        read that sees fewer stands only where the first boxed a card twice (`boxed_twice`): a centred read may box
        two fanned cards as one (fresh 79004 of stop 40: a draw of two, both boxed by the first read, its second
        card's box ending at the side, the centred read boxing the two as one card 91 x 70 mm; read as one; the
        first read's boxes overlapped by 0.39 of the smaller). (Widening
        every region instead would shrink every card the detector sees, its input being 320 pixels; joining two
        reads counts cards twice or drops them, the detector boxing a card differently in each.)"""
        def carried(seen: list[Seen]) -> list[Seen]:  # the hand's backs, not a card boxed again with its palm
            backs = self._carried(seen, h)
            palms = with_palms(image, self.model.table, backs)
            return [b for b in backs if not any(b is p for p in palms)]

        backs = carried(self.reader.read(image, region, self.scale, t, turn=turn))
        again = self.recentred(region, backs)
        if again is not None:
            more = carried(self.reader.read(image, again, self.scale, t, turn=turn))
            clear = not any(self.discard.contains(s.centre) for s in more)
            if (clear and more and not self.runs_out(again, more)
                    and (len(more) >= len(backs) or self.boxed_twice(backs))) or (
                    len(backs) < len(more) and (len(more) <= len(backs) + self.outside(region, more) or clear)):
                backs = more
        return len(backs), hidden_in_fan(self.across_arm(h, backs))

    @staticmethod
    def boxed_twice(backs: list[Seen], inside: float = 0.8) -> bool:
        """Some back lies mostly (`inside` of it) inside another: one card boxed whole and again in part (fresh
        51003: 0.94 of the part inside the whole). A fan's neighbours overlap less: the cards of a fan of two that
        a centred read boxed as one (fresh 79004) overlapped by 0.39 of the smaller box."""
        return any(a is not b and a.overlap(b) >= inside * min(a.area, b.area) for a in backs for b in backs)

    def runs_out(self, region: tuple[float, float, float, float], backs: list[Seen]) -> bool:
        """Some back ends at a side of `region` that is not the table's edge: the fan goes on beyond it."""
        return any(lo or hi for lo, hi in self.ends_at_sides(region, backs))

    def ends_at_sides(self, region: tuple[float, float, float, float],
                      backs: list[Seen]) -> list[tuple[bool, bool]]:
        """For each table axis (x, y): whether some back ends at `region`'s low side and at its high side,
        within `RUNS_OUT_MM`, where that side is not the table's edge."""
        size = (self.model.table.width, self.model.table.height)
        return [(region[axis] > 0.0 and any(abs(s.box_mm[axis] - region[axis]) <= RUNS_OUT_MM for s in backs),
                 region[axis + 2] < size[axis]
                 and any(abs(s.box_mm[axis + 2] - region[axis + 2]) <= RUNS_OUT_MM for s in backs))
                for axis in (0, 1)]

    @staticmethod
    def outside(region: tuple[float, float, float, float], backs: list[Seen]) -> int:
        """How many of `backs` have their middle outside `region`. A second read that sees more is believed only
        when as many more lie beyond the first region: cards cut off by its side. More seen within it are
        something else the moved region took in or boxed otherwise: a dark face on the discard pile, moving
        under the arm, read as a back (measured: tuning games 1101 and 1301, draws of two and one counted a card
        over). Where none of the second read's backs lies over the discard pile, there is no such face to take
        in, and a card more within the first region is one the detector missed there, a region's framing
        changing what it sees in a fan (fresh 47011 of stop 33: a fan of six read as four on three frames, the
        second read seeing six, only one of the two more beyond the first region). On the sets 39000, 45000 and
        47000 read whole, no count changed beside what `TURNED_UP_TO` changed."""
        x0, y0, x1, y1 = region
        return sum(1 for s in backs if not (x0 <= s.centre[0] <= x1 and y0 <= s.centre[1] <= y1))

    def _carried(self, seen: list[Seen], h: Hand) -> list[Seen]:
        """The backs of `seen` that hand `h` carries: moving with it or at its fingers, not the draw pile, not a
        seat's held fan, not a sliver, one box to a card (`without_merged`)."""
        grown = cv2.dilate(h.mask.astype(np.uint8), np.ones((7, 7), np.uint8)) > 0
        moving = cv2.dilate(self.model.motion.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
        pile = self.zone.centre
        seats = self.model.table.seat_zones()

        in_fan: list[Seen] = []  # backs moving through a seat's zone beyond the fingers: carried if in the fan

        def carried(s: Seen) -> bool:
            if s.code != "back" or float(np.hypot(*(s.centre - pile))) <= 30.0:  # not the pile itself
                return False
            if self.in_held_fan(s.centre) or s.area < MIN_SHOWN * CARD_W_MM * CARD_H_MM:
                return False  # the seat's own fan, or a sliver: a corner peeping out, never a card of its own
            if inside_share(s, grown) >= 0.5:
                return True
            # the pile's cards lie still; a back on the move clear of it has been lifted off it. The hand's blob
            # may have lost the fingers holding it (a hand the colour of the table): the card then lies a card's
            # length beyond the tip the blob gives, in the zone or on the way home
            on_the_move = inside_share(s, moving) >= LIFTED_MOVING
            if self.zone.contains(s.centre) or self.discard.contains(s.centre):
                return on_the_move  # the piles lie still: a back there is carried only when it moves
            # cards held at the fingertips stick out beyond the skin: a back whose box comes within a card's
            # width of the tip is in the hand too
            x0, y0, x1, y1 = s.box_mm
            dx = max(x0 - h.tip[0], 0.0, h.tip[0] - x1)
            dy = max(y0 - h.tip[1], 0.0, h.tip[1] - y1)
            at_fingers = float(np.hypot(dx, dy)) <= CARRY_MM
            if any(z.contains(s.centre) for z in seats):
                # a hand of backs lying at a seat is near the fingers but still; a card carried home through the
                # seat's zone by fingers the blob lost (skin the colour of the table) moves with them
                if on_the_move and not at_fingers:
                    in_fan.append(s)
                return on_the_move and at_fingers
            return on_the_move or at_fingers

        backs = fan_members([s for s in seen if carried(s)], in_fan)
        if any(self.discard.contains(s.centre) for s in backs):
            held = [inside_share(s, h.mask) >= HELD_ON_DISCARD for s in backs]
            if any(held):  # the blob holds the carry: a back on the discard pile outside it is a face of the pile
                backs = [s for s, k in zip(backs, held, strict=True) if k or not self.discard.contains(s.centre)]
            faces = self.pile_face_boxes()
            backs = [s for s in backs if not (self.discard.contains(s.centre)
                                              and any(s.overlap(f) >= PILE_FACE_SHARE * s.area for f in faces))]
        return without_merged(backs)

    def pile_face_boxes(self) -> list[Seen]:
        """The discard pile's last `PILE_FACES` faces as the discard tracker read them: a back over the pile lying
        in one of them is that face (`PILE_FACE_SHARE`)."""
        if self.pile_faces is None:
            return []
        return [f for f in self.pile_faces()[-PILE_FACES:] if f.code != "back"]

    def recentred(self, region: tuple[float, float, float, float],
                  backs: list[Seen]) -> tuple[float, float, float, float] | None:
        """`region` moved, along each table axis where one of `backs` ends at a side of it (not the table's edge),
        to be centred on the backs' extent there; None where none does."""
        size = (self.model.table.width, self.model.table.height)
        box, moved = list(region), False
        for axis, (out_lo, out_hi) in enumerate(self.ends_at_sides(region, backs)):
            lo, hi = region[axis], region[axis + 2]
            if out_lo == out_hi:
                continue  # inside on both sides, or out of both: moving would not help
            mid = (min(s.box_mm[axis] for s in backs) + max(s.box_mm[axis + 2] for s in backs)) / 2
            shift = mid - (lo + hi) / 2
            shift = max(shift, 0.0) if out_hi else min(shift, 0.0)  # towards the side the fan runs out of
            shift = float(np.clip(shift, -lo, size[axis] - hi))  # on the table
            if abs(shift) > RUNS_OUT_MM:
                box[axis], box[axis + 2], moved = lo + shift, hi + shift, True
        return (box[0], box[1], box[2], box[3]) if moved else None

    def across_arm(self, h: Hand, backs: list[Seen]) -> list[tuple[float, float, float]]:
        """(u0, u1, area) of each back, `u` measured across the arm (the way a carried fan spreads)."""
        forward = self.forward(h)
        side = np.array([-forward[1], forward[0]])
        out = []
        for s in backs:
            x0, y0, x1, y1 = s.box_mm
            us = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]) @ side
            out.append((float(us.min()), float(us.max()), s.area))
        return out
