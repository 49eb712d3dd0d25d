"""The rig agent's resend protocol: a batch resent after a lost acknowledgement is never stored twice."""

from typing import Any

import pytest


def _post(client: Any, table: str, token: str, events: list[dict], first: int | None) -> Any:
    headers = {"Authorization": f"Bearer {token}"}
    if first is not None:
        headers["X-Unotable-First-Line"] = str(first)
    return client.post(f"/api/tables/{table}/events", json=events, headers=headers)


START = [
    {"t": 0, "type": "match_start", "ruleset": "mattel", "players": ["A", "B", "C"]},
    {"t": 1, "type": "hand_start", "dealer": 2},
    {"t": 2, "type": "starter", "card": "red-5"},
]


def test_a_resent_batch_is_stored_once(app_client: Any) -> None:
    client, table, token = app_client
    assert _post(client, table, token, START, 1).status_code == 200
    again = _post(client, table, token, START + [{"t": 3, "type": "play", "seat": 0, "cards": ["red-7"]}], 1)
    assert again.status_code == 200 and again.get_json()["lines"] == [1, 2, 3, 4]
    state = client.get(f"/api/tables/{table}/state").get_json()
    assert state["lines"] == 4


def test_a_gap_or_a_different_event_on_a_stored_line_is_refused(app_client: Any) -> None:
    client, table, token = app_client
    assert _post(client, table, token, START, 1).status_code == 200
    gap = _post(client, table, token, [{"t": 5, "type": "pass", "seat": 0}], 6)
    assert gap.status_code == 409 and "send from line 4" in gap.get_json()["error"]
    other = _post(client, table, token, [{"t": 9, "type": "pass", "seat": 0}], 3)
    assert other.status_code == 409 and "already holds a different event" in other.get_json()["error"]
    bad = client.post(f"/api/tables/{table}/events", json=START,
                      headers={"Authorization": f"Bearer {token}", "X-Unotable-First-Line": "one"})
    assert bad.status_code == 400


@pytest.fixture
def app_client(tmp_path: Any) -> Any:
    from web import create_app

    app = create_app({"DATA_DIR": str(tmp_path), "TESTING": True, "WTF_CSRF_ENABLED": False})
    svc = app.extensions["unotable"]
    _info, token = svc.store.add_table("t1")
    yield app.test_client(), "t1", token
    svc.close()
