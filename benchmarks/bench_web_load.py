"""Load benchmark of the dashboard on loopback: tables posting events while SSE clients listen.

Default (the acceptance run): 20 tables each post 10 events/s (one event per POST, keep-alive) for 60 s while 300 SSE
clients (15 per table) listen. The server runs as `unotable serve` in its own process, exactly as at a venue; this
process drives the load with asyncio on raw sockets. For every event every listener of its table must receive it once:
the latency is from just before the POST is written to the moment a listener has parsed the frame carrying it.

    .venv/bin/python benchmarks/bench_web_load.py                    # 20 tables x 10/s, 300 clients, 60 s
    .venv/bin/python benchmarks/bench_web_load.py --seconds 10       # a quick look

Prints p50/p99/max post-to-delivery latency, the acknowledgement latency, lost and duplicated deliveries, and PASS when
p99 < 200 ms with nothing lost or duplicated (exit code 1 otherwise). The events are real games: whole Mattel matches
from `tracker.simulate` (no planted mistakes), so the server does its real work per event (engine fold, SQLite commit
in WAL mode with synchronous=FULL, JSON of the state, fan-out).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def game_events(seed: int, count: int) -> list[dict[str, Any]]:
    """`count` events of consecutive simulated matches, times made non-decreasing across matches."""
    from tracker.log import event_to_dict
    from tracker.simulate import SimConfig, simulate_match

    out: list[dict[str, Any]] = []
    offset = 0.0
    k = 0
    while len(out) < count:
        sim = simulate_match(SimConfig(ruleset="mattel", players=4, seed=seed * 1000 + k, mistakes=(), max_hands=3))
        for ev in sim.events:
            d = event_to_dict(ev)
            d["t"] = round(offset + ev.t, 3)
            out.append(d)
        offset = out[-1]["t"] + 5.0
        k += 1
    return out[:count]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(data: Path, threads: int, env: dict[str, str]) -> tuple[subprocess.Popen[str], int]:
    """`unotable serve` on a free port; tries another port if one was taken between the probe and the bind."""
    last = ""
    for _attempt in range(3):
        port = free_port()
        server = subprocess.Popen(
            [sys.executable, "-m", "unotable.cli", "serve", "--port", str(port), "--data", str(data),
             "--threads", str(threads)], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return server, port
            except OSError:
                if server.poll() is not None:
                    break
                time.sleep(0.1)
        server.kill()
        last = server.communicate()[0] or ""
    raise SystemExit(f"the server did not start: {last}")


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q / 100 * (len(s) - 1))))]


class Listener:
    """One SSE client (HTTP/1.0, so the body is the bare stream, no chunking)."""

    def __init__(self, table: str, sent: dict[tuple[str, int], float]) -> None:
        self.table = table
        self.sent = sent
        self.seen: dict[int, int] = defaultdict(int)
        self.latencies: list[float] = []
        self.ready = asyncio.Event()
        self.error: str | None = None

    async def run(self, port: int, stop: asyncio.Event) -> None:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 22)
            writer.write(f"GET /api/tables/{self.table}/stream HTTP/1.0\r\nHost: x\r\n\r\n".encode())
            await writer.drain()
            head = await reader.readuntil(b"\r\n\r\n")
            if b" 200 " not in head.split(b"\r\n", 1)[0]:
                raise RuntimeError(head.split(b"\r\n", 1)[0].decode())
            buf = b""
            while not stop.is_set():
                chunk = await reader.read(1 << 16)
                if not chunk:
                    break
                now = time.perf_counter()
                buf += chunk
                *frames, buf = buf.split(b"\n\n")
                for frame in frames:
                    self.handle(frame, now)
            writer.close()
        except Exception as exc:  # noqa: BLE001 - reported in the summary
            self.error = f"{type(exc).__name__}: {exc}"
            self.ready.set()

    def handle(self, frame: bytes, now: float) -> None:
        kind = data = None
        for line in frame.split(b"\n"):
            if line.startswith(b"event: "):
                kind = line[7:]
            elif line.startswith(b"data: "):
                data = line[6:]
        if data is None:
            return
        if kind == b"snapshot":
            self.ready.set()
            return
        for ev in json.loads(data)["events"]:
            bid = ev.get("bench_id")
            if bid is None:
                continue
            self.seen[bid] += 1
            if self.seen[bid] == 1:
                self.latencies.append(now - self.sent[(self.table, bid)])


async def poster(table: str, token: str, events: list[dict[str, Any]], rate: float, port: int, start: float,
                 sent: dict[tuple[str, int], float], acks: list[float], errors: list[str]) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    for i, ev in enumerate(events):
        due = start + i / rate
        delay = due - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        body = json.dumps(dict(ev, bench_id=i)).encode()
        req = (f"POST /api/tables/{table}/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
               f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body
        t0 = time.perf_counter()
        sent[(table, i)] = t0
        writer.write(req)
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length"))
        resp = await reader.readexactly(length)
        acks.append(time.perf_counter() - t0)
        status = head.split(b" ", 2)[1]
        if status != b"201":
            errors.append(f"{table} event {i}: HTTP {status.decode()} {resp[:200].decode(errors='replace')}")
    writer.close()


async def drive(args: argparse.Namespace, port: int, tokens: dict[str, str], games: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    sent: dict[tuple[str, int], float] = {}
    stop = asyncio.Event()
    tables = list(tokens)
    listeners = [Listener(tables[i % len(tables)], sent) for i in range(args.clients)]
    tasks = [asyncio.create_task(lst.run(port, stop)) for lst in listeners]
    t_connect = time.perf_counter()
    await asyncio.wait_for(asyncio.gather(*(lst.ready.wait() for lst in listeners)), timeout=60)
    connect_s = time.perf_counter() - t_connect
    failed = [lst.error for lst in listeners if lst.error]
    if failed:
        raise SystemExit(f"{len(failed)} SSE clients failed to connect, e.g. {failed[0]}")
    print(f"{args.clients} SSE clients connected in {connect_s:.2f} s; posting for {args.seconds:g} s ...", flush=True)
    acks: list[float] = []
    errors: list[str] = []
    start = time.perf_counter() + 0.2
    per_table = int(args.rate * args.seconds)
    await asyncio.gather(*(poster(t, tokens[t], games[t][:per_table], args.rate, port, start, sent, acks, errors)
                           for t in tables))
    post_s = time.perf_counter() - start
    # let the last frames arrive
    expected = per_table
    deadline = time.perf_counter() + 10
    while time.perf_counter() < deadline and any(len(lst.seen) < expected for lst in listeners):
        await asyncio.sleep(0.05)
    stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    lat = [x for lst in listeners for x in lst.latencies]
    lost = sum(expected - len(lst.seen) for lst in listeners)
    dup = sum(n - 1 for lst in listeners for n in lst.seen.values() if n > 1)
    return {
        "tables": len(tables), "rate_per_table": args.rate, "clients": args.clients, "seconds": args.seconds,
        "post_seconds": round(post_s, 2), "events_posted": len(acks), "post_errors": len(errors),
        "first_errors": errors[:3], "deliveries": len(lat), "deliveries_expected": expected * len(listeners),
        "lost": lost, "duplicated": dup,
        "p50_ms": round(percentile(lat, 50) * 1000, 2), "p99_ms": round(percentile(lat, 99) * 1000, 2),
        "max_ms": round(max(lat) * 1000, 2) if lat else None,
        "mean_ms": round(statistics.fmean(lat) * 1000, 2) if lat else None,
        "ack_p50_ms": round(percentile(acks, 50) * 1000, 2), "ack_p99_ms": round(percentile(acks, 99) * 1000, 2),
        "latencies": lat,
    }


def plot(lat: list[float], path: Path, title: str) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(matplotlib not installed: no plot)")
        return
    ms = [x * 1000 for x in lat]
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
    ax.hist(ms, bins=100, color="#1e6fd9")
    for q, colour in ((50, "#2fa84f"), (99, "#d7263d")):
        v = percentile(ms, q)
        ax.axvline(v, color=colour, linestyle="--", label=f"p{q} = {v:.1f} ms")
    ax.axvline(200, color="black", linewidth=1, label="target p99 200 ms")
    ax.set_xlabel("post → SSE delivery (ms)")
    ax.set_ylabel("deliveries")
    ax.set_yscale("log")
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    print(f"plot: {path}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=20)
    ap.add_argument("--rate", type=float, default=10.0, help="events per second per table")
    ap.add_argument("--clients", type=int, default=300, help="SSE listeners, spread evenly over the tables")
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--threads", type=int, default=512, help="server worker threads")
    ap.add_argument("--plot", type=Path, default=None, help="write a latency histogram PNG here")
    ap.add_argument("--json", type=Path, default=None, help="write the figures as JSON here")
    ap.add_argument("--keep", action="store_true", help="keep the temporary data folder and the server's log")
    args = ap.parse_args()
    if args.clients + args.tables + 16 > args.threads:
        ap.error(f"--threads {args.threads} is too few for {args.clients} listeners and {args.tables} posters")

    from web.store import Store, sqlite_url

    per_table = int(args.rate * args.seconds)
    data = Path(tempfile.mkdtemp(prefix="unotable-bench-"))
    store = Store(sqlite_url(data), data / "evidence")
    store.create_all()
    tokens = {f"table-{i:02d}": store.add_table(f"table-{i:02d}")[1] for i in range(args.tables)}
    store.dispose()
    print(f"simulating {args.tables} x {per_table} events ...", flush=True)
    games = {t: game_events(i, per_table) for i, t in enumerate(tokens)}
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    env.pop("DATABASE_URL", None)
    server, port = start_server(data, args.threads, env)
    try:
        res = asyncio.run(drive(args, port, tokens, games))
        stored = Store(sqlite_url(data), data / "evidence")
        res["stored_events"] = sum(stored.event_count(stored.table(t).id) for t in tokens)
        stored.dispose()
    finally:
        server.send_signal(signal.SIGINT)
        try:
            out, _ = server.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            out, _ = server.communicate()
        if args.keep:
            (data / "server.log").write_text(out or "")
            print(f"data and server log kept in {data}")
        else:
            shutil.rmtree(data, ignore_errors=True)
    lat = res.pop("latencies")
    ok = res["p99_ms"] < 200 and res["lost"] == 0 and res["duplicated"] == 0 and res["post_errors"] == 0
    print(f"\n{res['tables']} tables x {res['rate_per_table']:g} events/s, {res['clients']} SSE clients, "
          f"{res['seconds']:g} s on loopback")
    print(f"  events posted      {res['events_posted']} (stored {res['stored_events']}, post errors {res['post_errors']})")
    print(f"  deliveries         {res['deliveries']} of {res['deliveries_expected']} "
          f"(lost {res['lost']}, duplicated {res['duplicated']})")
    print(f"  post -> delivery   p50 {res['p50_ms']:.1f} ms   p99 {res['p99_ms']:.1f} ms   max {res['max_ms']} ms")
    print(f"  post -> ack (201)  p50 {res['ack_p50_ms']:.1f} ms   p99 {res['ack_p99_ms']:.1f} ms")
    print(f"  target p99 < 200 ms, nothing lost or duplicated: {'PASS' if ok else 'FAIL'}")
    for e in res["first_errors"]:
        print("  error:", e)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(res, indent=2))
    if args.plot:
        plot(lat, args.plot, f"{res['tables']} tables x {res['rate_per_table']:g}/s, {res['clients']} SSE clients, "
             f"{res['seconds']:g} s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
