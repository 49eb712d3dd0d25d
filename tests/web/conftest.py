"""Fixtures for the dashboard: an app on SQLite or on a PostgreSQL server this test session starts itself,
a live cheroot server for SSE and browser tests, accounts, tables and a log with flags to rule on."""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tracker.engine import replay
from tracker.log import event_to_dict
from tracker.simulate import SimConfig, simulate_match

PASSWORD = "correct horse battery"


# -- PostgreSQL ------------------------------------------------------------------------------------------------
def _pg_binary(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if os.access(os.path.join(folder, name), os.X_OK):
            return os.path.join(folder, name)
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """A throw-away PostgreSQL cluster in a temp folder on a free port; yields the server's base URL.

    PostgreSQL refuses to run as root, so as root the cluster belongs to the `postgres` system user (or `nobody`)."""
    initdb, pg_ctl = _pg_binary("initdb"), _pg_binary("pg_ctl")
    if not initdb or not pg_ctl:
        pytest.skip("PostgreSQL binaries (initdb, pg_ctl) are not installed: apt-get install postgresql")
    base = tempfile.mkdtemp(prefix="unotable-pg-")
    os.chmod(base, 0o755)
    run_as: list[str] = []
    if os.geteuid() == 0:
        user = "postgres"
        try:
            pwd.getpwnam(user)
        except KeyError:
            user = "nobody"
        shutil.chown(base, user)
        run_as = ["runuser", "-u", user, "--"]
    data, log = os.path.join(base, "data"), os.path.join(base, "server.log")
    port = _free_port()
    subprocess.run([*run_as, initdb, "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"],
                   check=True, capture_output=True)
    started = subprocess.run(
        [*run_as, pg_ctl, "-D", data, "-l", log, "-w", "-t", "60",
         "-o", f"-p {port} -k {base} -c listen_addresses=127.0.0.1", "start"],
        capture_output=True, text=True,
    )
    if started.returncode != 0:
        text = Path(log).read_text() if os.path.exists(log) else ""
        shutil.rmtree(base, ignore_errors=True)
        raise RuntimeError(f"PostgreSQL did not start: {started.stderr}\n{text}")
    try:
        yield f"postgresql+psycopg2://postgres@127.0.0.1:{port}"
    finally:
        subprocess.run([*run_as, pg_ctl, "-D", data, "-m", "fast", "-w", "stop"], capture_output=True)
        shutil.rmtree(base, ignore_errors=True)


@contextlib.contextmanager
def _pg_database(server: str) -> Iterator[str]:
    import psycopg2

    name = "ut_" + uuid.uuid4().hex[:12]
    admin = psycopg2.connect(server.replace("postgresql+psycopg2", "postgresql") + "/postgres")
    admin.autocommit = True
    try:
        with admin.cursor() as cur:
            cur.execute(f"CREATE DATABASE {name}")
        yield f"{server}/{name}"
        with admin.cursor() as cur:
            cur.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    finally:
        admin.close()


BACKENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgres", id="postgres", marks=pytest.mark.postgres),
]


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The store's URL, once for SQLite and once for PostgreSQL."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'data' / 'unotable.db'}"
    else:
        with _pg_database(request.getfixturevalue("pg_server")) as url:
            yield url


# -- the app ---------------------------------------------------------------------------------------------------
@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    d = tmp_path / "data"
    d.mkdir(exist_ok=True)
    return d


@pytest.fixture
def app(data_dir: Path, db_url: str) -> Iterator[Any]:
    from web import create_app

    app = create_app({"DATA_DIR": str(data_dir), "DATABASE_URL": db_url, "SECRET_KEY": "test-secret"})
    yield app
    svc = app.extensions["unotable"]
    svc.close()
    svc.store.dispose()


@pytest.fixture
def sqlite_app(data_dir: Path) -> Iterator[Any]:
    """An app on SQLite only, for tests about the web layer rather than the store."""
    from web import create_app

    app = create_app({"DATA_DIR": str(data_dir), "SECRET_KEY": "test-secret"})
    yield app
    svc = app.extensions["unotable"]
    svc.close()
    svc.store.dispose()


def add_table(app: Any, name: str = "t1", **kw: Any) -> str:
    _info, token = app.extensions["unotable"].store.add_table(name, **kw)
    return token


def add_user(app: Any, name: str = "ref", role: str = "referee") -> None:
    app.extensions["unotable"].store.add_user(name, PASSWORD, role=role)


def csrf_from(html: str) -> str:
    m = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert m, "no CSRF token in the page"
    return m.group(1)


def login(client: Any, name: str = "ref", password: str = PASSWORD) -> Any:
    page = client.get("/login")
    return client.post("/login", data={"username": name, "password": password, "csrf_token": csrf_from(page.text)})


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


# -- logs ------------------------------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def flagged_log() -> list[dict[str, Any]]:
    """A mid-hand Mattel log with at least one missed UNO (a 2-card penalty) and one other open flag, made by the
    tracker's simulator with planted mistakes, cut just after both flags are certain and while the hand goes on."""
    for seed in range(200):
        sim = simulate_match(SimConfig(ruleset="mattel", players=4, seed=seed, mistakes=("missed_uno", "illegal_card"),
                                       rate=0.25, max_hands=1))
        events = sim.events
        for cut in range(10, len(events)):
            r = replay([_copy(e) for e in events[:cut]])
            codes = {f.code for f in r.flags}
            if "missed_uno" in codes and len(r.flags) >= 2 and r.state.phase == "playing":
                return [event_to_dict(e) for e in events[:cut]]
    raise RuntimeError("the simulator planted no missed UNO in 200 seeds")


def _copy(ev: Any) -> Any:
    from tracker.log import parse_event

    return parse_event(event_to_dict(ev))


# -- a live server ---------------------------------------------------------------------------------------------
@pytest.fixture
def live_server(sqlite_app: Any) -> Iterator[Any]:
    from web.server import Server

    server = Server(sqlite_app, "127.0.0.1", 0, threads=64).start()
    yield server
    server.stop()


def post_events(server: Any, table: str, token: str, body: Any, timeout: float = 30) -> Any:
    """Post events to a running server's API as a rig does (`server`: a live server); its JSON answer."""
    import json
    import urllib.request

    req = urllib.request.Request(f"{server.url}/api/tables/{table}/events", data=json.dumps(body).encode(),
                                 headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        assert resp.status in (200, 201)
        return json.loads(resp.read())


def export_log(client: Any, path: Any, table: str = "t1") -> Any:
    """A table's stored log (`GET /api/tables/<t>/events`, read as `client`: a referee or the rig sees every card)
    written as a JSON Lines file, as a referee would save it for `unotable replay` (the API's `log_line` left out)."""
    import json

    events = client.get(f"/api/tables/{table}/events").get_json()["events"]
    with path.open("w", encoding="utf-8") as fh:
        for e in events:
            fh.write(json.dumps({k: v for k, v in e.items() if k != "log_line"}, ensure_ascii=False) + "\n")
    return path


def insert_missed(client: Any, after: int, event: dict[str, Any], note: str = "", table: str = "t1") -> Any:
    """A referee's "Insert an event the senses missed" form, posted from the queue (`client`: logged in)."""
    import json

    page = client.get("/referee")
    return client.post("/referee/insert", data={"table": table, "after": str(after), "event": json.dumps(event),
                                                "note": note, "csrf_token": csrf_from(page.text)})


def sse_frames(resp: Any, n: int) -> list[tuple[str, dict[str, Any], bytes]]:
    """The first `n` SSE frames of a streamed test-client response (`buffered=False`): kind, payload, raw bytes.
    The response is closed after."""
    import json

    out: list[tuple[str, dict[str, Any], bytes]] = []
    buf = b""
    try:
        for chunk in resp.response:
            buf += chunk
            while b"\n\n" in buf:
                frame, buf = buf.split(b"\n\n", 1)
                fields = dict(line.split(": ", 1) for line in frame.decode().split("\n")
                              if ": " in line and not line.startswith(":"))
                if "data" in fields:
                    out.append((fields["event"], json.loads(fields["data"]), frame))
            if len(out) >= n:
                break
    finally:
        resp.close()
    return out


@pytest.fixture
def referee_table(sqlite_app: Any) -> Any:
    """Table t1 and a logged-in referee's client of the same app (`c.token`: the rig's bearer token; `c.h`: the
    helpers of `h`)."""
    token = add_table(sqlite_app)
    add_user(sqlite_app)
    c = sqlite_app.test_client()
    assert login(c).status_code == 302
    c.token = token
    c.h = _helpers()
    return c


def _helpers() -> Any:
    from types import SimpleNamespace

    return SimpleNamespace(add_table=add_table, add_user=add_user, csrf_from=csrf_from, login=login, bearer=bearer,
                           post_events=post_events, export_log=export_log, insert_missed=insert_missed, sse_frames=sse_frames,
                           PASSWORD=PASSWORD)


@pytest.fixture
def h() -> Any:
    """The helpers above, for test modules (pytest's importlib mode can't import conftest by name)."""
    return _helpers()


# -- headless Chromium (Debian's, never a downloaded one) --------------------------------------------------------
CHROMIUM = os.environ.get("UNOTABLE_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip(f"no Chromium at {CHROMIUM}: `make` installs Debian's chromium (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()
