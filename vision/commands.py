"""Vision subcommands: `unotable train`, `unotable detect`, `unotable eval-detector`.

Heavy modules (onnxruntime, torch, ultralytics) are imported inside each command so `unotable --help` stays fast.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    t = sub.add_parser("train", help="train the card detector (needs the train extra: torch + ultralytics)")
    t.add_argument("--data", type=Path, required=True, help="data.yaml written by `unotable dataset build`")
    t.add_argument("--project", type=Path, default=Path("runs"), help="folder for training runs (default runs/)")
    t.add_argument("--name", default="detector", help="run name (default detector)")
    t.add_argument("--model", default="yolo11n.yaml", help="Ultralytics model YAML (random init; default yolo11n.yaml)")
    t.add_argument("--imgsz", type=int, default=320)
    t.add_argument("--epochs", type=int, default=30)
    t.add_argument("--hours", type=float, default=None, help="fit training into this many hours (overrides epochs)")
    t.add_argument("--batch", type=int, default=16)
    t.add_argument("--threads", type=int, default=1, help="torch threads (default 1: the machine is shared)")
    t.add_argument("--workers", type=int, default=1, help="data loader worker processes")
    t.add_argument("--device", default="cpu", help="torch device: cpu (default) or a GPU index such as 0")
    t.add_argument("--pretrained", type=Path, default=None,
                   help="continue from these weights (a .pt checkpoint of the same model YAML)")
    t.add_argument("--lr0", type=float, default=None, help="initial learning rate (default 0.0015)")
    t.add_argument("--fraction", type=float, default=1.0, help="use this share of the training images")
    t.add_argument("--resume", action="store_true", help="continue the interrupted run <project>/<name>")
    t.add_argument("--export", type=Path, default=None,
                   help="after training, export the best weights to this ONNX path (+ .json with class names)")
    t.set_defaults(func=_train)

    c = sub.add_parser("train-classifier", help="train the second-stage crop classifier (needs the train extra)")
    c.add_argument("--data", type=Path, required=True, help="folder made by `unotable dataset build`")
    c.add_argument("--out", type=Path, default=Path("models/card_classifier.onnx"), help="ONNX output (+ .json)")
    c.add_argument("--epochs", type=int, default=8)
    c.add_argument("--copies", type=int, default=1, help="jittered crops per labelled card")
    c.add_argument("--minutes", type=float, default=None, help="stop after the epoch that passes this budget")
    c.add_argument("--more", action="append", default=[], metavar="PATH[:COPIES]",
                   help="another data set (e.g. close-ups) with its own crops per card; repeatable")
    c.add_argument("--init", type=Path, default=None, help="start from this saved state dict (.pth)")
    c.add_argument("--lr", type=float, default=3e-3, help="peak learning rate (one-cycle)")
    c.add_argument("--batch", type=int, default=32)
    c.add_argument("--width", type=float, default=1.0, help="channel multiplier of the network (default 1)")
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--device", default="cpu", help="torch device: cpu (default), cuda, cuda:1")
    c.add_argument("--workers", type=int, default=1, help="processes cutting the crops")
    c.set_defaults(func=_train_classifier)

    d = sub.add_parser("detect", help="find UNO cards in images")
    d.add_argument("images", nargs="+", type=Path, help="image files or folders of images")
    d.add_argument("--json", action="store_true", help="print one JSON line per image")
    d.add_argument("--annotate", type=Path, default=None, help="write annotated copies of the images here")
    d.add_argument("--weights", type=Path, default=None, help="model file (default: the shipped models/card_detector)")
    d.add_argument("--backend", choices=("onnx", "ultralytics"), default="onnx")
    d.add_argument("--conf", type=float, default=0.25, help="minimum confidence (default 0.25)")
    d.add_argument("--no-classifier", action="store_true", help="use the YOLO classes only (skip the second stage)")
    d.set_defaults(func=_detect)

    e = sub.add_parser("eval-detector", help="mAP on a synthetic set and top-1 accuracy on real photos")
    e.add_argument("--synthetic", type=Path, default=None,
                   help="held-out data set folder or data.yaml (its val split is scored); skipped when absent")
    e.add_argument("--real", type=Path, default=None,
                   help="folder of real photos, one sub-folder per card code (default ../shared/datasets/real-photos)")
    e.add_argument("--weights", type=Path, default=None)
    e.add_argument("--backend", choices=("onnx", "ultralytics"), default="onnx")
    e.add_argument("--out", type=Path, default=Path("runs/eval"), help="where the confusion matrix PNG and JSON go")
    e.add_argument("--limit", type=int, default=None, help="score at most this many images of each set")
    e.add_argument("--no-classifier", action="store_true", help="use the YOLO classes only (skip the second stage)")
    e.set_defaults(func=_eval)


def _expand(paths: list[Path]) -> list[Path]:
    """The image files named, a folder standing for the images under it: the suffixes `watch` and `calibrate` read
    (one list, in `vision.sources`, imported here so that `unotable --help` needs no OpenCV)."""
    from vision.sources import IMAGE_SUFFIXES

    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            out += sorted(q for q in p.rglob("*") if q.suffix.lower() in IMAGE_SUFFIXES)
        else:
            out.append(p)
    return out


def _train(args: argparse.Namespace) -> int:
    try:
        from models.train import export_onnx, train
    except ImportError as exc:
        print(f"train: needs the train extra (pip install -e '.[train]'): {exc}", file=sys.stderr)
        return 2
    extra: dict[str, object] = {}
    if args.pretrained is not None:
        if not args.pretrained.is_file():
            print(f"train: --pretrained {args.pretrained} not found", file=sys.stderr)
            return 2
        extra["pretrained"] = str(args.pretrained)  # Ultralytics continues from weights given this way
    if args.lr0 is not None:
        extra["lr0"] = args.lr0
    try:
        best = train(args.data, args.project, args.name, args.model, args.imgsz, args.epochs, args.hours,
                     args.batch, args.threads, args.workers, args.resume, args.fraction, extra, args.device)
    except FileNotFoundError as exc:
        print(f"train: {exc}", file=sys.stderr)
        return 2
    print(f"best weights: {best}")
    if args.export:
        onnx_path = export_onnx(best, args.export, args.imgsz)
        print(f"exported {onnx_path} and {onnx_path.with_suffix('.json')}")
    return 0


def _train_classifier(args: argparse.Namespace) -> int:
    try:
        from models.train_classifier import parse_more, train_classifier
    except ImportError as exc:
        print(f"train-classifier: needs the train extra (pip install -e '.[train]'): {exc}", file=sys.stderr)
        return 2
    from datasets.export import CLASS_NAMES

    if not (args.data / "images" / "train").is_dir():
        print(f"train-classifier: {args.data}/images/train not found (make it with `unotable dataset build`)",
              file=sys.stderr)
        return 2
    try:
        more = tuple(parse_more(m) for m in args.more)
    except ValueError as exc:
        print(f"train-classifier: --more: {exc}", file=sys.stderr)
        return 2
    for root, _ in more:
        if not (root / "images" / "train").is_dir():
            print(f"train-classifier: {root}/images/train not found (make it with `unotable dataset build`)",
                  file=sys.stderr)
            return 2
    if args.init is not None and not args.init.is_file():
        print(f"train-classifier: --init {args.init} not found", file=sys.stderr)
        return 2
    history = train_classifier(args.data, args.out, list(CLASS_NAMES), args.epochs, copies=args.copies,
                               minutes=args.minutes, init=args.init, lr=args.lr, more=more, batch=args.batch,
                               seed=args.seed, device=args.device, workers=args.workers, width=args.width)
    print(json.dumps(history))
    return 0


def _detect(args: argparse.Namespace) -> int:
    from vision.annotate import annotate
    from vision.detector import DetectorError, load_detector, read_image

    try:
        detector = load_detector(args.weights, args.backend, conf=args.conf, classifier=not args.no_classifier)
    except DetectorError as exc:
        print(f"detect: {exc}", file=sys.stderr)
        return 2
    paths = _expand(args.images)
    if not paths:
        print("detect: no images found in the given paths", file=sys.stderr)
        return 2
    if args.annotate:
        args.annotate.mkdir(parents=True, exist_ok=True)
    status = 0
    for path in paths:
        try:
            image = read_image(path)
        except DetectorError as exc:
            print(f"detect: {exc}", file=sys.stderr)
            status = 1
            continue
        dets = detector.detect(image)
        if args.json:
            print(json.dumps({"image": str(path), "detections": dets.to_list()}), flush=True)
        else:
            found = ", ".join(f"{d['card']} {d['confidence']:.2f}" for d in dets.to_list()) or "no cards"
            print(f"{path}: {found}")
        if args.annotate:
            import cv2

            cv2.imwrite(str(args.annotate / f"{path.stem}.jpg"), annotate(image, dets))
    return status


def _eval(args: argparse.Namespace) -> int:
    from vision.detector import DetectorError, load_detector
    from vision.evaluate import default_real_photos, evaluate_real, evaluate_synthetic

    try:
        detector = load_detector(args.weights, args.backend, conf=0.001, iou=0.6, classifier=not args.no_classifier)
    except DetectorError as exc:
        print(f"eval-detector: {exc}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    report: dict[str, object] = {}
    if args.synthetic is not None:
        try:
            report["synthetic"] = evaluate_synthetic(detector, args.synthetic, args.limit)
        except (FileNotFoundError, ValueError) as exc:  # no such set, or a malformed label file (named)
            print(f"eval-detector: {exc}", file=sys.stderr)
            return 2
        s = report["synthetic"]
        assert isinstance(s, dict)
        print(f"synthetic ({s['images']} images, {s['instances']} cards at least half showing, "
              f"{s['ignored_half_hidden']} half-hidden cards ignored): "
              f"mAP50 = {s['map50']:.4f}  mAP50-95 = {s['map50_95']:.4f}  "
              f"(every label file row scored: mAP50 = {s['map50_all_labels']:.4f})")
    real = args.real or default_real_photos()
    if real.is_dir():
        detector_top1 = load_detector(args.weights, args.backend, conf=0.01, iou=0.5,
                                      classifier=not args.no_classifier)
        r = evaluate_real(detector_top1, real, args.out, args.limit)
        report["real"] = r
        print(r["table"])
        print(f"real photos: {r['correct']}/{r['photos']} = {r['accuracy']:.1%} have the right card as the most "
              f"confident detection; confusion matrix: {r['confusion_png']}")
    else:
        print(f"real photos folder {real} not found; skipping the real-photo check", file=sys.stderr)
    (args.out / "report.json").write_text(json.dumps(report, indent=1, default=str) + "\n")
    return 0
