"""`unotable table add`, `unotable user add` and `unotable serve` as a user runs them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    return subprocess.run([sys.executable, "-m", "unotable.cli", *args], cwd=ROOT, input=stdin, capture_output=True,
                          text=True, timeout=120, env=env)


def test_table_add_prints_the_token_last(tmp_path: Path) -> None:
    r = cli("table", "add", "hall-2", "--data", str(tmp_path), "--delay", "20")
    assert r.returncode == 0, r.stderr
    token = r.stdout.strip().splitlines()[-1].split()[-1]
    assert len(token) >= 40
    from web.store import Store, sqlite_url

    store = Store(sqlite_url(tmp_path), tmp_path / "evidence")
    info = store.table("hall-2")
    assert info is not None and store.token_matches(info, token) and info.broadcast_delay == 20
    store.dispose()
    again = cli("table", "add", "hall-2", "--data", str(tmp_path))
    assert again.returncode == 1 and "exists already" in again.stderr and "Traceback" not in again.stderr
    bad = cli("table", "add", "bad name", "--data", str(tmp_path))
    assert bad.returncode == 1 and "bad table name" in bad.stderr
    listed = cli("table", "list", "--data", str(tmp_path))
    assert listed.stdout.startswith("hall-2\t")


def test_user_add(tmp_path: Path) -> None:
    r = cli("user", "add", "ref", "--data", str(tmp_path), "--password-stdin", stdin="long enough pw\n")
    assert r.returncode == 0 and "referee ref added" in r.stdout
    short = cli("user", "add", "x", "--data", str(tmp_path), "--password-stdin", stdin="short\n")
    assert short.returncode == 1 and "too short" in short.stderr
    from web.store import Store, sqlite_url

    store = Store(sqlite_url(tmp_path), tmp_path / "evidence")
    assert store.check_password("ref", "long enough pw")["role"] == "referee"
    store.dispose()


def test_serve_answers_on_its_port(tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    token = cli("table", "add", "t1", "--data", str(tmp_path)).stdout.split()[-1]
    proc = subprocess.Popen([sys.executable, "-m", "unotable.cli", "serve", "--port", str(port), "--data", str(tmp_path)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                urllib.request.urlopen(base + "/api/tables", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        req = urllib.request.Request(base + "/api/tables/t1/events", headers={"Authorization": f"Bearer {token}"},
                                     data=json.dumps({"t": 0, "type": "match_start", "ruleset": "olympic",
                                                      "players": ["A", "B"]}).encode())
        with urllib.request.urlopen(req, timeout=5) as resp:
            assert resp.status == 201
        with urllib.request.urlopen(base + "/api/tables/t1/state", timeout=5) as resp:
            assert json.loads(resp.read())["state"]["ruleset"] == "olympic"
        busy = cli("serve", "--port", str(port), "--data", str(tmp_path))
        assert busy.returncode == 1 and "can't listen" in busy.stderr
    finally:
        proc.terminate()
        proc.wait(timeout=20)
