"""Referee review: the queue of open flags with the rule, the engine's reason and the evidence, and the decisions.

Every decision is appended to the table's log as a `ruling`, `correction` or `insert` event (source "referee", with `by` and
`at`), so that the state and the scores replay at once and a replay of the exported log gives the same answer; the
same decision is written to the `rulings` table, the audit trail a referee can export as CSV or JSON.
"""

from __future__ import annotations

import csv
import io
import json
import math
import time
from collections.abc import Iterator
from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    send_file,
    url_for,
)

from tracker.clauses import clause_text
from tracker.events import REFEREE_TYPES
from tracker.log import event_to_dict

from .auth import current_user, referee_required
from .camera import BOUNDARY, MJPEG_START, mjpeg_part
from .live import GameLines, PostError, RulingConflict, TableLive, flag_player, game_lines
from .scoreboard import spreadsheet_safe
from .store import StoreError

bp = Blueprint("referee", __name__, url_prefix="/referee")

AUDIT_FIELDS = ("id", "table", "kind", "flag_id", "decision", "line", "note", "username", "at_iso", "event_seq", "detail")


def _svc() -> Any:
    return current_app.extensions["unotable"]


def _evidence_for(table_id: int, t: float) -> dict[str, list[dict[str, Any]]]:
    """Frames just before and after `t`, and the clips and audio that cover the window around it."""
    window = float(current_app.config["EVIDENCE_WINDOW_S"])
    store = _svc().store
    frames = store.evidence(table_id, t - window, t + window, kinds=("frame",))
    items = store.evidence(table_id, t - window, t + window, kinds=("clip", "audio"), overlapping=True)
    before = [e for e in frames if e["t"] <= t][-3:]
    after = [e for e in frames if e["t"] > t][:3]
    clips = [e for e in items if e["kind"] == "clip"]
    audio = [e for e in items if e["kind"] == "audio"]
    return {"before": before, "after": after, "clips": clips, "audio": audio}


@bp.get("/")
@bp.get("")
@referee_required
def queue() -> Any:
    svc = _svc()
    only = request.args.get("table") or None
    tables = {info.name: info for info in svc.store.tables()}
    for name in tables:
        svc.live.get(name)  # load (and so persist the flags of) every table once
    if only is not None and only not in tables:
        abort(404, description=f"no table named {only!r}")
    table_id = tables[only].id if only else None
    cards = []
    for flag in svc.store.flags(table_id, status="open"):
        tl = svc.live.get(flag["table"])
        seat = flag.get("seat")
        line = flag.get("line")
        lines = game_lines(tl) if tl else None
        event = _flagged_event(tl, lines, line) if tl and lines else None
        cards.append({
            **flag,
            # the player of the match the flag was raised in (a second match_start reseats the table)
            "player": flag_player(flag, lines) if lines else None,
            "clause": clause_text(flag["rule"]) if flag.get("rule") else "",
            "event": event,
            "event_json": json.dumps({k: v for k, v in (event or {}).items() if k != "log_line"}, ensure_ascii=False),
            "missed_json": json.dumps({"type": "draw", "seat": seat, "count": 1}),
            "evidence": _evidence_for(tables[flag["table"]].id, flag["t"]),
        })
    rulings = svc.store.rulings(table_id)
    # the newest ruling of each flag is its decision now: the Decided list offers to change that one
    latest = {(r["table"], r["flag_id"]): r["event_seq"] for r in rulings if r["kind"] == "ruling" and r["flag_id"]}
    decided = list(reversed(rulings))[:20]
    return render_template("referee.html", flags=cards, decided=decided, tables=list(tables.values()), only=only,
                           latest=latest)


def _flagged_event(tl: TableLive, lines: GameLines, line: Any) -> dict[str, Any] | None:
    """The event on a flagged line as the game now has it, to pre-fill its correction: the logged event, or the
    event a referee's `insert` put there (the inserted event takes the insert's line, and a correction of that
    line replaces the inserted event: README "Corrections"), or the latest correction of the line. Never the
    `insert` or `correction` object itself, which a correction can't put in its place."""
    if isinstance(line, bool) or not isinstance(line, int) or not 0 < line <= len(tl.bodies):
        return None
    body = tl.bodies[line - 1]
    if body.get("type") not in REFEREE_TYPES and lines.events.get(line) is tl.events[line - 1]:
        return dict(body)  # as logged: the rig's own object
    event = lines.events.get(line)
    return event_to_dict(event) if event is not None else None


@bp.post("/rule")
@referee_required
def rule() -> Any:
    user = current_user()
    assert user is not None
    table, flag_id, decision = request.form.get("table", ""), request.form.get("flag", ""), request.form.get("decision", "")
    note = request.form.get("note", "").strip() or None
    seen = request.form.get("seen") or None
    try:
        line = _svc().live.rule(table, flag_id, decision, user["username"], note, seen=seen)
    except RulingConflict as exc:  # another referee ruled since this page was loaded: say so, offer to rule anyway
        back = _local(request.form.get("back")) or url_for("referee.queue")
        return render_template("referee_conflict.html", table=table, flag=flag_id, message=str(exc),
                               status=exc.current, decision=decision, note=note or "", back=back), 409
    except PostError as exc:
        abort(exc.status, description=str(exc))
    flash(f"Flag {flag_id} on {table} {decision} (log line {line}).", "ok")
    return redirect(_local(request.form.get("back")) or url_for("referee.queue"))


def _form_line(field: str, what: str) -> int:
    """A log line number from the form (400 naming the field otherwise)."""
    try:
        return int(request.form.get(field, ""))
    except ValueError:
        abort(400, description=f"bad line {request.form.get(field)!r}: expected {what}")


def _form_event(what: str, example: str) -> dict[str, Any]:
    """The event typed into the form as a JSON object (400 saying what is wrong with it otherwise)."""
    try:
        event = json.loads(request.form.get("event", ""))
    except json.JSONDecodeError as exc:
        abort(400, description=f"the {what} event is not valid JSON ({exc.msg} at column {exc.colno})")
    except (RecursionError, ValueError):
        abort(400, description=f"the {what} event is not valid JSON (nested too deeply, or a number too long)")
    if not isinstance(event, dict):
        abort(400, description=f"the {what} event must be a JSON object{example}")
    return event


@bp.post("/correct")
@referee_required
def correct() -> Any:
    user = current_user()
    assert user is not None
    table = request.form.get("table", "")
    line = _form_line("line", "a log line number")
    note = request.form.get("note", "").strip() or None
    new_event = None if request.form.get("strike") == "on" else _form_event("corrected", " (or tick 'strike')")
    try:
        at = _svc().live.correct(table, line, new_event, user["username"], note)
    except PostError as exc:
        abort(exc.status, description=str(exc))
    flash(f"Line {line} on {table} {'struck' if new_event is None else 'corrected'} (log line {at}).", "ok")
    return redirect(_local(request.form.get("back")) or url_for("referee.queue"))


@bp.post("/insert")
@referee_required
def insert_missed() -> Any:
    """A missed event (a draw the camera didn't see) put at its place in the game, after the line the form names."""
    user = current_user()
    assert user is not None
    table = request.form.get("table", "")
    after = _form_line("after", "the log line the missed event follows")
    note = request.form.get("note", "").strip() or None
    new_event = _form_event("missed", ', e.g. {"type": "draw", "seat": 1}')
    try:
        at = _svc().live.insert(table, after, new_event, user["username"], note)
    except PostError as exc:
        abort(exc.status, description=str(exc))
    flash(f"A missed {new_event.get('type', 'event')} inserted after line {after} on {table} (log line {at}).", "ok")
    return redirect(_local(request.form.get("back")) or url_for("referee.queue"))


@bp.post("/tables/<table>/delay")
@referee_required
def set_delay(table: str) -> Any:
    svc = _svc()
    info = svc.store.table(table)
    if info is None:
        abort(404, description=f"no table named {table!r}")
    try:
        svc.store.set_broadcast_delay(info.id, float(request.form.get("delay", "")))
    except (ValueError, StoreError) as exc:
        abort(400, description=f"bad delay: {exc}")
    svc.live.refresh_info(table)
    flash(f"Broadcast delay of {table} set to {float(request.form['delay']):g} s.", "ok")
    return redirect(url_for("referee.queue"))


def _audit_rows() -> list[dict[str, Any]]:
    only = request.args.get("table")
    svc = _svc()
    table_id = None
    if only:
        info = svc.store.table(only)
        if info is None:
            abort(404, description=f"no table named {only!r}")
        table_id = info.id
    rows: list[dict[str, Any]] = svc.store.rulings(table_id)
    for r in rows:
        r["at_iso"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(r["at"]))
    return rows


@bp.get("/audit.json")
@referee_required
def audit_json() -> Any:
    rows = _audit_rows()
    for r in rows:
        r["detail"] = json.loads(r["detail"]) if r["detail"] else None
    return jsonify({"rulings": [{k: r.get(k) for k in AUDIT_FIELDS} for r in rows]})


@bp.get("/audit.csv")
@referee_required
def audit_csv() -> Any:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=AUDIT_FIELDS, extrasaction="ignore")
    writer.writeheader()
    for r in _audit_rows():
        writer.writerow({k: spreadsheet_safe(v) for k, v in r.items()})
    return Response(buf.getvalue(), mimetype="text/csv",
                    headers={"Content-Disposition": "attachment; filename=unotable-audit.csv"})


@bp.get("/evidence/<int:evidence_id>")
@referee_required
def evidence(evidence_id: int) -> Any:
    svc = _svc()
    if evidence_id > 2**63 - 1:  # beyond any row id the database can hold
        abort(404, description=f"no evidence {evidence_id}")
    item = svc.store.evidence_item(evidence_id)
    if item is None:
        abort(404, description=f"no evidence {evidence_id}")
    path = (svc.store.evidence_dir / item["path"]).resolve()
    if svc.store.evidence_dir.resolve() not in path.parents or not path.is_file():
        abort(404, description=f"evidence {evidence_id} is missing on disk")
    return send_file(path, mimetype=item["mime"], conditional=True)


@bp.get("/clip/<table>.mjpg")
@referee_required
def clip(table: str) -> Any:
    """The archived camera frames around `t` played back at their own pace (MJPEG), when the rig sent no clip."""
    svc = _svc()
    info = svc.store.table(table)
    if info is None:
        abort(404, description=f"no table named {table!r}")
    try:
        t = float(request.args.get("t", ""))
    except ValueError:
        abort(400, description="bad t: expected seconds")
    if not math.isfinite(t):
        abort(400, description="bad t: expected a finite number of seconds")
    window = float(current_app.config["EVIDENCE_WINDOW_S"])
    frames = svc.store.evidence(info.id, t - window, t + window, kinds=["frame"])
    paths = [(e["t"], svc.store.evidence_dir / e["path"]) for e in frames]

    def gen() -> Iterator[bytes]:
        yield MJPEG_START
        prev = None
        for ft, path in paths:
            if prev is not None:
                time.sleep(min(1.0, max(0.0, ft - prev)))
            prev = ft
            try:
                yield mjpeg_part(path.read_bytes())
            except OSError:
                continue

    return Response(gen(), mimetype=f"multipart/x-mixed-replace; boundary={BOUNDARY}", direct_passthrough=True)


def _local(back: str | None) -> str | None:
    """Where to go after a decision: only a path on this dashboard, never another site (an open redirect)."""
    if not back or not back.startswith("/") or back.startswith("//") or "\\" in back:
        return None
    return back
