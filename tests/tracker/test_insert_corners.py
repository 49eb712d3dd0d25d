"""Audit h10: the referee's `insert` (README, "How the engine reads a log") and its interplay with `correction`,
rulings and `--pretty`, tried the way a referee would use them on the night.

The oracle for most cases: a log where the referee inserted the missed event must replay as the log where a sense had
logged it in place (EVENTS.md: "replaying the log always gives the corrected state"), except that the inserted
event's flags name the insert's own line (README: "The inserted event takes the insert's own line, so its flags
name that line")."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from tracker.corrections import apply_corrections, corrected_entries
from tracker.engine import replay
from tracker.events import Insertion
from tracker.log import read_log, write_log
from tracker.report import render_game
from tracker.script import script

MISSED = "H3; T red-5; P0 red-6; P2 red-8"  # 1 match_start, 2 H3, 3 T, 4 P0 red-6 (t=3), 5 P2 red-8 (t=4)
# two players, seat 0 goes out: 4..17 the ~6 rounds (15, 17 the UNO calls), 18 P0 red-3, 19 R1 red-9
HAND = "H1; T red-5; ~6; P0 red-3; R1 red-9"


def _summary(steps: str, ruleset: str = "mattel", **kw: Any) -> tuple[Any, ...]:
    r = replay(script(ruleset, steps, **kw))
    return ([(f.code, f.seat, f.penalty, f.status) for f in r.flags], r.state.counts, r.scores.get("hands"),
            r.scores.get("totals"), r.state.hand, r.state.phase)


def _ids(steps: str, ruleset: str = "mattel", **kw: Any) -> list[tuple[str, int, str]]:
    return [(f.id, f.penalty, f.status) for f in replay(script(ruleset, steps, **kw)).flags]


# -- finding 1: an insert after an inserted line is applied twice -----------------------------------------------------
def test_an_insert_chained_after_an_inserted_line_happens_once() -> None:
    """README: "several inserts after one line keep the order they were written in"; corrected_entries' own docstring:
    "an insertion after an inserted event follows it". The camera missed both trips of seat 1's Draw Two; the referee
    inserts the first after line 4, then the second after the first (line 6). Seat 1 drew 2 (MA-D2), as a log that
    saw both trips says: no flag, seat 1 holds 9. Today the second trip is placed after line 6 in game order AND again
    where line 6 stands in the raw log, so seat 1 draws 3 and a false `7-wrong_draw-1` is raised."""
    truth = _summary("H3; T red-5; P0 red-draw2; D1; D1; P2 red-8")
    assert truth[0] == [] and truth[1] == [6, 9, 6, 7]
    got = _summary("H3; T red-5; P0 red-draw2; P2 red-8; !ins 4 D1; !ins 6 D1")
    assert got == truth


def test_a_chained_insert_appears_once_in_the_corrected_game() -> None:
    """README: "`--pretty` shows the game as the referee's corrections and insertions left it": each inserted event
    once, where it was put. Today line 8's pass shows up twice (and is folded twice: a warning, "said pass when it
    was P0's turn")."""
    events = script("mattel", "H3; T red-5; P0 red-6; P2 red-8; P3 red-9; !ins 4 D1; !ins 7 S1")
    inserted = [e.line for e in corrected_entries(events) if e.how == "inserted"]
    assert inserted == [7, 8]
    # (the insert itself stays in the fold at its own place, a no-op stamped when written, as a correction does)
    assert [e.line for e in apply_corrections(events) if not isinstance(e, Insertion)].count(8) == 1
    assert replay(events).state.warnings == []
    text = render_game(events, replay(events))
    assert text.count("(inserted by the referee)") == 2


def test_two_inserts_after_one_line_each_happen_once() -> None:
    """README: "several inserts after one line keep the order they were written in" (no chain: this one holds)."""
    assert _summary("H3; T red-5; P0 red-draw2; P2 red-8; !ins 4 D1; !ins 4 D1") == _summary(
        "H3; T red-5; P0 red-draw2; D1; D1; P2 red-8")


# -- what held: inserts replay as the event logged in place ----------------------------------------------------------
@pytest.mark.parametrize(("truth", "inserted", "kw", "why"), [
    (HAND + "; H0; T blue-5; P1 blue-6", HAND + "; T blue-5; P1 blue-6; !ins 19 H0", {"players": 2},
     "a missed hand_start inserted after the last reveal: hand 2 is dealt, hand 1 scored (EVENTS.md hand_start)"),
    (HAND, "H1; T red-5; ~6; R1 red-9; !ins 17 P0 red-3", {"players": 2},
     "a missed last card inserted before the reveal: seat 0 wins the hand and scores seat 1's 9 (MA-SCORE)"),
    (HAND + "; +100", "H1; T red-5; ~6; R1 red-9; +100; !ins 17 P0 red-3", {"players": 2},
     "the same written 100 s later: the insert's own time moves nothing (README: an event stamped with the moment "
     "it was written was not moved on purpose)"),
    ("H3; T red-5; P0 wild-draw4 blue; X1; R0 red-1,red-2,blue-3,blue-4,blue-5,blue-6",
     "H3; T red-5; P0 wild-draw4 blue; R0 red-1,red-2,blue-3,blue-4,blue-5,blue-6; !ins 4 X1", {},
     "a missed challenge of a +4 inserted before the reveal: the +4 was illegal (MA-W4: seat 0 held red)"),
    ("H3; T red-5; P0 red-draw2; D1; D1; P2 red-8", "H3; T red-5; P0 red-draw2; D1; P2 red-8; !ins 5 D1", {},
     "the missed second trip of a pending Draw Two (README: may be drawn in several draws): no short draw"),
])
def test_an_inserted_event_replays_as_if_it_had_been_logged(truth: str, inserted: str, kw: dict[str, Any],
                                                           why: str) -> None:
    assert _summary(inserted, **kw) == _summary(truth, **kw), why


def test_a_missed_match_start_inserted_before_the_first_line() -> None:
    """README: "`after: 0`: before the first line"; without a match_start every event is ignored with a warning."""
    import json

    from tracker.log import dumps, parse_event

    objs = [json.loads(dumps(e)) for e in script("mattel", "H3; T red-5; P0 red-6; P1 red-7")[1:]]
    objs.append({"t": 9, "type": "insert", "after": 0, "source": "referee",
                 "event": {"t": 0, "type": "match_start", "ruleset": "mattel", "players": ["a", "b", "c", "d"]}})
    r = replay([parse_event(o, i) for i, o in enumerate(objs, start=1)])
    assert r.state.warnings == [] and r.flags == [] and r.state.counts == [6, 6, 7, 7]


@pytest.mark.parametrize(("a", "b"), [
    (MISSED + "; !ins 4 D1; !fix 4 P0 red-9", MISSED + "; !fix 4 P0 red-9; !ins 4 D1"),
    (MISSED + "; !ins 4 D1; !fix 4 -", MISSED + "; !fix 4 -; !ins 4 D1"),
])
def test_an_insert_and_a_correction_of_the_line_it_follows_agree_in_either_order(a: str, b: str) -> None:
    """README: the insert "puts the draw right after line 4"; a correction "replace[s] or strike[s] a line before the
    log is replayed": the game after both is the same whichever the referee wrote first (flag ids aside: they name
    the insert's own line)."""
    assert _summary(a) == _summary(b)


def test_a_correction_that_struck_an_insert_struck_in_turn_brings_it_back() -> None:
    """corrected_entries: "a correction that is itself struck by a later one no longer applies"."""
    assert _summary(MISSED + "; !ins 4 D1; !fix 6 -; !fix 7 -") == _summary(MISSED + "; !ins 4 D1")


def test_a_flag_on_an_inserted_line_names_it_and_a_ruling_on_it_holds_across_a_rewrite_of_the_log(tmp_path: Path) -> None:
    """README: "The inserted event takes the insert's own line, so its flags name that line"; EVENTS.md: a flag's id is
    "stable across replays of the same log" and a dismissal "removes its flag's penalty". Olympic: the missed card of
    seat 1 was blue-9 on red (illegal, 2 cards, OL-PENALTY)."""
    steps = MISSED + "; !ins 4 P1 blue-9"
    assert _ids(steps, "olympic") == [("6-illegal_card-1", 2, "open"), ("5-illegal_card-2", 2, "open")]
    events = script("olympic", steps + "; !dis 6-illegal_card-1")
    r = replay(events)
    assert [(f.id, f.status) for f in r.flags] == [("6-illegal_card-1", "dismissed"), ("5-illegal_card-2", "open")]
    assert r.state.counts == [6, 6, 8, 7]
    buf = io.StringIO()
    write_log(buf, events)
    path = tmp_path / "g.jsonl"
    path.write_text(buf.getvalue(), encoding="utf-8")
    again = replay(read_log(path))
    assert [f.to_dict() for f in again.flags] == [f.to_dict() for f in r.flags]
    # the referee then corrects the inserted card to a legal one: the flag is gone, the ruling on it a warning
    fixed = replay(script("olympic", steps + "; !dis 6-illegal_card-1; !fix 6 P1 red-9"))
    assert fixed.state.counts == [6, 6, 6, 7] and fixed.flags == []
    assert any("ruling on unknown flag '6-illegal_card-1'" in w for w in fixed.state.warnings)


def test_an_inserted_event_far_off_its_neighbours_happens_right_after_its_line() -> None:
    """README: "Its event happens at the time it gives if that lies between its neighbours, otherwise right after
    line 4". Times before line 4 (t=3) and after line 5 (t=4) both land at t=3; time never runs backwards."""
    for when in ("@0.5", "@1000"):
        fixed = apply_corrections(script("falsonal", MISSED + f"; !ins 4 D1 {when}"))
        draw = next(e for e in fixed if e.type == "draw")
        assert (draw.line, draw.t) == (6, 3.0), when
        ts = [e.t for e in fixed if e.type != "insert"]
        assert ts == sorted(ts)
