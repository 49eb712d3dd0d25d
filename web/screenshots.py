"""Screenshots of the dashboard for the README, taken by headless Chromium from a real server on loopback.

    .venv/bin/python -m web.screenshots --out docs/screenshots

A demo table plays a simulated Mattel match with planted mistakes (so the referee has flags to review), a synthetic
overhead frame with detections is posted as the camera view and as evidence, then Chromium captures the live page,
the referee queue, the scoreboard and the overlay (the overlay over a dark backdrop, since it is transparent).
`--only tournament` takes just the tournament view: four finished ChempiUNat group tables, the semifinal and
consolation tables their proposed seating gives, half-way through their matches.
"""

from __future__ import annotations

import argparse
import io
import json
import struct
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
CARD_BGR = {"red": (61, 38, 215), "yellow": (13, 194, 244), "green": (79, 168, 47), "blue": (217, 111, 30)}


def table_frame(cards: list[tuple[str, tuple[int, int]]]) -> tuple[bytes, dict[str, Any]]:
    """A 1280x720 overhead view: green felt, a draw pile and the given cards; returns the JPEG and its overlay."""
    import cv2

    img = np.zeros((720, 1280, 3), np.uint8)
    img[:] = (60, 110, 40)
    noise = np.random.default_rng(0).integers(-12, 12, img.shape, dtype=np.int16)
    img = np.clip(img.astype(np.int16) + noise, 0, 255).astype(np.uint8)
    detections = []
    for code, (x, y) in cards:
        colour = code.split("-")[0]
        bgr = CARD_BGR.get(colour, (30, 30, 30))
        cv2.rectangle(img, (x, y), (x + 110, y + 165), (250, 250, 250), -1)
        cv2.rectangle(img, (x + 8, y + 8), (x + 102, y + 157), bgr, -1)
        label = code.split("-", 1)[1] if "-" in code else "W"
        cv2.putText(img, label[:2].upper(), (x + 25, y + 100), cv2.FONT_HERSHEY_SIMPLEX, 1.6, (255, 255, 255), 4)
        detections.append({"card": code, "box": [x - 4, y - 4, x + 114, y + 169], "confidence": 0.97})
    cv2.rectangle(img, (140, 260), (250, 425), (40, 40, 40), -1)
    cv2.putText(img, "UNO", (155, 355), cv2.FONT_HERSHEY_SIMPLEX, 1.3, (0, 200, 255), 3)
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 88])
    assert ok
    overlay = {"zones": [{"name": "discard", "points": [[520, 220], [900, 220], [900, 500], [520, 500]]},
                         {"name": "draw pile", "points": [[120, 240], [270, 240], [270, 445], [120, 445]]}],
               "detections": detections}
    return bytes(buf), overlay


def tone_wav(seconds: float = 2.0, rate: int = 16000) -> bytes:
    n = int(seconds * rate)
    data = (np.sin(np.arange(n) * 2 * np.pi * 330 / rate) * 6000).astype("<i2").tobytes()
    return (b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVEfmt " + struct.pack("<IHHIIHH", 16, 1, 1, rate, rate * 2, 2, 16)
            + b"data" + struct.pack("<I", len(data)) + data)


def _multipart(fields: dict[str, str], files: dict[str, tuple[str, bytes]]) -> tuple[bytes, str]:
    boundary = "unotableshot"
    out = io.BytesIO()
    for k, v in fields.items():
        out.write(f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode())
    for k, (name, data) in files.items():
        out.write(f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"; filename="{name}"\r\n'
                  f"Content-Type: application/octet-stream\r\n\r\n".encode() + data + b"\r\n")
    out.write(f"--{boundary}--\r\n".encode())
    return out.getvalue(), f"multipart/form-data; boundary={boundary}"


def _req(url: str, token: str, body: bytes, ctype: str) -> Any:
    r = urllib.request.Request(url, data=body, headers={"Authorization": f"Bearer {token}", "Content-Type": ctype})
    with urllib.request.urlopen(r, timeout=10) as resp:
        return json.loads(resp.read())


def demo_log() -> list[dict[str, Any]]:
    """A mid-hand log with a missed UNO and other flags (the simulator's, with planted mistakes)."""
    from tracker.engine import replay
    from tracker.log import event_to_dict, parse_event
    from tracker.simulate import SimConfig, simulate_match

    for seed in range(300):
        sim = simulate_match(SimConfig(ruleset="mattel", players=4, seed=seed, rate=0.2, max_hands=2,
                                       mistakes=("missed_uno", "illegal_card", "out_of_turn")))
        dicts = [event_to_dict(e) for e in sim.events]
        for cut in range(40, len(dicts)):
            r = replay([parse_event(d, i) for i, d in enumerate(dicts[:cut], 1)])
            if (r.state.phase == "playing" and len(r.flags) >= 3 and r.scores["hands"]
                    and any(f.code == "missed_uno" for f in r.flags)):
                return dicts[:cut]
    raise RuntimeError("no demo log found")


PLAYER_NAMES = ["Anna", "Boris", "Vera", "Gleb", "Dasha", "Egor", "Zoya", "Ilya", "Kira", "Lev", "Mila", "Nikita",
                "Olga", "Pavel", "Rita", "Semyon", "Tanya", "Ulyana", "Fedor", "Khristina", "Tsvetan", "Chulpan",
                "Yana", "Yuri"]


def chempiunat_log(players: list[str], seed: int, rate: float = 0.0, part: float = 1.0) -> list[dict[str, Any]]:
    """A simulated ChempiUNat match between these players, whole (part=1) or cut part-way (still playing)."""
    from tracker.log import event_to_dict
    from tracker.simulate import SimConfig, simulate_match

    sim = simulate_match(SimConfig(ruleset="chempiunat", players=len(players), seed=seed, rate=rate))
    log = [event_to_dict(e) for e in sim.events]
    log[0] = dict(log[0], players=list(players))
    return log if part >= 1 else log[:int(len(log) * part)]


def tournament_shot(browser: Any, out: Path) -> None:
    """Four group tables played out, then the semifinal and consolation tables of the proposed seating, under way."""
    from . import create_app
    from .server import Server

    data = Path(tempfile.mkdtemp(prefix="unotable-tournament-"))
    app = create_app({"DATA_DIR": str(data)})
    svc = app.extensions["unotable"]
    server = Server(app, "127.0.0.1", 0, threads=16).start()
    try:
        for i in range(4):
            token = svc.store.add_table(f"group-{i + 1}")[1]
            log = chempiunat_log(PLAYER_NAMES[6 * i:6 * i + 6], seed=10 + i, rate=0.004 if i == 2 else 0.0)
            _req(f"{server.url}/api/tables/group-{i + 1}/events", token, json.dumps(log).encode(), "application/json")
        with urllib.request.urlopen(f"{server.url}/api/tournament", timeout=30) as resp:
            semi = json.loads(resp.read())["progression"]["semifinal"]
        for j, seating in enumerate(semi["seatings"] + semi["dropped_seatings"]):
            stage = seating["name"].split("-")[0]
            token = svc.store.add_table(seating["name"], stage=stage)[1]
            names = [p["player"] for p in seating["players"]]
            log = chempiunat_log(names, seed=40 + j, rate=0.003 if j % 2 else 0.0, part=0.35 + 0.1 * j)
            _req(f"{server.url}/api/tables/{seating['name']}/events", token, json.dumps(log).encode(),
                 "application/json")
        page = browser.new_page(viewport={"width": 1600, "height": 1000})
        page.goto(f"{server.url}/tournament")
        page.wait_for_selector('#round-semifinal .seating[data-name="semifinal-1"]')
        page.wait_for_selector('#stage-consolation article[data-table="consolation-1"]')
        time.sleep(0.5)
        page.screenshot(path=str(out / "tournament.png"), full_page=True)
        page.close()
    finally:
        server.stop()
        svc.close()
        svc.store.dispose()


def main() -> int:
    ap = argparse.ArgumentParser(description="take the README screenshots")
    ap.add_argument("--out", type=Path, default=Path("docs/screenshots"))
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--only", choices=("tournament",), default=None,
                    help="take only this screenshot (the others need the demo table)")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    if args.only == "tournament":
        args.out.mkdir(parents=True, exist_ok=True)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=ARGS)
            tournament_shot(browser, args.out)
            browser.close()
        print(args.out / "tournament.png")
        return 0

    from . import create_app
    from .server import Server

    data = Path(tempfile.mkdtemp(prefix="unotable-shots-"))
    app = create_app({"DATA_DIR": str(data)})
    store = app.extensions["unotable"].store
    _info, token = store.add_table("hall-1")
    store.add_user("referee", "demo password 1")
    server = Server(app, "127.0.0.1", 0, threads=32).start()
    base = f"{server.url}/api/tables/hall-1"
    try:
        log = demo_log()
        _req(f"{base}/events", token, json.dumps(log).encode(), "application/json")
        state = app.extensions["unotable"].live.get("hall-1").state
        flags = app.extensions["unotable"].live.get("hall-1").flags
        top = state["top_card"] or "red-5"
        frame, overlay = table_frame([(top, (640, 270)), ("blue-7", (960, 120)), ("green-skip", (300, 520))])
        last_t = log[-1]["t"]
        for t in sorted({max(0.0, f["t"] + dt) for f in flags[-2:] for dt in (-2.0, -1.0, 1.0, 2.0)} | {last_t}):
            body, ctype = _multipart({"t": f"{t:.3f}", "overlay": json.dumps(overlay)}, {"frame": ("f.jpg", frame)})
            _req(f"{base}/frames", token, body, ctype)
        uno = next(f for f in flags if f["code"] == "missed_uno")
        body, ctype = _multipart({"kind": "audio", "t": f"{max(0.0, uno['t'] - 2):.3f}", "duration": "3"},
                                 {"file": ("uno.wav", tone_wav())})
        _req(f"{base}/evidence", token, body, ctype)
        args.out.mkdir(parents=True, exist_ok=True)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=ARGS)
            ctx = browser.new_context(viewport={"width": 1600, "height": 1000})
            page = ctx.new_page()
            page.goto(f"{server.url}/tables/hall-1")
            page.wait_for_selector("#log li")
            time.sleep(1.0)
            page.screenshot(path=str(args.out / "live.png"))
            page.goto(f"{server.url}/login?next=/referee")
            page.fill("#username", "referee")
            page.fill("#password", "demo password 1")
            page.click("#login-submit")
            page.wait_for_selector("article.flag")
            time.sleep(0.5)
            page.screenshot(path=str(args.out / "referee.png"), full_page=False)
            board = ctx.new_page()
            board.goto(f"{server.url}/scoreboard/hall-1")
            board.wait_for_selector("#totals")
            board.screenshot(path=str(args.out / "scoreboard.png"))
            ov = browser.new_page(viewport={"width": 1920, "height": 1080})
            ov.goto(f"{server.url}/overlay/hall-1")
            ov.wait_for_selector("#ov-seats .ov-seat")
            other = next(f for f in flags if f["id"] != uno["id"])
            with page.expect_navigation():
                page.click(f'article[data-flag="{other["id"]}"] button.uphold')
            _req(f"{base}/events", token, json.dumps({"t": last_t, "type": "uno", "seat": state["turn"]}).encode(),
                 "application/json")
            ov.wait_for_selector(".ov-banner")
            ov.wait_for_selector("#ov-uno:not([hidden])")
            time.sleep(0.6)
            ov.add_style_tag(content="html, body.overlay { background: linear-gradient(135deg, #2d3a4a, #10151c) !important; }")
            ov.screenshot(path=str(args.out / "overlay.png"))
            tournament_shot(browser, args.out)
            browser.close()
    finally:
        server.stop()
        store.dispose()
    for name in ("live", "referee", "scoreboard", "overlay", "tournament"):
        print(args.out / f"{name}.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
