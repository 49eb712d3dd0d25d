"""The spectator overlay for OBS: a 1920x1080 transparent browser source that never shows a hand.

It subscribes to the public stream (revealed hands reduced to counts) with the table's broadcast delay, or a longer
one from `?delay=S`: a stream can be held back, never brought forward.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, current_app, render_template, request

bp = Blueprint("overlay", __name__)


@bp.get("/overlay/<table>")
def overlay(table: str) -> Any:
    tl = current_app.extensions["unotable"].live.get(table)
    if tl is None:
        abort(404, description=f"no table named {table!r}")
    try:
        asked = float(request.args.get("delay", "0") or 0)
    except ValueError:
        abort(400, description=f"bad delay {request.args.get('delay')!r}: expected seconds")
    if not 0 <= asked <= 600:
        abort(400, description=f"bad delay {asked:g}: expected 0-600 seconds")
    delay = max(asked, tl.info.broadcast_delay)
    return render_template("overlay.html", table=table, delay=delay)
