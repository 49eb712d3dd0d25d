"""Train the second-stage card classifier (`vision/classifier.py`) on crops of the synthetic scenes.

Why: see `vision.classifier`. The crops come from the labelled boxes of a `unotable dataset build` folder, each
jittered in position and size as a detector's boxes would be, so the classifier does not depend on perfect boxes.
Augmentation: quarter turns (a card's identity does not depend on how it lies), brightness/contrast and a little
blur. torch runs on one thread; the model is exported to ONNX for onnxruntime.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from datasets.labels import read_rows
from vision.classifier import CROP, MARGIN, square_crops


def _uncovered(rows: np.ndarray, max_cover: float, grid: int = 128) -> np.ndarray:
    """Mask of labels whose box is at most `max_cover` covered by the boxes of cards drawn after it (on top).

    Label files list cards in drawing order, so later boxes lie above earlier ones. A card seen as a thin strip
    of a fanned hand is still labelled for the detector, but its square crop shows mostly the card on top:
    such crops would teach the classifier the wrong name.
    """
    x1 = np.clip((rows[:, 1] - rows[:, 3] / 2) * grid, 0, grid).astype(int)
    y1 = np.clip((rows[:, 2] - rows[:, 4] / 2) * grid, 0, grid).astype(int)
    x2 = np.clip(np.ceil((rows[:, 1] + rows[:, 3] / 2) * grid), 0, grid).astype(int)
    y2 = np.clip(np.ceil((rows[:, 2] + rows[:, 4] / 2) * grid), 0, grid).astype(int)
    above = np.zeros((grid, grid), bool)
    keep = np.zeros(len(rows), bool)
    for i in range(len(rows) - 1, -1, -1):
        area = max(1, (x2[i] - x1[i]) * (y2[i] - y1[i]))
        keep[i] = above[y1[i] : y2[i], x1[i] : x2[i]].sum() / area <= max_cover
        above[y1[i] : y2[i], x1[i] : x2[i]] = True
    return keep


MIN_VISIBLE = 0.3
"""Crops of cards showing at least this share of their face train the classifier: the detector finds cards down
to 30% visible (`datasets.export.LABEL_MIN_VISIBLE`), and the classifier must name what it finds."""

MAX_COVER = 0.7
"""For data sets without `visibility/` files: crops of cards whose box is more covered than this by later boxes are
left out of training. Those sets label cards showing at least half their face and box overlap overstates cover,
so up to 0.7 the crop still shows the card's own index; measured on 500 held-out scenes, the classifier trained at
0.3 named uncovered cards 99.6% right but cards 30-70% covered only 80%, and the detector is scored on those too."""


def extract_crops(root: Path, split: str, seed: int, copies: int = 1, limit: int | None = None,
                  size: int = CROP, max_cover: float = MAX_COVER,
                  min_visible: float = MIN_VISIBLE) -> tuple[np.ndarray, np.ndarray]:
    """Crops (N, size, size, 3) and class ids (N,) from the labelled boxes of a YOLO data set split, leaving out
    cards showing less than `min_visible` of their face (from the set's `visibility/` files) or, in sets without
    them, cards mostly covered by cards on top of them (see `_uncovered`)."""
    rng = np.random.default_rng(seed)
    images = sorted((root / "images" / split).glob("*.jpg"))[:limit]
    xs, ys = [], []
    for path in tqdm(images, desc=f"crops from {split}", unit="img"):
        vis = root / "visibility" / split / f"{path.stem}.txt"
        if vis.exists():  # the true share of each card that shows: keep what the detector is trained to find
            a = read_rows(vis, 6)
            a = a[a[:, 5] >= min_visible, :5]
        else:  # older sets: box overlap with the cards above stands in for it
            a = read_rows(root / "labels" / split / f"{path.stem}.txt", 5)
            a = a[_uncovered(a, max_cover)]
        if not len(a):
            continue
        img = cv2.imread(str(path))
        h, w = img.shape[:2]
        for _ in range(copies):
            cx, cy = a[:, 1] * w, a[:, 2] * h
            bw, bh = a[:, 3] * w, a[:, 4] * h
            side = np.maximum(bw, bh)
            cx = cx + rng.normal(0, 0.04, len(a)) * side
            cy = cy + rng.normal(0, 0.04, len(a)) * side
            sc = np.exp(rng.normal(0, 0.07, len(a)))
            boxes = np.stack([cx - bw * sc / 2, cy - bh * sc / 2, cx + bw * sc / 2, cy + bh * sc / 2], axis=1)
            xs.append(square_crops(img, boxes, size, MARGIN))
            ys.append(a[:, 0].astype(np.int64))
    return np.concatenate(xs), np.concatenate(ys)


def make_net(nc: int):  # type: ignore[no-untyped-def]
    """A small all-convolutional net: a square crop -> nc logits (about 45 MFLOPs at 96x96, 20 at 64x64)."""
    from torch import nn

    def block(i: int, o: int, s: int) -> list[nn.Module]:
        return [nn.Conv2d(i, o, 3, s, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True)]

    layers = (block(3, 16, 2) + block(16, 32, 1) + block(32, 32, 2) + block(32, 64, 1) + block(64, 64, 2)
              + block(64, 128, 1) + block(128, 128, 2))
    return nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.1), nn.Linear(128, nc))


COLOURS = ("red", "yellow", "green", "blue", "black")
VALUES = ("0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "skip", "reverse", "draw2", "wild", "wild-draw4", "back")


def split_code(code: str) -> tuple[int, int]:
    """(colour index, value index) of a class name: the classifier learns colour and value separately, so the
    value head sees every colour's cards (4x the examples per class of a 55-way head)."""
    if code in ("wild", "wild-draw4", "back"):
        return COLOURS.index("black"), VALUES.index(code)
    colour, value = code.split("-", 1)
    return COLOURS.index(colour), VALUES.index(value)


class Factorised:  # a namespace for the torch module below (torch is imported lazily)
    @staticmethod
    def build(names: list[str]):  # type: ignore[no-untyped-def]
        import torch
        from torch import nn

        trunk = make_net(len(COLOURS) + len(VALUES))
        pairs = torch.tensor([split_code(n) for n in names], dtype=torch.long)

        class Net(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.trunk = trunk
                self.register_buffer("pairs", pairs)

            def heads(self, x):  # type: ignore[no-untyped-def]
                z = self.trunk(x)
                return z[:, : len(COLOURS)], z[:, len(COLOURS) :]

            def forward(self, x):  # type: ignore[no-untyped-def]
                c, v = self.heads(x)
                lc, lv = torch.log_softmax(c, 1), torch.log_softmax(v, 1)
                return lc[:, self.pairs[:, 0]] + lv[:, self.pairs[:, 1]]  # log P(code), one column per class

        return Net()


def _augment(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Quarter turns, brightness/contrast and occasional blur on a uint8 batch (N, H, W, 3)."""
    k = int(rng.integers(0, 4))
    x = np.rot90(x, k, axes=(1, 2)).astype(np.float32)
    gain = rng.uniform(0.6, 1.35, (len(x), 1, 1, 1)).astype(np.float32)
    bias = rng.uniform(-30, 30, (len(x), 1, 1, 1)).astype(np.float32)
    wb = rng.uniform(0.88, 1.12, (len(x), 1, 1, 3)).astype(np.float32)
    x = np.clip(x * gain * wb + bias, 0, 255)
    return x


def parse_more(spec: str) -> tuple[Path, int]:
    """`PATH` or `PATH:COPIES` (an extra data set and its jittered crops per card) as (path, copies)."""
    path, sep, n = spec.rpartition(":")
    if not sep or not n.isdigit():  # no count given (a colon inside the path is not one)
        return Path(spec), 1
    if int(n) < 1:
        raise ValueError(f"copies must be at least 1 in {spec!r}")
    return Path(path), int(n)


def train_classifier(data_root: Path, out: Path, names: list[str], epochs: int = 8, batch: int = 32,
                     copies: int = 1, seed: int = 0, minutes: float | None = None, threads: int = 1,
                     init: Path | None = None, lr: float = 3e-3,
                     more: tuple[tuple[Path, int], ...] = (), max_cover: float = MAX_COVER,
                     crop: int = CROP) -> dict[str, float]:
    """Train on `data_root` train crops, report val accuracy, export `out` (.onnx) and `out.json`.

    `more`: further data sets with their own copies per card, e.g. close-up scenes (`--kind closeup`) weighted up:
    a table scene holds a dozen small cards and a close-up one or two big ones, so in a mixed build the big,
    sharp cards of hand-held photos are only about a tenth of the crops."""
    import torch
    from torch import nn

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    parts = [extract_crops(data_root, "train", seed, copies, size=crop, max_cover=max_cover)]
    vals = [extract_crops(data_root, "val", seed + 1, 1, size=crop, max_cover=max_cover)]
    for k, (root, n) in enumerate(more, start=1):
        parts.append(extract_crops(root, "train", seed + 10 * k, n, size=crop, max_cover=max_cover))
        vals.append(extract_crops(root, "val", seed + 10 * k + 1, 1, size=crop, max_cover=max_cover))
    xtr, ytr = np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
    xva, yva = np.concatenate([p[0] for p in vals]), np.concatenate([p[1] for p in vals])
    print(f"{len(xtr)} training crops, {len(xva)} val crops", flush=True)
    net = Factorised.build(names)
    if init is not None:  # continue from a saved state dict (e.g. a run cut short by its time budget)
        net.load_state_dict(torch.load(init))
    pairs = np.array([split_code(n) for n in names])
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    steps = epochs * (len(xtr) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=max(1, steps), pct_start=0.15)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    start = time.time()
    step = 0
    history: dict[str, float] = {}
    for ep in range(epochs):
        net.train()
        order = rng.permutation(len(xtr))
        bar = tqdm(range(len(xtr) // batch), desc=f"classifier epoch {ep + 1}/{epochs}", unit="batch")
        for b in bar:
            idx = order[b * batch : (b + 1) * batch]
            xb = _augment(xtr[idx], rng)[..., ::-1].transpose(0, 3, 1, 2) / 255.0
            xt = torch.from_numpy(np.ascontiguousarray(xb, np.float32))
            c_logits, v_logits = net.heads(xt)
            yc = torch.from_numpy(pairs[ytr[idx], 0])
            yv = torch.from_numpy(pairs[ytr[idx], 1])
            loss = loss_fn(c_logits, yc) + loss_fn(v_logits, yv)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step < steps - 1:
                sched.step()
            step += 1
            if b % 20 == 0:
                bar.set_postfix(loss=f"{loss.item():.3f}")
        acc = evaluate(net, xva, yva)
        history[f"epoch{ep + 1}_val_acc"] = acc
        print(f"epoch {ep + 1}: val accuracy {acc:.4f} ({time.time() - start:.0f} s)", flush=True)
        torch.save(net.state_dict(), out.with_suffix(".pth"))
        if minutes and time.time() - start > minutes * 60:
            print("time budget reached; stopping", flush=True)
            break
    export(net, out, names, crop)
    return history


def evaluate(net, x: np.ndarray, y: np.ndarray) -> float:  # type: ignore[no-untyped-def]
    import torch

    net.eval()
    right = 0
    with torch.no_grad():
        for i in range(0, len(x), 256):
            xb = x[i : i + 256][..., ::-1].transpose(0, 3, 1, 2) / 255.0
            pred = net(torch.from_numpy(np.ascontiguousarray(xb, np.float32))).argmax(1).numpy()
            right += int((pred == y[i : i + 256]).sum())
    return right / max(1, len(x))


def export(net, out: Path, names: list[str], crop: int = CROP) -> None:  # type: ignore[no-untyped-def]
    """The ONNX model and its JSON (crop side, margin, class names: what the runtime reads)."""
    import torch

    net.eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(net, torch.zeros(1, 3, crop, crop), str(out), input_names=["crops"], output_names=["logits"],
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}}, opset_version=17, dynamo=False)
    out.with_suffix(".json").write_text(json.dumps({"crop": crop, "margin": MARGIN, "names": names}, indent=1) + "\n")


if __name__ == "__main__":
    import argparse
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from datasets.export import CLASS_NAMES

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--out", type=Path, default=Path("models/card_classifier.onnx"))
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--copies", type=int, default=1)
    ap.add_argument("--minutes", type=float, default=None)
    ap.add_argument("--init", type=Path, default=None, help="start from this saved state dict (.pth)")
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--more", action="append", default=[], metavar="PATH[:COPIES]",
                    help="another data set to draw crops from, with its own copies per card (repeatable)")
    ap.add_argument("--max-cover", type=float, default=MAX_COVER, help="leave out crops covered more than this")
    ap.add_argument("--crop", type=int, default=CROP, help="crop side in pixels (the net is all-convolutional, so "
                    "--init weights from another side still load)")
    a = ap.parse_args()
    print(train_classifier(a.data, a.out, list(CLASS_NAMES), a.epochs, copies=a.copies, minutes=a.minutes,
                           init=a.init, lr=a.lr, seed=a.seed, more=tuple(parse_more(m) for m in a.more),
                           max_cover=a.max_cover, crop=a.crop))
