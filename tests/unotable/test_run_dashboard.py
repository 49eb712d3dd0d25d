"""The dashboard sink of `unotable run`: events reach the store through the rig API, hands follow one another."""

import json
import urllib.request
from pathlib import Path

import pytest

from unotable.run import RunConfig, TableRunner
from unotable.run_sinks import DashboardSink, RemoteSink


def test_events_reach_the_dashboard_and_a_new_starter_opens_a_new_hand(tmp_path: Path) -> None:
    cfg = RunConfig(video=None, audio=None, ruleset="mattel", players=["A", "B", "C"], dealer=2)
    runner = TableRunner(cfg)
    sink = DashboardSink(cfg, "demo", tmp_path, "127.0.0.1", 0, keep=False)
    try:
        sink.begin(runner)
        sink.events(runner, [
            {"t": 1.0, "type": "starter", "card": "red-5", "source": "vision"},
            {"t": 2.0, "type": "play", "seat": 0, "cards": ["red-7"], "source": "vision"},
            {"t": 2.4, "type": "uno", "seat": None, "source": "speech", "confidence": 0.9},
        ])
        assert sink.sender.drain(__import__("time").monotonic() + 20)
        with urllib.request.urlopen(f"{sink.url}/api/tables/{sink.table}/state", timeout=5) as resp:
            doc = json.loads(resp.read())
        assert doc["lines"] == 5
        assert doc["state"]["top_card"] == "red-7" and doc["state"]["turn"] == 1
    finally:
        sink.stop_sending.set()
        sink.server.stop()


def test_a_second_run_gets_its_own_table(tmp_path: Path) -> None:
    cfg = RunConfig(video=None, audio=None)
    names = []
    for _ in range(2):
        sink = DashboardSink(cfg, "demo", tmp_path, "127.0.0.1", 0, keep=False)
        names.append(sink.table)
        sink.server.stop()
    assert names == ["demo", "demo-2"]


def test_a_rig_posts_its_merged_events_to_the_central_server(tmp_path: Path) -> None:
    """README's tournament set-up: `unotable run --server URL --token TOKEN --table-name hall-1` queues the table's
    merged events in the agent's spool and posts them to the server's table; a seat the players list lacks is warned
    about and never sent."""
    import time

    from web import create_app
    from web.server import Server

    app = create_app({"DATA_DIR": str(tmp_path / "server")})
    _info, token = app.extensions["unotable"].store.add_table("hall-1")
    server = Server(app, "127.0.0.1", 0).start()
    try:
        cfg = RunConfig(video=None, audio=None, ruleset="mattel", players=["A", "B", "C"], dealer=2)
        runner = TableRunner(cfg)
        sink = RemoteSink(cfg, f"http://127.0.0.1:{server.port}", "hall-1", token, tmp_path / "spool")
        sink.begin(runner)
        sink.events(runner, [
            {"t": 1.0, "type": "starter", "card": "red-5", "source": "vision"},
            {"t": 2.0, "type": "play", "seat": 0, "cards": ["red-7"], "source": "vision"},
            {"t": 2.4, "type": "uno", "seat": None, "source": "speech", "confidence": 0.9},
            {"t": 3.0, "type": "play", "seat": 5, "cards": ["red-9"], "source": "vision"},
        ])
        runner.stats.seconds = time.monotonic()
        sink.end(runner)
        assert sink.exit_code == 0 and sink.spool.backlog == 0
        assert any("seat 5" in w for w in runner.stats.warnings)
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/api/tables/hall-1/state", timeout=5) as resp:
            doc = json.loads(resp.read())
        assert doc["lines"] == 5
        assert doc["state"]["top_card"] == "red-7" and doc["state"]["turn"] == 1
    finally:
        server.stop()


def test_a_rig_with_a_wrong_token_says_so_and_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from web import create_app
    from web.server import Server

    app = create_app({"DATA_DIR": str(tmp_path / "server")})
    app.extensions["unotable"].store.add_table("hall-1")
    server = Server(app, "127.0.0.1", 0).start()
    try:
        cfg = RunConfig(video=None, audio=None)
        runner = TableRunner(cfg)
        sink = RemoteSink(cfg, f"http://127.0.0.1:{server.port}", "hall-1", "wrong", tmp_path / "spool")
        sink.begin(runner)
        sink.end(runner)
        assert sink.exit_code == 2
        assert "unotable run: the server refused this rig (40" in capsys.readouterr().err
    finally:
        server.stop()
