"""A table rig's agent against a real server process: the server killed with SIGKILL mid-game, the agent killed
mid-send; after restarts every event is stored once, in order, and the state replays to where the game was."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from tracker.engine import replay
from tracker.log import event_to_dict, parse_event
from tracker.simulate import SimConfig, simulate_match

CLI = [sys.executable, "-m", "unotable.cli"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(data: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    """Start `unotable serve` on `port` and wait until *this* process answers: it must list our table (a server
    left over from another test on a reused port would answer too, and the agent's posts would go astray)."""
    with log.open("a", encoding="utf-8") as out:
        proc = subprocess.Popen([*CLI, "serve", "--port", str(port), "--data", str(data), "--threads", "16"],
                                stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"the server exited with {proc.returncode} (port {port} taken?)")
        try:
            body = urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tables", timeout=1).read()
            if b"hall-1" in body:
                return proc
        except OSError:
            pass
        time.sleep(0.2)
    proc.kill()
    raise AssertionError("the server did not start")


def _stored(port: int, table: str, token: str) -> list[dict[str, Any]]:
    """The stored log as the rig reads it (its token: the full log; anyone else gets revealed hands as counts)."""
    req = urllib.request.Request(f"http://127.0.0.1:{port}/api/tables/{table}/events",
                                 headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(req, timeout=5) as resp:
        return list(json.loads(resp.read())["events"])


def _agent(port: int, token: str, spool: Path, stderr: Path) -> subprocess.Popen[str]:
    """The agent's stderr goes to a file (appended across restarts) so a failing assertion can show what it said;
    a pipe nobody reads could also fill and stall it."""
    with stderr.open("a", encoding="utf-8") as err:
        return subprocess.Popen([*CLI, "agent", "--server", f"http://127.0.0.1:{port}", "--token", token, "--table",
                                 "hall-1", "--spool", str(spool), "--drain-timeout", "60"],
                                stdin=subprocess.PIPE, stderr=err, text=True)


def _feed(agent: subprocess.Popen[str], events: list[dict[str, Any]]) -> None:
    assert agent.stdin is not None
    for ev in events:
        agent.stdin.write(json.dumps(ev) + "\n")
        agent.stdin.flush()


def _wait_for(port: int, n: int, token: str, timeout: float = 60) -> list[dict[str, Any]]:
    deadline = time.monotonic() + timeout
    stored: list[dict[str, Any]] = []
    while time.monotonic() < deadline:
        try:
            stored = _stored(port, "hall-1", token)
        except OSError:
            stored = []
        if len(stored) >= n:
            return stored
        time.sleep(0.2)
    return stored


def test_server_and_agent_killed_mid_game_lose_and_double_nothing(tmp_path: Path) -> None:
    data, spool = tmp_path / "server", tmp_path / "spool"
    sim = simulate_match(SimConfig(ruleset="falsonal", players=4, seed=8, rate=0.05, max_hands=2))
    events = [event_to_dict(e) for e in sim.events]
    assert len(events) > 40
    out = subprocess.run([*CLI, "table", "add", "hall-1", "--data", str(data)], capture_output=True, text=True,
                         check=True)
    token = out.stdout.strip().splitlines()[-1].split()[-1]
    served_log = tmp_path / "server.log"
    for attempt in range(3):  # a free port can be taken by another process before the server binds it
        port = _free_port()
        try:
            server = _serve(data, port, served_log)
            break
        except AssertionError:
            if attempt == 2:
                raise
    said = tmp_path / "agent.stderr"
    agent = _agent(port, token, spool, said)
    third = len(events) // 3
    try:
        _feed(agent, events[:third])
        first = _wait_for(port, third, token)
        assert len(first) == third, f"{len(first)} of {third} stored; the agent said: {said.read_text()!r}; the server: {served_log.read_text()[-3000:]!r}"
        os.kill(server.pid, signal.SIGKILL)  # the server dies mid-hand
        server.wait()
        _feed(agent, events[third:2 * third])  # the rig keeps queueing while it is gone
        time.sleep(1.0)
        os.kill(agent.pid, signal.SIGKILL)  # and the agent dies too, with a backlog on disk
        agent.wait()
        server = _serve(data, port, served_log)
        agent = _agent(port, token, spool, said)  # a restarted agent resends from its spool
        _feed(agent, events[2 * third:])
        assert agent.stdin is not None
        agent.stdin.close()
        assert agent.wait(timeout=120) == 0, said.read_text()
        stored = _wait_for(port, len(events), token)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tables/hall-1/state", timeout=5) as resp:
            served = json.loads(resp.read())["state"]
    finally:
        server.kill()
        agent.kill()
    assert [s["rig_seq"] for s in stored] == list(range(1, len(events) + 1))
    plain = [{k: v for k, v in s.items() if k not in ("rig", "rig_seq", "log_line")} for s in stored]
    assert plain == events
    truth = replay(sim.events).state.to_dict()
    restored = replay([parse_event(s, i) for i, s in enumerate(plain, start=1)])
    assert restored.state.to_dict() == truth
    for key in ("hand", "phase", "turn", "top_card", "counts", "winner"):
        assert served[key] == truth[key]
