"""The dashboard's store: tables, the append-only event log, flags, rulings, users and evidence.

SQLAlchemy Core keeps one code path for SQLite (the default, a file in the data folder, in WAL mode with
`synchronous=FULL` so that an event is on disk before the rig hears "accepted") and PostgreSQL (when
`DATABASE_URL` names one). The event log is append-only at the database level too: a trigger refuses UPDATE and
DELETE on `events`, so that neither a bug nor a hand-typed SQL statement can rewrite a match after the fact; a
referee changes the record only by appending a `correction` event.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    and_,
    create_engine,
    delete,
    event,
    func,
    insert,
    inspect,
    select,
    text,
    update,
)
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError
from werkzeug.security import check_password_hash, generate_password_hash

from .standings import DEFAULT_STAGE, check_stage

metadata = MetaData()

tables_t = Table(
    "tables",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(64), nullable=False, unique=True),
    Column("token_hash", String(64), nullable=False),
    Column("ruleset", String(200), nullable=True),
    Column("broadcast_delay", Float, nullable=False, default=0.0),
    Column("created_at", Float, nullable=False),
    # the tournament stage (web/standings.py STAGES); nullable so that a database from before stages can gain the
    # column with a plain ALTER TABLE: NULL reads as 'group'
    Column("stage", String(16), nullable=True, default=DEFAULT_STAGE),
)

events_t = Table(
    "events",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("table_id", Integer, ForeignKey("tables.id"), nullable=False),
    Column("seq", Integer, nullable=False),  # the 1-based line of the table's log
    Column("t", Float, nullable=False),
    Column("type", String(32), nullable=False),
    Column("source", String(16), nullable=False),
    Column("body", Text, nullable=False),  # the event as EVENTS.md JSON
    Column("received_at", Float, nullable=False),  # wall clock (epoch s), for the broadcast delay
    UniqueConstraint("table_id", "seq", name="uq_events_table_seq"),
)

flags_t = Table(
    "flags",
    metadata,
    Column("table_id", Integer, ForeignKey("tables.id"), primary_key=True),
    Column("flag_id", String(64), primary_key=True),
    Column("t", Float, nullable=False),
    Column("code", String(32), nullable=False),
    Column("seat", Integer, nullable=True),
    Column("rule", String(32), nullable=True),
    Column("message", Text, nullable=False),
    Column("penalty", Text, nullable=True),
    Column("line", Integer, nullable=True),
    Column("status", String(16), nullable=False),  # open | upheld | dismissed | withdrawn
    Column("updated_at", Float, nullable=False),
)

rulings_t = Table(
    "rulings",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("table_id", Integer, ForeignKey("tables.id"), nullable=False),
    Column("kind", String(16), nullable=False),  # ruling | correction | insert
    Column("flag_id", String(64), nullable=True),
    Column("decision", String(16), nullable=True),  # upheld | dismissed | corrected | struck
    Column("line", Integer, nullable=True),  # the log line a correction targets
    Column("note", Text, nullable=True),
    Column("detail", Text, nullable=True),  # JSON: the corrected event, the flag as it stood
    Column("username", String(64), nullable=False),
    Column("at", Float, nullable=False),
    Column("event_seq", Integer, nullable=False),  # the log line the decision was appended as
)

users_t = Table(
    "users",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("username", String(64), nullable=False, unique=True),
    Column("password_hash", String(255), nullable=False),
    Column("role", String(16), nullable=False),  # referee | spectator
    Column("created_at", Float, nullable=False),
)

evidence_t = Table(
    "evidence",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("table_id", Integer, ForeignKey("tables.id"), nullable=False),
    Column("kind", String(8), nullable=False),  # frame | clip | audio
    Column("t", Float, nullable=False),
    Column("duration", Float, nullable=True),
    Column("path", String(500), nullable=False),  # relative to the evidence folder
    Column("mime", String(64), nullable=False),
    Column("size", Integer, nullable=False),
    Column("sha256", String(64), nullable=False),
    Column("created_at", Float, nullable=False),
)
Index("ix_evidence_table_t", evidence_t.c.table_id, evidence_t.c.t)

ROLES = ("referee", "spectator")
MAX_BROADCAST_DELAY_S = 600
TABLE_NAME_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")

_SQLITE_TRIGGERS = (
    "CREATE TRIGGER IF NOT EXISTS events_no_update BEFORE UPDATE ON events "
    "BEGIN SELECT RAISE(ABORT, 'events are append-only'); END",
    "CREATE TRIGGER IF NOT EXISTS events_no_delete BEFORE DELETE ON events "
    "BEGIN SELECT RAISE(ABORT, 'events are append-only'); END",
)
_PG_TRIGGERS = (
    "CREATE OR REPLACE FUNCTION unotable_events_append_only() RETURNS trigger AS $$ "
    "BEGIN RAISE EXCEPTION 'events are append-only'; END; $$ LANGUAGE plpgsql",
    "DROP TRIGGER IF EXISTS events_append_only ON events",
    "CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events "
    "FOR EACH ROW EXECUTE FUNCTION unotable_events_append_only()",
)


class StoreError(ValueError):
    """A request the store refuses (duplicate name, bad name, unknown user); the message says why."""


@dataclass(frozen=True)
class TableInfo:
    id: int
    name: str
    token_hash: str
    ruleset: str | None
    broadcast_delay: float
    created_at: float
    stage: str = DEFAULT_STAGE

    def __post_init__(self) -> None:
        if self.stage is None:  # a row written before the stage column existed
            object.__setattr__(self, "stage", DEFAULT_STAGE)


@dataclass(frozen=True)
class StoredEvent:
    seq: int
    body: dict[str, Any]
    received_at: float


def new_token() -> str:
    """A table's secret: 43 URL-safe characters that never begin with "-", which a shell command line
    (`unotable agent --token ...`) would read as an option (one token in 64 did)."""
    while True:
        token = secrets.token_urlsafe(32)
        if not token.startswith("-"):
            return token


def hash_token(token: str) -> str:
    """Tokens are stored hashed (SHA-256 is enough: they are 256-bit random, not passwords)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def sqlite_url(data_dir: Path) -> str:
    return f"sqlite:///{(Path(data_dir) / 'unotable.db').resolve()}"


class Store:
    """All database access of the dashboard. Thread-safe: one Engine with a connection pool."""

    def __init__(self, url: str, evidence_dir: Path) -> None:
        # A bare postgresql:// (or postgres://, the spelling many hosts hand out) names no driver, and SQLAlchemy
        # 2.x picks its own default for it (psycopg 3 from 2.1 on), which the project does not install: map it to
        # the driver it does install, psycopg2. A URL that names its driver (postgresql+psycopg://...) is kept.
        for bare in ("postgresql://", "postgres://"):
            if url.startswith(bare):
                url = "postgresql+psycopg2://" + url[len(bare):]
                break
        self.url = url
        self.is_sqlite = url.startswith("sqlite")
        self.evidence_dir = Path(evidence_dir)
        kwargs: dict[str, Any] = {"future": True}
        if self.is_sqlite:
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
        else:
            kwargs.update(pool_size=10, max_overflow=20, pool_pre_ping=True)
        self.engine: Engine = create_engine(url, **kwargs)
        # SQLite has one writer at a time; serialising our own writers avoids "database is locked" on upgrade.
        self._write_lock = threading.Lock() if self.is_sqlite else None
        if self.is_sqlite:
            event.listen(self.engine, "connect", _sqlite_pragmas)

    # -- schema -------------------------------------------------------------------------------------------
    def create_all(self) -> None:
        """Create the tables (idempotent) and the append-only triggers."""
        metadata.create_all(self.engine)
        self._add_missing_columns()
        with self.engine.begin() as conn:
            for stmt in _SQLITE_TRIGGERS if self.is_sqlite else _PG_TRIGGERS:
                conn.execute(text(stmt))
        self.evidence_dir.mkdir(parents=True, exist_ok=True)

    def _add_missing_columns(self) -> None:
        """Columns added since a database was made (create_all makes missing tables, never missing columns)."""
        have = {c["name"] for c in inspect(self.engine).get_columns("tables")}
        if "stage" not in have:
            try:
                with self._writing(), self.engine.begin() as conn:
                    conn.execute(text("ALTER TABLE tables ADD COLUMN stage VARCHAR(16)"))
            except DBAPIError:  # another process (the CLI beside a running server) added it first
                if "stage" not in {c["name"] for c in inspect(self.engine).get_columns("tables")}:
                    raise

    def dispose(self) -> None:
        self.engine.dispose()

    def _writing(self) -> Any:
        return self._write_lock if self._write_lock is not None else _NullLock()

    # -- tables -------------------------------------------------------------------------------------------
    def add_table(
        self, name: str, ruleset: str | None = None, broadcast_delay: float = 0.0, stage: str = DEFAULT_STAGE
    ) -> tuple[TableInfo, str]:
        """Register a table rig; returns it and its bearer token (shown once, stored only hashed)."""
        try:
            stage = check_stage(stage)
        except ValueError as exc:
            raise StoreError(str(exc)) from None
        if not name or len(name) > 64 or not set(name) <= TABLE_NAME_CHARS:
            raise StoreError(f"bad table name {name!r}: use 1-64 letters, digits, '-' or '_'")
        if not 0 <= broadcast_delay <= MAX_BROADCAST_DELAY_S:
            raise StoreError(f"bad broadcast delay {broadcast_delay:g}: expected 0-{MAX_BROADCAST_DELAY_S} seconds")
        if self.table(name) is not None:
            raise StoreError(f"table {name!r} exists already")
        token = new_token()
        with self._writing(), self.engine.begin() as conn:
            conn.execute(
                insert(tables_t).values(
                    name=name, token_hash=hash_token(token), ruleset=ruleset,
                    broadcast_delay=float(broadcast_delay), created_at=time.time(), stage=stage,
                )
            )
        info = self.table(name)
        assert info is not None
        return info, token

    def table(self, name: str) -> TableInfo | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(tables_t).where(tables_t.c.name == name)).mappings().first()
        return TableInfo(**row) if row else None

    def tables(self) -> list[TableInfo]:
        with self.engine.connect() as conn:
            rows = conn.execute(select(tables_t).order_by(tables_t.c.name)).mappings().all()
        return [TableInfo(**r) for r in rows]

    def set_broadcast_delay(self, table_id: int, seconds: float) -> None:
        if not 0 <= seconds <= MAX_BROADCAST_DELAY_S:
            raise StoreError(f"bad broadcast delay {seconds:g}: expected 0-{MAX_BROADCAST_DELAY_S} seconds")
        with self._writing(), self.engine.begin() as conn:
            conn.execute(update(tables_t).where(tables_t.c.id == table_id).values(broadcast_delay=float(seconds)))

    def set_stage(self, table_id: int, stage: str) -> None:
        """Move a table to a tournament stage (a semifinal table may be a group table re-seated)."""
        try:
            stage = check_stage(stage)
        except ValueError as exc:
            raise StoreError(str(exc)) from None
        with self._writing(), self.engine.begin() as conn:
            conn.execute(update(tables_t).where(tables_t.c.id == table_id).values(stage=stage))

    @staticmethod
    def token_matches(info: TableInfo, token: str) -> bool:
        return hmac.compare_digest(info.token_hash, hash_token(token))

    # -- events -------------------------------------------------------------------------------------------
    def append_events(
        self,
        table_id: int,
        first_seq: int,
        bodies: Sequence[dict[str, Any]],
        flags: Sequence[dict[str, Any]] | None = None,
        ruling: dict[str, Any] | None = None,
    ) -> float:
        """Append events as lines first_seq, first_seq+1, ... in one transaction, with the flags they produced
        and the audit row of a referee decision; returns the wall time recorded. Committed on return."""
        now = time.time()
        rows = [
            {
                "table_id": table_id, "seq": first_seq + i, "t": float(b["t"]), "type": b["type"],
                "source": b.get("source", "manual"), "body": json.dumps(b, separators=(",", ":")),
                "received_at": now,
            }
            for i, b in enumerate(bodies)
        ]
        with self._writing(), self.engine.begin() as conn:
            conn.execute(insert(events_t), rows)
            if flags is not None:
                self._save_flags(conn, table_id, flags, now)
            if ruling is not None:
                conn.execute(insert(rulings_t).values(table_id=table_id, at=now, **ruling))
        return now

    def events(self, table_id: int, received_before: float | None = None) -> list[StoredEvent]:
        q = select(events_t.c.seq, events_t.c.body, events_t.c.received_at).where(events_t.c.table_id == table_id)
        if received_before is not None:
            q = q.where(events_t.c.received_at <= received_before)
        with self.engine.connect() as conn:
            rows = conn.execute(q.order_by(events_t.c.seq)).all()
        return [StoredEvent(r.seq, json.loads(r.body), r.received_at) for r in rows]

    def event_count(self, table_id: int) -> int:
        with self.engine.connect() as conn:
            n = conn.execute(select(func.count()).select_from(events_t).where(events_t.c.table_id == table_id))
            return int(n.scalar_one())

    # -- flags --------------------------------------------------------------------------------------------
    def save_flags(self, table_id: int, flags: Sequence[dict[str, Any]]) -> None:
        with self._writing(), self.engine.begin() as conn:
            self._save_flags(conn, table_id, flags, time.time())

    def _save_flags(self, conn: Any, table_id: int, flags: Sequence[dict[str, Any]], now: float) -> None:
        """Make the flags table match the engine's latest answer; a flag the engine no longer raises (after a
        correction) stays in the table as `withdrawn`, so that the audit trail can still name it."""
        old = {
            r["flag_id"]: r
            for r in conn.execute(select(flags_t).where(flags_t.c.table_id == table_id)).mappings().all()
        }
        seen = set()
        for f in flags:
            fid = str(f["id"])
            seen.add(fid)
            values = {
                "t": float(f.get("t") or 0.0), "code": f.get("code", ""), "seat": f.get("seat"),
                "rule": f.get("rule"), "message": f.get("message", ""),
                "penalty": json.dumps(f["penalty"]) if f.get("penalty") is not None else None,
                "line": f.get("line"), "status": f.get("status", "open"),
            }
            prev = old.get(fid)
            if prev is None:
                conn.execute(insert(flags_t).values(table_id=table_id, flag_id=fid, updated_at=now, **values))
            elif any(prev[k] != v for k, v in values.items()):
                conn.execute(
                    update(flags_t)
                    .where(flags_t.c.table_id == table_id, flags_t.c.flag_id == fid)
                    .values(updated_at=now, **values)
                )
        gone = [fid for fid, r in old.items() if fid not in seen and r["status"] != "withdrawn"]
        if gone:
            conn.execute(
                update(flags_t)
                .where(flags_t.c.table_id == table_id, flags_t.c.flag_id.in_(gone))
                .values(status="withdrawn", updated_at=now)
            )

    def flags(self, table_id: int | None = None, status: str | None = None) -> list[dict[str, Any]]:
        """Stored flags, newest first, with their table's name."""
        q = select(flags_t, tables_t.c.name.label("table")).join(tables_t, tables_t.c.id == flags_t.c.table_id)
        if table_id is not None:
            q = q.where(flags_t.c.table_id == table_id)
        if status is not None:
            q = q.where(flags_t.c.status == status)
        q = q.order_by(flags_t.c.t.desc(), flags_t.c.line.desc(), flags_t.c.flag_id)
        with self.engine.connect() as conn:
            rows = conn.execute(q).mappings().all()
        out = []
        for r in rows:
            d = dict(r)
            d["id"] = d.pop("flag_id")
            d["penalty"] = json.loads(d["penalty"]) if d["penalty"] else None
            out.append(d)
        return out

    # -- rulings (the audit trail) ------------------------------------------------------------------------
    def rulings(self, table_id: int | None = None) -> list[dict[str, Any]]:
        q = select(rulings_t, tables_t.c.name.label("table")).join(tables_t, tables_t.c.id == rulings_t.c.table_id)
        if table_id is not None:
            q = q.where(rulings_t.c.table_id == table_id)
        with self.engine.connect() as conn:
            rows = conn.execute(q.order_by(rulings_t.c.id)).mappings().all()
        return [dict(r) for r in rows]

    # -- users --------------------------------------------------------------------------------------------
    def add_user(self, username: str, password: str, role: str = "referee") -> None:
        if role not in ROLES:
            raise StoreError(f"bad role {role!r}: expected one of {', '.join(ROLES)}")
        if not username or len(username) > 64 or not username.isprintable() or username.strip() != username:
            raise StoreError(f"bad user name {username!r}: 1-64 printable characters, no outer spaces")
        if len(password) < 8:
            raise StoreError("password too short: use at least 8 characters")
        if self.user(username) is not None:
            raise StoreError(f"user {username!r} exists already")
        with self._writing(), self.engine.begin() as conn:
            conn.execute(
                insert(users_t).values(
                    username=username, password_hash=generate_password_hash(password), role=role,
                    created_at=time.time(),
                )
            )

    def user(self, username: str) -> dict[str, Any] | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(users_t).where(users_t.c.username == username)).mappings().first()
        return dict(row) if row else None

    def check_password(self, username: str, password: str) -> dict[str, Any] | None:
        """The user when the password is right, else None (same cost for an unknown name: no user probing)."""
        user = self.user(username)
        if user is None:
            check_password_hash(_DUMMY_HASH, password)
            return None
        return user if check_password_hash(user["password_hash"], password) else None

    # -- evidence -----------------------------------------------------------------------------------------
    def add_evidence(
        self, table_id: int, kind: str, t: float, rel_path: str, mime: str, data: bytes, duration: float | None
    ) -> int:
        """Record an evidence file already written under `evidence_dir/rel_path`."""
        with self._writing(), self.engine.begin() as conn:
            res = conn.execute(
                insert(evidence_t).values(
                    table_id=table_id, kind=kind, t=float(t), duration=duration, path=rel_path, mime=mime,
                    size=len(data), sha256=hashlib.sha256(data).hexdigest(), created_at=time.time(),
                )
            )
            key = res.inserted_primary_key
            assert key is not None
            return int(key[0])

    def evidence(self, table_id: int, t_from: float, t_to: float, kinds: Iterable[str] | None = None,
                 overlapping: bool = False) -> list[dict[str, Any]]:
        """Evidence of a table that starts between `t_from` and `t_to`; with `overlapping`, whatever overlaps that
        span (a long recording that began earlier and still runs, a rig's per-minute audio)."""
        if overlapping:
            end = evidence_t.c.t + func.coalesce(evidence_t.c.duration, 0.0)
            span = and_(evidence_t.c.t <= t_to, end >= t_from)
        else:
            span = and_(evidence_t.c.t >= t_from, evidence_t.c.t <= t_to)
        q = select(evidence_t).where(evidence_t.c.table_id == table_id, span)
        if kinds is not None:
            q = q.where(evidence_t.c.kind.in_(list(kinds)))
        with self.engine.connect() as conn:
            return [dict(r) for r in conn.execute(q.order_by(evidence_t.c.t, evidence_t.c.id)).mappings().all()]

    def evidence_item(self, evidence_id: int) -> dict[str, Any] | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(evidence_t).where(evidence_t.c.id == evidence_id)).mappings().first()
        return dict(row) if row else None

    def delete_everything_for_tests(self) -> None:  # pragma: no cover - used by test fixtures only
        """Drop all rows (drops the triggers first); only test fixtures call this, to reuse one PostgreSQL DB."""
        with self.engine.begin() as conn:
            if self.is_sqlite:
                conn.execute(text("DROP TRIGGER IF EXISTS events_no_delete"))
            else:
                conn.execute(text("DROP TRIGGER IF EXISTS events_append_only ON events"))
            for t in (evidence_t, rulings_t, flags_t, events_t, users_t, tables_t):
                conn.execute(delete(t))
        self.create_all()


_DUMMY_HASH = generate_password_hash("unotable-dummy-password")


class _NullLock:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    """WAL lets readers (pages, SSE snapshots) run beside the writer; FULL syncs each commit before the ack."""
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=FULL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.close()
