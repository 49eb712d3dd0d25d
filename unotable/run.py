"""`unotable run`: one process runs a table — camera, microphone, rules and dashboard — on one clock.

    frames ──> [frame queue, drops frames] ──> vision worker ──┐
    audio  ──> keyword spotter ────────────────────────────────┼──> [event queue, never drops] ──> merger ──> sink
                                                               ┘
The table clock is the media clock (frame and audio timestamps), never the wall clock. In real time a slow vision
stage drops frames, never events; headless runs process every frame as fast as the machine allows. The sink is the
dashboard's store (posted like any table rig, exactly once) or, headless, the rules engine printing flags.
"""

from __future__ import annotations

import argparse
import json
import queue
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .merge import EventMerger

if TYPE_CHECKING:
    from speech.audio import AudioSource

DEMO_DIR = Path(__file__).resolve().parent.parent / "datasets" / "demo"
SENSES = ("vision", "speech")


class RunError(RuntimeError):
    """A set-up problem the operator must fix; the message says what."""


@dataclass
class RunConfig:
    video: str | None = None  # a file, a camera index or a URL
    audio: str | None = None  # a file, "video" (the video's own soundtrack), a microphone device, or None
    seats: int = 0  # per-seat microphones: the audio has one channel a seat (channel i = seat i's); 0: one mix
    table_file: str | None = None
    ruleset: str = "mattel"
    players: list[str] = field(default_factory=lambda: ["Anna", "Boris", "Vera", "Gleb"])
    dealer: int | None = None
    realtime: bool = True
    speed: float = 1.0
    hear_pass: bool = False
    weights: str | None = None
    window: float = 1.5


@dataclass
class RunStats:
    frames: int = 0
    frames_dropped: int = 0
    audio_chunks: int = 0
    events: dict[str, int] = field(default_factory=lambda: {"vision": 0, "speech": 0})
    late_events: int = 0
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0


def demo_config(folder: Path = DEMO_DIR) -> tuple[RunConfig, dict[str, Any]]:
    meta_path = folder / "demo.json"
    if not meta_path.exists():
        raise RunError(f"the demo recording is missing ({meta_path}); build it with `python -m unotable.demo`")
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    cfg = RunConfig(video=str(folder / meta["video"]), audio="video", table_file=str(folder / meta["table"]),
                    ruleset=meta["ruleset"], players=list(meta["players"]), dealer=meta.get("dealer"),
                    hear_pass=bool(meta.get("players_say_pass", False)))  # the demo's players say "pass"
    return cfg, meta


class TableRunner:
    """Wires the senses to a sink; `run(sink)` returns when the sources end (or `stop` is set)."""

    def __init__(self, cfg: RunConfig) -> None:
        self.cfg = cfg
        self.stats = RunStats()
        self.stop = threading.Event()
        self.events: queue.Queue[tuple[str, float, list[dict[str, Any]]]] = queue.Queue()  # unbounded: no loss
        self.frames: queue.Queue[Any] = queue.Queue(maxsize=3)
        self.watermark = {s: 0.0 for s in SENSES}
        self.done = {s: False for s in SENSES}
        self.latest_frame: Any = None  # (t, annotated BGR image) for the dashboard's camera view
        self._setup()

    # ---------------------------------------------------------------- set-up: every failure named up front
    def _setup(self) -> None:
        cfg = self.cfg
        self.watcher = None
        self.source = None
        if cfg.video is not None:
            from vision.detector import DetectorError
            from vision.pipeline import Watcher
            from vision.readers import load_reader
            from vision.sources import SourceError, open_source
            from vision.tablefile import TableFileError, read_table

            if cfg.table_file is None:
                raise RunError("a camera needs a table file (--table TABLE.toml): run `unotable calibrate` first")
            try:
                table = read_table(cfg.table_file)
                if table.image_to_table is None:
                    raise RunError(f"{cfg.table_file} has no homography: run `unotable calibrate` first")
                n = len(cfg.players)
                if table.seats != n:  # the camera would report plays at seats the match doesn't have
                    raise RunError(f"{cfg.table_file} has {table.seats} seat zones, but the match has {n} players: "
                                   f"name one player a seat (--players), or calibrate for {n} "
                                   f"(`unotable calibrate ... --seats {n}`)")
                self.watcher = Watcher(table, load_reader(table, cfg.weights))
                self.source = open_source(cfg.video)
            except (TableFileError, SourceError, DetectorError) as exc:
                raise RunError(str(exc)) from None
            self.source.on_warning = self._warn
            self.watcher.on_warning = self._warn  # a frame skipped (another size or format) says so
        else:
            self.done["vision"] = True
        self.audio: AudioSource | None = None
        self.kws = None
        if cfg.audio is not None:
            from speech.audio import SpeechInputError, VideoSource
            from speech.audio import open_source as open_audio
            from speech.kws import KeywordDetector

            channels = max(1, cfg.seats)
            try:
                self.kws = KeywordDetector()
                if cfg.audio == "video":
                    if cfg.video is None:
                        raise RunError("--audio video needs --video")
                    self.audio = VideoSource(cfg.video, channels=channels)
                else:
                    self.audio = open_audio(audio_spec(cfg.audio), channels=channels)
                if cfg.seats and self.audio.channels != cfg.seats:
                    # channel i is seat i's microphone: a file with another number of channels can't say who spoke
                    raise SpeechInputError(f"{cfg.audio} has {self.audio.channels} channel(s), but --seats "
                                           f"{cfg.seats}: one channel a seat")
            except SpeechInputError as exc:  # a missing microphone or model: the table runs on, unheard
                self._warn(f"no speech: {exc}")
                if self.audio is not None:
                    self.audio.close()
                self.audio, self.kws = None, None
        if self.audio is None:
            self.done["speech"] = True
        from speech.audio import RingBuffer

        # all the source's channels (a stereo recording, per-seat microphones): the evidence keeps every seat's
        self.ring = RingBuffer(30.0, channels=self.audio.channels if self.audio is not None else 1)

    def _warn(self, message: str | dict[str, Any]) -> None:
        """A warning line on standard error: a text, or an object that already says {"warning": ...} (a gap)."""
        obj = message if isinstance(message, dict) else {"warning": message}
        self.stats.warnings.append(str(obj["warning"]))
        print(json.dumps(obj, ensure_ascii=False), file=sys.stderr, flush=True)

    # ---------------------------------------------------------------- the stages
    def _pace(self, start: float, t: float) -> None:
        if self.cfg.realtime:
            delay = start + t / self.cfg.speed - time.monotonic()
            if delay > 0:
                self.stop.wait(delay)

    def _read_frames(self, start: float) -> None:
        assert self.source is not None
        try:
            for frame in self.source:
                if self.stop.is_set():
                    break
                self._pace(start, frame.t)
                if self.cfg.realtime:
                    try:
                        self.frames.put_nowait(frame)
                    except queue.Full:  # vision is behind: drop the oldest frame, never an event
                        try:
                            self.frames.get_nowait()
                            self.stats.frames_dropped += 1
                        except queue.Empty:
                            pass
                        self.frames.put_nowait(frame)
                else:
                    self.frames.put(frame)
        except Exception as exc:  # a camera that vanishes for good: the rest of the table keeps working
            self._warn(f"camera stopped: {exc}")
        finally:
            self.frames.put(None)

    def _vision(self) -> None:
        assert self.watcher is not None and self.source is not None
        gaps = 0
        last_shown = -1.0
        try:
            while True:
                frame = self.frames.get()
                if frame is None:
                    return
                while gaps < len(self.source.gaps):
                    self._warn(self.watcher.gap(self.source.gaps[gaps]))
                    gaps += 1
                evs = self.watcher.process(frame)
                self.stats.frames += 1
                self.events.put(("vision", frame.t, evs))
                if frame.t - last_shown >= 0.2:
                    self.latest_frame = (frame.t, self.watcher.annotate(frame.image, frame.t))
                    last_shown = frame.t
        except Exception as exc:  # the camera side failed: say so, keep what was decided, let speech go on
            self._warn(f"vision stopped: {exc}")
            while self.frames.get() is not None:  # let the reader finish instead of blocking on a full queue
                pass
        finally:
            self.events.put(("vision", float("inf"), []))  # what vision decided so far reaches the log

    def _hear(self, start: float) -> None:
        assert self.audio is not None and self.kws is not None
        end = 0.0
        try:
            for chunk in self.audio.chunks():
                if self.stop.is_set():
                    break
                end = chunk.t + chunk.duration
                self._pace(start, end)
                self.ring.append(chunk)
                self.stats.audio_chunks += 1
                self.events.put(("speech", end, self._heard(self.kws.process(chunk))))
            if not self.stop.is_set():  # the recording ended: a call in its last moments is still decided
                evs = self._heard(self.kws.flush())
                self.events.put(("speech", max([end, *(e["t"] for e in evs)]), evs))
        except Exception as exc:  # an unreadable soundtrack or a microphone unplugged: keep refereeing by eye
            self._warn(f"speech stopped: {exc}")
        self.events.put(("speech", float("inf"), []))

    def _heard(self, evs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The spotter's events as the table logs them: "pass" only if asked; a seat only from per-seat
        microphones (the loudest of a stereo recording's two channels is no seat)."""
        out = [e for e in evs if self.cfg.hear_pass or e["type"] != "pass"]
        if not self.cfg.seats:
            for e in out:
                e["seat"] = None
        return out

    # ---------------------------------------------------------------- the loop
    def _share_zero(self, started: float) -> None:
        for source in (self.source, self.audio):
            if source is not None:
                _live_zero(source, started)

    def run(self, sink: Any) -> RunStats:
        started = time.monotonic()
        self._share_zero(started)
        merger = EventMerger(self.cfg.window)
        threads: list[threading.Thread] = []
        if self.source is not None:
            threads += [threading.Thread(target=self._read_frames, args=(started,), name="frames", daemon=True),
                        threading.Thread(target=self._vision, name="vision", daemon=True)]
        if self.audio is not None:
            threads.append(threading.Thread(target=self._hear, args=(started,), name="speech", daemon=True))
        for th in threads:
            th.start()
        sink.begin(self)
        while not all(self.done.values()):
            try:
                sense, t, evs = self.events.get(timeout=0.5)
            except queue.Empty:
                if self.stop.is_set():
                    break
                sink.idle(self)
                continue
            if t == float("inf"):
                self.done[sense] = True
            else:
                self.watermark[sense] = max(self.watermark[sense], t)
            self.stats.events[sense] += len(evs)
            now = min(self.watermark[s] if not self.done[s] else float("inf") for s in SENSES)
            released = merger.update(evs, now if now != float("inf") else max(self.watermark.values()) + 1e9)
            if released:
                sink.events(self, released)
        self.stop.set()
        tail = merger.flush()
        if tail:
            sink.events(self, tail)
        self.stats.late_events = merger.late
        self.stats.seconds = time.monotonic() - started
        sink.end(self)
        return self.stats


def _live_zero(source: Any, started: float) -> None:
    """Time a live camera and a live microphone from one zero, the moment `run` starts: each source started its own
    clock when it was opened, and `unotable run` builds the dashboard in between (half a second and more), so a
    call said as a card lands would be stamped that much later than the card."""
    from speech.audio import MicSource
    from vision.sources import LiveSource

    if isinstance(source, LiveSource) and source.clock is time.monotonic:
        source.epoch = started
    elif isinstance(source, MicSource):
        source.clock = lambda: time.monotonic() - started


def audio_spec(value: str) -> str:
    """`--mic`'s value as `speech.audio.open_source` takes it: a microphone (`mic`, `mic:DEVICE`, `default`, a
    device index or name) or a file.

    Why: README's own command is `--mic default`, and the option's help promises a device index or name; taken as a
    file name, `default` gave "no such file" and a table unheard all night. A value is a file if it exists, or if
    it looks like one (an audio or video file's extension, a folder in it), so that a mistyped file name still says
    "no such file" instead of "no such microphone".
    """
    from speech.audio import VIDEO_EXTS

    if value == "mic" or value.startswith("mic:"):
        return value
    path = Path(value)
    looks_like_file = "/" in value or "\\" in value or path.suffix.lower() in AUDIO_EXTS | VIDEO_EXTS
    return value if path.exists() or looks_like_file else f"mic:{value}"


AUDIO_EXTS = {".wav", ".flac", ".ogg", ".oga", ".opus", ".mp3", ".aiff", ".aif", ".au", ".caf", ".w64", ".rf64",
              ".aac"}


def opening_events(cfg: RunConfig) -> list[dict[str, Any]]:
    """What the operator declares before the first card: the match and the first deal."""
    start = {"t": 0.0, "type": "match_start", "ruleset": cfg.ruleset, "players": cfg.players, "source": "manual"}
    hand = {"t": 0.0, "type": "hand_start", "source": "manual"}
    if cfg.dealer is not None:
        hand["dealer"] = cfg.dealer
    return [start, hand]


def register(sub: Any) -> None:
    p = sub.add_parser("run", help="run a table: camera, microphone, rules and dashboard together")
    p.add_argument("--demo", action="store_true", help="the built-in demo recording (the default with no --camera)")
    p.add_argument("--camera", help="a camera index, a video file or an RTSP/HTTP URL")
    p.add_argument("--mic", help="a microphone device (index or name, 'default'), or an audio file; "
                                 "'video': the video's track")
    p.add_argument("--seats", type=int, default=0,
                   help="per-seat microphones: the audio has one channel a seat (channel i = seat i's); give "
                        "their number, and a call is given to the loudest channel")
    p.add_argument("--table", help="the table file (TOML) from `unotable calibrate`")
    p.add_argument("--ruleset", default=None, help="chempiunat, falsonal, mattel, olympic or a TOML file")
    p.add_argument("--players", help="names in seat order, comma-separated: \"Anna,Boris,Vera,Gleb\"")
    p.add_argument("--dealer", type=int, help="the seat that deals the first hand")
    p.add_argument("--headless", action="store_true",
                   help="no dashboard: as fast as the machine allows; print flags as JSON lines and a summary")
    p.add_argument("--port", type=int, default=5000, help="dashboard port (default 5000)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--data", default="data", help="data folder of the dashboard's store (default ./data)")
    p.add_argument("--table-name", default=None, help="the table's name on the dashboard (default: demo or table-1)")
    p.add_argument("--speed", type=float, default=1.0, help="play a recording this many times faster than real time")
    p.add_argument("--hear-pass", action="store_true", help="also log 'pass' / 'пас' heard by the microphone")
    p.add_argument("--weights", help="card detector weights (default: the shipped model)")
    p.add_argument("--exit-when-done", action="store_true",
                   help="stop the dashboard and exit when the camera or recording ends (by default it serves on, "
                        "for the referee to review the flags, until Ctrl-C)")
    p.add_argument("--keep", action="store_true", help=argparse.SUPPRESS)  # the default now; older scripts pass it
    p.add_argument("--server", default=None,
                   help="a tournament's central server (e.g. http://10.0.0.5:5000): post the table's merged events "
                        "there, as `unotable agent` does, instead of serving a dashboard here")
    p.add_argument("--token", default=None, help="with --server: the table's token (from `unotable table add`)")
    p.add_argument("--spool", type=Path, default=Path("data/agent"),
                   help="with --server: folder for the on-disk queue, as the agent's (default data/agent)")
    p.add_argument("--log", type=Path, default=None,
                   help="headless: also write the event log (JSON lines, EVENTS.md) to this file")
    p.set_defaults(func=_run)


def _config(args: argparse.Namespace) -> tuple[RunConfig, dict[str, Any] | None]:
    meta = None
    if args.demo or args.camera is None:
        cfg, meta = demo_config()
    else:
        cfg = RunConfig(video=args.camera, audio=args.mic, table_file=args.table)
    if args.mic is not None:
        cfg.audio = args.mic
    if args.seats < 0 or args.seats == 1:
        raise RunError(f"--seats {args.seats}: give the number of per-seat microphones (2 or more), or leave it out")
    cfg.seats = args.seats
    if args.table is not None:
        cfg.table_file = args.table
    if args.ruleset:
        cfg.ruleset = args.ruleset
    if args.players:
        cfg.players = [p.strip() for p in args.players.split(",") if p.strip()]
    if args.dealer is not None:
        cfg.dealer = args.dealer
    cfg.weights = args.weights
    cfg.hear_pass = args.hear_pass or cfg.hear_pass
    cfg.speed = max(0.1, args.speed)
    cfg.realtime = not args.headless
    return cfg, meta


def check_seating(cfg: RunConfig) -> None:
    """Every seat the run may name is one of the match's players: the dealer, and the per-seat microphones (the
    table file's seat zones are checked when it is read). A log with another seat is one `unotable replay` refuses."""
    n = len(cfg.players)
    if n < 2:
        raise RunError("--players needs at least two names")
    if cfg.dealer is not None and not 0 <= cfg.dealer < n:
        raise RunError(f"--dealer {cfg.dealer}: the match has {n} players (seats 0-{n - 1})")
    if cfg.seats and cfg.seats != n:
        raise RunError(f"--seats {cfg.seats}: the match has {n} players; give one microphone a player")


def _run(args: argparse.Namespace) -> int:
    from tracker.ruleset import RulesetError, load_ruleset

    try:
        cfg, meta = _config(args)
        load_ruleset(cfg.ruleset)
        check_seating(cfg)
        if args.server is not None:  # before the camera opens
            if args.headless:
                raise RunError("--server posts the table to a server; --headless runs it here without one: pick one")
            if not args.token or not args.table_name:
                raise RunError("--server needs the table's --token and its name there (--table-name), from "
                               "`unotable table add NAME` on the server")
        runner = TableRunner(cfg)
    except (RunError, RulesetError) as exc:
        print(f"unotable run: {exc}", file=sys.stderr)
        return 2
    if args.server is not None:
        from .run_sinks import RemoteSink

        try:
            sink: Any = RemoteSink(cfg, args.server, args.table_name, args.token, args.spool)
        except RunError as exc:
            print(f"unotable run: {exc}", file=sys.stderr)
            return 2
    elif args.headless:
        from .run_sinks import HeadlessSink

        sink = HeadlessSink(cfg, meta, log_path=args.log)
    else:
        from .run_sinks import DashboardSink

        name = args.table_name or ("demo" if meta is not None else "table-1")
        try:
            sink = DashboardSink(cfg, name, Path(args.data), args.host, args.port, keep=not args.exit_when_done)
        except RunError as exc:
            print(f"unotable run: {exc}", file=sys.stderr)
            return 2
    try:
        runner.run(sink)
    except KeyboardInterrupt:
        runner.stop.set()
    return int(sink.exit_code)
