"""Where `unotable run` sends the table's events: the rules engine alone (headless) or the dashboard's store.

The dashboard sink posts through the same HTTP API and on-disk queue as a remote table rig (`unotable agent`), so a
one-table set-up and a tournament hall exercise one code path; it also feeds the camera view and files the audio
around every UNO or colour flag as evidence for the referee.
"""

from __future__ import annotations

import io
import json
import queue
import secrets
import sys
import threading
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

from tracker.report import score_sheet

from .run import RunConfig, RunError, opening_events

AUDIO_FLAGS = ("missed_uno", "early_uno", "no_color")


def _takeable(runner: Any, objs: list[dict[str, Any]], players: int) -> list[dict[str, Any]]:
    """The events a log of this match can hold: one naming a seat the players list lacks is warned about and
    skipped (the server would refuse it, and `unotable replay` refuses a log holding it)."""
    from tracker.log import LogError, check_seats, parse_event

    out = []
    for obj in objs:
        try:
            check_seats(parse_event(obj), players)
        except LogError as exc:
            runner._warn(f"a sense produced an event the log can't take ({exc.reason}); skipped")
            continue
        out.append(obj)
    return out


def _needs_new_hand(state: Any, ev: dict[str, Any]) -> bool:
    """A starter seen after a hand was over means a new deal: the log needs its hand_start first."""
    return ev.get("type") == "starter" and state.phase in ("hand_over", "match_over") and state.match_winner is None


class HeadlessSink:
    """Folds events into the engine as they come; prints each new flag as a JSON line, then a summary."""

    def __init__(self, cfg: RunConfig, meta: dict[str, Any] | None, out: Any = None,
                 log_path: Path | None = None) -> None:
        """`log_path`: also write every event the engine took, as the log's JSON lines, so that
        `unotable replay` gives the same flags afterwards."""
        from tracker.engine import Game

        self.cfg, self.meta = cfg, meta
        self.log = open(log_path, "w", encoding="utf-8") if log_path is not None else None
        self.out = out or sys.stdout
        self.game = Game()
        self.times: dict[int, float] = {}
        self.seen_flags = 0
        self.exit_code = 0
        self.lines = 0

    def _apply(self, runner: Any, objs: list[dict[str, Any]]) -> None:
        from tracker.log import LogError, check_seats, event_to_dict, parse_event

        for obj in objs:
            if _needs_new_hand(self.game.state, obj):
                self._apply(runner, [{"t": obj["t"], "type": "hand_start", "source": "manual"}])
            try:
                ev = parse_event(obj, self.lines + 1)
                check_seats(ev, len(self.cfg.players))  # what `unotable replay` checks of the log it reads
            except LogError as exc:
                runner._warn(f"a sense produced an event the log can't take ({exc.reason}); skipped")
                continue
            self.lines += 1
            self.times[self.lines] = ev.t
            if self.log is not None:
                self.log.write(json.dumps(event_to_dict(ev), ensure_ascii=False) + "\n")
                self.log.flush()
            self.game.apply(ev)
        flags = self.game.state.flags
        for f in flags[self.seen_flags:]:
            print(json.dumps(f.to_dict(), ensure_ascii=False), file=self.out, flush=True)
        self.seen_flags = len(flags)

    def begin(self, runner: Any) -> None:
        self._apply(runner, opening_events(self.cfg))

    def events(self, runner: Any, evs: list[dict[str, Any]]) -> None:
        self._apply(runner, evs)

    def idle(self, runner: Any) -> None:
        pass

    def end(self, runner: Any) -> None:
        if self.log is not None:
            self.log.close()
        summary: dict[str, Any] = {"frames": runner.stats.frames, "frames_dropped": runner.stats.frames_dropped,
                                   "events": runner.stats.events, "late_events": runner.stats.late_events,
                                   "seconds": round(runner.stats.seconds, 1), "log_lines": self.lines,
                                   "flags": len(self.game.state.flags)}
        if self.meta is not None:
            summary.update(score_against_planted([f.to_dict() for f in self.game.state.flags], self.times,
                                                 self.meta.get("planted", [])))
        print(json.dumps({"summary": summary}, ensure_ascii=False), file=self.out, flush=True)


def score_against_planted(flags: list[dict[str, Any]], times: dict[int, float], planted: list[dict[str, Any]],
                          tolerance: float = 4.0) -> dict[str, Any]:
    """Match flags to the planted violations one to one: same code, same seat, the offending act within `tolerance`
    seconds of the planted one. Returns recall and the false flags."""
    free = list(range(len(flags)))
    found, missed = [], []
    for p in planted:
        best = None
        for i in free:
            f = flags[i]
            if f["code"] != p["code"] or f["seat"] != p["seat"]:
                continue
            dt = abs(times.get(f["line"], f["t"]) - p["t"])
            if dt <= tolerance and (best is None or dt < best[0]):
                best = (dt, i)
        if best is None:
            missed.append(p)
        else:
            free.remove(best[1])
            found.append(p)
    extra = [{"code": flags[i]["code"], "seat": flags[i]["seat"], "t": flags[i]["t"]} for i in free]
    return {"planted": len(planted), "found": len(found), "recall": round(len(found) / len(planted), 3)
            if planted else 1.0, "missed": missed, "false_flags": extra}


def _multipart(fields: dict[str, str], files: dict[str, tuple[str, bytes, str]]) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    out = io.BytesIO()
    for name, value in fields.items():
        out.write(f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n".encode())
    for name, (filename, data, mime) in files.items():
        out.write(f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{filename}\"\r\n"
                  f"Content-Type: {mime}\r\n\r\n".encode())
        out.write(data + b"\r\n")
    out.write(f"--{boundary}--\r\n".encode())
    return out.getvalue(), f"multipart/form-data; boundary={boundary}"


class DashboardSink:
    """Serves the dashboard in this process and posts the table's events, frames and audio evidence to it."""

    def __init__(self, cfg: RunConfig, name: str, data: Path, host: str, port: int, keep: bool = True) -> None:
        from web import create_app
        from web.server import Server

        from .agent import Sender, Spool

        self.cfg, self.keep = cfg, keep
        self.exit_code = 0
        self.app = create_app({"DATA_DIR": str(data)})
        svc = self.app.extensions["unotable"]
        try:  # the port first: a run refused for a busy port registers no table
            self.server = Server(self.app, host, port, threads=64).start()
        except OSError as exc:
            raise RunError(f"can't serve the dashboard on {host}:{port}: {exc.strerror or exc} "
                           f"(is another unotable running? try --port)") from None
        try:
            taken = {t.name for t in svc.store.tables()}
            self.table = name
            n = 1
            while self.table in taken:  # every run is a new match on its own table
                n += 1
                self.table = f"{name}-{n}"
            _info, self.token = svc.store.add_table(self.table)
        except BaseException:
            self.server.stop()
            raise
        self.url = f"http://{host}:{self.server.port}"
        self.spool = Spool(data / "spool" / f"{self.table}-{secrets.token_hex(3)}")
        self.sender = Sender(self.spool, self.url, self.table, self.token)
        self.stop_sending = threading.Event()
        self.sending = threading.Thread(target=self.sender.run, args=(self.stop_sending, 0.05), daemon=True)
        self.filed: set[str] = set()
        self.printed: set[str] = set()
        self.last_frame_t = -1.0
        self.last_flag_poll = 0.0

    def begin(self, runner: Any) -> None:
        print(f"unotable: table {self.table!r} live at {self.url}/tables/{self.table}  (referee: {self.url}/referee, "
              f"overlay: {self.url}/overlay/{self.table})", file=sys.stderr, flush=True)
        self.sending.start()
        self.spool.append(_takeable(runner, opening_events(self.cfg), len(self.cfg.players)))

    def _state(self) -> Any:
        tl = self.app.extensions["unotable"].live.get(self.table)
        return tl

    def events(self, runner: Any, evs: list[dict[str, Any]]) -> None:
        tl = self._state()
        out = []
        for ev in evs:
            if tl is not None and tl.game is not None and _needs_new_hand(tl.game.state, ev):
                out.append({"t": ev["t"], "type": "hand_start", "source": "manual"})
            out.append(ev)
        self.spool.append(_takeable(runner, out, len(self.cfg.players)))
        self.idle(runner)

    def idle(self, runner: Any) -> None:
        frame = runner.latest_frame
        if frame is not None and frame[0] > self.last_frame_t:
            self.last_frame_t = frame[0]
            self._post_frame(*frame)
        now = time.monotonic()
        if now - self.last_flag_poll >= 1.0:
            self.last_flag_poll = now
            self._print_flags()
            self._file_audio(runner)

    def _print_flags(self) -> None:
        """Each new flag as a line a referee reads, as it is raised."""
        tl = self._state()
        for f in list(tl.flags) if tl is not None else []:
            if f["id"] in self.printed:
                continue
            self.printed.add(f["id"])
            pen = f" penalty {f['penalty']['cards']} card(s)." if f.get("penalty") else ""
            print(f"{f['t']:7.1f}s  {f['code']} [{f['rule']}] {f['message']}{pen}", flush=True)

    def _post(self, path: str, fields: dict[str, str], files: dict[str, tuple[str, bytes, str]]) -> None:
        body, ctype = _multipart(fields, files)
        req = urllib.request.Request(f"{self.url}/api/tables/{self.table}/{path}", data=body, method="POST",
                                     headers={"Authorization": f"Bearer {self.token}", "Content-Type": ctype})
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                resp.read()
        except OSError as exc:
            print(json.dumps({"warning": f"dashboard refused {path}: {exc}"}), file=sys.stderr)

    def _post_frame(self, t: float, image: Any) -> None:
        import cv2

        ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 80])
        if ok:
            self._post("frames", {"t": f"{t:.3f}", "overlay": "{}"}, {"frame": ("frame.jpg", jpeg.tobytes(),
                                                                                 "image/jpeg")})

    def _file_audio(self, runner: Any) -> None:
        """The audio around each UNO / colour flag, while the ring buffer still holds it."""
        tl = self._state()
        if tl is None:
            return
        for f in list(tl.flags):
            if f["code"] not in AUDIO_FLAGS or f["id"] in self.filed:
                continue
            self.filed.add(f["id"])
            start, end = max(0.0, f["t"] - 5.0), f["t"] + 1.0
            if runner.ring.start_time > start or runner.ring.end_time < end:
                continue
            import soundfile as sf

            buf = io.BytesIO()
            sf.write(buf, runner.ring.clip(start, end), 16000, format="WAV", subtype="PCM_16")
            self._post("evidence", {"kind": "audio", "t": f"{start:.3f}", "duration": f"{end - start:.3f}"},
                       {"file": (f"{f['id']}.wav", buf.getvalue(), "audio/wav")})

    def end(self, runner: Any) -> None:
        self.sender.drain(time.monotonic() + 30)
        self.stop_sending.set()
        self._print_flags()
        tl = self._state()
        flags = len(tl.flags) if tl is not None else 0
        if tl is not None:
            print(score_sheet(tl.scores, tl.state.get("players", [])), flush=True)
        print(f"unotable: the recording ended: {self.spool.acked} events logged, {flags} flags; "
              f"{self.url}/referee to review them", file=sys.stderr, flush=True)
        if self.keep:  # the referee reviews the flags after the game: the dashboard serves on until Ctrl-C
            print(f"unotable: the dashboard stays up at {self.url}/tables/{self.table}; Ctrl-C to stop",
                  file=sys.stderr, flush=True)
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                pass
        self.server.stop()


class _LocalFold:
    """What RemoteSink knows of its table without asking the server: the engine folding the events it queued."""

    def __init__(self) -> None:
        from tracker.engine import Game

        self.game = Game()

    @property
    def flags(self) -> list[dict[str, Any]]:
        return [f.to_dict() for f in self.game.state.flags]


class RemoteSink(DashboardSink):
    """A table rig of a tournament: posts the table's merged events (through the agent's on-disk Spool and its Sender,
    exactly as `unotable agent` does), camera frames and audio evidence to the central server's table; no dashboard
    of its own. The events it queues are folded here too, to start each new hand and print flags as they are raised.

    The spool is the agent's (`SPOOL/TABLE`): what is still queued when the run ends (the server down) is sent by the
    next `unotable run` or `unotable agent` with the same --spool and --table."""

    def __init__(self, cfg: RunConfig, server: str, table: str, token: str, spool: Path) -> None:
        from .agent import AgentError, Sender, Spool

        if not server.startswith(("http://", "https://")):
            raise RunError(f"--server {server}: give the server's URL, e.g. http://10.0.0.5:5000")
        self.cfg, self.keep = cfg, False
        self.exit_code = 0
        self.url, self.table, self.token = server.rstrip("/"), table, token
        try:
            self.spool = Spool(spool / table)
        except AgentError as exc:
            raise RunError(str(exc)) from None
        self.sender = Sender(self.spool, self.url, self.table, self.token)
        self.stop_sending = threading.Event()
        self.failure: list[AgentError] = []
        self.sending = threading.Thread(target=self._send, name="rig-sender", daemon=True)
        self.fold = _LocalFold()
        self.lines = 0
        self.filed: set[str] = set()
        self.printed: set[str] = set()
        self.last_frame_t = -1.0
        self.last_flag_poll = 0.0
        self.media: queue.Queue[tuple[str, dict[str, str], dict[str, tuple[str, bytes, str]]]] = queue.Queue(8)
        self.posting = threading.Thread(target=self._post_media, name="rig-media", daemon=True)

    def _send(self) -> None:
        from .agent import AgentError

        try:
            self.sender.run(self.stop_sending, 0.05)
        except AgentError as exc:  # a wrong token or table name: the operator must fix it, the run stops
            self.failure.append(exc)
            self._runner_stop.set()

    def begin(self, runner: Any) -> None:
        self._runner_stop = runner.stop
        print(f"unotable: table {self.table!r} posting to {self.url}/tables/{self.table} (queued in "
              f"{self.spool.folder})", file=sys.stderr, flush=True)
        self.sending.start()
        self.posting.start()
        self._queue(runner, opening_events(self.cfg))

    def _state(self) -> Any:
        return self.fold

    def _queue(self, runner: Any, evs: list[dict[str, Any]]) -> None:
        out = []
        for ev in evs:
            if _needs_new_hand(self.fold.game.state, ev):
                out += self._fold(runner, [{"t": ev["t"], "type": "hand_start", "source": "manual"}])
            out += self._fold(runner, [ev])
        self.spool.append(out)

    def _fold(self, runner: Any, objs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        from tracker.log import parse_event

        taken = _takeable(runner, objs, len(self.cfg.players))
        for obj in taken:
            self.lines += 1
            self.fold.game.apply(parse_event(obj, self.lines))
        return taken

    def events(self, runner: Any, evs: list[dict[str, Any]]) -> None:
        self._queue(runner, evs)
        self.idle(runner)

    def _post(self, path: str, fields: dict[str, str], files: dict[str, tuple[str, bytes, str]]) -> None:
        """Frames and evidence go from their own thread: a slow or unreachable server never holds up the table."""
        try:
            self.media.put_nowait((path, fields, files))
        except queue.Full:  # the server is behind: a camera frame is skipped (the next one follows)
            if path != "frames":
                print(json.dumps({"warning": f"the server is behind: {path} not sent"}), file=sys.stderr)

    def _post_media(self) -> None:
        failing = False
        while True:
            path, fields, files = self.media.get()
            body, ctype = _multipart(fields, files)
            req = urllib.request.Request(f"{self.url}/api/tables/{self.table}/{path}", data=body, method="POST",
                                         headers={"Authorization": f"Bearer {self.token}", "Content-Type": ctype})
            try:
                with urllib.request.urlopen(req, timeout=10) as resp:
                    resp.read()
                failing = False
            except OSError as exc:
                if not failing or path != "frames":  # once while the server is away, not every frame
                    print(json.dumps({"warning": f"the server refused {path}: {exc}"}), file=sys.stderr)
                failing = True
            finally:
                self.media.task_done()

    def end(self, runner: Any) -> None:
        from .agent import AgentError

        self.stop_sending.set()
        self.sending.join()
        self._print_flags()
        if not self.failure:
            try:
                self.sender.drain(time.monotonic() + 30)
            except AgentError as exc:
                self.failure.append(exc)
        if self.failure:
            print(f"unotable run: {self.failure[0]} (check --server, --token and --table-name)", file=sys.stderr,
                  flush=True)
            self.exit_code = 2
            return
        flags = len(self.fold.game.state.flags)
        left = (f"; {self.spool.backlog} still queued in {self.spool.folder}: the next `unotable run` or "
                f"`unotable agent` with this --spool and table sends them") if self.spool.backlog else ""
        print(f"unotable: the table ended: {self.spool.acked} events stored on {self.url}, {flags} flags{left}",
              file=sys.stderr, flush=True)
        self.exit_code = 0 if not self.spool.backlog else 1
