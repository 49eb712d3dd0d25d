"""`unotable dataset build`: render a synthetic, labelled card data set (Ultralytics YOLO format)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("dataset", help="synthetic card data sets for the detector")
    dsub = p.add_subparsers(dest="dataset_command", metavar="ACTION")
    dsub.required = True
    b = dsub.add_parser("build", help="render scenes of UNO cards with YOLO labels and a data.yaml")
    b.add_argument("--out", required=True, type=Path, help="output folder (created)")
    b.add_argument("--images", type=int, default=1000, help="number of scenes to render (default 1000)")
    b.add_argument("--seed", type=int, default=0, help="random seed; scene i uses (seed, i)")
    b.add_argument("--val-fraction", type=float, default=0.1,
                   help="share of scenes put in the val split (1.0 = a held-out test set)")
    b.add_argument("--kind", choices=("table", "closeup"), default=None, help="only this kind of scene")
    b.add_argument("--min-visible", type=float, default=None,
                   help="label cards showing at least this share of their face (default 0.3)")
    b.add_argument("--workers", type=int, default=None, help="worker processes (default: up to 2)")
    b.add_argument("--oval", choices=("trained", "printed"), default="trained",
                   help="which way the faces' white oval leans: as the shipped models were trained (default) or as "
                        "the real deck prints it (datasets.faces.OVAL_LEAN)")
    b.set_defaults(func=_build)


def _build(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from datasets.export import LABEL_MIN_VISIBLE, build_dataset
    from datasets.faces import OVAL_AS_PRINTED, OVAL_AS_TRAINED

    try:
        yaml_path = build_dataset(
            args.out, args.images, args.seed, args.val_fraction, args.workers, args.kind,
            progress=lambda it, total: tqdm(it, total=total, desc="rendering scenes", unit="img"),
            min_visible=LABEL_MIN_VISIBLE if args.min_visible is None else args.min_visible,
            lean=OVAL_AS_PRINTED if args.oval == "printed" else OVAL_AS_TRAINED,
        )
    except (ValueError, OSError) as exc:
        print(f"dataset build: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {args.images} scenes; data set description: {yaml_path}")
    return 0
