"""Evidence uploads, the camera view, the broadcast delay and the public (hand-free) stream."""

from __future__ import annotations

import io
import json
import socket
import struct
import threading
import time
import urllib.request
from typing import Any

import cv2
import numpy as np
import pytest

START = [
    {"t": 0.0, "type": "match_start", "ruleset": "mattel", "players": ["Ann", "Bob", "Cy"]},
    {"t": 1.0, "type": "hand_start", "dealer": 0},
    {"t": 2.0, "type": "starter", "card": "red-5"},
]


def jpeg(w: int = 320, h: int = 180, value: int = 90) -> bytes:
    ok, buf = cv2.imencode(".jpg", np.full((h, w, 3), value, np.uint8))
    assert ok
    return bytes(buf)


def wav(seconds: float = 0.5, rate: int = 16000) -> bytes:
    n = int(seconds * rate)
    data = (np.sin(np.arange(n) * 2 * np.pi * 440 / rate) * 8000).astype("<i2").tobytes()
    header = b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVEfmt " + struct.pack("<IHHIIHH", 16, 1, 1, rate, rate * 2, 2, 16)
    return header + b"data" + struct.pack("<I", len(data)) + data


def upload(c: Any, h: Any, token: str, kind: str, t: float, data: bytes, name: str, **extra: str) -> Any:
    return c.post("/api/tables/t1/evidence", headers=h.bearer(token),
                  data={"kind": kind, "t": str(t), "file": (io.BytesIO(data), name), **extra})


def test_evidence_uploads_are_checked_and_stored_beside_the_database(sqlite_app: Any, h: Any) -> None:
    token = h.add_table(sqlite_app)
    c = sqlite_app.test_client()
    r = upload(c, h, token, "frame", 4.5, jpeg(), "f.jpg")
    assert r.status_code == 201 and r.get_json()["mime"] == "image/jpeg"
    assert upload(c, h, token, "audio", 3.0, wav(), "a.wav", duration="2.5").status_code == 201
    mp4 = b"\x00\x00\x00\x18ftypmp42" + bytes(64)
    assert upload(c, h, token, "clip", 3.5, mp4, "c.mp4").get_json()["mime"] == "video/mp4"
    for kind, data, problem in [("frame", wav(), "not a frame"), ("audio", jpeg(), "not a audio"),
                                ("movie", jpeg(), "bad kind"), ("frame", jpeg(), "")]:
        extra = {} if problem else {"t": "soon"}
        r = c.post("/api/tables/t1/evidence", headers=h.bearer(token),
                   data={"kind": kind, "t": "1", **extra, "file": (io.BytesIO(data), "x")})
        assert r.status_code == 400 and (problem or "bad 't'") in r.get_json()["error"]
    store = sqlite_app.extensions["unotable"].store
    items = store.evidence(store.table("t1").id, 0, 10)
    assert [(e["kind"], e["t"]) for e in items] == [("audio", 3.0), ("clip", 3.5), ("frame", 4.5)]
    for e in items:
        path = store.evidence_dir / e["path"]
        assert path.is_file() and path.parent.parent.parent == store.evidence_dir
        assert path.read_bytes()[:4] in (b"RIFF", b"\x00\x00\x00\x18", jpeg()[:4])
    assert store.evidence_dir.parent == store.evidence_dir.parent.parent / "data"  # beside unotable.db


def test_frames_are_drawn_on_and_archived(sqlite_app: Any, h: Any) -> None:
    token = h.add_table(sqlite_app)
    c = sqlite_app.test_client()
    overlay = {"zones": [{"name": "discard", "points": [[10, 10], [150, 10], [150, 100], [10, 100]]}],
               "detections": [{"card": "red-7", "box": [180, 40, 260, 150], "confidence": 0.93}]}
    for t in (1.0, 1.4, 2.1):
        r = c.post("/api/tables/t1/frames", headers=h.bearer(token),
                   data={"t": str(t), "overlay": json.dumps(overlay), "frame": (io.BytesIO(jpeg()), "f.jpg")})
        assert r.status_code == 200
    assert [r.get_json()["kept"] for r in [r]] == [True]
    store = sqlite_app.extensions["unotable"].store
    kept = store.evidence(store.table("t1").id, 0, 10, kinds=["frame"])
    assert [e["t"] for e in kept] == [1.0, 2.1]  # one a second of match time
    latest = sqlite_app.extensions["unotable"].camera.latest("t1")
    img = cv2.imdecode(np.frombuffer(latest.jpeg, np.uint8), cv2.IMREAD_COLOR)
    b, g, r_ = (int(v) for v in img[40, 220])  # the red box's top edge
    assert r_ > 150 and g < 100 and b < 100
    assert int(img[10, 80][0]) > 200  # the zone's white outline
    assert abs(int(img[170, 300][0]) - 90) < 10  # elsewhere the frame is untouched
    bad = c.post("/api/tables/t1/frames", headers=h.bearer(token),
                 data={"t": "3", "overlay": '{"detections": [{"box": [1, 2]}]}', "frame": (io.BytesIO(jpeg()), "f.jpg")})
    assert bad.status_code == 400 and "box" in bad.get_json()["error"]
    for overlay, word in (('{"detections": [{"box": [1e300, 2, 3, 4]}]}', "box"),
                          ('{"zones": [{"points": [[0, 0], [10, 0], [100000000000000000000, 5]]}]}', "points"),
                          ('{"detections": [{"box": [1, 2, 3, 4], "confidence": "high"}]}', "confidence")):
        bad = c.post("/api/tables/t1/frames", headers=h.bearer(token),
                     data={"t": "3", "overlay": overlay, "frame": (io.BytesIO(jpeg()), "f.jpg")})
        assert bad.status_code == 400 and word in bad.get_json()["error"], overlay


def test_the_camera_view_is_mjpeg(live_server: Any, sqlite_app: Any, h: Any) -> None:
    token = h.add_table(sqlite_app)
    resp = urllib.request.urlopen(f"{live_server.url}/api/tables/t1/camera.mjpg", timeout=10)
    assert resp.headers["Content-Type"].startswith("multipart/x-mixed-replace")
    first = resp.read(2000)
    assert b"Content-Type: image/jpeg" in first  # the placeholder, before any frame
    frame = jpeg(value=200)
    sqlite_app.extensions["unotable"].camera.put("t1", frame, 5.0)
    buf = b""
    deadline = time.time() + 5
    while frame not in buf and time.time() < deadline:
        buf += resp.read1(65536)
    resp.close()
    assert frame in buf
    assert token


def test_a_delayed_tables_camera_is_off_air_for_the_public_and_live_for_its_rig(sqlite_app: Any, h: Any) -> None:
    """A broadcast delay holds the table back from the public so that nobody at the table reads the game from the
    stream; a live camera would give it away. The rig (and a referee) still see it live."""
    token = h.add_table(sqlite_app)
    svc = sqlite_app.extensions["unotable"]
    svc.store.set_broadcast_delay(svc.store.table("t1").id, 30)
    svc.live.refresh_info("t1")
    frame = jpeg(value=200)
    svc.camera.put("t1", frame, 5.0)
    c = sqlite_app.test_client()
    public = c.get("/api/tables/t1/camera.mjpg")
    assert public.status_code == 200 and public.mimetype == "multipart/x-mixed-replace"
    assert frame not in public.data and b"Content-Type: image/jpeg" in public.data
    rig = c.get("/api/tables/t1/camera.mjpg", headers=h.bearer(token), buffered=False)
    first = next(iter(rig.response))
    rig.close()
    assert frame in first


def test_the_referee_sees_evidence_near_the_flag(sqlite_app: Any, h: Any, flagged_log: list[dict[str, Any]]) -> None:
    token = h.add_table(sqlite_app)
    h.add_user(sqlite_app)
    c = sqlite_app.test_client()
    c.post("/api/tables/t1/events", json=flagged_log, headers=h.bearer(token))
    flag = next(f for f in c.get("/api/tables/t1/flags").get_json()["flags"] if f["code"] == "missed_uno")
    t = flag["t"]
    for dt in (-2.0, -1.0, 1.0, 2.0, 40.0):
        upload(c, h, token, "frame", max(0.0, t + dt), jpeg(), "f.jpg")
    upload(c, h, token, "audio", max(0.0, t - 3), wav(), "a.wav", duration="4")
    h.login(c)
    page = c.get("/referee").text
    card = page[page.index(f'data-flag="{flag["id"]}"'):]
    card = card[:card.index("</article>")]
    assert card.count("frame before") == 2 and card.count("frame after") == 2  # not the one 40 s away
    assert "<audio" in card
    src = card.split('src="')[1].split('"')[0]
    assert c.get(src).status_code == 200 and c.get(src).data[:3] == b"\xff\xd8\xff"
    assert sqlite_app.test_client().get(src).status_code == 302  # evidence is for referees only


def _read_frames(url: str, stop: threading.Event, out: list[tuple[float, str, dict[str, Any]]]) -> None:
    """A bare SSE client on a socket with a short timeout, so that the test can stop it at once."""
    host, port = url.split("//")[1].split("/")[0].split(":")
    path = "/" + url.split("//")[1].split("/", 1)[1]
    with socket.create_connection((host, int(port)), timeout=5) as sock:
        sock.sendall(f"GET {path} HTTP/1.0\r\nHost: {host}\r\nAccept: text/event-stream\r\n\r\n".encode())
        sock.settimeout(0.1)
        buf = b""
        while not stop.is_set():
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                continue
            if not chunk:
                return
            buf += chunk
            for frame in buf.split(b"\n\n")[:-1]:
                lines = frame.decode().splitlines()
                fields = dict(line.split(": ", 1) for line in lines if ": " in line and not line.startswith(":"))
                if "data" in fields:
                    out.append((time.time(), fields["event"], json.loads(fields["data"])))
            buf = buf.split(b"\n\n")[-1]


def _post(server: Any, token: str, body: Any) -> None:
    req = urllib.request.Request(f"{server.url}/api/tables/t1/events", data=json.dumps(body).encode(),
                                 headers={"Authorization": f"Bearer {token}"})
    urllib.request.urlopen(req, timeout=10).read()


@pytest.mark.parametrize("delay", [1.5])
def test_the_broadcast_delay_holds_everything_back(live_server: Any, sqlite_app: Any, h: Any, delay: float) -> None:
    token = h.add_table(sqlite_app)
    _post(live_server, token, START[:2])
    time.sleep(delay + 0.2)  # these two are old enough to be in the delayed snapshot
    _post(live_server, token, START[2])  # stored before the overlay connects, still inside the delay
    t_starter = time.time()
    got: list[tuple[float, str, dict[str, Any]]] = []
    stop = threading.Event()
    url = f"{live_server.url}/api/tables/t1/stream?delay={delay}&view=public"
    reader = threading.Thread(target=_read_frames, args=(url, stop, got), daemon=True)
    reader.start()
    time.sleep(0.3)
    t_play = time.time()
    _post(live_server, token, {"t": 3.0, "type": "play", "seat": 1, "cards": ["red-7"]})
    deadline = time.time() + delay + 3
    while time.time() < deadline and not any(p["seq"] >= 4 for _t, _k, p in got):
        time.sleep(0.05)
    stop.set()
    reader.join(5)
    assert got[0][1] == "snapshot" and got[0][2]["seq"] == 2 and got[0][2]["state"]["top_card"] is None
    starter = next((at, p) for at, _k, p in got if p["seq"] == 3)
    play = next((at, p) for at, _k, p in got if p["seq"] == 4)
    assert starter[0] >= t_starter + delay - 0.25 and starter[1]["state"]["top_card"] == "red-5"
    assert play[0] >= t_play + delay - 0.05 and play[1]["state"]["top_card"] == "red-7"
    assert play[0] <= t_play + delay + 1.0


def test_the_public_stream_never_carries_a_hand(sqlite_app: Any, h: Any) -> None:
    from web.live import public_event

    token = h.add_table(sqlite_app)
    h.add_user(sqlite_app)
    c = sqlite_app.test_client()
    ref = sqlite_app.test_client()
    assert h.login(ref).status_code == 302
    resp = c.get("/api/tables/t1/stream?view=public", buffered=False)
    anyone = c.get("/api/tables/t1/stream", buffered=False)  # the public view, asked for or not
    full = ref.get("/api/tables/t1/stream", buffered=False)  # the referee's
    c.post("/api/tables/t1/events", json=START, headers=h.bearer(token))
    c.post("/api/tables/t1/events", json={"t": 9, "type": "reveal", "seat": 2, "cards": ["blue-4", "wild"]},
           headers=h.bearer(token))
    texts = []
    for r in (resp, anyone, full):
        buf = b""
        for chunk in r.response:
            buf += chunk
            if buf.count(b"event: update") >= 2:
                break
        r.close()
        texts.append(buf.decode())
    assert "blue-4" not in texts[0] and '"cards":2' in texts[0]
    assert "blue-4" not in texts[1] and '"cards":2' in texts[1]
    assert "blue-4" in texts[2]
    assert public_event({"type": "correction", "line": 3, "event": {"type": "reveal", "cards": ["red-1"]}})["event"]["cards"] == 1


def test_bad_delay_is_refused(sqlite_app: Any, h: Any) -> None:
    h.add_table(sqlite_app)
    c = sqlite_app.test_client()
    assert c.get("/api/tables/t1/stream?delay=soon").status_code == 400
    assert c.get("/api/tables/t1/stream?delay=-1").status_code == 400
    assert c.get("/overlay/t1?delay=9999").status_code == 400
    sqlite_app.extensions["unotable"].store.set_broadcast_delay(sqlite_app.extensions["unotable"].store.table("t1").id, 30)
    sqlite_app.extensions["unotable"].live.refresh_info("t1")
    page = c.get("/overlay/t1?delay=5").text  # a stream can be held back longer, never less
    assert 'data-delay="30.0"' in page


def test_the_referee_can_play_archived_frames_as_a_clip(sqlite_app: Any, h: Any) -> None:
    token = h.add_table(sqlite_app)
    h.add_user(sqlite_app)
    c = sqlite_app.test_client()
    frames = [jpeg(value=v) for v in (40, 120, 200)]
    for t, f in zip((10.0, 10.2, 10.4), frames, strict=True):
        upload(c, h, token, "frame", t, f, "f.jpg")
    upload(c, h, token, "frame", 60.0, jpeg(value=10), "far.jpg")
    assert c.get("/referee/clip/t1.mjpg?t=10.2").status_code == 302  # referees only
    h.login(c)
    r = c.get("/referee/clip/t1.mjpg?t=10.2")
    assert r.mimetype == "multipart/x-mixed-replace"
    body = r.get_data()
    assert [body.index(f) for f in frames] == sorted(body.index(f) for f in frames)  # in time order
    assert body.count(b"Content-Type: image/jpeg") == 4  # three frames and the next part's header; not t=60
    assert c.get("/referee/clip/t1.mjpg?t=soon").status_code == 400


def test_a_tables_broadcast_delay_binds_anonymous_readers(sqlite_app: Any, h: Any) -> None:
    """With a delay set, the public (and the overlay's operator) read the table as it stood `delay` s ago; referees,
    spectator accounts and the table's own rig read it live."""
    token = h.add_table(sqlite_app, broadcast_delay=30)
    h.add_user(sqlite_app, "fan", role="spectator")
    rig = sqlite_app.test_client()
    rig.post("/api/tables/t1/events", json=START, headers=h.bearer(token))
    anon = sqlite_app.test_client()
    assert anon.get("/api/tables/t1/state").get_json()["lines"] == 0
    assert anon.get("/api/tables/t1/events").get_json()["events"] == []
    assert anon.get("/api/tables/t1/state?delay=0").get_json()["state"]["top_card"] is None
    resp = anon.get("/api/tables/t1/stream", buffered=False)
    first = next(iter(resp.response))
    resp.close()
    assert b'"seq":0' in first and b"red-5" not in first
    assert rig.get("/api/tables/t1/state", headers=h.bearer(token)).get_json()["state"]["top_card"] == "red-5"
    fan = sqlite_app.test_client()
    h.login(fan, "fan")
    assert fan.get("/api/tables/t1/state").get_json()["state"]["top_card"] == "red-5"
    assert len(fan.get("/api/tables/t1/events").get_json()["events"]) == 3
