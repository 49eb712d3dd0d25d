"""Train the lower-card classifier (`models/card_lower.onnx`): the name of a pair's half-hidden lower card; and,
with `--set reveals`, the revealed-card classifier (`models/card_reveal.onnx`): the names of a revealed hand's
cards, laid in overlapping rows (`datasets.reveal_crops`).

Why a model of its own: on the rendered game videos the lower card of two cards laid together was named right
about half the time by the crop classifier, which learnt cards in still scenes, centred on their own box. The
discard tracker (`vision.discard.ZoneCandidates._lower_by_fit`) crops the lower card where the change says it lies,
so the crop holds most of the top card and the lower one as a strip at one side, its name a corner index a few
pixels tall. This model learns exactly that input (`datasets.pairs`), starting from the crop classifier's wide
net (its colours, glyphs and card outlines), with the same factorised colour and value heads.

    python models/train_lower.py --train 24000 --val 2048 --epochs 6 --out models/card_lower.onnx
    python models/train_lower.py --set reveals --train 24000 --val 2048 --epochs 6

Renders the crops (or reuses `--data`), trains on the CPU, prints the validation accuracy of the new model beside
the shipped crop classifier's on the same crops, and exports the ONNX model with its JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

SETS = {"pairs": ("datasets.pairs", REPO / "data" / "lower", REPO / "models" / "card_lower.onnx"),
        "reveals": ("datasets.reveal_crops", REPO / "data" / "reveal", REPO / "models" / "card_reveal.onnx")}
"""Each crop set: the module that renders it (its `build`), where its crops are kept, where its model goes."""
WIDE = REPO / "models" / "card_classifier_parts" / "wide.pth"

from models.train_classifier import HEADS  # noqa: E402  (after the repository is on the path)


def crops_of(path: Path, n: int, seed: int, workers: int, crop_set: str = "pairs",
             crop: int | None = None, canonical: bool = False, singles: float = 0.0,
             identical: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The crops and labels stored at `path`, rendered (the set's `build`, at `crop` pixels a side when given,
    turned so the lower card lies left with `canonical`, with a `singles` share of single cards labelled "no
    lower card", an `identical` share of pairs of two identical cards) and stored first if missing."""
    import importlib

    from datasets.export import CLASS_NAMES

    if not path.exists():
        size: dict[str, object] = {} if crop is None else {"crop": crop}
        if canonical:
            size["canonical"] = True
        if singles:
            size["singles"] = singles
        if identical is not None:
            size["identical"] = identical
        made = importlib.import_module(SETS[crop_set][0]).build(n, seed, CLASS_NAMES, workers=workers, **size)
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, crops=made.crops, labels=made.labels)
    z = np.load(path)
    return z["crops"], z["labels"]


def mark_canonical(model: Path) -> None:
    """Say in the model's JSON that it learnt crops turned so the lower card lies left, so that the runtime turns
    its crops the same way (`vision.readers.DetectorReader.name_lower`)."""
    meta_path = model.with_suffix(".json")
    meta = json.loads(meta_path.read_text())
    meta["canonical"] = True
    meta_path.write_text(json.dumps(meta, indent=1) + "\n")


def accuracy_of_onnx(model: Path, x: np.ndarray, y: np.ndarray) -> float:
    """Top-1 accuracy of an exported classifier (onnxruntime, as the runtime runs it) on BGR crops, resized to the
    model's own crop side when it differs (so a 96-pixel model is scored on the same cards as a 192-pixel one)."""
    from vision.classifier import OnnxClassifier, resized_crops, to_blob

    clf = OnnxClassifier(model)
    x = resized_crops(x, clf.size)
    right = 0
    for i in range(0, len(x), 256):
        logits = clf.session.run(None, {clf.input_name: to_blob(x[i : i + 256])})[0]
        right += int((logits.argmax(1) == y[i : i + 256]).sum())
    return right / max(1, len(x))


def main(argv: list[str] | None = None) -> dict[str, float]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", dest="crop_set", choices=sorted(SETS), default="pairs",
                    help="pairs: a pair's lower card (card_lower); reveals: a revealed hand's cards (card_reveal)")
    ap.add_argument("--data", type=Path, default=None,
                    help="where the rendered crops are kept (train.npz, val.npz); the set's folder under data/")
    ap.add_argument("--train", type=int, default=24000, help="training crops to render when missing")
    ap.add_argument("--val", type=int, default=2048, help="validation crops to render when missing")
    ap.add_argument("--seed", type=int, default=1, help="render seed of the training crops (val uses seed + 1)")
    ap.add_argument("--extra", type=Path, action="append", default=[], metavar="NPZ",
                    help="further rendered training crops (an .npz as `datasets.pairs` stores them), added to train")
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--init", type=Path, default=WIDE, help="start from this state dict (the wide crop classifier)")
    ap.add_argument("--width", type=float, default=1.5, help="channel multiplier (the wide net's is 1.5)")
    ap.add_argument("--crop", type=int, default=None,
                    help="crop side in pixels (default the crop classifier's 96)")
    ap.add_argument("--canonical", action="store_true",
                    help="pairs only: crops turned so the lower card lies left of the top one "
                         "(`vision.lower_fit.strip_turns`); the model's JSON says so and the tracker turns its crops")
    ap.add_argument("--singles", type=float, default=0.0,
                    help="pairs only: the share of rendered crops that hold one card laid with a pair's change, "
                         "labelled back (no lower card: `datasets.pairs.NO_LOWER`)")
    ap.add_argument("--identical", type=float, default=None,
                    help="pairs only: the share of rendered pairs that are two identical cards "
                         "(default `datasets.pairs.IDENTICAL`, one in twenty)")
    ap.add_argument("--head", choices=HEADS, default="pool",
                    help="grid: a weight for each cell of the last feature map (`models.train_classifier.HEADS`), "
                         "for --canonical crops, where the strip of the lower card always lies left")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--workers", type=int, default=2, help="processes rendering the crops")
    ap.add_argument("--minutes", type=float, default=None, help="stop after the epoch that passes this budget")
    ap.add_argument("--out", type=Path, default=None, help="the ONNX model (default: the set's, in models/)")
    ap.add_argument("--baseline", type=Path, default=REPO / "models" / "card_classifier.onnx",
                    help="a classifier to score on the same validation crops, for comparison")
    args = ap.parse_args(argv)
    _, data, out = SETS[args.crop_set]
    args.data, args.out = args.data or data, args.out or out

    from datasets.export import CLASS_NAMES
    from models.train_classifier import train_classifier

    args.out.parent.mkdir(parents=True, exist_ok=True)  # the state dict is saved beside it after each epoch
    if args.canonical and args.crop_set != "pairs":
        raise SystemExit("--canonical is for the pairs set only (a revealed card has no top card to turn from)")
    if (args.singles or args.identical is not None) and args.crop_set != "pairs":
        raise SystemExit("--singles and --identical are for the pairs set only")
    xtr, ytr = crops_of(args.data / "train.npz", args.train, args.seed, args.workers, args.crop_set, args.crop,
                        args.canonical, args.singles, args.identical)
    for extra in args.extra:
        z = np.load(extra)
        xtr, ytr = np.concatenate([xtr, z["crops"]]), np.concatenate([ytr, z["labels"]])
    xva, yva = crops_of(args.data / "val.npz", args.val, args.seed + 1, args.workers, args.crop_set, args.crop,
                        args.canonical, args.singles, args.identical)
    if xtr.shape[1:] != xva.shape[1:]:
        raise SystemExit(f"training crops are {xtr.shape[1]} px and validation crops {xva.shape[1]} px: "
                         f"render both at one size (--crop), in separate --data folders")
    history = train_classifier(Path("."), args.out, list(CLASS_NAMES), epochs=args.epochs, batch=args.batch,
                               seed=args.seed, minutes=args.minutes, threads=args.threads,
                               init=args.init if args.init and args.init.exists() else None, lr=args.lr,
                               width=args.width, crops=(xtr, ytr, xva, yva), crop=int(xtr.shape[1]),
                               turn=not args.canonical, head=args.head)
    if args.canonical:
        mark_canonical(args.out)
    report = {"val_accuracy": accuracy_of_onnx(args.out, xva, yva), "val_crops": float(len(xva)),
              "train_crops": float(len(xtr)), **history}
    if args.baseline and args.baseline.exists():
        report["baseline_val_accuracy"] = accuracy_of_onnx(args.baseline, xva, yva)
    args.out.with_suffix(".report.json").write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps(report, indent=1))
    return report


if __name__ == "__main__":
    main()
