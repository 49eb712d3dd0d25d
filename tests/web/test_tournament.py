"""The tournament view on tables fed with whole simulated ChempiUNat matches: stages in the store (SQLite and
PostgreSQL), `/api/tournament`, the page, the CLI, the broadcast delay, and the page in headless Chromium."""

from __future__ import annotations

import html
import os
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import MetaData, Table, create_engine, text

from tracker.engine import replay
from tracker.log import event_to_dict, parse_event
from tracker.simulate import SimConfig, simulate_match

ROOT = Path(__file__).resolve().parents[2]


@cache
def match(seed: int, rate: float = 0.0) -> tuple[dict[str, Any], ...]:
    """A whole ChempiUNat match of six (it ends: somebody reaches 500)."""
    sim = simulate_match(SimConfig(ruleset="chempiunat", players=6, seed=seed, rate=rate))
    return tuple(event_to_dict(e) for e in sim.events)


def truth(events: Any) -> Any:
    return replay([parse_event(e, i) for i, e in enumerate(events, 1)])


def feed(app: Any, table: str, events: Any) -> None:
    app.extensions["unotable"].live.post(table, [dict(e) for e in events])


def tournament(client: Any, query: str = "") -> dict[str, Any]:
    r = client.get(f"/api/tournament{query}")
    assert r.status_code == 200, r.get_json()
    return r.get_json()  # type: ignore[no-any-return]


# -- the store -----------------------------------------------------------------------------------------------
def test_stage_is_stored_changed_and_listed(app: Any, h: Any) -> None:
    store = app.extensions["unotable"].store
    h.add_table(app, "g1")
    h.add_table(app, "s1", stage="semifinal")
    assert store.table("g1").stage == "group" and store.table("s1").stage == "semifinal"
    store.set_stage(store.table("g1").id, "consolation")
    assert {t["name"]: t["stage"] for t in app.test_client().get("/api/tables").get_json()["tables"]} == {
        "g1": "consolation", "s1": "semifinal"}
    from web.store import StoreError

    with pytest.raises(StoreError, match="bad stage 'quarter'"):
        store.set_stage(store.table("g1").id, "quarter")
    with pytest.raises(StoreError, match="bad stage"):
        store.add_table("x1", stage="Final")
    assert store.table("x1") is None


def test_a_database_from_before_stages_gains_the_column(db_url: str, data_dir: Path, tmp_path: Path) -> None:
    """`create_all` adds the column to an old `tables` table; the old rows read as group tables."""
    from web.store import tables_t

    engine = create_engine(db_url)
    before = MetaData()
    Table("tables", before, *(c._copy() for c in tables_t.columns if c.name != "stage"))  # the table as it was
    before.create_all(engine)
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO tables (name, token_hash, ruleset, broadcast_delay, created_at) "
                          "VALUES ('old', 'x', NULL, 0, 0)"))
    engine.dispose()
    from web.store import Store

    store = Store(db_url, tmp_path / "evidence")
    store.create_all()
    store.create_all()  # twice: idempotent
    assert store.table("old").stage == "group"
    store.set_stage(store.table("old").id, "final")
    assert store.table("old").stage == "final"
    info, _token = store.add_table("new")
    assert info.stage == "group"
    store.dispose()


# -- the API on simulated matches ----------------------------------------------------------------------------
@pytest.fixture
def event(sqlite_app: Any, h: Any) -> Any:
    """Four group tables: g1-g3 finished (g3 with planted mistakes, so open flags), g4 half-way; an empty
    semifinal table."""
    for name in ("g1", "g2", "g3", "g4"):
        h.add_table(sqlite_app, name)
    h.add_table(sqlite_app, "s1", stage="semifinal")
    feed(sqlite_app, "g1", match(1))
    feed(sqlite_app, "g2", match(2))
    feed(sqlite_app, "g3", match(3, rate=0.05))
    feed(sqlite_app, "g4", match(4)[:300])
    return sqlite_app


def test_tables_are_grouped_by_stage_with_status_hand_leader_and_flags(event: Any) -> None:
    c = event.test_client()
    d = tournament(c)
    assert [(s["stage"], [t["name"] for t in s["tables"]]) for s in d["stages"]] == [
        ("group", ["g1", "g2", "g3", "g4"]), ("semifinal", ["s1"])]
    by_name = {t["name"]: t for t in d["tables"]}
    assert {n: t["status"] for n, t in by_name.items()} == {
        "g1": "finished", "g2": "finished", "g3": "finished", "g4": "playing", "s1": "not started"}
    for name, events in (("g1", match(1)), ("g2", match(2)), ("g3", match(3, 0.05)), ("g4", match(4)[:300])):
        r = truth(events)
        t = by_name[name]
        assert t["ruleset"] == "chempiunat" and t["hand"] == r.state.hand
        totals = r.scores["totals"]
        lead = r.scores["winner"] if r.scores["winner"] is not None else max(range(6), key=lambda s: (totals[s], -s))
        assert t["leader"] == {"player": r.state.players[lead], "seat": lead, "total": totals[lead]}
        assert [row["total"] for row in t["standings"]] == sorted(totals, reverse=True)
        assert t["open_flags"] == sum(1 for f in r.flags if f.status == "open")
    assert by_name["g3"]["open_flags"] > 0  # the planted mistakes
    assert d["open_flags"]["count"] == sum(t["open_flags"] for t in d["tables"])
    newest = d["open_flags"]["newest"]
    assert 0 < len(newest) <= 12 and all(f["status"] == "open" for f in newest)
    assert [f["updated_at"] for f in newest] == sorted((f["updated_at"] for f in newest), reverse=True)


def test_progression_waits_for_the_last_group_table(event: Any) -> None:
    c = event.test_client()
    semi = tournament(c)["progression"]["semifinal"]
    assert semi["playing"] == ["g4"] and semi["finished_tables"] == ["g1", "g2", "g3"] and not semi["complete"]
    assert semi["seatings"] == [] and any("g4" in n for n in semi["notes"])
    assert len(semi["qualified"]) == 6 and {q["table"] for q in semi["qualified"]} == {"g1", "g2", "g3"}
    for name, events in (("g1", match(1)), ("g2", match(2)), ("g3", match(3, 0.05))):
        totals, winner = truth(events).scores["totals"], truth(events).scores["winner"]
        through = [q for q in semi["qualified"] if q["table"] == name]
        out = [q for q in semi["dropped"] if q["table"] == name]
        assert winner in {q["seat"] for q in through} and len(out) == 4
        assert min(totals[q["seat"]] for q in through) >= max(totals[q["seat"]] for q in out)

    feed(event, "g4", match(4)[300:])  # the last group table finishes: the seatings are drawn
    d = tournament(c)
    semi = d["progression"]["semifinal"]
    assert semi["complete"] and semi["playing"] == [] and len(semi["qualified"]) == 8
    assert [len(s["players"]) for s in semi["seatings"]] == [4, 4]
    assert [s["name"] for s in semi["seatings"]] == ["semifinal-1", "semifinal-2"]
    assert [len(s["players"]) for s in semi["dropped_seatings"]] == [6, 5, 5]
    seated = [(p["from_table"], p["seat"]) for s in semi["seatings"] + semi["dropped_seatings"] for p in s["players"]]
    assert sorted(seated) == sorted((g, s) for g in ("g1", "g2", "g3", "g4") for s in range(6))
    assert tournament(c)["progression"] == d["progression"]  # the same lot on every refresh
    other = tournament(c, "?seed=another")["progression"]["semifinal"]
    assert {q["player"] + q["table"] for q in other["qualified"]} == {q["player"] + q["table"] for q in semi["qualified"]}
    k3 = tournament(c, "?k=3")["progression"]["semifinal"]
    assert len(k3["qualified"]) == 12 and [len(s["players"]) for s in k3["seatings"]] == [6, 6]
    final = d["progression"]["final"]
    assert final["playing"] == ["s1"] and final["qualified"] == []


def test_a_stage_changed_by_the_cli_shows_on_a_running_server(event: Any) -> None:
    """The stage is read from the database on each request, not from the warm table (the CLI is another process)."""
    c = event.test_client()
    assert tournament(c)["progression"]["semifinal"]["playing"] == ["g4"]
    store = event.extensions["unotable"].store
    store.set_stage(store.table("g4").id, "consolation")
    d = tournament(c)
    assert [t["name"] for t in d["stages"][-1]["tables"]] == ["g4"] and d["stages"][-1]["stage"] == "consolation"
    assert d["progression"]["semifinal"]["complete"]  # g1-g3 are now all the group tables, all finished


@pytest.mark.parametrize(("query", "problem"), [("?k=0", "bad k 0: expected 1-5"), ("?k=two", "bad k 'two'"),
                                                ("?final_k=6", "bad final_k 6"), ("?seed=" + "x" * 65, "bad seed")])
def test_bad_settings_get_400_naming_them(sqlite_app: Any, query: str, problem: str) -> None:
    c = sqlite_app.test_client()
    r = c.get(f"/api/tournament{query}")
    assert r.status_code == 400 and problem in r.get_json()["error"]
    page = c.get(f"/tournament{query}", headers={"Accept": "text/html"})
    assert page.status_code == 400 and problem in html.unescape(page.text)


def test_the_page_shows_every_table_links_the_referee_queue_and_refreshes(event: Any) -> None:
    c = event.test_client()
    html = c.get("/tournament").text
    for name in ("g1", "g2", "g3", "g4", "s1"):
        assert f'data-table="{name}"' in html
    assert 'href="/referee?table=g3"' in html and 'href="/referee?table=g1"' not in html  # g1 has no open flag
    assert "Still playing: g4" in html and 'id="stage-semifinal"' in html
    assert 'data-src="/tournament/body"' in html and "tournament.js" in html
    body = c.get("/tournament/body?k=3").text
    assert "<html" not in body and "top 3 of each group table" in body
    assert 'data-src="/tournament/body?k=3"' in c.get("/tournament?k=3").text  # the refresh keeps the settings


def test_a_delayed_table_is_seen_as_it_stood_by_anonymous_readers(sqlite_app: Any, h: Any) -> None:
    h.add_table(sqlite_app, "tv", broadcast_delay=600)
    feed(sqlite_app, "tv", match(1))
    c = sqlite_app.test_client()
    anon = {t["name"]: t for t in tournament(c)["tables"]}["tv"]
    assert anon["status"] == "not started" and anon["delayed_s"] == 600 and anon["leader"] is None
    h.add_user(sqlite_app, "spec", role="spectator")
    h.login(c, "spec")
    seen = {t["name"]: t for t in tournament(c)["tables"]}["tv"]
    assert seen["status"] == "finished" and seen["delayed_s"] == 0


# -- the CLI -------------------------------------------------------------------------------------------------
def cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    return subprocess.run([sys.executable, "-m", "unotable.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env=env)


def test_table_stage_commands(tmp_path: Path) -> None:
    data = str(tmp_path)
    r = cli("table", "add", "s1", "--stage", "semifinal", "--data", data)
    assert r.returncode == 0 and "(semifinal stage)" in r.stdout, r.stderr
    assert cli("table", "add", "g1", "--data", data).returncode == 0
    bad = cli("table", "add", "x1", "--stage", "quarter", "--data", data)
    assert bad.returncode == 1 and "bad stage 'quarter'" in bad.stderr and "Traceback" not in bad.stderr
    moved = cli("table", "stage", "g1", "final", "--data", data)
    assert moved.returncode == 0 and "stage group -> final" in moved.stdout
    unknown = cli("table", "stage", "nope", "final", "--data", data)
    assert unknown.returncode == 1 and "no table named 'nope'" in unknown.stderr and "g1, s1" in unknown.stderr
    wrong = cli("table", "stage", "g1", "round-2", "--data", data)
    assert wrong.returncode == 1 and "expected one of group, semifinal, final, consolation" in wrong.stderr
    listed = cli("table", "list", "--data", data).stdout
    assert "g1\t" in listed and "stage=final" in listed and "stage=semifinal" in listed


# -- headless Chromium ---------------------------------------------------------------------------------------


@pytest.mark.browser
def test_chromium_renders_the_page_and_it_follows_the_tables(browser: Any, live_server: Any, sqlite_app: Any, h: Any) -> None:
    sqlite_app.config["TOURNAMENT_REFRESH_S"] = 0.5
    tokens = {name: h.add_table(sqlite_app, name) for name in ("g1", "g2")}
    h.post_events(live_server, "g1", tokens["g1"], list(match(1)))
    h.post_events(live_server, "g2", tokens["g2"], list(match(2)[:200]))
    errors: list[str] = []
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{live_server.url}/tournament")
    page.wait_for_selector('article[data-table="g1"] .badge.finished')
    assert page.is_visible('article[data-table="g2"] .badge.playing')
    assert "Still playing: g2" in page.inner_text("#round-semifinal")
    assert page.locator('article[data-table="g1"] table.standings tr').count() == 6
    h.post_events(live_server, "g2", tokens["g2"], list(match(2)[200:]))  # g2 finishes: the page redraws by itself
    page.wait_for_selector('article[data-table="g2"] .badge.finished', timeout=5000)
    page.wait_for_selector('#round-semifinal .seating[data-name="semifinal-1"]', timeout=5000)
    assert page.locator("#round-semifinal .seating").count() == 3  # one semifinal table of 4; consolation 4 + 4
    assert "failed" not in page.inner_text("#updated") and not errors
    page.close()
