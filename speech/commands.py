"""Speech subcommands: `listen`, `speech check`, `train-speech`, `eval-speech`.

Heavy modules (onnxruntime, vosk, torch, sounddevice) are imported inside the commands, so `unotable --help` and the
other areas work on machines without them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("listen", help="print the uno/colour/pass calls heard in a source as EVENTS.md JSON lines")
    p.add_argument("source", help="an audio file (WAV/FLAC/OGG), a video (its audio track), `mic` or `mic:DEVICE`")
    p.add_argument("--engine", choices=("kws", "vosk"), default="kws",
                   help="kws: the project's keyword model (default); vosk: a grammar-restricted vosk model")
    p.add_argument("--vosk-model", help="vosk model directory (else UNOTABLE_VOSK_MODEL or the config file)")
    p.add_argument("--seats", type=int, default=0,
                   help="the source has one channel per seat (channel i = seat i's microphone): give their number")
    p.add_argument("--threshold", type=float, default=None, help="keyword model firing threshold (0-1)")
    p.add_argument("--seconds", type=float, default=None, help="stop a microphone after this many seconds")
    p.add_argument("--no-pass", action="store_true", help="do not print `pass` events")
    p.set_defaults(func=_listen)

    sp = sub.add_parser("speech", help="speech engine tools")
    ssub = sp.add_subparsers(dest="speech_command", metavar="SUBCOMMAND")
    ssub.required = True
    c = ssub.add_parser("check", help="say which speech engines, microphones and TTS voices are usable here")
    c.add_argument("--vosk-model", help="vosk model directory to check")
    c.set_defaults(func=_check)

    t = sub.add_parser("train-speech", help="synthesise the training data and retrain models/kws.onnx")
    t.add_argument("--epochs", type=int, default=20)
    t.add_argument("--threads", type=int, default=2)
    t.add_argument("--workers", type=int, default=2, help="processes for speech synthesis")
    t.add_argument("--scale", type=float, default=1.0, help="fraction of the full data set (0.05 for a smoke run)")
    t.add_argument("--skip-data", action="store_true", help="reuse data/speech/ from an earlier run")
    t.add_argument("--out", type=Path, default=None, help="ONNX path (default models/kws.onnx)")
    t.add_argument("--part", choices=("all", "dscnn", "head"), default="all",
                   help="dscnn: the log-mel network only; head: the speech-embedding head only (models/kws_emb.onnx,"
                        " from data/speech/banks_train.pkl); all: both, then the card that averages them")
    t.add_argument("--teacher", type=Path, default=None,
                   help="head: train it on this head file's posteriors as well as the labels (distillation, e.g. "
                        "from stop 58's eight heads averaged, runs/kws_round/hens8.py)")
    t.set_defaults(func=_train)

    e = sub.add_parser("eval-speech", help="recall, false alarms/hour, latency and a DET curve on held-out voices")
    e.add_argument("--bank", type=Path, default=None, help="test banks (default data/speech/banks_test.pkl)")
    e.add_argument("--threshold", type=float, default=None)
    e.add_argument("--model", type=Path, default=None, help="keyword model to score (default models/kws.onnx)")
    e.add_argument("--quick", action="store_true", help="a small subset (a smoke run)")
    e.add_argument("--png", type=Path, default=Path("runs/speech/det.png"))
    e.add_argument("--json", type=Path, default=Path("runs/speech/eval.json"))
    e.set_defaults(func=_eval)


def _err(msg: str) -> int:
    print(f"unotable: {msg}", file=sys.stderr)
    return 2


def _listen(args: argparse.Namespace) -> int:
    from speech.audio import FileSource, SpeechInputError, open_source

    if args.seats < 0 or args.seats == 1:
        return _err(f"--seats {args.seats}: give the number of per-seat microphones (2 or more), or leave it out")
    if args.threshold is not None and not 0 < args.threshold <= 1:
        return _err(f"--threshold {args.threshold}: a posterior threshold between 0 and 1 (e.g. 0.5)")
    try:
        channels = max(1, args.seats)
        src = open_source(args.source, channels=channels, max_seconds=args.seconds)
        if args.seats and isinstance(src, FileSource) and src.channels != args.seats:
            # channel i is seat i's microphone: a file with another number of channels can't say who spoke
            return _err(f"{args.source} has {src.channels} channel(s), but --seats {args.seats}: "
                        f"one channel a seat")
        if args.engine == "vosk":
            from speech.vosk_engine import VoskDetector

            det: Any = VoskDetector(model_dir=args.vosk_model)
        else:
            from speech.kws import KeywordDetector

            det = KeywordDetector(threshold=args.threshold)
        with src:
            for ev in det.run(src.chunks()):
                if args.no_pass and ev["type"] == "pass":
                    continue
                if not args.seats:
                    ev["seat"] = None
                print(json.dumps(ev, ensure_ascii=False), flush=True)
    except SpeechInputError as exc:
        return _err(str(exc))
    return 0


def _check(args: argparse.Namespace) -> int:
    from speech.audio import SpeechInputError

    rows: list[tuple[str, bool, str]] = []
    try:
        from speech.kws import check_model

        rows.append(("keyword model (default engine)", True, check_model()))
    except SpeechInputError as exc:
        rows.append(("keyword model (default engine)", False, str(exc)))
    except ImportError as exc:
        rows.append(("keyword model (default engine)", False, f"onnxruntime missing ({exc})"))
    try:
        from speech.vosk_engine import load_model, vosk_model_dir

        load_model(args.vosk_model)
        rows.append(("vosk engine", True, f"model {vosk_model_dir(args.vosk_model)}"))
    except SpeechInputError as exc:
        rows.append(("vosk engine", False, str(exc)))
    try:
        import sounddevice as sd

        ins = [d["name"] for d in sd.query_devices() if d["max_input_channels"] > 0]
        rows.append(("microphone (sounddevice)", bool(ins), ", ".join(ins) if ins else "no input devices"))
    except OSError as exc:
        rows.append(("microphone (sounddevice)", False, f"PortAudio missing ({exc}); install libportaudio2"))
    except ImportError:
        rows.append(("microphone (sounddevice)", False, "pip package sounddevice not installed"))
    except Exception as exc:  # e.g. sounddevice.PortAudioError while listing devices
        rows.append(("microphone (sounddevice)", False, f"devices could not be listed ({exc})"))
    import shutil

    rows.append(("video audio (ffmpeg)", shutil.which("ffmpeg") is not None, shutil.which("ffmpeg") or "not found"))
    from speech.synth import accent_voices, available_engines, list_voices, pico_voices

    eng = available_engines()
    rows.append(("TTS for train-speech", any(eng.values()),
                 ", ".join(k for k, v in eng.items() if v) + f"; {len(list_voices('en'))} English and "
                 f"{len(list_voices('ru'))} Russian voices, {len(accent_voices())} speakers of other languages, "
                 f"{len(pico_voices())} SVOX Pico voices"))
    width = max(len(r[0]) for r in rows)
    for name, ok, detail in rows:
        print(f"{name:<{width}}  {'usable' if ok else 'NOT usable'}  {detail}")
    return 0 if rows[0][1] or rows[1][1] else 1


def _train(args: argparse.Namespace) -> int:
    try:
        import torch  # noqa: F401
    except ImportError:
        return _err("train-speech needs torch (pip install 'unotable[train]')")
    from speech import train as tr
    from speech.synth import available_engines

    out = args.out or tr.MODELS / "kws.onnx"
    if args.teacher is not None and not args.teacher.is_file():  # before hours of training, not after
        return _err(f"--teacher {args.teacher}: no such head file (make one with runs/kws_round/hens8.py)")
    if args.part in ("all", "dscnn"):
        if not args.skip_data:
            if not available_engines()["espeak"]:
                return _err("train-speech needs espeak-ng (Debian package espeak-ng); flite and festival add voices")
            tr.build_data(workers=args.workers, scale=args.scale)
        elif not (tr.DATA / "train.npz").exists():
            return _err(f"--skip-data: {tr.DATA / 'train.npz'} does not exist; run without --skip-data first")
        best = tr.train(epochs=args.epochs, threads=args.threads)
        tr.export(best, out)
        print(f"wrote {out}")
    if args.part in ("all", "head"):
        from speech.embedding import FrontEndMissingError
        from speech.head import SHIPPED_RULE, SHIPPED_WEIGHT, add_to_card, rebuild

        banks = tr.DATA / "banks_train.pkl"
        if not banks.exists():
            return _err(f"{banks} does not exist: run `unotable train-speech --part dscnn` (or all) first")
        try:
            head = rebuild([banks], tr.DATA / "emb", out.with_name(out.stem + "_emb.onnx"),
                           n_recordings=max(4, int(1600 * args.scale)), epochs=args.epochs,
                           workers=args.workers, threads=args.threads, teacher=args.teacher)
        except FrontEndMissingError as exc:
            return _err(str(exc))
        print(f"wrote {head}")
        if out.exists():
            print(f"wrote {add_to_card(out, head, SHIPPED_WEIGHT, SHIPPED_RULE)}")
    return 0


def _eval(args: argparse.Namespace) -> int:
    from speech import evaluate as ev
    from speech.audio import SpeechInputError
    from speech.train import DATA

    bank = args.bank or DATA / "banks_test.pkl"
    if not bank.exists() and args.bank is None:
        # a fresh machine: render the held-out corpus first (deterministic seeds; it takes a while on two cores)
        from speech.train import build_test_banks

        print(f"rendering the held-out test corpus into {DATA} (seeds 12, 102, 103) ...", file=sys.stderr)
        try:
            build_test_banks(DATA)
        except SpeechInputError as exc:
            return _err(f"can't render the test corpus: {exc}")
    if not bank.exists():
        return _err(f"test corpus {bank} is missing; `unotable train-speech` builds it")
    try:
        if args.quick:
            r = ev.evaluate(bank, snrs=(10.0,), threshold=args.threshold, limit=120, fa_limit=150,
                            digits_limit=300, png=args.png, model_path=args.model)
        else:
            from speech.pico import ensure_pico_test_bank

            # the held-out Pico voices' bank beside the test bank; rendered (in under a minute) beside the default one
            pico = ensure_pico_test_bank(bank.parent) if bank.parent == DATA else bank.with_name("banks_pico_test.pkl")
            r = ev.evaluate(bank, threshold=args.threshold, png=args.png, model_path=args.model,
                            accent_bank=bank.with_name("banks_accent_test.pkl"), pico_bank=pico)
    except SpeechInputError as exc:
        return _err(str(exc))
    ev.save_report(r, args.json)
    print(ev.format_report(r))
    print(f"report: {args.json}")
    return 0
