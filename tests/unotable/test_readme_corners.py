"""Stop 64's audit h7: README.md followed literally by a new user on a fresh checkout.

Every command, option and documented behaviour of the README as an organiser types it. A test marked
`xfail(strict=True)` asserts what the README (or EVENTS.md) says and fails on today's code: a finding of
/tmp/lead/s64/h7_readme.md. The others pin documented behaviour that held and had no test.

Fixed at stop 64: findings 1 (run refuses seats outside --players up front, and its sinks skip an event naming one),
2 (the dashboard serves on after the demo until Ctrl-C; `--exit-when-done` ends it), 4 (`unotable run --server URL
--token T --table-name NAME` posts the merged events through the agent's Spool and Sender), 5 (the agent's drain),
6 (one-line errors: `unotable.cli.main` for an operator's or the machine's mistake, calibrate creating --out's folder)
and 7 (the dashboard binds its port before registering the table). Finding 3 (web/store.py) was fixed apart.
"""

from __future__ import annotations

import http.server
import io
import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tracker.engine import replay
from tracker.log import read_log
from unotable.cli import build_parser, main
from unotable.run import DEMO_DIR, RunConfig, RunStats

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "unotable.cli"]


def cli(*args: str, stdin: str | None = "", env: dict[str, str] | None = None,
        timeout: float = 60) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    return subprocess.run([*CLI, *args], cwd=ROOT, input=stdin, capture_output=True, text=True, timeout=timeout,
                          start_new_session=True,  # no controlling terminal: getpass reads standard input
                          env={**base, **(env or {})})


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _runner() -> Any:
    """What a sink needs of a TableRunner: `_warn` and `stats`."""
    warnings: list[str] = []
    return SimpleNamespace(_warn=lambda m: warnings.append(str(m)), stats=RunStats(), warnings=warnings)


# ---------------------------------------------------------------------------------------------------------------
# finding 1: `unotable run` takes seats the match's players list doesn't have, and its --log is refused by replay


@pytest.mark.parametrize("case", ["players-shorter-than-the-table", "dealer-out-of-range"])
def test_the_log_run_writes_is_one_replay_reads(tmp_path: Path, case: str) -> None:
    """README: "add `--log game.jsonl` to keep the event log it folded, which `unotable replay --pretty game.jsonl`
    turns back into the same flags and scores", and "`unotable replay` refuses a log it can't read (exit 2 ...):
    ... a seat the match's `players` list doesn't have".

    A table calibrated with `unotable calibrate 0` has 4 seat zones (its default); tonight two play
    (`--players "Anna,Boris"`), or the operator gives `--dealer 9`. The camera reports a card at seat 2: the headless
    sink folds it (flags printed, no warning) and writes it to the log, which `unotable replay` then refuses with
    "'seat' is seat 2, but the match has 2 players". Whatever the sink does with such an event (refuse it with a
    warning, or refuse the run up front), the log it writes must be one replay reads, giving the flags it printed.
    """
    from unotable.run_sinks import HeadlessSink

    if case == "players-shorter-than-the-table":
        cfg = RunConfig(video=None, audio=None, players=["Anna", "Boris"])
    else:
        cfg = RunConfig(video=None, audio=None, dealer=9)
    log = tmp_path / "game.jsonl"
    out = io.StringIO()
    runner = _runner()
    sink = HeadlessSink(cfg, None, out=out, log_path=log)
    sink.begin(runner)
    sink.events(runner, [
        {"t": 1.0, "type": "starter", "card": "red-5", "source": "vision"},
        {"t": 2.0, "type": "play", "seat": 1, "cards": ["red-7"], "source": "vision"},
        {"t": 3.0, "type": "play", "seat": 2, "cards": ["red-9"], "source": "vision"},
    ])
    sink.end(runner)
    printed = [json.loads(x) for x in out.getvalue().splitlines() if '"summary"' not in x]
    events = read_log(log)  # today: LogError "line 5: 'seat' is seat 2, but the match has 2 players"
    assert [f.to_dict() for f in replay(events).flags] == printed


# ---------------------------------------------------------------------------------------------------------------
# finding 2: `make run` closes the dashboard the moment the demo recording ends


def _make_run_args() -> list[str]:
    """The arguments the Makefile's `run` target gives `unotable` (without the user's $(RUN_ARGS))."""
    for line in (ROOT / "Makefile").read_text(encoding="utf-8").splitlines():
        if "bin/unotable run" in line:
            words = line.split("bin/unotable", 1)[1].split()
            return [w for w in words if not w.startswith("$(")]
    raise AssertionError("the Makefile has no `unotable run` recipe")


def test_make_run_keeps_the_dashboard_up_to_review_the_flags(monkeypatch: pytest.MonkeyPatch) -> None:
    """README: "`make run` plays the built-in demo table ... and serves the dashboard at http://127.0.0.1:5000: open
    the table's live page, then `/referee` to review the flags (a referee account comes from `unotable user add NAME
    --data data`)."

    `unotable run` (what `make run` runs) builds its dashboard sink with `keep=args.keep or meta is None`: for the demo
    `keep` is False, so the server stops as soon as the 80-second recording ends, the moment it prints "…/referee to
    review them". The test runs the Makefile's own command with the senses stubbed and reads the sink's `keep`.
    """
    import unotable.run as run_mod
    import unotable.run_sinks as sinks

    seen: dict[str, Any] = {}

    class Sink:
        exit_code = 0

        def __init__(self, cfg: Any, name: str, data: Path, host: str, port: int, keep: bool = True) -> None:
            seen.update(name=name, port=port, keep=keep)

    class Runner:
        def __init__(self, cfg: Any) -> None:
            self.stop = threading.Event()

        def run(self, sink: Any) -> None:
            return None

    monkeypatch.setattr(sinks, "DashboardSink", Sink)
    monkeypatch.setattr(run_mod, "TableRunner", Runner)
    args = build_parser().parse_args(_make_run_args())
    assert args.func(args) == 0
    assert seen["port"] == 5000 and seen["name"] == "demo"  # README: "http://127.0.0.1:5000"
    assert seen["keep"] is True


# ---------------------------------------------------------------------------------------------------------------
# finding 3: DATABASE_URL=postgresql://... (the README's spelling) needs a driver the project doesn't install


@pytest.mark.parametrize("url", ["postgresql://postgres@127.0.0.1:1/unotable", "postgres://postgres@127.0.0.1:1/u"])
def test_the_readmes_database_url_spelling_opens_a_store(tmp_path: Path, url: str) -> None:
    """README: "`unotable serve` ... (SQLite in `DIR`, or PostgreSQL when `DATABASE_URL` names one)" and "One central
    server (`unotable serve`, with PostgreSQL for a tournament: `DATABASE_URL=postgresql://...`)".

    pyproject.toml installs `psycopg2-binary` and `sqlalchemy>=2.0`; the .venv has SQLAlchemy 2.1.9, whose default
    driver for `postgresql://` is psycopg 3, so `unotable serve` / `table add` die with "No module named 'psycopg'"
    before connecting. (The tests pass because conftest spells `postgresql+psycopg2://`.) Building the store does not
    connect, so no server is needed here."""
    from web.store import Store

    store = Store(url, tmp_path / "evidence")
    store.dispose()


# ---------------------------------------------------------------------------------------------------------------
# finding 4: no command hands `unotable run`'s merged events to a tournament's central server


def test_a_rig_can_run_both_senses_into_the_central_server() -> None:
    """README, "Running a tournament on several tables": "one agent per table rig: `unotable agent --server
    http://SERVER:PORT --token TOKEN --table hall-1` queues the rig's events on disk and posts them in order ... One
    agent carries both senses of a table (`unotable run` merges the camera's and the microphones' events in table time
    before they are queued): ... a second agent posting the same table's speech separately would have its late calls
    refused".

    `unotable run` has no way to queue its merged events for a server: it serves its own local dashboard or, headless,
    prints flags (`--log` writes a file at the end of a line, not events on stdout). `unotable agent` reads JSON lines
    from a file or stdin (its docstring's example is `unotable watch ... | unotable agent`, vision only). The natural
    fix mirrors the dashboard sink, which already posts through the agent's Spool and Sender: `unotable run --server
    URL --token TOKEN --table-name NAME`. (If the fix takes another form, e.g. events on stdout, adapt this test.)"""
    args = build_parser().parse_args(["run", "--camera", "0", "--table", "table.toml", "--server",
                                      "http://10.0.0.5:8000", "--token", "TOKEN", "--table-name", "hall-1"])
    assert args.server == "http://10.0.0.5:8000" and args.token == "TOKEN"


# ---------------------------------------------------------------------------------------------------------------
# finding 5: `unotable agent` with a mistyped --table or a wrong token can end in a traceback


class _Refusing(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = b'{"error":"no table named \'hall-l\'"}'
        self.send_response(404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


def test_an_agent_with_a_mistyped_table_says_so_without_a_traceback(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """README: "`unotable agent --server http://SERVER:PORT --token TOKEN --table hall-1`". A mistyped table name
    (`hall-l`) or a token of another table is the obvious mistake. When the sending thread meets the refusal first,
    the agent prints "unotable agent: the server refused this rig (404): ..." and exits 2; when the input ends before
    the thread's first post (a short file, `--events game.jsonl`), `Sender.drain` raises the same AgentError out of
    `_agent` and the user gets a Python traceback (exit 1). Seen on the command line with a one-line file. The thread
    is stubbed out here to take that branch every time."""
    from unotable.agent import Sender

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Refusing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setattr(Sender, "run", lambda self, stop, idle=0.2: None)
    events = tmp_path / "game.jsonl"
    events.write_text('{"t": 0, "type": "match_start", "ruleset": "mattel", "players": ["A", "B"]}\n')
    try:
        code = main(["agent", "--server", f"http://127.0.0.1:{server.server_port}", "--token", "T", "--table", "hall-l",
                     "--spool", str(tmp_path / "spool"), "--events", str(events), "--drain-timeout", "5"])
    finally:
        server.shutdown()
    assert code == 2 and "refused this rig (404)" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------------------------
# finding 6: tracebacks instead of one-line errors for the obvious mistakes


DEMO_VIDEO = DEMO_DIR / "game.mp4"


def _as_file(tmp_path: Path) -> str:
    f = tmp_path / "data.txt"
    f.write_text("not a folder\n")
    return str(f)


TRACEBACK_CASES = {
    # `--data DIR` naming a file (a typo, or the database file itself)
    "table-add-data-is-a-file": (lambda p: ["table", "add", "hall-1", "--data", _as_file(p)], "", None),
    "serve-data-is-a-file": (lambda p: ["serve", "--port", "0", "--data", _as_file(p)], "", None),
    # `unotable calibrate` with --out in a place that can't be a folder (test_calibrate_writes_into_a_new_folder)
    "calibrate-out-under-a-file": (lambda p: ["calibrate", str(DEMO_VIDEO), "--frames", "5", "--out",
                                              str(Path(_as_file(p)) / "table.toml")], "", None),
    # `unotable user add NAME --data data` "asks for the password": Ctrl-D, or a password piped without
    # --password-stdin (getpass reads it, then hits end of input at "again:")
    "user-add-end-of-input": (lambda p: ["user", "add", "alice", "--data", str(p)], "long enough pw\n", None),
    # a one-seat simulation
    "simulate-one-player": (lambda p: ["simulate", "--players", "1", "--out", str(p / "x.jsonl")], "", None),
    # the database server down (or a wrong host in DATABASE_URL)
    "database-unreachable": (lambda p: ["table", "list", "--data", str(p)], "",
                             {"DATABASE_URL": "postgresql+psycopg2://postgres@127.0.0.1:1/unotable"}),
}


@pytest.mark.parametrize("case", list(TRACEBACK_CASES))
def test_an_obvious_mistake_is_a_one_line_error(tmp_path: Path, case: str) -> None:
    """The brief's "error messages for the obvious mistakes (a wrong path, a missing table file, a port in use, a wrong
    ruleset name)": the project's own commands answer such mistakes with one line (`unotable replay: ...`, `unotable
    run: ...`, `error: ...`, exit 1 or 2; tests/web/test_commands.py asserts "Traceback" not in stderr for `table add`);
    these paths print a Python traceback instead."""
    make_args, stdin, env = TRACEBACK_CASES[case]
    out = cli(*make_args(tmp_path), stdin=stdin, env=env)
    assert out.returncode != 0
    assert "Traceback" not in out.stderr, out.stderr[-600:]
    assert out.stderr.strip()


def test_calibrate_writes_into_a_new_folder(tmp_path: Path) -> None:
    """Finding 6's `unotable calibrate VIDEO --out rig/table.toml` with no `rig/` yet: calibrate makes the folder, as
    `unotable markers` does, and writes the table file and its preview there."""
    out = cli("calibrate", str(DEMO_VIDEO), "--frames", "5", "--out", str(tmp_path / "rig" / "table.toml"))
    assert out.returncode == 0, out.stderr[-600:]
    assert (tmp_path / "rig" / "table.toml").is_file() and (tmp_path / "rig" / "table.png").is_file()


# ---------------------------------------------------------------------------------------------------------------
# finding 7: a `unotable run` refused for a port in use leaves its table registered


def test_a_run_refused_for_a_busy_port_registers_no_table(tmp_path: Path) -> None:
    """README: "`unotable run` ... serves the dashboard at http://127.0.0.1:5000"; a port in use is refused with
    "can't serve the dashboard on ...: Address already in use (is another unotable running? try --port)". But
    `DashboardSink.__init__` adds the table to the store before it binds the port: the failed run leaves an empty
    `demo` (or `table-1`) in the data folder, the retry with `--port` becomes `demo-2`, and the empty table is listed
    by `unotable table list` and on `/tournament`, where a table that never finishes counts as still playing
    (web/standings.py: `playing = ... if not s.finished`), which holds back the next stage's proposed seating."""
    from unotable.run import RunError
    from unotable.run_sinks import DashboardSink
    from web.store import Store, sqlite_url

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        with pytest.raises(RunError, match="can't serve the dashboard"):
            DashboardSink(RunConfig(video=None, audio=None), "demo", tmp_path, "127.0.0.1", busy.getsockname()[1],
                          keep=False)
    store = Store(sqlite_url(tmp_path), tmp_path / "evidence")
    try:
        assert [t.name for t in store.tables()] == []
    finally:
        store.dispose()


# ---------------------------------------------------------------------------------------------------------------
# what held (documented behaviour with no test of its own)


def test_the_readmes_real_table_command_parses_as_documented() -> None:
    """README: `unotable run --camera 0 --mic default --table table.toml --ruleset falsonal --players
    "Anna,Boris,Vera,Gleb"`; "`--mic` takes a device (`default`, an index or a name) or an audio file"."""
    from unotable.run import _config, audio_spec

    args = build_parser().parse_args(["run", "--camera", "0", "--mic", "default", "--table", "table.toml",
                                      "--ruleset", "falsonal", "--players", "Anna,Boris,Vera,Gleb"])
    cfg, meta = _config(args)
    assert meta is None and cfg.video == "0" and cfg.table_file == "table.toml" and cfg.ruleset == "falsonal"
    assert cfg.players == ["Anna", "Boris", "Vera", "Gleb"] and cfg.realtime
    assert audio_spec(cfg.audio or "") == "mic:default" and audio_spec("2") == "mic:2"
    assert audio_spec("calls.wav") == "calls.wav"  # a file that isn't there still reads as a file ("no such file")


@pytest.mark.parametrize("extra, words", [
    (["--table", "no-such-table.toml"], "table file no-such-table.toml not found (make one with `unotable calibrate"),
    (["--ruleset", "Falsonal"], "unknown ruleset 'Falsonal': use one of chempiunat, falsonal, mattel, olympic"),
])
def test_run_names_a_missing_table_file_and_a_wrong_ruleset(extra: list[str], words: str,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """README: `unotable run --camera 0 ... --table table.toml --ruleset falsonal`: a table file not written yet and a
    ruleset name typed wrong are refused up front, in one line, exit 2, before any camera is opened."""
    code = main(["run", "--camera", str(DEMO_VIDEO), "--headless", *extra]
                + (["--table", str(DEMO_DIR / "game.table.toml")] if "--table" not in extra else []))
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("unotable run: ") and words in err and "Traceback" not in err


def test_markers_writes_four_pngs_and_an_a4_pdf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """README: "`unotable markers --out markers/` writes them (PNG, and an A4 PDF)" (into a folder it creates)."""
    out = tmp_path / "markers"
    assert main(["markers", "--out", f"{out}/"]) == 0
    pngs = sorted(p.name for p in out.glob("*.png"))
    assert len(pngs) == 4 and all(n.startswith(f"marker_{i}_") for i, n in enumerate(pngs))
    pdfs = list(out.glob("*.pdf"))
    assert len(pdfs) == 1 and pdfs[0].read_bytes().startswith(b"%PDF")
    assert b"/MediaBox [0 0 595" in pdfs[0].read_bytes() or b"/MediaBox [ 0 0 595" in pdfs[0].read_bytes()


def test_the_readmes_club_night_file_replays_a_log(tmp_path: Path) -> None:
    """README: the `club-night.toml` example (`base = "falsonal"`, `turn_timer_s = 30`, `target = 250`) and
    `unotable replay game.jsonl --ruleset club-night.toml`: the file is read from the working directory, the match
    plays to 250 under its own name, and its flags cite Falsonal's clauses."""
    from tracker.log import write_log
    from tracker.script import script

    (tmp_path / "club-night.toml").write_text('# club-night.toml\nbase = "falsonal"\nname = "club-night"\n'
                                              'turn_timer_s = 30\ntarget = 250\n', encoding="utf-8")
    write_log(tmp_path / "game.jsonl", script("mattel", "H3; T red-5; P0 blue-9"))
    out = subprocess.run([*CLI, "replay", "game.jsonl", "--ruleset", "club-night.toml", "--json"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["state"]["ruleset"] == "club-night" and doc["scores"]["target"] == 250
    assert [(f["code"], f["rule"]) for f in doc["flags"]] == [("illegal_card", "FA-TURN")]
