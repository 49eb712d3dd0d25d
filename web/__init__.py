"""The unotable dashboard: a Flask app factory, one blueprint an area.

`create_app()` reads its settings from the arguments, then the environment (`DATABASE_URL`, `UNOTABLE_DATA`,
`UNOTABLE_SECRET_KEY`), then defaults: a SQLite file and the evidence folder in `./data`.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flask import Flask, jsonify, request
from flask_wtf.csrf import CSRFError, CSRFProtect  # type: ignore[import-untyped]

from .auth import LoginLimiter
from .camera import CameraHub
from .hub import Hub
from .live import LiveTables
from .store import Store, sqlite_url

csrf = CSRFProtect()


@dataclass
class Services:
    """What the blueprints share; kept in `app.extensions["unotable"]`."""

    store: Store
    hub: Hub
    live: LiveTables
    camera: CameraHub
    limiter: LoginLimiter
    archived: dict[str, float] = field(default_factory=dict)  # last archived camera frame t per table

    def close(self) -> None:
        self.hub.close_all()
        self.camera.close()


def _secret_key(data_dir: Path) -> str:
    """A per-install key kept beside the database (0600), so that sessions survive a restart."""
    env = os.environ.get("UNOTABLE_SECRET_KEY")
    if env:
        return env
    path = data_dir / "secret_key"
    if path.exists():
        return path.read_text().strip()
    key = secrets.token_hex(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(key)
    return key


def create_app(config: dict[str, Any] | None = None) -> Flask:
    config = dict(config or {})
    app = Flask(__name__)
    data_dir = Path(config.pop("DATA_DIR", None) or os.environ.get("UNOTABLE_DATA") or "data").resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    url = config.pop("DATABASE_URL", None) or os.environ.get("DATABASE_URL") or sqlite_url(data_dir)
    app.config.update(
        SECRET_KEY=_secret_key(data_dir) if "SECRET_KEY" not in config else config["SECRET_KEY"],
        DATA_DIR=str(data_dir),
        DATABASE_URL=url,
        MAX_CONTENT_LENGTH=64 * 1024 * 1024,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        PERMANENT_SESSION_LIFETIME=12 * 3600,
        WTF_CSRF_TIME_LIMIT=None,  # a referee's page may stay open for a whole match
        FRAME_ARCHIVE_INTERVAL=1.0,
        EVIDENCE_WINDOW_S=6.0,
        LOGIN_MAX_FAILURES=5,
        LOGIN_WINDOW_S=900.0,
        TOURNAMENT_K=2,  # CH-TABLE: the top 2 (or 3) of each group table go to the semifinal
        TOURNAMENT_FINAL_K=2,
        TOURNAMENT_SEED=0,  # the lot of the proposed seatings; `/tournament?seed=` draws another
        TOURNAMENT_REFRESH_S=5.0,  # how often the tournament page re-fetches its body
    )
    app.config.update(config)

    store = Store(url, data_dir / "evidence")
    store.create_all()
    hub = Hub()
    app.extensions["unotable"] = Services(
        store=store, hub=hub, live=LiveTables(store, hub), camera=CameraHub(),
        limiter=LoginLimiter(app.config["LOGIN_MAX_FAILURES"], app.config["LOGIN_WINDOW_S"]),
    )

    from . import api, auth, overlay, referee, scoreboard, tables, tournament

    csrf.init_app(app)
    csrf.exempt(api.bp)  # the API authenticates by bearer token, never by cookie: nothing for CSRF to forge
    for bp in (tables.bp, api.bp, auth.bp, referee.bp, scoreboard.bp, overlay.bp, tournament.bp):
        app.register_blueprint(bp)

    @app.errorhandler(CSRFError)
    def csrf_error(exc: CSRFError) -> Any:
        return _error_page(f"refused: {exc.description} (reload the page and try again)", 400)

    for code in (400, 401, 403, 404, 405, 413, 429):
        app.register_error_handler(code, lambda exc, code=code: _error_page(getattr(exc, "description", str(exc)), code))

    @app.context_processor
    def inject_user() -> dict[str, Any]:
        from .auth import current_user

        return {"user": current_user()}

    return app


def _error_page(message: str, code: int) -> Any:
    from flask import render_template

    if request.path.startswith("/api/") or request.accept_mimetypes.best == "application/json":
        resp = jsonify({"error": message})
        resp.status_code = code
        return resp
    return render_template("error.html", message=message, code=code), code
