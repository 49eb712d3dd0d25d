"""The JSON API on SQLite and PostgreSQL: posting, validation that changes nothing, reading, SSE, restart."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tracker.engine import replay
from tracker.log import parse_event

START = [
    {"t": 0.0, "type": "match_start", "ruleset": "mattel", "players": ["Ann", "Bob", "Cy"]},
    {"t": 1.0, "type": "hand_start", "dealer": 0},
    {"t": 2.0, "type": "starter", "card": "red-5"},
]


def _events(client: Any, table: str = "t1") -> list[dict[str, Any]]:
    return client.get(f"/api/tables/{table}/events").get_json()["events"]


def test_post_one_event_answers_201_and_a_list_200(app: Any, h: Any) -> None:
    token = h.add_table(app)
    c = app.test_client()
    r = c.post("/api/tables/t1/events", json=START[0], headers=h.bearer(token))
    assert r.status_code == 201 and r.get_json()["lines"] == [1]
    r = c.post("/api/tables/t1/events", json=START[1:], headers=h.bearer(token))
    assert r.status_code == 200 and r.get_json() == {"table": "t1", "accepted": 2, "lines": [2, 3]}
    state = c.get("/api/tables/t1/state").get_json()
    assert state["lines"] == 3
    assert state["state"]["top_card"] == "red-5" and state["state"]["turn"] == 1
    assert state["state"]["counts"] == [7, 7, 7]


BAD = [
    (b'{"t": 3, "type": "play", "seat": 1, "cards": ["red-7"]', "bad JSON"),
    (b'"just a string"', "one event (a JSON object) or a list"),
    (json.dumps({"t": 3, "type": "teleport", "seat": 1}).encode(), "unknown event type 'teleport'"),
    (json.dumps({"t": 3, "type": "play", "seat": 1, "cards": ["red-11"]}).encode(), "unknown card 'red-11'"),
    (json.dumps({"t": 1.5, "type": "play", "seat": 1, "cards": ["red-7"]}).encode(), "out of order: t=1.5"),
    (json.dumps({"t": -1, "type": "pass", "seat": 1}).encode(), "'t' must be a number"),
    (json.dumps([{"t": 3, "type": "play", "seat": 1, "cards": ["red-7"]},
                 {"t": 4, "type": "play", "seat": 2, "cards": ["purple-7"]}]).encode(), "event 2 of 2: unknown card"),
    (json.dumps([{"t": 5, "type": "pass", "seat": 1}, {"t": 4, "type": "pass", "seat": 2}]).encode(),
     "event 2 of 2: out of order"),
    (b"[]", "no events"),
    # stop 61's audit: what used to be stored (or answered 500) and must be refused, naming the problem
    (json.dumps({"t": 3, "type": "play", "seat": 5, "cards": ["red-7"]}).encode(), "the match has 3 players"),
    (json.dumps({"t": 3, "type": "match_start", "ruleset": "/etc/passwd", "players": ["A", "B"]}).encode(),
     "not one this dashboard plays"),
    (b'{"t": 3, "type": "pass", "seat": 1, "who": "\\ud800"}', "not valid Unicode"),
    (b'{"t": 3, "type": "pass", "seat": 1, "x": NaN}', "not finite"),
    (b'{"t": 3, "type": "pass", "seat": 1, "x": 1e999}', "not finite"),
    (b"[" * 100000 + b"]" * 100000, "nested too deeply"),
    (b'{"t": 3, "type": "pass", "seat": 1, "x": ' + b"9" * 5000 + b"}", "bad JSON"),
    (json.dumps([{"t": 3, "type": "pass", "seat": 1, "rig": "cam", "rig_seq": 4},
                 {"t": 4, "type": "pass", "seat": 2, "rig": "cam", "rig_seq": 4}]).encode(), "numbered two events"),
    (json.dumps({"t": 3, "type": "pass", "seat": 1, "rig": "cam", "rig_seq": 10**30}).encode(), "'rig_seq' must be"),
]


@pytest.mark.parametrize(("body", "problem"), BAD, ids=[p for _b, p in BAD])
def test_bad_posts_get_400_naming_the_problem_and_change_nothing(app: Any, h: Any, body: bytes, problem: str) -> None:
    token = h.add_table(app)
    c = app.test_client()
    assert c.post("/api/tables/t1/events", json=START, headers=h.bearer(token)).status_code == 200
    before_events, before_state = _events(c), c.get("/api/tables/t1/state").get_json()
    r = c.post("/api/tables/t1/events", data=body, headers={**h.bearer(token), "Content-Type": "application/json"})
    assert r.status_code == 400, r.get_json()
    assert problem in r.get_json()["error"]
    assert _events(c) == before_events
    assert c.get("/api/tables/t1/state").get_json() == before_state
    store = app.extensions["unotable"].store
    assert store.event_count(store.table("t1").id) == 3


def test_a_rig_may_not_post_referee_events(app: Any, h: Any) -> None:
    token = h.add_table(app)
    c = app.test_client()
    c.post("/api/tables/t1/events", json=START, headers=h.bearer(token))
    r = c.post("/api/tables/t1/events", headers=h.bearer(token),
               json={"t": 3, "type": "correction", "line": 3, "event": None})
    assert r.status_code == 403 and "only a referee" in r.get_json()["error"]
    assert len(_events(c)) == 3


def test_unknown_table_is_404(app: Any, h: Any) -> None:
    c = app.test_client()
    assert c.get("/api/tables/nope/state").status_code == 404
    assert "no table named 'nope'" in c.post("/api/tables/nope/events", json=START[0]).get_json()["error"]


def test_flags_and_scores_follow_the_engine(app: Any, h: Any, flagged_log: list[dict[str, Any]]) -> None:
    token = h.add_table(app)
    c = app.test_client()
    assert c.post("/api/tables/t1/events", json=flagged_log, headers=h.bearer(token)).status_code == 200
    expected = replay([parse_event(e, i) for i, e in enumerate(flagged_log, 1)])
    flags = c.get("/api/tables/t1/flags").get_json()["flags"]
    assert flags == [f.to_dict() for f in expected.flags]
    assert c.get("/api/tables/t1/flags?status=upheld").get_json()["flags"] == []
    assert c.get("/api/tables/t1/scores").get_json()["scores"] == expected.scores
    assert c.get("/api/tables/t1/state").get_json()["state"] == expected.state.to_dict()
    store = app.extensions["unotable"].store
    assert {f["id"] for f in store.flags(store.table("t1").id, status="open")} == {f["id"] for f in flags}


def test_event_by_event_equals_one_replay(app: Any, h: Any, flagged_log: list[dict[str, Any]]) -> None:
    """The warm incremental game gives exactly what a full replay of the stored log gives."""
    token = h.add_table(app)
    c = app.test_client()
    for ev in flagged_log:
        assert c.post("/api/tables/t1/events", json=ev, headers=h.bearer(token)).status_code == 201
    expected = replay([parse_event(e, i) for i, e in enumerate(flagged_log, 1)])
    assert c.get("/api/tables/t1/state").get_json()["state"] == expected.state.to_dict()
    assert c.get("/api/tables/t1/flags").get_json()["flags"] == [f.to_dict() for f in expected.flags]


def test_a_restarted_server_reads_the_same_game(app: Any, h: Any, flagged_log: list[dict[str, Any]]) -> None:
    from web import create_app

    token = h.add_table(app)
    c = app.test_client()
    c.post("/api/tables/t1/events", json=flagged_log, headers=h.bearer(token))
    before = (c.get("/api/tables/t1/state").get_json(), c.get("/api/tables/t1/flags").get_json())
    app2 = create_app({"DATA_DIR": app.config["DATA_DIR"], "DATABASE_URL": app.config["DATABASE_URL"],
                       "SECRET_KEY": "test-secret"})
    try:
        c2 = app2.test_client()
        assert (c2.get("/api/tables/t1/state").get_json(), c2.get("/api/tables/t1/flags").get_json()) == before
        r = c2.post("/api/tables/t1/events", json={"t": 999.0, "type": "uno", "seat": 0}, headers=h.bearer(token))
        assert r.get_json()["lines"] == [len(flagged_log) + 1]
    finally:
        app2.extensions["unotable"].store.dispose()


def _sse_frames(resp: Any, n: int) -> list[tuple[str, dict[str, Any]]]:
    """Read `n` SSE frames (kind, payload) from a streamed test-client response."""
    out: list[tuple[str, dict[str, Any]]] = []
    buf = b""
    for chunk in resp.response:
        buf += chunk
        while b"\n\n" in buf:
            frame, buf = buf.split(b"\n\n", 1)
            fields = dict(line.split(": ", 1) for line in frame.decode().splitlines() if ": " in line and not line.startswith(":"))
            if "data" in fields:
                out.append((fields["event"], json.loads(fields["data"])))
        if len(out) >= n:
            return out
    return out


def test_the_stream_sends_a_snapshot_then_every_update(app: Any, h: Any) -> None:
    token = h.add_table(app)
    c = app.test_client()
    c.post("/api/tables/t1/events", json=START[:2], headers=h.bearer(token))
    resp = c.get("/api/tables/t1/stream", buffered=False)
    assert resp.mimetype == "text/event-stream"
    c.post("/api/tables/t1/events", json=START[2], headers=h.bearer(token))
    c.post("/api/tables/t1/events", json=[{"t": 3, "type": "play", "seat": 1, "cards": ["red-7"]},
                                          {"t": 4, "type": "uno", "seat": 1}], headers=h.bearer(token))
    frames = _sse_frames(resp, 3)
    resp.close()
    assert [k for k, _ in frames] == ["snapshot", "update", "update"]
    snap, first, second = (p for _k, p in frames)
    assert snap["seq"] == 2 and [e["log_line"] for e in snap["events"]] == [1, 2]
    assert first["seq"] == 3 and first["events"][0]["card"] == "red-5" and first["state"]["top_card"] == "red-5"
    assert [e["log_line"] for e in second["events"]] == [4, 5] and second["state"]["top_card"] == "red-7"


def test_database_url_from_the_environment(db_url: str, data_dir: Any, monkeypatch: pytest.MonkeyPatch, h: Any) -> None:
    from web import create_app

    monkeypatch.setenv("DATABASE_URL", db_url)
    app = create_app({"DATA_DIR": str(data_dir), "SECRET_KEY": "k"})
    try:
        assert app.config["DATABASE_URL"] == db_url
        assert app.extensions["unotable"].store.is_sqlite == db_url.startswith("sqlite")
        token = h.add_table(app)
        c = app.test_client()
        assert c.post("/api/tables/t1/events", json=START[0], headers=h.bearer(token)).status_code == 201
    finally:
        app.extensions["unotable"].store.dispose()
    monkeypatch.delenv("DATABASE_URL")
    default = create_app({"DATA_DIR": str(data_dir / "other"), "SECRET_KEY": "k"})
    assert default.config["DATABASE_URL"] == f"sqlite:///{(data_dir / 'other' / 'unotable.db').resolve()}"
    assert (data_dir / "other" / "unotable.db").exists()
    default.extensions["unotable"].store.dispose()


def test_an_event_the_engine_refuses_is_a_400_not_a_500(app: Any, h: Any) -> None:
    h.add_table(app, "fresh")
    token = h.add_table(app, "t2")
    c = app.test_client()
    r = c.post("/api/tables/t2/events", json={"t": 0, "type": "hand_start", "dealer": 0}, headers=h.bearer(token))
    assert r.status_code == 400 and "match_start" in r.get_json()["error"]
    assert _events(c, "t2") == []


def test_bad_query_values_are_400s_and_the_bearer_scheme_is_case_insensitive(app: Any, h: Any) -> None:
    token = h.add_table(app)
    c = app.test_client()
    assert c.post("/api/tables/t1/events", json=START, headers={"Authorization": f"bearer {token}"}).status_code == 200
    r = c.get("/api/tables/t1/flags?status=bogus")
    assert r.status_code == 400 and "open, upheld or dismissed" in r.get_json()["error"]
    r = c.get("/api/tables/t1/stream?view=bogus")
    assert r.status_code == 400 and "'public'" in r.get_json()["error"]


def test_a_table_with_its_own_ruleset_file_takes_the_rigs_match_start(app: Any, h: Any, tmp_path: Any) -> None:
    club = tmp_path / "club-night.toml"
    club.write_text('base = "falsonal"\nname = "club-night"\nturn_timer_s = 30\n', encoding="utf-8")
    token = h.add_table(app, "club", ruleset=str(club))
    c = app.test_client()
    start = [{**START[0], "ruleset": "club-night.toml"}, *START[1:]]
    r = c.post("/api/tables/club/events", json=start, headers=h.bearer(token))
    assert r.status_code == 200, r.get_json()
    assert c.get("/api/tables/club/state").get_json()["state"]["ruleset"] == "club-night"
