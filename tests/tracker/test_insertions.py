"""The `insert` extension (README, "Corrections and insertions"): a referee adds an event no sense logged (a draw the
camera missed) at its place in the game. A `correction` can only rewrite a line that exists, and an event appended at
the end would come after plays that in fact followed it, so replaying the log could never give the corrected game
(EVENTS.md: "replaying the log always gives the corrected state"). The inserted event takes the `insert`'s own line,
so its flags point at a line the referee sees in the raw log.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tracker.corrections import apply_corrections
from tracker.engine import replay
from tracker.events import Draw, Insertion
from tracker.log import LogError, parse_event, read_log, write_log
from tracker.script import script

CLI = [sys.executable, "-m", "unotable.cli"]
# Mattel, 4 seats: 1 match_start, 2 H3, 3 T red-5, 4 P0 red-6 (t=3), 5 P2 red-8 (t=4): seat 1's draw was missed
MISSED = "H3; T red-5; P0 red-6; P2 red-8"


def _r(steps: str, ruleset: str = "mattel"):  # type: ignore[no-untyped-def]
    return replay(script(ruleset, steps))


def _flags(r) -> list[tuple[str, int | None, int]]:  # type: ignore[no-untyped-def]
    return [(f.code, f.seat, f.line) for f in r.flags]


# (steps, flags (code, seat, line), counts, why)
CASES = [
    (MISSED, [("out_of_turn", 2, 5)], [6, 7, 6, 7],
     "without the draw seat 2 played in seat 1's turn (MA-PLAY: play passes to the left)"),
    (MISSED + "; !ins 4 D1", [], [6, 8, 6, 7],
     "the missed draw put after line 4: seat 1 drew and the turn passed, so seat 2 was in turn"),
    (MISSED + "; !ins 4 D1 @3.5", [], [6, 8, 6, 7], "the referee's time between its neighbours is kept"),
    (MISSED + "; !ins 4 D1; !fix 6 -", [("out_of_turn", 2, 5)], [6, 7, 6, 7],
     "an insertion struck by a later correction of its line is gone"),
    (MISSED + "; !ins 4 D1; !fix 6 D1 2", [("wrong_draw", 1, 6)], [6, 9, 6, 7],
     "an insertion rewritten by a correction of its line: a flag on it names the insert's line"),
    (MISSED + "; !ins 0 U1", [("out_of_turn", 2, 5)], [6, 7, 6, 7],
     "after line 0 is before the first line: a call before match_start is ignored (README: a warning)"),
    ("H3; T red-5; P0 red-6; P2 red-8; P3 red-9; !ins 4 D1; !ins 4 S1", [], [6, 8, 6, 6],
     "two insertions after one line keep the order they were written in (a draw, then the pass)"),
    ("H3; T red-5; P0 red-6; P2 red-8; P3 red-9; !ins 4 D1; !ins 7 S1", [], [6, 8, 6, 6],
     "an insertion after an inserted line follows it"),
]


@pytest.mark.parametrize(("steps", "flags", "counts", "why"), CASES, ids=[c[3][:60] for c in CASES])
def test_insertions(steps: str, flags: list[tuple[str, int, int]], counts: list[int], why: str) -> None:
    r = _r(steps)
    assert _flags(r) == flags, why
    assert r.state.counts == counts, why


def test_an_insert_before_the_first_line_comes_first() -> None:
    r = _r(MISSED + "; !ins 0 U1")
    assert any(w.startswith("line 6: a uno event before match_start") for w in r.state.warnings), r.state.warnings


def test_the_inserted_event_happens_at_its_place_and_time() -> None:
    events = script("mattel", MISSED + "; !ins 4 D1 @3.5; !ins 4 U0 @9")
    fixed = apply_corrections(events)
    draw = next(e for e in fixed if isinstance(e, Draw))
    assert draw.line == 6 and draw.t == 3.5  # between line 4 (t=3) and line 5 (t=4): kept
    order = [e.type for e in fixed]
    assert order[:7] == ["match_start", "hand_start", "starter", "play", "draw", "uno", "play"]
    uno = fixed[5]
    assert uno.line == 7 and uno.t == 3.5  # t=9 is after line 5 (t=4): it happens right after what precedes it
    ts = [e.t for e in fixed if not isinstance(e, Insertion)]
    assert ts == sorted(ts)


def test_an_insert_written_late_moves_no_turn_timer() -> None:
    # falsonal times turns (FA-TIMER, 15 s). The referee writes the insert a minute later: the table's clock ran on
    # meanwhile (whatever the referee wrote then, as for a correction), but the missed draw itself happens at its
    # place (t=3), so seat 1's turn did not run out and no timeout is pinned on the draw
    late = "H3; T red-5; P0 red-6; P2 red-8; +60; "
    ins = _r(late + "!ins 4 D1", "falsonal")
    same = _r(late + "!fix 4 P0 red-6", "falsonal")
    timeouts = [(f.code, f.seat, f.line) for f in ins.flags if f.code == "turn_timeout"]
    assert timeouts == [(f.code, f.seat, f.line) for f in same.flags if f.code == "turn_timeout"] == [
        ("turn_timeout", 3, 5)]
    assert not any(f.seat == 1 for f in ins.flags)


def test_an_insert_after_a_blank_line_goes_after_the_event_before_it_with_a_warning(tmp_path: Path) -> None:
    lines = [json.dumps(o) for o in (
        {"t": 0, "type": "match_start", "ruleset": "mattel", "players": ["a", "b", "c", "d"]},
        {"t": 1, "type": "hand_start", "dealer": 3}, {"t": 2, "type": "starter", "card": "red-5"},
        {"t": 3, "type": "play", "seat": 0, "cards": ["red-6"]})]
    lines += ["", json.dumps({"t": 4, "type": "play", "seat": 2, "cards": ["red-8"]}),
              json.dumps({"t": 9, "type": "insert", "after": 5, "event": {"t": 3, "type": "draw", "seat": 1},
                          "source": "referee"})]
    path = tmp_path / "blank.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    r = replay(read_log(path))
    assert r.flags == [] and r.state.counts == [6, 8, 6, 7]
    assert any("insert after line 5, which holds no event" in w for w in r.state.warnings)


@pytest.mark.parametrize(("obj", "says"), [
    ({"t": 9, "type": "insert", "event": {"t": 3, "type": "draw", "seat": 1}}, "insert needs 'after'"),
    ({"t": 9, "type": "insert", "after": -1, "event": {"t": 3, "type": "draw", "seat": 1}}, "insert needs 'after'"),
    ({"t": 9, "type": "insert", "after": True, "event": {"t": 3, "type": "draw", "seat": 1}}, "insert needs 'after'"),
    ({"t": 9, "type": "insert", "after": 7, "event": {"t": 3, "type": "draw", "seat": 1}},
     "an insert can only follow an earlier line, not line 7"),
    ({"t": 9, "type": "insert", "after": 2}, "insert needs 'event'"),
    ({"t": 9, "type": "insert", "after": 2, "event": None}, "insert needs 'event'"),
    ({"t": 9, "type": "insert", "after": 2, "event": {"t": 3, "type": "draw", "seat": 1, "count": "x"}},
     "inserted event is invalid"),
    ({"t": 9, "type": "insert", "after": 2, "event": {"t": 3, "type": "ruling", "flag": "4-x-1",
                                                       "decision": "upheld"}}, "not a referee's 'ruling'"),
    ({"t": 9, "type": "insert", "after": 2, "event": {"t": 3, "type": "insert", "after": 1,
                                                       "event": {"t": 3, "type": "draw", "seat": 1}}},
     "not a referee's 'insert'"),
    ({"t": 9, "type": "correction", "line": 2, "event": {"t": 3, "type": "insert", "after": 1,
                                                          "event": {"t": 3, "type": "draw", "seat": 1}}},
     "can't replace an event with another 'insert'"),
])
def test_a_bad_insert_is_refused_naming_its_line_and_what_is_wrong(obj: dict, says: str) -> None:
    with pytest.raises(LogError) as err:
        parse_event(obj, 7)
    assert "line 7" in str(err.value) and says in str(err.value)


def test_an_insert_survives_writing_and_reading_the_log_and_keeps_its_extra_fields() -> None:
    events = script("mattel", MISSED + "; !ins 4 D1 @3.5")
    raw = json.loads(json.dumps({"t": 9, "type": "insert", "after": 4, "by": "ref", "source": "referee",
                                 "event": {"t": 3.5, "type": "draw", "seat": 1}}))
    events[-1] = parse_event(raw, 6)
    buf = io.StringIO()
    write_log(buf, events)
    last = json.loads(buf.getvalue().splitlines()[-1])
    assert last == {"t": 9.0, "type": "insert", "after": 4, "event": {"t": 3.5, "type": "draw", "seat": 1, "count": 1},
                    "source": "referee", "by": "ref"}
    again = [parse_event(json.loads(x), i) for i, x in enumerate(buf.getvalue().splitlines(), start=1)]
    assert _flags(replay(again)) == [] and replay(again).state.counts == [6, 8, 6, 7]


def test_replay_cli_shows_the_inserted_event_where_it_happened(tmp_path: Path) -> None:
    path = tmp_path / "missed.jsonl"
    write_log(path, script("mattel", MISSED + "; !ins 4 D1"))
    flags = subprocess.run([*CLI, "replay", str(path)], capture_output=True, text=True, timeout=120)
    assert flags.returncode == 0 and flags.stdout == "", flags.stderr
    plain = subprocess.run([*CLI, "replay", str(path), "--ruleset", "mattel"], capture_output=True, text=True,
                           timeout=120)
    assert plain.returncode == 0 and plain.stdout == ""
    pretty = subprocess.run([*CLI, "replay", str(path), "--pretty"], capture_output=True, text=True, timeout=120)
    assert pretty.returncode == 0, pretty.stderr
    rows = [x for x in pretty.stdout.splitlines() if "plays" in x or "draws" in x]
    assert [x.split("s  ", 1)[1] for x in rows] == [
        "P0 plays red-6", "P1 draws 1  (inserted by the referee)", "P2 plays red-8"]
