"""The built-in demo table: a rendered game video with its synthesised soundtrack, and the violations planted in it.

    python -m unotable.demo [--out datasets/demo] [--seed 7]

simulates a Mattel-rules hand with planted mistakes (illegal cards, plays out of turn, missed UNO calls, wrong
draws, illegal jump-ins), renders it as an overhead video with ArUco markers (`datasets.gamevideo`), synthesises the
players' calls ("UNO", colours, and "pass" after a draw that ends a turn; two players in English and two in Russian;
the missed calls are simply not said)
over table noise (`speech.tabletrack`), and muxes both into `game.mp4`. `demo.json` names the files, the table's
players and ruleset, and the planted violations that `unotable run --demo --headless` is scored against.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

DEMO_DIR = Path(__file__).resolve().parent.parent / "datasets" / "demo"
MISTAKES = ("illegal_card", "out_of_turn", "missed_uno", "wrong_draw", "illegal_jump_in")
LANG_OF_SEAT = ("en", "ru", "en", "ru")
PASS_WORDS = {"en": "pass", "ru": "пас"}
COLOR_WORDS = {"en": {"red": "red", "yellow": "yellow", "green": "green", "blue": "blue"},
               "ru": {"red": "красный", "yellow": "жёлтый", "green": "зелёный", "blue": "синий"}}


def pick_match(seed: int, max_seconds: float) -> tuple[int, Any]:
    """The first seed from `seed` whose one-hand game has 4-8 planted violations and renders short enough."""
    from datasets.gamevideo import GameRenderer
    from tracker.simulate import SimConfig, simulate_match

    for s in range(seed, seed + 400):
        sim = simulate_match(SimConfig(ruleset="mattel", players=4, seed=s, mistakes=MISTAKES, rate=0.06,
                                       max_hands=1))
        codes = [f["code"] for f in sim.truth]
        if not 4 <= len(codes) <= 8 or "missed_uno" not in codes or len(set(codes)) < 3:
            continue
        if any(e.type == "challenge" for e in sim.events):
            continue
        if GameRenderer(sim.events, seed=s).duration <= max_seconds:
            return s, sim
    raise RuntimeError(f"no suitable demo game among seeds {seed}..{seed + 399}")


def calls_for(log: list[dict[str, Any]]) -> list[Any]:
    """What the players say, timed to the rendered game: UNO calls end as the event's time, colours follow plays."""
    from speech.tabletrack import Call

    calls = []
    last_seat: int | None = None
    for d in log:
        if d["type"] == "play" and d.get("seat") is not None:
            last_seat = d["seat"]
        seat = d.get("seat") if d.get("seat") is not None else last_seat
        if seat is None:
            continue
        lang = LANG_OF_SEAT[seat % len(LANG_OF_SEAT)]
        if d["type"] == "uno":
            calls.append(Call(max(0.0, d["t"] - 0.5), "UNO" if lang == "en" else "УНО", seat, lang))
        elif d["type"] == "color":
            calls.append(Call(d["t"], COLOR_WORDS[lang][d["color"]], seat, lang))
        elif d["type"] == "play" and d.get("color"):
            calls.append(Call(d["t"] + 0.3, COLOR_WORDS[lang][d["color"]], seat, lang))
        elif d["type"] == "pass":  # a turn ended without a play is said aloud: the camera can't see it
            calls.append(Call(max(0.0, d["t"] - 0.45), PASS_WORDS[lang], seat, lang))
    return calls


def _dub(video_in: Path, log: list[dict[str, Any]], duration: float, seed: int, video_out: Path,
         copy_video: bool) -> list[Any]:
    """Synthesise what the players say over `log` and mux it under `video_in`'s frames into `video_out` (frames
    copied, or encoded when they come raw from the renderer); returns the calls as said."""
    import soundfile as sf

    from speech.synth import RATE
    from speech.tabletrack import make_track

    if shutil.which("ffmpeg") is None:
        raise RuntimeError("ffmpeg (Debian package) is needed to mux the demo's soundtrack")
    audio, said = make_track(calls_for(log), duration, seats=0, noise_db=-20.0, seed=seed)
    codec = ["-c:v", "copy"] if copy_video else ["-c:v", "libx264", "-preset", "medium", "-crf", "27",
                                                   "-pix_fmt", "yuv420p"]
    with tempfile.TemporaryDirectory() as tmp:
        wav, muxed = Path(tmp) / "calls.wav", Path(tmp) / "game.mp4"
        sf.write(wav, audio, RATE)
        cmd = ["ffmpeg", "-y", "-loglevel", "error", "-i", str(video_in), "-i", str(wav), "-map", "0:v",
               "-map", "1:a", *codec, "-c:a", "aac", "-b:a", "64k", "-shortest", str(muxed)]
        subprocess.run(cmd, check=True)
        shutil.copy(muxed, video_out)
    return list(said)


def _says_pass(log: list[dict[str, Any]]) -> bool:
    """Whether the demo's players say "pass" (`run --demo` then listens for it)."""
    return any(d["type"] == "pass" for d in log)


def revoice_demo(out_dir: Path = DEMO_DIR) -> Path:
    """Synthesise the demo's soundtrack again from its truth log (after a change to what the players say) and mux
    it under the same video frames, which are copied, not re-encoded."""
    meta = json.loads((out_dir / "demo.json").read_text(encoding="utf-8"))
    log = [json.loads(x) for x in (out_dir / meta["truth"]).read_text().splitlines() if x.strip()]
    video = out_dir / meta["video"]
    meta["calls"] = _dub(video, log, meta["duration_s"], meta["seed"], video, copy_video=True)
    meta["players_say_pass"] = _says_pass(log)
    (out_dir / "demo.json").write_text(json.dumps(meta, ensure_ascii=False, indent=1), encoding="utf-8")
    return video


def make_demo(out_dir: Path = DEMO_DIR, seed: int = 7, max_seconds: float = 150.0) -> Path:
    from datasets.gamevideo import render_game

    if shutil.which("ffmpeg") is None:
        raise RuntimeError("ffmpeg (Debian package) is needed to mux the demo's soundtrack")
    out_dir.mkdir(parents=True, exist_ok=True)
    s, sim = pick_match(seed, max_seconds)
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "game.mp4"
        truth = render_game(sim.events, raw, seed=s, progress=True)
        log = truth.log
        duration = truth.frames / truth.fps
        video = out_dir / "game.mp4"
        said = _dub(raw, log, duration, s, video, copy_video=False)
        for suffix in (".truth.jsonl", ".table.toml"):
            shutil.copy(Path(tmp, f"game{suffix}"), out_dir / f"game{suffix}")
    start = next(d for d in log if d["type"] == "match_start")
    hand = next(d for d in log if d["type"] == "hand_start")
    planted = [{"code": f["code"], "seat": f["seat"], "line": f["line"], "t": log[f["line"] - 1]["t"]}
               for f in sim.truth]
    meta = {
        "video": "game.mp4", "table": "game.table.toml", "truth": "game.truth.jsonl", "seed": s,
        "ruleset": start["ruleset"], "players": start["players"], "dealer": hand.get("dealer"),
        "duration_s": round(duration, 2), "calls": said, "planted": planted,
        "players_say_pass": _says_pass(log),
    }
    (out_dir / "demo.json").write_text(json.dumps(meta, ensure_ascii=False, indent=1), encoding="utf-8")
    return video


def main() -> int:
    ap = argparse.ArgumentParser(description="build the demo table recording for `make run`")
    ap.add_argument("--out", type=Path, default=DEMO_DIR)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--max-seconds", type=float, default=150.0)
    ap.add_argument("--revoice", action="store_true",
                    help="only synthesise the soundtrack again from the existing truth log (video frames kept)")
    args = ap.parse_args()
    video = revoice_demo(args.out) if args.revoice else make_demo(args.out, args.seed, args.max_seconds)
    print(f"{video} ({video.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
