"""Video subcommands: `calibrate`, `markers`, `render-game`, `watch`, `eval-video`.

Heavy modules are imported inside each command so that `unotable --help` stays fast. User errors (a missing file,
a camera that never opens, markers not found, a bad table file) print one line naming the problem and exit 2.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path
from typing import Any


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    c = sub.add_parser("calibrate", help="find the table's ArUco markers and write the table file + a preview PNG")
    c.add_argument("source", help="video file, camera index, stream URL or folder of images")
    c.add_argument("--seats", type=int, default=4, help="players at the table (default 4)")
    c.add_argument("--out", type=Path, default=Path("table.toml"), help="table file to write (default table.toml)")
    c.add_argument("--preview", type=Path, default=None, help="preview PNG (default: next to --out)")
    c.add_argument("--corners", default=None,
                   help="manual fallback: the table's corners in the image, x1,y1,x2,y2,x3,y3,x4,y4 (TL, TR, BR, BL)")
    c.add_argument("--frames", type=int, default=90, help="look for the markers in up to this many frames")
    c.set_defaults(func=_calibrate)

    m = sub.add_parser("markers", help="write the four corner markers as PNGs (and an A4 PDF) for a real table")
    m.add_argument("--out", type=Path, required=True)
    m.add_argument("--size-mm", type=float, default=50.0)
    m.set_defaults(func=_markers)

    r = sub.add_parser("render-game", help="render a top-down game video of a log, with its truth beside it")
    r.add_argument("log", type=Path, help="an event log (JSON Lines), e.g. from the simulator")
    r.add_argument("--out", type=Path, required=True, help="video file to write (.mp4)")
    r.add_argument("--seed", type=int, default=0, help="randomises camera, light, table, print, hands")
    r.add_argument("--fps", type=float, default=30.0)
    r.add_argument("--size", default="960x540", help="frame size WxH (default 960x540)")
    r.set_defaults(func=_render)

    w = sub.add_parser("watch", help="turn a video/camera into table events (JSON lines on stdout)")
    w.add_argument("source", help="video file, camera index, stream URL or folder of images")
    w.add_argument("--table", type=Path, required=True, help="table file from `unotable calibrate`")
    w.add_argument("--out", type=Path, default=None, help="also write the events to this log (flushed per line)")
    w.add_argument("--show", type=Path, default=None, help="write an annotated video here")
    w.add_argument("--weights", default=None, help="detector model (default: the shipped models/card_detector.onnx)")
    w.add_argument("--fps", type=float, default=30.0, help="frame rate of a folder of images (default 30)")
    w.set_defaults(func=_watch)

    e = sub.add_parser("eval-video", help="score the video pipeline on rendered games")
    e.add_argument("--games", type=int, default=20)
    e.add_argument("--seed", type=int, default=1000)
    e.add_argument("--json", action="store_true", help="print one JSON object")
    e.add_argument("--weights", default=None)
    e.add_argument("--fps", type=float, default=30.0, help="frame rate of the rendered games (default 30)")
    e.add_argument("--out", type=Path, default=Path("runs/eval-video"), help="folder for the report JSON and plot")
    e.add_argument("--jobs", type=int, default=1, help="games watched in parallel (default 1)")
    e.set_defaults(func=_eval)


def _fail(msg: str) -> int:
    print(f"unotable: {msg}", file=sys.stderr)
    return 2


def _bad_fps(fps: float) -> str | None:
    """Why `--fps` can't time frames, or None: 0 divides by zero, a negative or NaN rate makes time run back."""
    if math.isfinite(fps) and fps > 0:
        return None
    return f"--fps must be a positive number of frames a second, got {fps}"


def _calibrate(args: argparse.Namespace) -> int:
    import cv2
    import numpy as np

    from vision.calibration import CalibrationError, calibrate_image, draw_zones
    from vision.sources import SourceError, open_source
    from vision.tablefile import write_table

    def warn(msg: str) -> None:  # an image skipped as unreadable: said now, else "no frames" alone hides why
        print(f"unotable: warning: {msg}", file=sys.stderr, flush=True)

    try:
        src = open_source(args.source)
        src.on_warning = warn
        corners = None
        if args.corners:
            try:
                corners = np.array([float(v) for v in args.corners.split(",")]).reshape(4, 2)
            except ValueError:
                return _fail("--corners needs eight numbers x1,y1,x2,y2,x3,y3,x4,y4")
        table, image, last_err = None, None, None
        for i, frame in enumerate(src):
            image = frame.image
            try:
                table = calibrate_image(image, args.seats, corners)
                break
            except CalibrationError as exc:
                last_err = exc
                if corners is not None or i + 1 >= args.frames:
                    break
        if table is None or image is None:
            none = "the source gave no readable frames" + (f" ({len(src.warnings)} skipped)" if src.warnings else "")
            return _fail(f"calibration failed: {last_err or none}")
    except SourceError as exc:
        return _fail(str(exc))
    preview = args.preview or args.out.with_suffix(".png")
    try:  # into folders it creates, as `unotable markers` does
        for path in (args.out, preview):
            path.parent.mkdir(parents=True, exist_ok=True)
        write_table(args.out, table)
    except OSError as exc:
        return _fail(f"can't write {exc.filename or args.out}: {exc.strerror or exc}")
    if not cv2.imwrite(str(preview), draw_zones(image, table)):
        return _fail(f"can't write the preview {preview} (give --preview a .png path)")
    print(json.dumps({"table": str(args.out), "preview": str(preview), "seats": args.seats,
                      "method": "corners" if corners is not None else "markers"}))
    return 0


def _markers(args: argparse.Namespace) -> int:
    from vision.calibration import write_marker_sheets

    for p in write_marker_sheets(args.out, args.size_mm):
        print(p)
    return 0


def _render(args: argparse.Namespace) -> int:
    from datasets.gamevideo import render_game, truth_paths
    from tracker.log import LogError, read_log

    try:
        w, h = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        return _fail(f"--size must be WxH, got {args.size!r}")
    if (why := _bad_fps(args.fps)) is not None:
        return _fail(why)
    try:
        events = read_log(args.log)
    except FileNotFoundError:
        return _fail(f"log {args.log} not found")
    except LogError as exc:
        return _fail(f"{args.log}: {exc}")
    if args.out.suffix.lower() not in (".mp4", ".avi", ".mkv"):
        return _fail("--out must end in .mp4, .avi or .mkv")
    truth = render_game(events, args.out, seed=args.seed, fps=args.fps, size=(w, h), progress=True)
    log, meta, table = truth_paths(args.out)
    print(json.dumps({"video": str(args.out), "frames": truth.frames, "seconds": round(truth.frames / args.fps, 1),
                      "truth_log": str(log), "truth": str(meta), "table": str(table)}))
    return 0


def _emit(line: dict[str, Any], fh: Any) -> None:
    text = json.dumps(line)
    print(text, flush=True)
    if fh is not None:
        fh.write(text + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def _watch(args: argparse.Namespace) -> int:
    import cv2

    from vision.detector import DetectorError
    from vision.pipeline import FrameMismatchError, Watcher
    from vision.readers import load_reader
    from vision.sources import SourceError, open_source
    from vision.tablefile import TableFileError, read_table

    def warn(msg: str) -> None:
        print(json.dumps({"warning": msg}), file=sys.stderr, flush=True)

    def warn_gap(gap: dict[str, Any]) -> None:  # already {"warning": "no frames", "from_t", ...}: one JSON object
        print(json.dumps(gap), file=sys.stderr, flush=True)

    if (why := _bad_fps(args.fps)) is not None:
        return _fail(why)
    try:
        table = read_table(args.table)
        if table.image_to_table is None:
            return _fail(f"{args.table} has no homography: run `unotable calibrate` first")
        reader = load_reader(table, args.weights)
        src = open_source(args.source, fps=args.fps)
    except (TableFileError, SourceError, DetectorError) as exc:
        return _fail(str(exc))
    src.on_warning = warn
    watcher = Watcher(table, reader)
    watcher.on_warning = lambda msg: warn_gap(msg) if isinstance(msg, dict) else warn(msg)  # skipped odd frames
    fh = open(args.out, "w") if args.out else None
    writer = None
    gaps_done = 0
    try:
        for frame in src:
            while gaps_done < len(src.gaps):
                warn_gap(watcher.gap(src.gaps[gaps_done]))
                gaps_done += 1
            for ev in watcher.process(frame):
                _emit(ev, fh)
            if args.show is not None:
                if writer is None:
                    h, w = frame.image.shape[:2]
                    writer = cv2.VideoWriter(str(args.show), cv2.VideoWriter_fourcc(*"mp4v"), src.fps or 30.0, (w, h))
                writer.write(watcher.annotate(frame.image, frame.t))
    except KeyboardInterrupt:
        warn("interrupted; events so far are written")
    except FrameMismatchError as exc:
        return _fail(str(exc))
    finally:
        if fh is not None:
            fh.close()
        if writer is not None:
            writer.release()
    for g in src.gaps[gaps_done:]:
        warn_gap(watcher.gap(g))
    print(json.dumps({"stats": watcher.stats.to_dict()}), file=sys.stderr)
    return 0


def _eval(args: argparse.Namespace) -> int:
    from vision.detector import DetectorError
    from vision.evalvideo import evaluate, plot_report

    if (why := _bad_fps(args.fps)) is not None:
        return _fail(why)
    try:
        res = evaluate(args.games, args.seed, weights=args.weights, progress=not args.json, fps=args.fps,
                       jobs=args.jobs)
    except DetectorError as exc:
        return _fail(str(exc))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "report.json").write_text(json.dumps(res, indent=1))
    plot_report(res, args.out / "report.png")
    keys = ("play_recall", "play_precision", "seat_accuracy", "draw_accuracy", "reveal_accuracy",
            "latency_ms_median", "latency_ms_p95", "fps")
    if args.json:
        print(json.dumps({k: res[k] for k in keys} | {"games": res["games"], "read_share": res["read_share"],
                                                       "flags_equal": res["flags_equal"],
                                                       "games_all_plays_seen": res["games_all_plays_seen"]}))
    else:
        for k in keys + ("read_share", "games_all_plays_seen", "flags_equal"):
            print(f"{k:22s} {res[k]}")
    return 0
