"""Public pages: the list of tables and each table's live page (camera, top card, turn, counts, event log)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, current_app, render_template

bp = Blueprint("tables", __name__)


@bp.get("/")
def index() -> Any:
    svc = current_app.extensions["unotable"]
    rows = []
    for info in svc.store.tables():
        tl = svc.live.get(info.name)
        rows.append({"name": info.name, "lines": tl.seq if tl else 0,
                     "phase": tl.state.get("phase") if tl else None,
                     "players": tl.state.get("players", []) if tl else []})
    return render_template("index.html", tables=rows)


@bp.get("/tables/<table>")
def live(table: str) -> Any:
    tl = current_app.extensions["unotable"].live.get(table)
    if tl is None:
        abort(404, description=f"no table named {table!r}")
    return render_template("live.html", table=table)
