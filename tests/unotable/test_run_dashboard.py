"""The dashboard sink of `unotable run`: events reach the store through the rig API, hands follow one another."""

import json
import urllib.request
from pathlib import Path

from unotable.run import RunConfig, TableRunner
from unotable.run_sinks import DashboardSink


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
