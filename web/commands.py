"""`unotable serve`, `unotable table add|list|stage`, `unotable user add`: the dashboard's commands."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .standings import STAGES


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("serve", help="run the dashboard (web pages, JSON API, SSE) on a port")
    p.add_argument("--port", type=int, default=8000, help="TCP port (default 8000)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1; 0.0.0.0 for the LAN)")
    p.add_argument("--data", type=Path, default=None, help="data folder: SQLite database and evidence (default ./data)")
    p.add_argument("--threads", type=int, default=512,
                   help="worker threads; each live page or overlay holds one (default 512)")
    p.set_defaults(func=_serve)

    t = sub.add_parser("table", help="manage table rigs")
    tsub = t.add_subparsers(dest="table_command", metavar="ACTION")
    tsub.required = True
    ta = tsub.add_parser("add", help="register a table; prints its bearer token on the last line")
    ta.add_argument("name", help="table name: letters, digits, '-' or '_'")
    ta.add_argument("--data", type=Path, default=None, help="data folder (default ./data)")
    ta.add_argument("--ruleset", default=None, help="force a ruleset (default: the log's match_start)")
    ta.add_argument("--delay", type=float, default=0.0, help="broadcast delay of the overlay, seconds (default 0)")
    ta.add_argument("--stage", default="group", metavar="STAGE",
                    help=f"tournament stage: {', '.join(STAGES)} (default group)")
    ta.set_defaults(func=_table_add)
    ts = tsub.add_parser("stage", help="move a table to a tournament stage (shown on /tournament)")
    ts.add_argument("name", help="table name")
    ts.add_argument("stage", metavar="STAGE", help=f"one of {', '.join(STAGES)}")
    ts.add_argument("--data", type=Path, default=None, help="data folder (default ./data)")
    ts.set_defaults(func=_table_stage)
    tl = tsub.add_parser("list", help="list the tables")
    tl.add_argument("--data", type=Path, default=None, help="data folder (default ./data)")
    tl.set_defaults(func=_table_list)

    u = sub.add_parser("user", help="manage referee and spectator accounts")
    usub = u.add_subparsers(dest="user_command", metavar="ACTION")
    usub.required = True
    ua = usub.add_parser("add", help="add an account (asks for the password unless --password-stdin)")
    ua.add_argument("username")
    ua.add_argument("--role", choices=("referee", "spectator"), default="referee")
    ua.add_argument("--data", type=Path, default=None, help="data folder (default ./data)")
    ua.add_argument("--password-stdin", action="store_true", help="read the password from standard input")
    ua.set_defaults(func=_user_add)


def _store(data: Path | None):  # type: ignore[no-untyped-def]
    """The store the server would use for `--data` (or DATABASE_URL)."""
    import os

    from .store import Store, sqlite_url

    data_dir = (data or Path(os.environ.get("UNOTABLE_DATA") or "data")).resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    store = Store(os.environ.get("DATABASE_URL") or sqlite_url(data_dir), data_dir / "evidence")
    store.create_all()
    return store


def _serve(args: argparse.Namespace) -> int:
    from . import create_app
    from .server import Server

    if not 0 <= args.port <= 65535:
        print(f"error: bad port {args.port}: expected 0-65535", file=sys.stderr)
        return 2
    config = {"DATA_DIR": str(args.data)} if args.data else {}
    app = create_app(config)
    try:
        server = Server(app, args.host, args.port, threads=args.threads)
        server.server.prepare()
    except OSError as exc:
        print(f"error: can't listen on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"unotable dashboard on {server.url}  (data: {app.config['DATA_DIR']}, "
          f"db: {app.config['DATABASE_URL'].split('@')[-1]})", flush=True)
    import signal

    def _stop(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt  # SIGTERM (systemd, docker stop) ends the server as Ctrl-C does: streams closed

    signal.signal(signal.SIGTERM, _stop)
    try:
        server.server.serve()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


def _table_add(args: argparse.Namespace) -> int:
    from .store import StoreError

    store = _store(args.data)
    try:
        info, token = store.add_table(args.name, ruleset=args.ruleset, broadcast_delay=args.delay, stage=args.stage)
    except StoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        store.dispose()
    print(f"table {info.name} added ({info.stage} stage); rigs post with 'Authorization: Bearer <token>'. Token (shown once): {token}")
    return 0


def _table_list(args: argparse.Namespace) -> int:
    store = _store(args.data)
    for info in store.tables():
        print(f"{info.name}\truleset={info.ruleset or '(from the log)'}\tdelay={info.broadcast_delay:g}s\t"
              f"lines={store.event_count(info.id)}\tstage={info.stage}")
    store.dispose()
    return 0


def _table_stage(args: argparse.Namespace) -> int:
    """The running server reads a table's stage from the database on every /tournament request: no restart."""
    from .store import StoreError

    store = _store(args.data)
    try:
        info = store.table(args.name)
        if info is None:
            names = ", ".join(t.name for t in store.tables()) or "none yet"
            print(f"error: no table named {args.name!r} (tables: {names})", file=sys.stderr)
            return 1
        store.set_stage(info.id, args.stage)
    except StoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        store.dispose()
    print(f"table {info.name}: stage {info.stage} -> {args.stage}")
    return 0


def _user_add(args: argparse.Namespace) -> int:
    import getpass

    from .store import StoreError

    if args.password_stdin:
        password = sys.stdin.readline().rstrip("\n")
    else:
        password = getpass.getpass(f"password for {args.username}: ")
        if getpass.getpass("again: ") != password:
            print("error: the passwords differ", file=sys.stderr)
            return 1
    store = _store(args.data)
    try:
        store.add_user(args.username, password, role=args.role)
    except StoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        store.dispose()
    print(f"{args.role} {args.username} added")
    return 0
