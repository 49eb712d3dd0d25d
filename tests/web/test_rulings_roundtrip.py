"""A referee's ruling is an event, so replaying a log always gives the corrected game (EVENTS.md, README).

End to end: a table's events are posted through the API, a referee rules and corrects through the referee pages,
the stored log is exported (`GET /api/tables/<t>/events`) to a JSON Lines file and `unotable replay` is run on it.
What the dashboard shows (the API's flags, state and scores, the referee queue, the stored flags, the scoreboard CSV)
must be what the replay prints: the same flags with the same ids and statuses, the same counts, hand scores and totals.
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tracker.log import event_to_dict
from tracker.script import script

CLI = [sys.executable, "-m", "unotable.cli"]

# Mattel, 4 seats. Five rounds leave every seat with two cards (lines 4-23). Then:
#   24 P0 red-1    seat 0 down to one card, no UNO
#   25 P1 red-2    seat 0's window closes: 24-missed_uno-0 (2 cards); seat 1 down to one, no UNO
#   26 P2 red-3    25-missed_uno-1 (2 cards); seat 2 down to one ...
#   27 U2          ... and calls
#   28 P3 red-4    seat 3 down to one ...
#   29 U3          ... and calls
#   30 D0 2        seat 0 draws the two penalty cards it owes
#   31 P0 red-6    seat 0 holds two
MATTEL_STEPS = "H3; T red-5; ~5; P0 red-1; P1 red-2; P2 red-3; U2; P3 red-4; U3; D0 2; P0 red-6"
# after the referee's rulings: seat 1 lays its last card and the losers show their hands
MATTEL_END = "P1 red-8; R0 blue-skip,wild; R2 red-9; R3 green-draw2"


def _bodies(ruleset: str, steps: str, players: int = 4) -> list[dict[str, Any]]:
    return [event_to_dict(e) for e in script(ruleset, steps, players=players)]


def _tail(steps: str, after_t: float, ruleset: str = "mattel") -> list[dict[str, Any]]:
    """Events of `steps` (no match_start) timed after `after_t`."""
    out = []
    for b in _bodies(ruleset, steps)[1:]:
        b["t"] = round(b["t"] + after_t, 3)
        out.append(b)
    return out


@pytest.fixture
def table(referee_table: Any) -> Any:
    """A registered table and a logged-in referee's client (`c.token`: the rig's bearer token)."""
    return referee_table


def _post(c: Any, events: list[dict[str, Any]]) -> None:
    r = c.post("/api/tables/t1/events", json=events, headers=c.h.bearer(c.token))
    assert r.status_code == 200, r.get_json()


def _rule(c: Any, flag: str, decision: str, note: str = "") -> None:
    page = c.get("/referee")
    r = c.post("/referee/rule", data={"table": "t1", "flag": flag, "decision": decision, "note": note,
                                      "csrf_token": c.h.csrf_from(page.text)})
    assert r.status_code == 302, r.text[-500:]


def _correct(c: Any, line: int, event: dict[str, Any] | None, note: str = "") -> None:
    page = c.get("/referee")
    form = {"table": "t1", "line": str(line), "note": note, "csrf_token": c.h.csrf_from(page.text)}
    if event is None:
        form["strike"] = "on"
    else:
        form["event"] = json.dumps(event)
    r = c.post("/referee/correct", data=form)
    assert r.status_code == 302, r.text[-500:]


def _last_t(c: Any) -> float:
    return float(c.get("/api/tables/t1/events").get_json()["events"][-1]["t"])


def _export(c: Any, path: Path) -> Path:
    """The stored log as a JSON Lines file, as a referee would save it (the API's `log_line` left out)."""
    events = c.get("/api/tables/t1/events").get_json()["events"]
    assert [e["log_line"] for e in events] == list(range(1, len(events) + 1))
    return c.h.export_log(c, path)  # type: ignore[no-any-return]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=120)


def _replayed(c: Any, tmp_path: Path) -> dict[str, Any]:
    """`unotable replay --json` of the exported log, checked against the plain (one flag a line) output."""
    path = _export(c, tmp_path / "exported.jsonl")
    out = _cli("replay", str(path), "--json")
    assert out.returncode == 0, out.stderr
    doc: dict[str, Any] = json.loads(out.stdout)
    lines = _cli("replay", str(path))
    assert lines.returncode == 0, lines.stderr
    assert [json.loads(x) for x in lines.stdout.splitlines()] == doc["flags"]
    return doc


def _dashboard(c: Any) -> dict[str, Any]:
    state = c.get("/api/tables/t1/state").get_json()["state"]
    scores = c.get("/api/tables/t1/scores").get_json()["scores"]
    flags = c.get("/api/tables/t1/flags").get_json()["flags"]
    return {"state": state, "scores": scores, "flags": flags}


def _assert_agree(c: Any, tmp_path: Path) -> dict[str, Any]:
    """The dashboard, the referee queue, the store and the scoreboard CSV all say what `unotable replay` says."""
    doc = _replayed(c, tmp_path)
    dash = _dashboard(c)
    assert dash["flags"] == doc["flags"]
    assert dash["state"] == doc["state"]
    assert dash["scores"] == doc["scores"]
    # the stream's snapshot (what the live page and the overlay draw first)
    store = c.application.extensions["unotable"].store
    live = c.application.extensions["unotable"].live
    snap = live.snapshot(live.get("t1"))
    assert snap["flags"] == doc["flags"] and snap["state"] == doc["state"] and snap["scores"] == doc["scores"]
    # the referee queue offers exactly the replay's open flags
    page = c.get("/referee").text
    for f in doc["flags"]:
        assert (f'data-flag="{f["id"]}"' in page) == (f["status"] == "open"), f
    # the stored flags: every flag the replay raises, with its status and penalty; any other is withdrawn
    stored = {f["id"]: f for f in store.flags()}
    for f in doc["flags"]:
        assert stored[f["id"]]["status"] == f["status"], f
        assert stored[f["id"]]["penalty"] == f.get("penalty"), f
    ids = {f["id"] for f in doc["flags"]}
    assert all(s["status"] == "withdrawn" for fid, s in stored.items() if fid not in ids)
    # the scoreboard CSV: hands, totals and flags upheld per seat
    rows = list(csv.reader(io.StringIO(c.get("/scoreboard/t1.csv").text)))
    n = len(doc["state"]["players"])
    hands = [[int(v) for v in r[1:]] for r in rows[1:-5]]
    assert hands == doc["scores"]["hands"]
    assert rows[-5][0] == "total" and [int(v) for v in rows[-5][1:]] == doc["scores"]["totals"]
    assert rows[-4][0] == "flags upheld" and [int(v) for v in rows[-4][1:]] == [
        sum(1 for f in doc["flags"] if f["status"] == "upheld" and f["seat"] == i) for i in range(n)]
    return doc


# -- rulings --------------------------------------------------------------------------------------------------------
def test_uphold_and_dismiss_through_the_referee_pages_replay_to_the_same_game(table: Any, tmp_path: Path) -> None:
    _post(table, _bodies("mattel", MATTEL_STEPS))
    flags = {f["id"]: f for f in _dashboard(table)["flags"]}
    assert set(flags) == {"24-missed_uno-0", "25-missed_uno-1"}
    assert all(f["penalty"]["cards"] == 2 and f["status"] == "open" for f in flags.values())
    before = _dashboard(table)["state"]
    assert before["counts"] == [2, 3, 1, 1] and before["owed"] == [0, 2, 0, 0]  # seat 0 drew its two; seat 1 owes

    _rule(table, "24-missed_uno-0", "upheld", "heard nothing on the audio")
    _rule(table, "25-missed_uno-1", "dismissed", "called it, the mic missed it")
    after = _dashboard(table)["state"]
    # upheld: the two cards seat 0 drew stay in its hand; dismissed: seat 1's two are taken back (EVENTS.md)
    assert after["counts"] == [2, 1, 1, 1] and after["owed"] == [0, 0, 0, 0]
    doc = _assert_agree(table, tmp_path)
    by_id = {f["id"]: f for f in doc["flags"]}
    assert by_id["24-missed_uno-0"]["status"] == "upheld"
    assert by_id["24-missed_uno-0"]["penalty"] == {"seat": 0, "cards": 2}
    assert by_id["24-missed_uno-0"]["note"] == "heard nothing on the audio"
    assert by_id["25-missed_uno-1"]["status"] == "dismissed" and "penalty" not in by_id["25-missed_uno-1"]

    # seat 1, its penalty taken back, goes out with its one card; the losers show their hands
    _post(table, _tail(MATTEL_END, _last_t(table)))
    doc = _assert_agree(table, tmp_path)
    assert doc["state"]["hand_winner"] == 1
    assert doc["scores"]["hands"] == [[0, 70 + 9 + 20, 0, 0]]  # blue-skip 20 + wild 50, red-9, green-draw2 20
    assert doc["scores"]["totals"] == [0, 99, 0, 0]
    assert [f["code"] for f in doc["flags"] if f["code"] == "count_mismatch"] == []


def test_a_ruling_changed_later_replays_to_the_last_decision(table: Any, tmp_path: Path) -> None:
    _post(table, _bodies("mattel", MATTEL_STEPS))
    _rule(table, "25-missed_uno-1", "dismissed")
    assert _dashboard(table)["state"]["counts"][1] == 1
    _rule(table, "25-missed_uno-1", "upheld", "on second thought: the clip is clear")
    doc = _assert_agree(table, tmp_path)
    assert doc["state"]["counts"][1] == 3 and doc["state"]["owed"][1] == 2
    (flag,) = [f for f in doc["flags"] if f["id"] == "25-missed_uno-1"]
    assert flag["status"] == "upheld" and flag["penalty"] == {"seat": 1, "cards": 2}
    # seat 1 lays its one real card without having drawn the two: its hand is empty, so the hand is over
    # (MA-SCORE "Once a player has no cards left"); the upheld flag stands, with a warning that it was never drawn
    _post(table, _tail("P1 red-8", _last_t(table)))
    doc = _assert_agree(table, tmp_path)
    assert doc["state"]["hand_winner"] == 1 and doc["state"]["counts"][1] == 0
    assert any("never drew" in w for w in doc["state"]["warnings"])


def test_the_same_log_gives_the_same_flag_ids_in_the_dashboard_and_every_replay(table: Any, tmp_path: Path) -> None:
    _post(table, _bodies("olympic", "H3; T red-5; P2 red-8; P0 blue-9; P1 red-3; P2 red-1"))
    _rule(table, "4-out_of_turn-2", "dismissed")
    first = _replayed(table, tmp_path)
    second = _replayed(table, tmp_path)
    assert [f["id"] for f in first["flags"]] == [f["id"] for f in second["flags"]]
    assert [f["id"] for f in first["flags"]] == [f["id"] for f in _dashboard(table)["flags"]]
    assert len({f["id"] for f in first["flags"]}) == len(first["flags"])
    # a server restart reads the stored log again: the same ids and statuses
    live = table.application.extensions["unotable"].live
    with live._lock:
        live._tables.clear()
    assert _dashboard(table)["flags"] == first["flags"]
    _assert_agree(table, tmp_path)


def test_a_broadcast_delayed_view_replays_the_rulings_too(sqlite_app: Any, h: Any, tmp_path: Path) -> None:
    token = h.add_table(sqlite_app, broadcast_delay=0.001)
    h.add_user(sqlite_app)
    ref = sqlite_app.test_client()
    h.login(ref)
    ref.token, ref.h = token, h
    _post(ref, _bodies("mattel", MATTEL_STEPS))
    _rule(ref, "25-missed_uno-1", "dismissed")
    time.sleep(0.01)
    public = sqlite_app.test_client().get("/api/tables/t1/flags").get_json()["flags"]  # anonymous: delayed replay
    assert public == _replayed(ref, tmp_path)["flags"]


# -- corrections ----------------------------------------------------------------------------------------------------
def test_a_corrected_line_and_a_struck_line_replay_as_the_dashboard_shows(table: Any, tmp_path: Path) -> None:
    # olympic: 5 P0 blue-9 is an illegal card (2), 6 P1 red-3 fine, 7 P1 red-4 out of turn (2)
    _post(table, _bodies("olympic", "H3; T red-5; P3 red-2; P0 blue-9; P1 blue-3; P1 blue-4"))
    codes = {f["id"] for f in _dashboard(table)["flags"]}
    assert codes == {"4-out_of_turn-3", "5-illegal_card-0", "7-out_of_turn-1"}, codes
    _rule(table, "4-out_of_turn-3", "upheld")
    # the camera misread seat 0's card, and saw a card that was never laid
    _correct(table, 5, {"t": 5.0, "type": "play", "seat": 0, "cards": ["blue-2"]}, "the camera misread it")
    _correct(table, 7, None, "no second card was laid")
    doc = _assert_agree(table, tmp_path)
    assert [(f["id"], f["status"]) for f in doc["flags"]] == [("4-out_of_turn-3", "upheld")]
    assert doc["state"]["counts"] == [6, 6, 7, 8]
    store = table.application.extensions["unotable"].store
    stored = {f["id"]: f["status"] for f in store.flags()}
    assert stored["5-illegal_card-0"] == "withdrawn" and stored["7-out_of_turn-1"] == "withdrawn"


def test_a_ruling_on_a_flag_that_a_correction_later_removes(table: Any, tmp_path: Path) -> None:
    _post(table, _bodies("olympic", "H3; T red-5; P2 red-8"))
    _rule(table, "4-out_of_turn-2", "upheld")
    assert _dashboard(table)["state"]["counts"] == [7, 7, 8, 7]
    _correct(table, 4, {"t": 3.0, "type": "play", "seat": 0, "cards": ["red-8"]}, "it was seat 0's card")
    doc = _assert_agree(table, tmp_path)
    assert doc["flags"] == [] and doc["state"]["counts"] == [6, 7, 7, 7]  # no flag, no penalty
    out = _cli("replay", str(tmp_path / "exported.jsonl"))
    assert "ruling on unknown flag '4-out_of_turn-2'" in out.stderr  # the ruling is reported, not applied
    # the referee can't rule on the flag any more
    page = table.get("/referee")
    r = table.post("/referee/rule", data={"table": "t1", "flag": "4-out_of_turn-2", "decision": "dismissed",
                                          "csrf_token": table.h.csrf_from(page.text)})
    assert r.status_code == 404


def test_a_correction_that_moves_a_flag_to_another_seat_opens_a_new_flag(table: Any, tmp_path: Path) -> None:
    _post(table, _bodies("olympic", "H3; T red-5; P2 red-8"))
    _rule(table, "4-out_of_turn-2", "upheld")
    _correct(table, 4, {"t": 3.0, "type": "play", "seat": 3, "cards": ["red-8"]}, "it was seat 3")
    doc = _assert_agree(table, tmp_path)
    # the upheld ruling was about seat 2; seat 3's flag is a new one, open, its penalty charged
    assert [(f["id"], f["status"]) for f in doc["flags"]] == [("4-out_of_turn-3", "open")]
    assert doc["state"]["counts"] == [7, 7, 7, 8]
    _rule(table, "4-out_of_turn-3", "dismissed")
    doc = _assert_agree(table, tmp_path)
    assert doc["state"]["counts"] == [7, 7, 7, 6]


def test_a_correction_after_a_ruling_keeps_the_ruling_on_a_flag_that_stays(table: Any, tmp_path: Path) -> None:
    # the flag (seat 2 out of turn) stays; a later line is corrected: the full replay must keep the dismissal
    _post(table, _bodies("olympic", "H3; T red-5; P2 red-8; P3 red-1; P0 blue-2"))
    assert {f["id"] for f in _dashboard(table)["flags"]} == {"4-out_of_turn-2", "6-illegal_card-0"}
    _rule(table, "4-out_of_turn-2", "dismissed")
    _correct(table, 6, {"t": 5.0, "type": "play", "seat": 0, "cards": ["red-2"]})
    doc = _assert_agree(table, tmp_path)
    assert [(f["id"], f["status"]) for f in doc["flags"]] == [("4-out_of_turn-2", "dismissed")]
    assert doc["state"]["counts"] == [6, 7, 6, 6]


# -- stop 62 audit findings, fixed ---------------------------------------------------------------------------------
def test_ruling_late_on_the_last_hands_flag_leaves_the_new_hands_cards_alone(table: Any, tmp_path: Path) -> None:
    # olympic, hand 1: seat 1 lays an illegal card (2 cards); nobody goes out; hand 2 is dealt: 7 cards each
    _post(table, _bodies("olympic", "H3; T red-5; P0 red-8; P1 blue-9; H0; T red-5"))
    assert _dashboard(table)["state"]["counts"] == [7, 7, 7, 7]
    # the referee gets to the queue during hand 2 and dismisses the hand-1 flag
    _rule(table, "5-illegal_card-1", "dismissed", "seen on camera: it was a red 9")
    doc = _assert_agree(table, tmp_path)  # the dashboard and the replay agree with each other ...
    assert doc["state"]["hand"] == 2
    assert doc["state"]["counts"] == [7, 7, 7, 7]  # ... but hand 2 was dealt 7 each (EVENTS.md hand_start)


def test_a_late_dismissal_raises_no_false_flag_in_the_next_hand(table: Any, tmp_path: Path) -> None:
    _post(table, _bodies("olympic", "H3; T red-5; P0 red-8; P1 blue-9; H0; T red-5"))
    _rule(table, "5-illegal_card-1", "dismissed")
    # hand 2 (seat 0 dealt, seat 1 leads): five rounds; seat 1 has laid 5 of its 7 cards
    t = _last_t(table)
    rounds = []
    for k in range(5):
        for j in range(4):
            t = round(t + 1, 3)
            rounds.append({"t": t, "type": "play", "seat": (1 + j) % 4, "cards": [f"red-{(k % 6) + 1}"]})
    _post(table, rounds)
    doc = _assert_agree(table, tmp_path)
    # seat 1 holds 2 cards and has never been down to one: no UNO was due (OL-UNO)
    assert [f["id"] for f in doc["flags"] if f["code"] == "missed_uno"] == []
    assert doc["state"]["counts"][1] == 2


def test_after_a_restart_the_queue_is_the_engines_open_flags(sqlite_app: Any, h: Any, data_dir: Path,
                                                             tmp_path: Path) -> None:
    token = h.add_table(sqlite_app)
    c = sqlite_app.test_client()
    c.post("/api/tables/t1/events", json=_bodies("olympic", "H3; T red-5; P2 red-8"), headers=h.bearer(token))
    store = sqlite_app.extensions["unotable"].store
    # the flags as an earlier engine (before an upgrade) answered them: one more, which this engine doesn't raise
    stale = c.get("/api/tables/t1/flags").get_json()["flags"] + [
        {"id": "3-bad_starter-0", "t": 2.0, "code": "bad_starter", "seat": 0, "rule": "OL-START",
         "message": "an earlier engine's flag", "line": 3, "status": "open"}]
    store.save_flags(store.table("t1").id, stale)
    from web import create_app

    restarted = create_app({"DATA_DIR": str(data_dir), "SECRET_KEY": "test-secret"})
    try:
        h.add_user(restarted)
        ref = restarted.test_client()
        h.login(ref)
        ref.token, ref.h = token, h
        page = ref.get("/referee").text  # "load (and so persist the flags of) every table once"
        assert 'data-flag="4-out_of_turn-2"' in page
        assert 'data-flag="3-bad_starter-0"' not in page
        _assert_agree(ref, tmp_path)
    finally:
        restarted.extensions["unotable"].close()
        restarted.extensions["unotable"].store.dispose()


# -- insertions (README: a referee adds an event no sense logged, at its place in the game) --------------------------
def _insert(c: Any, after: int, event: dict[str, Any], note: str = "") -> Any:
    return c.h.insert_missed(c, after, event, note)


def test_a_missed_draw_inserted_from_the_queue_replays_as_the_dashboard_shows(table: Any, tmp_path: Path) -> None:
    # mattel: seat 1's draw was missed, so seat 2's card (line 5) looks out of turn
    _post(table, _bodies("mattel", "H3; T red-5; P0 red-6; P2 red-8"))
    assert [f["id"] for f in _dashboard(table)["flags"]] == ["5-out_of_turn-2"]
    page = table.get("/referee").text
    assert 'action="/referee/insert"' in page and 'name="after" type="number" min="0" step="1" value="4"' in page
    r = _insert(table, 4, {"type": "draw", "seat": 1, "count": 1}, "the camera missed seat 1's draw")
    assert r.status_code == 302, r.text[-500:]
    doc = _assert_agree(table, tmp_path)
    assert doc["flags"] == [] and doc["state"]["counts"] == [6, 8, 6, 7]
    events = table.get("/api/tables/t1/events").get_json()["events"]
    assert events[-1]["type"] == "insert" and events[-1]["after"] == 4 and events[-1]["by"] == "ref"
    assert events[-1]["event"] == {"t": 3.0, "type": "draw", "seat": 1, "count": 1}  # no "t": line 4's time
    store = table.application.extensions["unotable"].store
    audit = store.rulings()[-1]
    assert (audit["kind"], audit["decision"], audit["line"], audit["note"]) == (
        "insert", "inserted", 4, "the camera missed seat 1's draw")
    assert store.flags()[0]["status"] == "withdrawn"
    # struck again by a correction of the insert's own line: the flag is back
    _correct(table, 6, None, "it was the next hand's draw after all")
    doc = _assert_agree(table, tmp_path)
    assert [f["id"] for f in doc["flags"]] == ["5-out_of_turn-2"]


def test_insertions_refused_with_a_reason(table: Any) -> None:
    _post(table, _bodies("mattel", "H3; T red-5; P0 red-6; P2 red-8"))
    assert _insert(table, 9, {"type": "draw", "seat": 1}).status_code == 400  # no line 9 yet
    r = _insert(table, 4, {"type": "draw", "seat": 7})
    assert r.status_code == 400 and "seat" in r.text
    r = _insert(table, 4, {"type": "ruling", "flag": "5-out_of_turn-2", "decision": "upheld"})
    assert r.status_code == 400 and "not a referee&#39;s &#39;ruling&#39;" in r.text
    page = table.get("/referee")
    r = table.post("/referee/insert", data={"table": "t1", "after": "4", "event": "[1]",
                                            "csrf_token": table.h.csrf_from(page.text)})
    assert r.status_code == 400 and "must be a JSON object" in r.text
    # a rig may not write a referee's insert through the API
    rig = table.post("/api/tables/t1/events", headers=table.h.bearer(table.token), json={
        "t": 5.0, "type": "insert", "after": 4, "event": {"t": 3.0, "type": "draw", "seat": 1}})
    assert rig.status_code == 403 and "only a referee" in rig.get_json()["error"]
    assert len(table.get("/api/tables/t1/events").get_json()["events"]) == 5  # nothing stored


def test_a_hand_inserted_as_revealed_is_never_shown_to_spectators(table: Any) -> None:
    _post(table, _bodies("mattel", "H3; T red-5; P0 red-6; D1; P2 red-8"))
    assert _insert(table, 5, {"type": "reveal", "seat": 1, "cards": ["blue-2", "wild"]}).status_code == 302
    live = table.application.extensions["unotable"].live
    public = live.snapshot(live.get("t1"), public=True)
    assert public["events"][-1]["event"]["cards"] == 2
    assert "blue-2" not in json.dumps(public)
