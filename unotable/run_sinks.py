"""Where `unotable run` sends the table's events: the rules engine alone (headless) or the dashboard's store.

The dashboard sink posts through the same HTTP API and on-disk queue as a remote table rig (`unotable agent`), so a
one-table set-up and a tournament hall exercise one code path; it also feeds the camera view and files the audio
around every UNO or colour flag as evidence for the referee.
"""

from __future__ import annotations

import io
import json
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
        from tracker.log import LogError, event_to_dict, parse_event

        for obj in objs:
            if _needs_new_hand(self.game.state, obj):
                self._apply(runner, [{"t": obj["t"], "type": "hand_start", "source": "manual"}])
            try:
                ev = parse_event(obj, self.lines + 1)
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
        taken = {t.name for t in svc.store.tables()}
        self.table = name
        n = 1
        while self.table in taken:  # every run is a new match on its own table
            n += 1
            self.table = f"{name}-{n}"
        _info, self.token = svc.store.add_table(self.table)
        try:
            self.server = Server(self.app, host, port, threads=64).start()
        except OSError as exc:
            raise RunError(f"can't serve the dashboard on {host}:{port}: {exc.strerror or exc} "
                           f"(is another unotable running? try --port)") from None
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
        self.spool.append(opening_events(self.cfg))

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
        self.spool.append(out)
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
        if self.keep:
            print("unotable: the dashboard stays up; Ctrl-C to stop", file=sys.stderr, flush=True)
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                pass
        self.server.stop()
