"""The store on SQLite and on a real PostgreSQL server: same tests, same answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError, IntegrityError

from web.store import Store, StoreError, hash_token


@pytest.fixture
def store(db_url: str, tmp_path: Path) -> Store:
    (tmp_path / "data").mkdir(exist_ok=True)
    s = Store(db_url, tmp_path / "data" / "evidence")
    s.create_all()
    yield s
    s.dispose()


def test_tables_keep_only_a_hash_of_the_token(store: Store) -> None:
    info, token = store.add_table("hall-1", broadcast_delay=12)
    assert info.token_hash == hash_token(token) and token not in info.token_hash
    assert store.token_matches(info, token)
    assert not store.token_matches(info, token + "x")
    assert store.table("hall-1").broadcast_delay == 12
    with pytest.raises(StoreError, match="exists already"):
        store.add_table("hall-1")
    with pytest.raises(StoreError, match="bad table name"):
        store.add_table("no spaces/slashes")
    store.set_broadcast_delay(info.id, 3.5)
    assert store.table("hall-1").broadcast_delay == 3.5
    assert [t.name for t in store.tables()] == ["hall-1"]


def test_events_round_trip_in_order(store: Store) -> None:
    info, _ = store.add_table("t")
    bodies = [{"t": 0.0, "type": "match_start", "ruleset": "mattel", "players": ["A", "B"]},
              {"t": 1.5, "type": "hand_start", "dealer": 0, "note": "extra fields survive"}]
    store.append_events(info.id, 1, bodies)
    store.append_events(info.id, 3, [{"t": 2.0, "type": "starter", "card": "red-5", "source": "vision"}])
    got = store.events(info.id)
    assert [e.seq for e in got] == [1, 2, 3]
    assert got[1].body["note"] == "extra fields survive"
    assert got[2].body["source"] == "vision"
    assert store.event_count(info.id) == 3


def test_a_line_can_not_be_written_twice(store: Store) -> None:
    info, _ = store.add_table("t")
    store.append_events(info.id, 1, [{"t": 0.0, "type": "hand_start"}])
    with pytest.raises(IntegrityError):
        store.append_events(info.id, 1, [{"t": 1.0, "type": "hand_start"}])
    assert [e.body["t"] for e in store.events(info.id)] == [0.0]


def test_the_event_log_is_append_only_in_the_database(store: Store) -> None:
    info, _ = store.add_table("t")
    store.append_events(info.id, 1, [{"t": 0.0, "type": "hand_start"}])
    for stmt in ("UPDATE events SET t = 99", "DELETE FROM events"):
        with pytest.raises(DBAPIError, match="append-only"), store.engine.begin() as conn:
            conn.execute(text(stmt))
    assert store.events(info.id)[0].body["t"] == 0.0


def test_a_failed_transaction_stores_nothing(store: Store) -> None:
    """Events, flags and the audit row go in together or not at all."""
    info, _ = store.add_table("t")
    store.append_events(info.id, 1, [{"t": 0.0, "type": "hand_start"}])
    store.append_events(info.id, 3, [{"t": 2.0, "type": "pass", "seat": 1}])
    with pytest.raises(IntegrityError):  # line 2 is free, line 3 is taken: neither is written
        store.append_events(info.id, 2, [{"t": 1.0, "type": "pass", "seat": 0}, {"t": 1.0, "type": "pass", "seat": 0}],
                            flags=[{"id": "2-x-0", "t": 1, "code": "x", "seat": 0, "message": "m"}],
                            ruling={"kind": "ruling", "flag_id": "2-x-0", "decision": "upheld", "username": "ref",
                                    "event_seq": 2})
    assert [e.seq for e in store.events(info.id)] == [1, 3]
    assert store.flags(info.id) == []
    assert store.rulings(info.id) == []


def test_flags_are_refreshed_and_withdrawn_not_lost(store: Store) -> None:
    info, _ = store.add_table("t")
    f1 = {"id": "5-missed_uno-1", "t": 9.5, "code": "missed_uno", "seat": 1, "rule": "MA-UNO", "message": "m1",
          "line": 5, "status": "open", "penalty": {"seat": 1, "cards": 2}}
    f2 = {"id": "7-illegal_card-2", "t": 12.0, "code": "illegal_card", "seat": 2, "rule": "MA-MATCH",
          "message": "m2", "line": 7, "status": "open"}
    store.save_flags(info.id, [f1, f2])
    assert [f["id"] for f in store.flags(info.id)] == ["7-illegal_card-2", "5-missed_uno-1"]  # newest first
    assert store.flags(info.id, status="open")[1]["penalty"] == {"seat": 1, "cards": 2}
    store.save_flags(info.id, [dict(f1, status="upheld")])  # f2 corrected away
    by_id = {f["id"]: f for f in store.flags(info.id)}
    assert by_id["5-missed_uno-1"]["status"] == "upheld"
    assert by_id["7-illegal_card-2"]["status"] == "withdrawn"
    assert store.flags(info.id, status="open") == []


def test_rulings_are_an_audit_trail(store: Store) -> None:
    info, _ = store.add_table("t")
    store.append_events(info.id, 1, [{"t": 3.0, "type": "ruling", "flag": "1-x-0", "decision": "upheld"}],
                        ruling={"kind": "ruling", "flag_id": "1-x-0", "decision": "upheld", "line": 1, "note": "seen",
                                "detail": json.dumps({"flag": {}}), "username": "ref", "event_seq": 1})
    (row,) = store.rulings(info.id)
    assert (row["table"], row["username"], row["decision"], row["note"], row["event_seq"]) == ("t", "ref", "upheld", "seen", 1)
    assert row["at"] > 0


def test_passwords_are_hashed_and_checked(store: Store) -> None:
    store.add_user("ref", "s3cret-enough", role="referee")
    row = store.user("ref")
    assert row["password_hash"] != "s3cret-enough" and row["password_hash"].startswith(("scrypt:", "pbkdf2:"))
    assert store.check_password("ref", "s3cret-enough")["role"] == "referee"
    assert store.check_password("ref", "wrong-password") is None
    assert store.check_password("nobody", "s3cret-enough") is None
    with pytest.raises(StoreError, match="too short"):
        store.add_user("x", "short")
    with pytest.raises(StoreError, match="bad role"):
        store.add_user("x", "long-enough-pw", role="king")
    with pytest.raises(StoreError, match="exists already"):
        store.add_user("ref", "another-password")


def test_evidence_is_found_by_time(store: Store) -> None:
    info, _ = store.add_table("t")
    for t in (1.0, 5.0, 9.0):
        store.add_evidence(info.id, "frame", t, f"t/frame/{t}.jpg", "image/jpeg", b"\xff\xd8\xff" + bytes(10), None)
    store.add_evidence(info.id, "audio", 4.0, "t/audio/4.wav", "audio/wav", b"RIFF", 3.0)
    got = store.evidence(info.id, 4.0, 9.0)
    assert [(e["kind"], e["t"]) for e in got] == [("audio", 4.0), ("frame", 5.0), ("frame", 9.0)]
    assert [e["t"] for e in store.evidence(info.id, 0, 100, kinds=["frame"])] == [1.0, 5.0, 9.0]
    assert store.evidence_item(got[0]["id"])["duration"] == 3.0


def test_sqlite_runs_in_wal_mode_with_full_sync(tmp_path: Path) -> None:
    s = Store(f"sqlite:///{tmp_path / 'u.db'}", tmp_path / "evidence")
    s.create_all()
    with s.engine.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(text("PRAGMA synchronous")).scalar() == 2  # FULL: committed means on disk
    info, _ = s.add_table("t")
    s.append_events(info.id, 1, [{"t": 0.0, "type": "hand_start"}])
    assert (tmp_path / "u.db-wal").exists()
    s.dispose()


def test_a_token_never_begins_with_a_dash(monkeypatch: pytest.MonkeyPatch) -> None:
    """`unotable agent --token -abc...` reads the token as an option (a flaky CI run found one in 64 tokens did)."""
    import web.store as store_mod

    drawn = iter(["-starts-like-an-option", "Ab3-fine_token"])
    monkeypatch.setattr(store_mod.secrets, "token_urlsafe", lambda n: next(drawn))
    assert store_mod.new_token() == "Ab3-fine_token"
    monkeypatch.undo()
    assert not any(store_mod.new_token().startswith("-") for _ in range(2000))
