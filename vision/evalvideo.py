"""Scoring the video pipeline on rendered games whose truth is known.

Per game: plays matched to the truth by cards and time (|dt| <= 0.5 s; the seat must be right too unless the
pipeline said `seat: null`, which the engine then infers), seat accuracy over the matched plays that carry a seat,
draws (seat, time within 1 s, count), reveals (seat, time within 1.5 s, exactly the same cards), latency (the
frame time the play was decided minus the moment the card came to rest), and the flag check: the pipeline's
visual events merged with the true non-visual events (speech, referee) replay to the same flags as the true log.
The colour a player names for a Wild is speech, not something a camera sees: where the true log carries it inside
the `play` (or `starter`) event, the merge passes it on as the `color` event the microphone would have given.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

VISUAL_TYPES = ("play", "draw", "reveal", "starter")


def _same_cards(a: list[str], b: list[str]) -> bool:
    return Counter(a) == Counter(b)


def _match_by_seat(visual: list[dict[str, Any]], events: list[dict[str, Any]], kind: str, window: float,
                   right: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]], int]:
    """Truth and predicted events of `kind`, and how many truth events have a prediction of the same seat within
    `window` seconds (each used once) for which `right(pred, truth)` holds."""
    truth = [e for e in visual if e["type"] == kind]
    pred = [e for e in events if e["type"] == kind]
    ok, used = 0, set()
    for d in truth:
        for i, p in enumerate(pred):
            if i not in used and p["seat"] == d["seat"] and abs(p["t"] - d["t"]) <= window:
                used.add(i)
                ok += int(right(p, d))
                break
    return truth, pred, ok


def score_game(visual: list[dict[str, Any]], events: list[dict[str, Any]], window: float = 0.5) -> dict[str, Any]:
    truth_plays = [e for e in visual if e["type"] == "play"]
    pred_plays = [e for e in events if e["type"] == "play"]
    used: set[int] = set()
    matched: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for tp in truth_plays:
        best = None
        for i, pp in enumerate(pred_plays):
            if i in used or abs(pp["t"] - tp["t"]) > window or not _same_cards(pp["cards"], tp["cards"]):
                continue
            if pp.get("seat") is not None and pp["seat"] != tp["seat"]:
                continue
            if best is None or abs(pp["t"] - tp["t"]) < abs(pred_plays[best]["t"] - tp["t"]):
                best = i
        if best is not None:
            used.add(best)
            matched.append((tp, pred_plays[best]))
    # seat accuracy: every truth play matched by cards and time alone, seat compared
    seat_total, seat_ok = 0, 0
    used2: set[int] = set()
    for tp in truth_plays:
        for i, pp in enumerate(pred_plays):
            if i in used2 or abs(pp["t"] - tp["t"]) > window or not _same_cards(pp["cards"], tp["cards"]):
                continue
            used2.add(i)
            seat_total += 1
            seat_ok += int(pp.get("seat") == tp["seat"])
            break
    lat = [1000.0 * (pp["seen_t"] - tp["t"]) for tp, pp in matched if "seen_t" in pp]
    td, pd, draw_ok = _match_by_seat(visual, events, "draw", 1.0, lambda p, d: p["count"] == d["count"])
    tr, pr, rev_ok = _match_by_seat(visual, events, "reveal", 1.5, lambda p, r: _same_cards(p["cards"], r["cards"]))
    return {"plays": len(truth_plays), "pred_plays": len(pred_plays), "matched": len(matched),
            "seat_total": seat_total, "seat_ok": seat_ok, "draws": len(td), "pred_draws": len(pd), "draw_ok": draw_ok,
            "reveals": len(tr), "pred_reveals": len(pr), "reveal_ok": rev_ok, "latency_ms": lat,
            "all_plays_seen": len(matched) == len(truth_plays) and len(pred_plays) == len(truth_plays)}


def _with_spoken_target(e: dict[str, Any], true_plays: list[dict[str, Any]]) -> dict[str, Any]:
    """A seen play with the swap target of the true play it matches (same cards, |dt| <= 0.5 s, the seat where
    both name one): under 7-0 the player *names* whose hand to swap with, which no camera sees and EVENTS.md
    carries only inside the `play`, so the merge passes it on as it passes a named colour. A true play logged
    with `seat: null` (a jump-in the engine places) says nothing against the seat the camera saw."""
    if e["type"] != "play":
        return e
    for d in true_plays:
        if ("target" in d and abs(float(d["t"]) - float(e["t"])) <= 0.5 and _same_cards(d["cards"], e["cards"])
                and (d.get("seat") is None or e.get("seat") in (None, d["seat"]))):
            return {**e, "target": d["target"]}
    return e


def merge_with_truth(truth_log: list[dict[str, Any]], events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The true non-visual events (match/hand start, speech, referee) with the pipeline's visual events, in time
    order (a tie keeps the visual event first: a colour is named after its Wild lands). What is said about a play
    rather than seen (its colour, its swap target) comes from the true log (`_with_spoken_target`), and so does a
    `reveal` of no cards: an empty hand shows nothing on the table (the renderer lays nothing,
    `datasets.gamevideo_plan`), so a seat claiming one is heard or ruled on, never seen."""
    keep = [(float(e["t"]), 1, i, e) for i, e in enumerate(truth_log)
            if e["type"] not in VISUAL_TYPES or (e["type"] == "reveal" and not e.get("cards"))]
    keep += [(float(e["t"]), 1, i, {"t": e["t"], "type": "color", "seat": e.get("seat"), "color": e["color"]})
             for i, e in enumerate(truth_log) if e["type"] in ("play", "starter") and e.get("color")]
    true_plays = [e for e in truth_log if e["type"] == "play"]
    vis = [(float(e["t"]), 0, i, _with_spoken_target({k: v for k, v in e.items() if k != "seen_t"}, true_plays))
           for i, e in enumerate(events) if e["type"] in VISUAL_TYPES]
    merged = sorted(keep + vis, key=lambda x: (x[0], x[1], x[2]))
    return [e for _, _, _, e in merged]


def flags_of(log: list[dict[str, Any]]) -> Counter:
    from tracker.engine import replay
    from tracker.log import parse_event

    evs = [parse_event(d, i + 1) for i, d in enumerate(log)]
    return Counter((f.to_dict()["code"], f.to_dict()["seat"]) for f in replay(evs).flags)


def watch_video(video: Path, table: Any, reader: Any) -> tuple[list[dict[str, Any]], Any]:
    from vision.pipeline import Watcher
    from vision.sources import VideoFileSource

    w = Watcher(table, reader)
    out: list[dict[str, Any]] = []
    for frame in VideoFileSource(video):
        out += w.process(frame)
    return out, w.stats


def _eval_one(job: tuple[Any, float, str | None, bool]) -> tuple[dict[str, Any], int, float, int]:
    """Watch and score one game (a process-pool job): (score, frames, seconds, frames read)."""
    import cv2

    from datasets.gamevideo import truth_paths
    from datasets.gamevideo_set import ensure_game
    from vision.calibration import calibrate_image
    from vision.readers import load_reader
    from vision.tablefile import read_table

    spec, fps, weights, calibrate = job
    video = ensure_game(spec, fps=fps)
    log_path, meta_path, table_path = truth_paths(video)
    truth_log = [json.loads(x) for x in log_path.read_text().splitlines() if x.strip()]
    meta = json.loads(meta_path.read_text())
    table = None
    calibrated = "truth"
    if calibrate:  # calibrate from the markers, as a user would (`unotable calibrate` also tries 90 frames)
        from vision.calibration import CalibrationError

        cap = cv2.VideoCapture(str(video))
        for _ in range(90):
            ok, frame = cap.read()
            if not ok:
                break
            try:
                table = calibrate_image(frame, meta["seats"])
                calibrated = "markers"
                break
            except CalibrationError:
                continue
        cap.release()
    if table is None:
        table = read_table(table_path)
    reader = load_reader(table, weights)
    events, stats = watch_video(video, table, reader)
    sc = score_game(meta["visual"], events)
    sc["game"] = spec.name
    sc["calibration"] = calibrated
    if sc["all_plays_seen"]:
        sc["flags_equal"] = flags_of(merge_with_truth(truth_log, events)) == flags_of(truth_log)
    video.with_suffix(".watch.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    return sc, stats.frames, stats.seconds, stats.frames_read


def evaluate(n: int, seed: int, weights: str | None = None, progress: bool = True, fps: float = 30.0,
             calibrate: bool = True, jobs: int = 1) -> dict[str, Any]:
    """Render (or reuse) `n` games from `seed`, watch each with the shipped detector, and score them."""
    from datasets.gamevideo_set import game_specs

    work = [(spec, fps, weights, calibrate) for spec in game_specs(n, seed)]
    bar: Any = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(work), desc="eval-video games", unit="game")
    results = []
    if jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(jobs) as pool:
            for r in pool.map(_eval_one, work):
                results.append(r)
                if bar is not None:
                    bar.update()
    else:
        for job in work:
            results.append(_eval_one(job))
            if bar is not None:
                bar.update()
    if bar is not None:
        bar.close()
    games = [r[0] for r in results]
    return summarise(games, sum(r[1] for r in results), sum(r[2] for r in results), sum(r[3] for r in results))


def summarise(games: list[dict[str, Any]], frames: int, seconds: float, frames_read: int) -> dict[str, Any]:
    tot = lambda k: sum(g[k] for g in games)  # noqa: E731
    lat = [v for g in games for v in g["latency_ms"]]
    seen = [g for g in games if "flags_equal" in g]
    return {
        "games": len(games),
        "play_recall": round(tot("matched") / max(1, tot("plays")), 4),
        "play_precision": round(tot("matched") / max(1, tot("pred_plays")), 4),
        "seat_accuracy": round(tot("seat_ok") / max(1, tot("seat_total")), 4),
        "draw_accuracy": round(tot("draw_ok") / max(1, tot("draws")), 4),
        "reveal_accuracy": round(tot("reveal_ok") / max(1, tot("reveals")), 4),
        "latency_ms_median": round(float(np.median(lat)), 1) if lat else None,
        "latency_ms_p95": round(float(np.percentile(lat, 95)), 1) if lat else None,
        "fps": round(frames / seconds, 1) if seconds else 0.0,
        "read_share": round(frames_read / max(1, frames), 4),
        "games_all_plays_seen": len(seen),
        "flags_equal": sum(1 for g in seen if g["flags_equal"]),
        "per_game": [{k: v for k, v in g.items() if k != "latency_ms"} for g in games],
    }


def plot_report(res: dict[str, Any], path: Path) -> None:
    """Per-game recall/precision bars and the headline figures, as a PNG beside the JSON."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    games = res["per_game"]
    names = [g["game"].replace("game_", "") for g in games]
    rec = [g["matched"] / max(1, g["plays"]) for g in games]
    prec = [g["matched"] / max(1, g["pred_plays"]) for g in games]
    fig, ax = plt.subplots(figsize=(max(6, len(games) * 0.5), 4))
    x = np.arange(len(games))
    ax.bar(x - 0.2, rec, 0.4, label="play recall")
    ax.bar(x + 0.2, prec, 0.4, label="play precision")
    ax.set_xticks(x, names, rotation=70, fontsize=7)
    ax.set_ylim(0, 1.05)
    ax.set_title(f"recall {res['play_recall']:.3f}  precision {res['play_precision']:.3f}  seat "
                 f"{res['seat_accuracy']:.3f}  latency median {res['latency_ms_median']} ms  {res['fps']} fps",
                 fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
