"""Audit h10: the referee's `insert` through the dashboard (README: "uphold, dismiss, correct the flagged line or
insert an event the senses missed"), checked against `unotable replay` of the exported log (EVENTS.md: "replaying
the log always gives the corrected state"; web/referee.py: "a replay of the exported log gives the same answer").

The report's three findings (stop 64, h10_insert.md) are fixed: a chained insert happens once; an inserted or
corrected event is never later than when the referee wrote it, so lines appended later can't move it and the
dashboard's warm game stays what a replay gives; the queue's correction form of an inserted line holds the inserted
event as the game has it."""

from __future__ import annotations

import csv
import html
import io
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tracker.log import event_to_dict
from tracker.script import script

CLI = [sys.executable, "-m", "unotable.cli"]


def _bodies(ruleset: str, steps: str, players: int = 4) -> list[dict[str, Any]]:
    return [event_to_dict(e) for e in script(ruleset, steps, players=players)]


@pytest.fixture
def table(referee_table: Any) -> Any:
    return referee_table


def _post(c: Any, events: list[dict[str, Any]]) -> None:
    r = c.post("/api/tables/t1/events", json=events, headers=c.h.bearer(c.token))
    assert r.status_code == 200, r.get_json()


def _insert(c: Any, after: int, event: dict[str, Any], note: str = "") -> Any:
    return c.h.insert_missed(c, after, event, note)


def _correct(c: Any, line: int, raw_event: str) -> Any:
    page = c.get("/referee")
    return c.post("/referee/correct", data={"table": "t1", "line": str(line), "event": raw_event,
                                            "csrf_token": c.h.csrf_from(page.text)})


def _export(c: Any, path: Path) -> Path:
    return c.h.export_log(c, path)  # type: ignore[no-any-return]


def _replayed(c: Any, tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    out = subprocess.run([*CLI, "replay", str(_export(c, tmp_path / "exported.jsonl")), *extra],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out


def _dashboard(c: Any) -> dict[str, Any]:
    return {"flags": c.get("/api/tables/t1/flags").get_json()["flags"],
            "state": c.get("/api/tables/t1/state").get_json()["state"],
            "scores": c.get("/api/tables/t1/scores").get_json()["scores"]}


# -- finding 2: the warm game keeps an inserted event's time that a replay of the same log moves ---------------------
def test_events_appended_after_an_insert_at_the_end_agree_with_replay(table: Any, tmp_path: Path) -> None:
    """README: the inserted event "happens at the time it gives if that lies between its neighbours, otherwise right
    after line 4"; web/live.py: plain appends are folded warm "since a later event can't change how an earlier line
    was corrected". Falsonal (FA-TIMER, 15 s). Seat 1's card at line 4's turn was missed; the referee inserts it after
    the last line with the time read off the clip, t=20. The rig's next events arrive at t=19 and t=25: now the
    insert's t lies after its next neighbour, so `unotable replay` of the exported log moves the card to t=3 (and
    seat 2 took 16 s: `5-turn_timeout-2`), while the dashboard keeps it at t=20 (and shows `4-turn_timeout-1`, and a
    `last_event_t` of 20 that the live page's turn timer counts from). The referee queue shows a flag the replay
    doesn't have."""
    _post(table, _bodies("falsonal", "H3; T red-5; P0 red-6"))  # lines 1-4, t=0..3
    assert _insert(table, 4, {"t": 20.0, "type": "play", "seat": 1, "cards": ["red-7"]}).status_code == 302
    _post(table, [{"t": 19.0, "type": "play", "seat": 2, "cards": ["red-8"]},
                  {"t": 25.0, "type": "play", "seat": 3, "cards": ["red-9"]}])
    doc = json.loads(_replayed(table, tmp_path, "--json").stdout)
    dash = _dashboard(table)
    assert [f["id"] for f in dash["flags"]] == [f["id"] for f in doc["flags"]]
    assert dash["state"] == doc["state"]


def test_a_referee_event_after_the_appends_keeps_the_dashboard_on_replay(table: Any, tmp_path: Path) -> None:
    """The same table, then a referee's ruling (a full replay of the stored log): the dashboard and `unotable replay`
    still agree, and the ruling is on the flag both show (before the fix it went to a flag only the warm game had)."""
    _post(table, _bodies("falsonal", "H3; T red-5; P0 red-6"))
    assert _insert(table, 4, {"t": 20.0, "type": "play", "seat": 1, "cards": ["red-7"]}).status_code == 302
    _post(table, [{"t": 19.0, "type": "play", "seat": 2, "cards": ["red-8"]},
                  {"t": 25.0, "type": "play", "seat": 3, "cards": ["red-9"]}])
    (flag,) = _dashboard(table)["flags"]
    page = table.get("/referee")
    r = table.post("/referee/rule", data={"table": "t1", "flag": flag["id"], "decision": "upheld",
                                          "csrf_token": table.h.csrf_from(page.text)})
    assert r.status_code == 302
    doc = json.loads(_replayed(table, tmp_path, "--json").stdout)
    dash = _dashboard(table)
    assert dash["flags"] == doc["flags"] and dash["state"] == doc["state"] and dash["scores"] == doc["scores"]
    assert [(f["id"], f["status"]) for f in doc["flags"]] == [(flag["id"], "upheld")]
    assert not any("ruling on unknown flag" in w for w in doc["state"]["warnings"])


# -- finding 1, through the dashboard ------------------------------------------------------------------------------
def test_a_second_missed_trip_inserted_after_the_first_from_the_queue(table: Any, tmp_path: Path) -> None:
    """README: "several inserts after one line keep the order they were written in" and the queue inserts "after the
    line" the referee names. Both trips of seat 1's Draw Two were missed; the referee inserts the first after line 4
    and the second after the first (line 6). Seat 1 drew 2 (MA-D2): no flag, 9 cards."""
    _post(table, _bodies("mattel", "H3; T red-5; P0 red-draw2; P2 red-8"))
    assert _insert(table, 4, {"type": "draw", "seat": 1, "count": 1}).status_code == 302
    assert _insert(table, 6, {"type": "draw", "seat": 1, "count": 1}).status_code == 302
    dash = _dashboard(table)
    assert dash["flags"] == [] and dash["state"]["counts"] == [6, 9, 6, 7]


# -- finding 3 (fixed at stop 64): the queue's correction form for a flag on an inserted line -----------------------
def test_correcting_a_flag_raised_on_an_inserted_line_from_the_queue(table: Any) -> None:
    """README: "The inserted event takes the insert's own line, so its flags name that line, and a `correction` of
    that line rewrites or strikes it"; the queue offers to "correct the flagged line". Olympic: the referee inserted
    seat 1's missed card as blue-9 (illegal on red: `6-illegal_card-1`). The queue's "Correct the event on line 6"
    form is pre-filled with the flagged line's event, so that the referee changes only the card; today it holds the
    whole `insert` object, and posting it with the card fixed is refused ("a correction can't replace an event with
    another 'insert'")."""
    _post(table, _bodies("olympic", "H3; T red-5; P0 red-6; P2 red-8"))
    assert _insert(table, 4, {"type": "play", "seat": 1, "cards": ["blue-9"]}).status_code == 302
    page = table.get("/referee").text
    assert 'data-flag="6-illegal_card-1"' in page
    m = re.search(r'name="line" value="6">.*?<textarea name="event" rows="3">(.*?)</textarea>', page, re.S)
    assert m, "no correction form for line 6"
    prefilled = json.loads(html.unescape(m.group(1)))
    fixed = json.dumps(prefilled).replace("blue-9", "red-9")
    r = _correct(table, 6, fixed)
    assert r.status_code == 302, r.text[-300:]
    assert not any(f["id"] == "6-illegal_card-1" for f in _dashboard(table)["flags"])


# -- what held ------------------------------------------------------------------------------------------------------
def test_insert_correct_and_rule_on_an_inserted_line_agree_with_replay_and_the_audit(table: Any,
                                                                                       tmp_path: Path) -> None:
    """EVENTS.md: a flag id is "stable across replays of the same log"; README: "`--pretty` shows the game as the
    referee's corrections and insertions left it"; the audit trail exports every decision (CSV and JSON)."""
    _post(table, _bodies("olympic", "H3; T red-5; P0 red-6; P2 red-8"))
    assert _insert(table, 4, {"type": "play", "seat": 1, "cards": ["blue-9"]}, "missed card").status_code == 302
    page = table.get("/referee")
    r = table.post("/referee/rule", data={"table": "t1", "flag": "6-illegal_card-1", "decision": "dismissed",
                                          "csrf_token": table.h.csrf_from(page.text)})
    assert r.status_code == 302
    doc = json.loads(_replayed(table, tmp_path, "--json").stdout)
    dash = _dashboard(table)
    assert dash["flags"] == doc["flags"] and dash["state"] == doc["state"] and dash["scores"] == doc["scores"]
    assert [(f["id"], f["status"]) for f in doc["flags"]] == [("6-illegal_card-1", "dismissed"),
                                                               ("5-illegal_card-2", "open")]
    assert doc["state"]["counts"] == [6, 6, 8, 7]
    pretty = _replayed(table, tmp_path, "--pretty").stdout
    assert pretty.count("(inserted by the referee)") == 1
    at = pretty.index("(inserted by the referee)")
    assert pretty.index("illegal_card", at) < pretty.index("P2", at)  # the flag is printed under the inserted card
    audit = table.get("/referee/audit.json").get_json()["rulings"]
    ins = next(a for a in audit if a["kind"] == "insert")
    assert (ins["decision"], ins["line"], ins["event_seq"], ins["note"]) == ("inserted", 4, 6, "missed card")
    assert ins["detail"] == {"after": 4, "now": {"type": "play", "seat": 1, "cards": ["blue-9"], "t": 3.0}}
    rows = list(csv.DictReader(io.StringIO(table.get("/referee/audit.csv").text)))
    assert [(r["kind"], r["decision"], r["line"]) for r in rows] == [("insert", "inserted", "4"),
                                                                       ("ruling", "dismissed", "6")]


def test_an_inserted_reveal_is_hidden_from_the_public_events_api(sqlite_app: Any, table: Any) -> None:
    """README: anyone but a referee and the table's rig reads "a revealed hand as its count of cards"."""
    _post(table, _bodies("mattel", "H3; T red-5; P0 wild-draw4 blue; X1"))
    assert _insert(table, 5, {"type": "reveal", "seat": 0, "cards": ["red-1", "blue-3"]}).status_code == 302
    anon = sqlite_app.test_client()
    events = anon.get("/api/tables/t1/events").get_json()["events"]
    assert "red-1" not in json.dumps(anon.get("/api/tables/t1/events").get_json())
    assert events[-1]["type"] == "insert" and events[-1]["event"]["cards"] == 2
    ref = table.get("/api/tables/t1/events").get_json()["events"]
    assert ref[-1]["event"]["cards"] == ["red-1", "blue-3"]
