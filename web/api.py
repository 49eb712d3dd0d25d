"""The JSON API: rigs post events, frames and evidence with their table's bearer token; anyone may read, and
everyone but a referee and the table's own rig reads the public view (a hand still in play never shown).

Writes answer only after the store has committed them. Errors are JSON `{"error": "..."}` naming the problem, with
400 for a bad request (bad JSON, unknown type or card, time going backwards), 401/403 for a missing or wrong token,
404 for an unknown table.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from collections import deque
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response, abort, current_app, jsonify, request

from .auth import current_user
from .camera import BOUNDARY, MJPEG_START, FrameError, annotate, mjpeg_part, parse_overlay, placeholder_jpeg
from .live import LiveTables, PostError, TableLive, public_event, public_flags, public_state, sse_frame

bp = Blueprint("api", __name__, url_prefix="/api")

KEEPALIVE_S = 15.0
MAX_DELAY_S = 600.0
EVIDENCE_KINDS = {
    "frame": {b"\xff\xd8\xff": ("image/jpeg", "jpg"), b"\x89PNG": ("image/png", "png")},
    "clip": {b"ftyp": ("video/mp4", "mp4"), b"\x1aE\xdf\xa3": ("video/webm", "webm"), b"\xff\xd8\xff": ("video/x-motion-jpeg", "mjpeg")},
    "audio": {b"RIFF": ("audio/wav", "wav"), b"OggS": ("audio/ogg", "ogg"), b"fLaC": ("audio/flac", "flac")},
}


def services() -> Any:
    return current_app.extensions["unotable"]


def error(message: str, status: int) -> Response:
    resp = jsonify({"error": message})
    resp.status_code = status
    return resp


def _table_or_404(name: str) -> TableLive:
    tl = services().live.get(name)
    if tl is None:
        abort(error(f"no table named {name!r}", 404))
    return tl  # type: ignore[no-any-return]


def _bearer() -> str:
    """The request's bearer token, or "" (the scheme's name is case-insensitive, RFC 7235)."""
    header = request.headers.get("Authorization", "")
    return header[7:].strip() if header[:7].lower() == "bearer " else ""


def _require_token(tl: TableLive) -> None:
    """A table's token may write to that table only."""
    token = _bearer()
    if not token:
        abort(error("missing table token: send 'Authorization: Bearer <token>' (from `unotable table add`)", 401))
    if not services().store.token_matches(tl.info, token):
        abort(error(f"this token may not post to table {tl.info.name!r}", 403))


@bp.get("/tables")
def tables() -> Response:
    live: LiveTables = services().live
    out = []
    for info in services().store.tables():
        tl = live.get(info.name)
        out.append({"name": info.name, "lines": tl.seq if tl else 0, "ruleset": info.ruleset,
                    "broadcast_delay": info.broadcast_delay, "stage": info.stage})
    return jsonify({"tables": out})


@bp.post("/tables/<table>/events")
def post_events(table: str) -> Response:
    tl = _table_or_404(table)
    _require_token(tl)
    raw = request.get_data(cache=False)
    try:
        body = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        detail = f"{exc.msg} (line {exc.lineno}, column {exc.colno})" if isinstance(exc, json.JSONDecodeError) else "not UTF-8"
        return error(f"bad JSON: {detail}", 400)
    except RecursionError:
        return error("bad JSON: nested too deeply", 400)
    except ValueError as exc:  # e.g. an integer of thousands of digits
        return error(f"bad JSON: {exc}", 400)
    single = isinstance(body, dict)
    if not single and not isinstance(body, list):
        return error("post one event (a JSON object) or a list of events", 400)
    try:
        lines = services().live.post(table, [body] if single else body)
    except PostError as exc:
        return error(str(exc), exc.status)
    out: dict[str, Any] = {"table": table, "accepted": len(lines), "lines": lines}
    if len(lines) < (1 if single else len(body)):
        out["duplicates"] = (1 if single else len(body)) - len(lines)  # resent by a rig agent: stored once
    resp = jsonify(out)
    resp.status_code = 201 if single else 200
    return resp


def _own_rig(tl: TableLive) -> bool:
    """The request carries the table's own rig token."""
    token = _bearer()
    return bool(token) and services().store.token_matches(tl.info, token)


def private_reader(tl: TableLive) -> bool:
    """Who may see a hand still in play (a Wild Draw Four challenge's: MA-CHALLENGE shows it to the challenger,
    FA-W4 to the referee) and the referee's full messages: a referee, and the table's own rig, which posted it.
    Everyone else (the public, a spectator account, the overlay) reads the public view."""
    user = current_user()
    if user is not None:
        return user["role"] == "referee"
    return _own_rig(tl)


def viewer_delay(tl: TableLive) -> float:
    """The broadcast delay this reader must get: a table's delay binds anonymous readers (the public, the stream
    operator's overlay), not a logged-in referee or spectator account, nor the table's own rig."""
    delay = float(tl.info.broadcast_delay)
    if delay <= 0 or current_user() is not None or _own_rig(tl):
        return 0.0
    return delay


def _view(tl: TableLive, all_events: bool = False) -> dict[str, Any]:
    """What this reader may see now: the live table, or the table as it stood `viewer_delay` seconds ago."""
    delay = viewer_delay(tl)
    public = not private_reader(tl)
    if delay > 0:
        view: dict[str, Any] = services().live.delayed_snapshot(tl, time.time() - delay, public=public,
                                                recent=None if all_events else 0)
        view["delayed_s"] = delay
        return view
    with tl.lock:
        if public:
            return {"seq": tl.seq, "state": public_state(tl.state), "scores": tl.scores,
                    "flags": public_flags(tl.flags),
                    "events": [public_event(b) for b in tl.bodies] if all_events else []}
        return {"seq": tl.seq, "state": tl.state, "scores": tl.scores, "flags": list(tl.flags),
                "events": list(tl.bodies) if all_events else []}


@bp.get("/tables/<table>/events")
def get_events(table: str) -> Response:
    tl = _table_or_404(table)
    return jsonify({"table": table, "events": _view(tl, all_events=True)["events"]})


@bp.get("/tables/<table>/state")
def get_state(table: str) -> Response:
    view = _view(_table_or_404(table))
    return jsonify({"table": table, "lines": view["seq"], "state": view["state"]})


@bp.get("/tables/<table>/flags")
def get_flags(table: str) -> Response:
    status = request.args.get("status")
    if status is not None and status not in ("open", "upheld", "dismissed"):
        return error(f"bad status {status!r}: expected open, upheld or dismissed", 400)
    flags = [f for f in _view(_table_or_404(table))["flags"] if status is None or f.get("status") == status]
    return jsonify({"table": table, "flags": flags})


@bp.get("/tables/<table>/scores")
def get_scores(table: str) -> Response:
    view = _view(_table_or_404(table))
    return jsonify({"table": table, "scores": view["scores"], "players": view["state"].get("players", [])})


@bp.get("/tables/<table>/stream")
def stream(table: str) -> Response:
    """Server-Sent Events: a `snapshot` first, then an `update` for every post. `?delay=S` holds everything back
    S seconds (a broadcast delay); `?view=public` hides revealed hands (overlays)."""
    tl = _table_or_404(table)
    try:
        delay = float(request.args.get("delay", "0") or 0)
    except ValueError:
        return error(f"bad delay {request.args.get('delay')!r}: expected seconds", 400)
    if not 0 <= delay <= MAX_DELAY_S:
        return error(f"bad delay {delay:g}: expected 0-{MAX_DELAY_S:g} seconds", 400)
    if request.args.get("view") not in (None, "public"):
        return error(f"bad view {request.args.get('view')!r}: the only view is 'public' (revealed hands hidden)", 400)
    # the full stream is the referee's and the rig's: anyone else gets the public one, asked for or not
    public = request.args.get("view") == "public" or not private_reader(tl)
    delay = max(delay, viewer_delay(tl))
    gen = _delayed_stream(tl, delay, public) if delay > 0 else _live_stream(tl, public)
    return Response(gen, mimetype="text/event-stream", direct_passthrough=True,
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


def _live_stream(tl: TableLive, public: bool) -> Iterator[bytes]:
    svc = services()
    hub, live = svc.hub, svc.live
    with tl.lock:  # publishes happen under this lock: nothing falls between the snapshot and the subscription
        sub = hub.subscribe(tl.info.name)
        snap = live.snapshot(tl, public=public)

    def gen() -> Iterator[bytes]:
        try:
            yield b"retry: 1000\n\n" + sse_frame("snapshot", snap["seq"], snap)
            last = snap["seq"]
            while True:
                msg = sub.get(KEEPALIVE_S)
                if msg is None:
                    if sub.closed or sub.overflowed:
                        return
                    yield b": keep-alive\n\n"
                    continue
                if msg.seq > last:
                    yield msg.public_frame if public else msg.frame
                    last = msg.seq
        finally:
            hub.unsubscribe(sub)

    return gen()


def _delayed_stream(tl: TableLive, delay: float, public: bool) -> Iterator[bytes]:
    """Nothing leaves before `delay` seconds have passed since the server stored it (as a chess broadcast)."""
    svc = services()
    hub, live, store = svc.hub, svc.live, svc.store
    with tl.lock:
        sub = hub.subscribe(tl.info.name)
        seq_at_sub = tl.seq
    start = time.time()
    snap = live.delayed_snapshot(tl, start - delay, public=public)
    # events stored before we subscribed but after the delayed snapshot: released as snapshots when due
    pending = deque(
        e.received_at for e in store.events(tl.info.id) if snap["seq"] < e.seq <= seq_at_sub
    )

    def gen() -> Iterator[bytes]:
        buffered: deque[Any] = deque()
        last_write = time.time()
        try:
            yield b"retry: 1000\n\n" + sse_frame("snapshot", snap["seq"], snap)
            last = snap["seq"]
            while True:
                now = time.time()
                if pending and pending[0] + delay <= now:
                    while pending and pending[0] + delay <= now:
                        pending.popleft()
                    s = live.delayed_snapshot(tl, now - delay, public=public)
                    if s["seq"] > last:
                        yield sse_frame("snapshot", s["seq"], s)
                        last, last_write = s["seq"], now
                    continue
                if not pending and buffered and buffered[0].received_at + delay <= now:
                    msg = buffered.popleft()
                    if msg.seq > last:
                        yield msg.public_frame if public else msg.frame
                        last, last_write = msg.seq, now
                    continue
                due = [p + delay for p in list(pending)[:1]] + [m.received_at + delay for m in list(buffered)[:1]]
                wait = min([KEEPALIVE_S, *(d - now for d in due)])
                msg = sub.get(max(0.005, wait))
                if msg is not None:
                    buffered.append(msg)
                elif sub.closed or sub.overflowed:
                    return
                elif time.time() - last_write >= KEEPALIVE_S:
                    yield b": keep-alive\n\n"
                    last_write = time.time()
        finally:
            hub.unsubscribe(sub)

    return gen()


# -- evidence and the camera ---------------------------------------------------------------------------------
def _float_field(name: str, required: bool = True) -> float | None:
    raw = request.form.get(name)
    if raw is None or raw == "":
        if required:
            abort(error(f"missing field {name!r}: seconds since the match started", 400))
        return None
    try:
        value = float(raw)
    except ValueError:
        abort(error(f"bad {name!r} {raw!r}: expected a number of seconds", 400))
    if not value >= 0 or value == float("inf"):
        abort(error(f"bad {name!r} {raw!r}: expected a number of seconds >= 0", 400))
    return value


@bp.post("/tables/<table>/evidence")
def post_evidence(table: str) -> Response:
    """Store an evidence file (frame JPEG/PNG, clip MP4/WebM/MJPEG, audio WAV/OGG/FLAC) taken at match time `t`."""
    tl = _table_or_404(table)
    _require_token(tl)
    kind = request.form.get("kind", "")
    if kind not in EVIDENCE_KINDS:
        return error(f"bad kind {kind!r}: expected one of {', '.join(EVIDENCE_KINDS)}", 400)
    t = _float_field("t")
    duration = _float_field("duration", required=False)
    upload = request.files.get("file")
    if upload is None:
        return error("missing file: send the evidence as the multipart field 'file'", 400)
    data = upload.read()
    sniff = next(((m, ext) for magic, (m, ext) in EVIDENCE_KINDS[kind].items()
                  if data.startswith(magic) or (magic == b"ftyp" and data[4:8] == magic)), None)  # MP4: box size first
    if sniff is None:
        allowed = ", ".join(ext for _m, ext in EVIDENCE_KINDS[kind].values())
        return error(f"file is not a {kind} this dashboard accepts ({allowed})", 400)
    assert t is not None
    rel = _save_evidence(table, kind, t, sniff[1], data)
    ev_id = services().store.add_evidence(tl.info.id, kind, t, rel, sniff[0], data, duration)
    resp = jsonify({"id": ev_id, "kind": kind, "t": t, "mime": sniff[0]})
    resp.status_code = 201
    return resp


def _save_evidence(table: str, kind: str, t: float, ext: str, data: bytes) -> str:
    """Write atomically under <evidence>/<table>/<kind>/ and return the path relative to the evidence folder."""
    store = services().store
    rel = f"{table}/{kind}/{t:012.3f}-{secrets.token_hex(4)}.{ext}"
    dest = store.evidence_dir / rel
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_suffix(dest.suffix + ".part")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, dest)
    return rel


@bp.post("/tables/<table>/frames")
def post_frame(table: str) -> Response:
    """The rig's newest camera frame (`frame`, JPEG) at match time `t`, with `overlay` JSON (zones, detections)
    to draw. One frame a second (of match time) is kept as evidence for the referee."""
    tl = _table_or_404(table)
    _require_token(tl)
    upload = request.files.get("frame")
    if upload is None:
        return error("missing frame: send the JPEG as the multipart field 'frame'", 400)
    t = _float_field("t")
    assert t is not None
    data = upload.read()
    if not data.startswith(b"\xff\xd8\xff"):
        return error("frame is not a JPEG", 400)
    try:
        shown = annotate(data, parse_overlay(request.form.get("overlay")))
    except FrameError as exc:
        return error(str(exc), 400)
    svc = services()
    svc.camera.put(table, shown, t)
    interval = current_app.config["FRAME_ARCHIVE_INTERVAL"]
    kept = False
    last = svc.archived.get(table)
    if interval > 0 and (last is None or t >= last + interval or t < last):
        rel = _save_evidence(table, "frame", t, "jpg", shown)
        svc.store.add_evidence(tl.info.id, "frame", t, rel, "image/jpeg", shown, None)
        svc.archived[table] = t
        kept = True
    return jsonify({"table": table, "t": t, "kept": kept})


@bp.get("/tables/<table>/camera.mjpg")
def camera(table: str) -> Response:
    """The table's camera, live. A table with a broadcast delay shows the public a still instead: the stream is held
    back so that nobody at the table can read the game from it, and the camera would give it away (a referee and
    the table's rig still see it live)."""
    tl = _table_or_404(table)
    cam = services().camera
    delay = viewer_delay(tl)
    if delay > 0:
        still = MJPEG_START + mjpeg_part(placeholder_jpeg(f"camera off air: {delay:g} s delay"))
        return Response(still, mimetype=f"multipart/x-mixed-replace; boundary={BOUNDARY}",
                        headers={"Cache-Control": "no-cache"})

    def gen() -> Iterator[bytes]:
        latest = cam.latest(table)
        counter = latest.counter if latest else 0
        yield MJPEG_START + mjpeg_part(latest.jpeg if latest else placeholder_jpeg())
        while not cam.closed:
            newer = cam.wait_newer(table, counter, KEEPALIVE_S)
            if cam.closed:
                return
            if newer is None:
                yield mjpeg_part(placeholder_jpeg())
                continue
            counter = newer.counter
            yield mjpeg_part(newer.jpeg)

    return Response(gen(), mimetype=f"multipart/x-mixed-replace; boundary={BOUNDARY}", direct_passthrough=True,
                    headers={"Cache-Control": "no-cache"})
