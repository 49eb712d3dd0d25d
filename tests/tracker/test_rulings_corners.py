"""Rulings and corrections in corners: a referee's decision is an event, so a replay gives the corrected game.

EVENTS.md: "A `ruling` with `dismissed` removes its flag's penalty from the state that follows; `upheld` keeps it."
A `correction` replaces (or, with `event: null`, strikes) the event on its line; lines keep their numbers, so flag ids
(`<line>-<code>-<seat>`) stay what a referee saw. These cases follow the rulebooks (shared/rules/RULESETS.md).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tracker.engine import replay
from tracker.log import read_log, write_log
from tracker.script import script

CLI = [sys.executable, "-m", "unotable.cli"]


def _r(ruleset: str, steps: str):  # type: ignore[no-untyped-def]
    return replay(script(ruleset, steps))


def _flags(r) -> list[tuple[str, str, int]]:  # type: ignore[no-untyped-def]
    return [(f.id, f.status, f.penalty) for f in r.flags]


# -- rulings ------------------------------------------------------------------------------------------------------
def test_uphold_keeps_and_dismiss_takes_back_a_missed_uno_penalty() -> None:
    base = "H3; T red-5; ~5; P0 red-1; P1 red-2"  # 24: seat 0 down to one, no call; 25 closes its window
    assert _flags(_r("mattel", base)) == [("24-missed_uno-0", "open", 2)]
    assert _r("mattel", base).state.counts[0] == 3
    up = _r("mattel", base + "; !up 24-missed_uno-0")
    assert _flags(up) == [("24-missed_uno-0", "upheld", 2)] and up.state.counts[0] == 3 and up.state.owed[0] == 2
    dis = _r("mattel", base + "; !dis 24-missed_uno-0")
    assert _flags(dis) == [("24-missed_uno-0", "dismissed", 2)]
    assert dis.state.counts[0] == 1 and dis.state.owed[0] == 0


def test_a_penalty_drawn_then_dismissed_is_taken_back_from_the_hand() -> None:
    r = _r("mattel", "H3; T red-5; ~5; P0 red-1; P1 red-2; P2 red-3; P3 red-4; D0 2; !dis 24-missed_uno-0")
    assert r.state.counts[0] == 1 and r.state.owed[0] == 0


def test_rulings_in_any_order_and_a_ruling_repeated() -> None:
    steps = "H3; T red-5; P2 red-8; P3 red-1; P0 blue-2"  # 4: seat 2 out of turn; 6: seat 0 illegal card
    a = _r("olympic", steps + "; !dis 6-illegal_card-0; !up 4-out_of_turn-2")
    b = _r("olympic", steps + "; !up 4-out_of_turn-2; !dis 6-illegal_card-0")
    assert _flags(a) == _flags(b) == [("4-out_of_turn-2", "upheld", 2), ("6-illegal_card-0", "dismissed", 2)]
    assert a.state.counts == b.state.counts == [6, 7, 8, 6]
    twice = _r("olympic", steps + "; !dis 6-illegal_card-0; !dis 6-illegal_card-0")  # taken back once only
    assert twice.state.counts[0] == 6


def test_dismissed_then_upheld_charges_the_penalty_again() -> None:
    r = _r("olympic", "H3; T red-5; P2 red-8; !dis 4-out_of_turn-2; !up 4-out_of_turn-2")
    assert _flags(r) == [("4-out_of_turn-2", "upheld", 2)] and r.state.counts[2] == 8


def test_flag_ids_are_stable_across_replays_and_rulings() -> None:
    steps = "H3; T red-5; P2 red-8; P3 red-1; P0 blue-2; P1 red-3"
    plain = [f.id for f in _r("olympic", steps).flags]
    ruled = [f.id for f in _r("olympic", steps + "; !dis 4-out_of_turn-2; !up 6-illegal_card-0").flags]
    assert plain == ruled == [f.id for f in _r("olympic", steps).flags]


# -- corrections ---------------------------------------------------------------------------------------------------
def test_a_correction_of_a_ruling_replaces_the_decision() -> None:
    steps = "H3; T red-5; P2 red-8; !dis 4-out_of_turn-2"
    r = _r("olympic", steps + "; !fix 5 !up 4-out_of_turn-2")
    assert _flags(r) == [("4-out_of_turn-2", "upheld", 2)] and r.state.counts[2] == 8
    r = _r("olympic", steps + "; !fix 5 -")  # the ruling struck: the flag is open again, its penalty charged
    assert _flags(r) == [("4-out_of_turn-2", "open", 2)] and r.state.counts[2] == 8


def test_striking_a_correction_and_striking_that_strike() -> None:
    steps = "H3; T red-5; P0 blue-9; !fix 4 P0 red-9"
    assert _flags(_r("mattel", steps)) == []
    assert [f.code for f in _r("mattel", steps + "; !fix 5 -").flags] == ["illegal_card"]
    assert _flags(_r("mattel", steps + "; !fix 5 -; !fix 6 -")) == []


def test_a_ruling_on_a_flag_that_a_later_correction_removes_is_ignored_with_a_warning() -> None:
    r = _r("olympic", "H3; T red-5; P2 red-8; !up 4-out_of_turn-2; !fix 4 P0 red-8")
    assert r.flags == [] and r.state.counts == [6, 7, 7, 7]
    assert any("ruling on unknown flag '4-out_of_turn-2'" in w for w in r.state.warnings)


def test_a_correction_that_changes_the_seat_gives_a_new_open_flag() -> None:
    r = _r("olympic", "H3; T red-5; P2 red-8; !up 4-out_of_turn-2; !fix 4 P3 red-8")
    assert _flags(r) == [("4-out_of_turn-3", "open", 2)] and r.state.counts == [7, 7, 7, 8]


def test_replay_prints_the_rulings_and_the_corrected_game(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    write_log(path, script("mattel", "H3; T red-5; ~5; P0 red-1; P1 red-2; P2 red-3; U2; P3 red-4; U3; D0 2; "
                                     "P0 red-6; !up 24-missed_uno-0; !dis 25-missed_uno-1; P1 red-8; "
                                     "R0 blue-skip,wild; R2 red-9; R3 green-draw2"))
    out = subprocess.run([*CLI, "replay", str(path), "--json"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert [(f["id"], f["status"], f.get("penalty")) for f in doc["flags"]] == [
        ("24-missed_uno-0", "upheld", {"seat": 0, "cards": 2}), ("25-missed_uno-1", "dismissed", None)]
    assert doc["state"]["hand_winner"] == 1 and doc["scores"]["hands"] == [[0, 99, 0, 0]]
    assert doc["scores"]["totals"] == [0, 99, 0, 0] and doc["scores"]["winner"] is None
    assert doc == replay(read_log(path)).to_json()
    pretty = subprocess.run([*CLI, "replay", str(path), "--pretty"], capture_output=True, text=True, timeout=120)
    assert "Penalty of 2 card(s) taken back. (dismissed)" in pretty.stdout
    assert "Penalty: 2 card(s). (upheld)" in pretty.stdout


# -- stop 62 audit findings, fixed ------------------------------------------------------------------------------------------------------
def test_a_ruling_on_the_last_hands_flag_leaves_the_new_deal_alone() -> None:
    # hand 1: seat 1 lays an illegal card (OL-PENALTY: 2 cards); nobody goes out; hand 2 deals 7 to each seat
    steps = "H3; T red-5; P0 red-8; P1 blue-9; H0; T red-5"
    assert _r("olympic", steps).state.counts == [7, 7, 7, 7]
    assert _r("olympic", steps + "; !dis 5-illegal_card-1").state.counts == [7, 7, 7, 7]
    again = _r("olympic", "H3; T red-5; P0 red-8; P1 blue-9; !dis 5-illegal_card-1; H0; T red-5; !up 5-illegal_card-1")
    assert again.state.counts == [7, 7, 7, 7] and again.state.owed == [0, 0, 0, 0]


def test_one_penalty_a_turn_falls_on_the_mistake_that_stands() -> None:
    # seat 2 lays a Wild out of turn and names no colour: two mistakes, one penalty (OL-PENALTY)
    steps = "H3; T red-5; P2 wild; P3 red-3"
    r = _r("olympic", steps)
    assert _flags(r) == [("4-out_of_turn-2", "open", 2), ("4-no_color-2", "open", 0)] and r.state.counts[2] == 8
    # the out-of-turn flag is dismissed: the colour not named is seat 2's one mistake that turn and costs 2 cards
    r = _r("olympic", steps + "; !dis 4-out_of_turn-2")
    assert r.state.counts[2] == 8
    assert {f.id: f.penalty for f in r.flags}["4-no_color-2"] == 2


def test_a_dismissed_timeout_is_not_the_warning_that_makes_the_next_one_cost() -> None:
    steps = "H3; T red-5; P0 red-7; +20; P1 red-8; !dis 4-turn_timeout-1; P2 red-9; P3 red-1; P0 red-2; +20; P1 red-3"
    r = _r("falsonal", steps)
    # seat 1's only timeout that stands is its first: a warning, no card, and seat 1's red-3 is its own turn's play
    assert [(f.code, f.status, f.penalty) for f in r.flags] == [
        ("turn_timeout", "dismissed", 0), ("turn_timeout", "open", 0)]
    assert r.state.counts[1] == 5


def test_a_correction_replaced_by_another_event_no_longer_applies() -> None:
    # line 5 corrected line 4 (blue-9 -> red-9); line 6 replaces line 5 with seat 0's UNO call: line 4 is blue-9 again
    r = _r("mattel", "H3; T red-5; P0 blue-9; !fix 4 P0 red-9; !fix 5 U0")
    assert [f.code for f in r.flags] == ["illegal_card"]
    assert r.state.top is not None and r.state.top.code == "blue-9"


def test_a_timeout_flag_keeps_its_id_when_the_event_after_it_is_struck() -> None:
    # FA-TIMER: seat 1 let 15 s pass; the camera then saw a draw that never happened (line 5), which the referee
    # strikes after dismissing the timeout (say the clock was paused for a dispute)
    r = _r("falsonal", "H3; T red-5; P0 red-7; +20; D1; !dis 4-turn_timeout-1; !fix 5 -")
    (flag,) = r.flags
    assert flag.code == "turn_timeout" and flag.status == "dismissed"  # the referee's ruling still holds ...
    assert flag.line not in (6, 7)  # ... and the flag never points at the referee's own lines
