"""A rig agent's resend: events carry the rig's id and number, so a batch resent after a lost acknowledgement (or
after the server restarts) is never stored twice."""

from typing import Any

import pytest


def _rig(events: list[dict], start: int = 1) -> list[dict]:
    return [dict(e, rig="rig-7", rig_seq=start + i) for i, e in enumerate(events)]


START = [
    {"t": 0, "type": "match_start", "ruleset": "mattel", "players": ["A", "B", "C"]},
    {"t": 1, "type": "hand_start", "dealer": 2},
    {"t": 2, "type": "starter", "card": "red-5"},
]
PLAY = {"t": 3, "type": "play", "seat": 0, "cards": ["red-7"]}


def _post(client: Any, table: str, token: str, events: list[dict]) -> Any:
    return client.post(f"/api/tables/{table}/events", json=events, headers={"Authorization": f"Bearer {token}"})


def test_a_resent_batch_is_stored_once(app_client: Any) -> None:
    client, table, token, _app = app_client
    assert _post(client, table, token, _rig(START)).get_json()["lines"] == [1, 2, 3]
    again = _post(client, table, token, _rig(START + [PLAY]))
    assert again.status_code == 200
    assert again.get_json() == {"table": table, "accepted": 1, "duplicates": 3, "lines": [4]}
    assert client.get(f"/api/tables/{table}/state").get_json()["lines"] == 4


def test_the_numbers_survive_a_restart(app_client: Any, tmp_path: Any) -> None:
    client, table, token, app = app_client
    _post(client, table, token, _rig(START))
    from web import create_app

    fresh = create_app({"DATA_DIR": str(tmp_path), "TESTING": True})
    resp = _post(fresh.test_client(), table, token, _rig(START + [PLAY]))
    assert resp.get_json()["lines"] == [4]


def test_events_without_a_rig_number_are_all_stored(app_client: Any) -> None:
    client, table, token, _app = app_client
    _post(client, table, token, START)
    assert _post(client, table, token, [PLAY, dict(PLAY, t=4)]).get_json()["lines"] == [4, 5]


@pytest.fixture
def app_client(tmp_path: Any) -> Any:
    from web import create_app

    app = create_app({"DATA_DIR": str(tmp_path), "TESTING": True, "WTF_CSRF_ENABLED": False})
    svc = app.extensions["unotable"]
    _info, token = svc.store.add_table("t1")
    yield app.test_client(), "t1", token, app
    svc.close()
