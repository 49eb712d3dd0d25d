"""Referee review end to end through the web forms (SQLite and PostgreSQL): uphold, dismiss, correct, audit."""

from __future__ import annotations

import csv
import html
import io
import json
from typing import Any

import pytest

from tracker.clauses import clause_text
from tracker.engine import replay
from tracker.log import event_to_dict, parse_event
from tracker.simulate import SimConfig, simulate_match


@pytest.fixture
def ref(app: Any, h: Any, flagged_log: list[dict[str, Any]]) -> Any:
    """A table playing `flagged_log`, and a logged-in referee's client."""
    token = h.add_table(app)
    h.add_user(app)
    c = app.test_client()
    assert c.post("/api/tables/t1/events", json=flagged_log, headers=h.bearer(token)).status_code == 200
    assert h.login(c).status_code == 302
    c.token = token
    return c


def _flags(c: Any) -> dict[str, dict[str, Any]]:
    return {f["id"]: f for f in c.get("/api/tables/t1/flags").get_json()["flags"]}


def _rule(c: Any, h: Any, flag: str, decision: str, note: str = "") -> Any:
    page = c.get("/referee")
    return c.post("/referee/rule", data={"table": "t1", "flag": flag, "decision": decision, "note": note,
                                         "csrf_token": h.csrf_from(page.text)})


def test_the_queue_shows_rule_reason_and_actions(ref: Any) -> None:
    page = ref.get("/referee").text
    flags = _flags(ref)
    for f in flags.values():
        assert f'data-flag="{f["id"]}"' in page
        assert f["rule"] in page and clause_text(f["rule"]) in html.unescape(page)
    assert page.count('value="upheld"') == len(flags) and page.count('value="dismissed"') == len(flags)
    # newest first
    order = [page.index(f'data-flag="{f["id"]}"') for f in sorted(flags.values(), key=lambda f: -f["t"])]
    assert order == sorted(order)


def test_uphold_and_dismiss_replay_the_state_at_once(ref: Any, h: Any, flagged_log: list[dict[str, Any]]) -> None:
    flags = _flags(ref)
    uno = next(f for f in flags.values() if f["code"] == "missed_uno")
    other = next(f for f in flags.values() if f["id"] != uno["id"])
    seat = uno["seat"]
    before = ref.get("/api/tables/t1/state").get_json()["state"]
    assert _rule(ref, h, other["id"], "upheld", "seen on camera").status_code == 302
    assert _rule(ref, h, uno["id"], "dismissed").status_code == 302
    after = ref.get("/api/tables/t1/state").get_json()["state"]
    assert after["counts"][seat] == before["counts"][seat] - uno["penalty"]["cards"]
    now = _flags(ref)
    assert now[other["id"]]["status"] == "upheld" and now[other["id"]]["note"] == "seen on camera"
    assert now[uno["id"]]["status"] == "dismissed"
    # the log holds both decisions as EVENTS.md rulings, and replaying it gives the same answer
    events = ref.get("/api/tables/t1/events").get_json()["events"]
    rulings = [e for e in events if e["type"] == "ruling"]
    assert [(r["flag"], r["decision"], r["source"], r["by"]) for r in rulings] == [
        (other["id"], "upheld", "referee", "ref"), (uno["id"], "dismissed", "referee", "ref")]
    assert all("at" in r for r in rulings)
    rep = replay([parse_event({k: v for k, v in e.items() if k != "log_line"}, e["log_line"]) for e in events])
    assert rep.state.to_dict() == after
    # the queue no longer offers them; the decided list and the stored flags do
    page = ref.get("/referee").text
    assert f'data-flag="{uno["id"]}"' not in page and f'data-flag="{other["id"]}"' not in page
    store = ref.application.extensions["unotable"].store
    stored = {f["id"]: f["status"] for f in store.flags()}
    assert stored[uno["id"]] == "dismissed" and stored[other["id"]] == "upheld"


def test_the_audit_trail_exports(ref: Any, h: Any) -> None:
    flags = list(_flags(ref))
    _rule(ref, h, flags[0], "upheld", "clear")
    _rule(ref, h, flags[1], "dismissed")
    rows = ref.get("/referee/audit.json").get_json()["rulings"]
    assert [(r["flag_id"], r["decision"], r["username"], r["table"]) for r in rows] == [
        (flags[0], "upheld", "ref", "t1"), (flags[1], "dismissed", "ref", "t1")]
    assert rows[0]["note"] == "clear" and rows[0]["detail"]["flag"]["id"] == flags[0]
    assert rows[0]["at_iso"].endswith("Z")
    text = ref.get("/referee/audit.csv").text
    table = list(csv.DictReader(io.StringIO(text)))
    assert [r["decision"] for r in table] == ["upheld", "dismissed"]
    assert all(r["username"] == "ref" for r in table)


def test_a_correction_replays_the_whole_log(ref: Any, h: Any, flagged_log: list[dict[str, Any]]) -> None:
    flags = _flags(ref)
    target = next(f for f in flags.values() if f["code"] != "missed_uno")
    line = target["line"]
    page = ref.get("/referee")
    r = ref.post("/referee/correct", data={"table": "t1", "line": str(line), "strike": "on", "note": "not a play",
                                           "csrf_token": h.csrf_from(page.text)})
    assert r.status_code == 302
    events = ref.get("/api/tables/t1/events").get_json()["events"]
    corr = events[-1]
    assert (corr["type"], corr["line"], corr["event"], corr["by"]) == ("correction", line, None, "ref")
    assert target["id"] not in _flags(ref)  # the engine no longer raises it ...
    store = ref.application.extensions["unotable"].store
    assert {f["id"]: f["status"] for f in store.flags()}[target["id"]] == "withdrawn"  # ... the store remembers it
    rep = replay([parse_event({k: v for k, v in e.items() if k != "log_line"}, e["log_line"]) for e in events])
    assert ref.get("/api/tables/t1/state").get_json()["state"] == rep.state.to_dict()
    audit = ref.get("/referee/audit.json").get_json()["rulings"]
    assert audit[-1]["kind"] == "correction" and audit[-1]["decision"] == "struck" and audit[-1]["line"] == line
    # plain appends after a correction still fold in incrementally and agree with a replay
    last_t = events[-1]["t"]
    ref.post("/api/tables/t1/events", json={"t": last_t + 1, "type": "draw", "seat": 0}, headers=h.bearer(ref.token))
    events = ref.get("/api/tables/t1/events").get_json()["events"]
    rep = replay([parse_event({k: v for k, v in e.items() if k != "log_line"}, e["log_line"]) for e in events])
    assert ref.get("/api/tables/t1/state").get_json()["state"] == rep.state.to_dict()


def test_a_bad_correction_changes_nothing(ref: Any, h: Any) -> None:
    before = ref.get("/api/tables/t1/events").get_json()["events"]
    token = h.csrf_from(ref.get("/referee").text)
    for form, problem in [
        ({"line": "3", "event": "{not json"}, "not valid JSON"),
        ({"line": "3", "event": json.dumps({"t": 2, "type": "play", "seat": 0, "cards": ["red-99"]})}, "unknown card"),
        ({"line": "999", "strike": "on"}, "doesn&#39;t exist"),
        ({"line": "x", "strike": "on"}, "bad line"),
        ({"line": "3", "event": json.dumps({"t": 2, "type": "play", "seat": 7, "cards": ["red-5"]})}, "players"),
        ({"line": "1", "event": json.dumps({"t": 0, "type": "match_start", "ruleset": "../../etc/hostname",
                                            "players": ["A", "B"]})}, "not one this dashboard plays"),
        ({"line": "3", "event": "[" * 100000}, "not valid JSON"),
    ]:
        r = ref.post("/referee/correct", data={"table": "t1", "csrf_token": token, **form})
        assert r.status_code == 400 and problem in r.text, (form, r.text[-400:])
    assert ref.get("/api/tables/t1/events").get_json()["events"] == before
    assert ref.get("/referee/audit.json").get_json()["rulings"] == []


def test_ruling_an_unknown_flag_is_404(ref: Any, h: Any) -> None:
    r = _rule(ref, h, "999-illegal_card-0", "upheld")
    assert r.status_code == 404 and "no flag" in r.text


@pytest.mark.parametrize("ruleset", ["mattel", "olympic"])
def test_scoreboard_csv_matches_the_engine(sqlite_app: Any, h: Any, ruleset: str) -> None:
    sim = simulate_match(SimConfig(ruleset=ruleset, players=3, seed=4, mistakes=(), max_hands=3))
    log = [event_to_dict(e) for e in sim.events]
    token = h.add_table(sqlite_app)
    c = sqlite_app.test_client()
    assert c.post("/api/tables/t1/events", json=log, headers=h.bearer(token)).status_code == 200
    scores = replay([parse_event(e, i) for i, e in enumerate(log, 1)]).scores
    assert len(scores["hands"]) >= 2
    rows = list(csv.reader(io.StringIO(c.get("/scoreboard/t1.csv").text)))
    players = log[0]["players"]
    assert rows[0] == ["hand", *players]
    for i, hand in enumerate(scores["hands"], start=1):
        assert rows[i] == [str(i), *map(str, hand)]
    assert rows[len(scores["hands"]) + 1] == ["total", *map(str, scores["totals"])]
    extra = {r[0]: r[1:] for r in rows[len(scores["hands"]) + 2:]}
    assert extra["target"] == [str(scores["target"])]
    assert extra["lowest wins"] == ["yes" if ruleset == "olympic" else "no"]
    assert c.get("/scoreboard/t1").status_code == 200


def test_after_a_decision_the_referee_stays_on_this_dashboard(ref: Any, h: Any) -> None:
    flag = next(iter(_flags(ref)))
    page = ref.get("/referee")
    for back, where in (("https://evil.example/phish", "/referee"), ("//evil.example", "/referee"),
                        ("/referee?table=t1", "/referee?table=t1")):
        r = ref.post("/referee/rule", data={"table": "t1", "flag": flag, "decision": "upheld", "back": back,
                                            "csrf_token": h.csrf_from(page.text)})
        assert r.status_code == 302 and r.headers["Location"].endswith(where), (back, r.headers["Location"])


def test_an_evidence_id_beyond_the_database_is_404(ref: Any) -> None:
    assert ref.get(f"/referee/evidence/{2**63}").status_code == 404
