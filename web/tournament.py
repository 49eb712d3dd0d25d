"""The organiser's view of a tournament on many tables: every table by stage, its standings, the progression
(qualifiers, proposed seatings, who is still playing) and the newest open flags of all tables.

`/tournament` renders the page once; the page then re-fetches `/tournament/body` (the same template, without the
frame) every few seconds, so that there is one renderer and a page with twenty tables costs one request a refresh
rather than twenty event streams. `/api/tournament` gives the same data as JSON.

Standings come from the warm games (no replay per request). A table's broadcast delay binds anonymous readers here
as everywhere else: such a reader sees that table as it stood `delay` seconds ago. A table's stage is read from the
database on every request, so that `unotable table stage` takes effect on a running server.
"""

from __future__ import annotations

import time
from dataclasses import asdict
from typing import Any

from flask import Blueprint, Response, abort, current_app, jsonify, render_template, request

from .api import viewer_delay
from .auth import current_user
from .live import flag_player, game_lines, public_flags
from .standings import MAX_QUALIFIERS, STAGES, TableStandings, progression, table_standings

bp = Blueprint("tournament", __name__)

NEWEST_FLAGS = 12  # open flags listed across tables


def _int_arg(name: str, default: int, low: int, high: int) -> int:
    raw = request.args.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        abort(400, description=f"bad {name} {raw!r}: expected a whole number {low}-{high}")
    if not low <= value <= high:
        abort(400, description=f"bad {name} {value}: expected {low}-{high}")
    return value


def settings() -> dict[str, Any]:
    """The cut and the lot: `?k=` qualifiers per group table, `?final_k=` per semifinal table, `?seed=` of the
    lot; defaults from the app's TOURNAMENT_K, TOURNAMENT_FINAL_K and TOURNAMENT_SEED."""
    cfg = current_app.config
    seed = request.args.get("seed") or str(cfg.get("TOURNAMENT_SEED", 0))
    if len(seed) > 64 or not seed.isprintable():
        abort(400, description="bad seed: up to 64 printable characters")
    return {
        "k": _int_arg("k", int(cfg.get("TOURNAMENT_K", 2)), 1, MAX_QUALIFIERS),
        "final_k": _int_arg("final_k", int(cfg.get("TOURNAMENT_FINAL_K", 2)), 1, MAX_QUALIFIERS),
        "seed": seed,
    }


def _view(tl: Any) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]], float]:
    """State, scores, flags of a table as this reader may see them, and the delay applied."""
    delay = viewer_delay(tl)
    referee = (current_user() or {}).get("role") == "referee"  # others see flags as spectators may (public_flags)
    if delay > 0:
        snap = current_app.extensions["unotable"].live.delayed_snapshot(tl, time.time() - delay, recent=0,
                                                                        public=not referee)
        return snap["state"], snap["scores"], snap["flags"], delay
    with tl.lock:
        return tl.state, tl.scores, list(tl.flags) if referee else public_flags(tl.flags), 0.0


def tournament_data(opts: dict[str, Any]) -> dict[str, Any]:
    svc = current_app.extensions["unotable"]
    tables: list[dict[str, Any]] = []
    standings: list[TableStandings] = []
    open_flags: list[dict[str, Any]] = []
    for info in svc.store.tables():
        tl = svc.live.get(info.name)
        if tl is None:  # removed between the two reads
            continue
        state, scores, flags, delay = _view(tl)
        st = table_standings(info.name, scores, list(state.get("players") or []), info.stage)
        standings.append(st)
        players = list(state.get("players") or [])
        opened = [f for f in flags if f.get("status") == "open"]
        # a flag names the player of the match it was raised in: after a second match_start its seat is someone
        # else's now (EVENTS.md: "seat numbers stay fixed for the match")
        lines = game_lines(tl) if opened else None
        for f in opened:
            open_flags.append({**f, "table": info.name, "player": flag_player(f, lines) if lines else None})
        leader, winner = st.leader, st.winner
        tables.append({
            "name": info.name, "stage": info.stage, "status": st.status,
            "ruleset": state.get("ruleset") or info.ruleset, "hand": state.get("hand") or 0,
            "phase": state.get("phase"), "players": players, "target": st.target, "lowest_wins": st.lowest_wins,
            "leader": {"player": leader.player, "seat": leader.seat, "total": leader.total} if leader else None,
            # the winner the engine named (None while playing, and for a match over with no winner: `undecided`,
            # with the players level at the top in `level`); never the first row by seat number
            "winner": {"player": winner.player, "seat": winner.seat, "total": winner.total} if winner else None,
            "undecided": st.undecided, "level": [r.player for r in st.level],
            "open_flags": len(opened), "delayed_s": delay, "standings": [asdict(r) for r in st.rows],
            "finished": st.finished,
        })
    updated = _flag_times(svc.store)
    for f in open_flags:
        f["updated_at"] = updated.get((f["table"], str(f["id"])), 0.0)
    open_flags.sort(key=lambda f: (-f["updated_at"], -float(f.get("t") or 0.0), f["table"]))
    by_stage = {stage: [t for t in tables if t["stage"] == stage] for stage in STAGES}
    return {
        "stages": [{"stage": s, "tables": by_stage[s]} for s in STAGES if by_stage[s]],
        "tables": tables,
        "progression": progression(standings, k=opts["k"], final_k=opts["final_k"], seed=opts["seed"]),
        "open_flags": {"count": len(open_flags), "newest": open_flags[:NEWEST_FLAGS]},
        "settings": opts, "server_time": time.time(),
    }


def _flag_times(store: Any) -> dict[tuple[str, str], float]:
    """When each open flag was last written (wall time), to list the newest across tables (match times of two
    tables can't be compared)."""
    return {(f["table"], str(f["id"])): float(f["updated_at"]) for f in store.flags(status="open")}


@bp.get("/tournament")
def page() -> Any:
    opts = settings()
    return render_template("tournament.html", d=tournament_data(opts),
                           refresh_s=float(current_app.config.get("TOURNAMENT_REFRESH_S", 5.0)),
                           query=request.query_string.decode("ascii", "replace"))


@bp.get("/tournament/body")
def body() -> Any:
    return render_template("_tournament_body.html", d=tournament_data(settings()))


@bp.get("/api/tournament")
def api() -> Response:
    return jsonify(tournament_data(settings()))
