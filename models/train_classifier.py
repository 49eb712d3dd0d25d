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


def _image_crops(job: tuple[Path, Path, Path, tuple[int, int], int, int, float, float]) -> tuple[np.ndarray, np.ndarray]:
    """Jittered crops and class ids of one image's cards (see `extract_crops`); one job of a worker pool."""
    path, vis, lab, seed, copies, size, max_cover, min_visible = job
    rng = np.random.default_rng(list(seed))  # (set seed, image index), as `datasets.export` seeds scenes
    if vis.exists():  # the true share of each card that shows: keep what the detector is trained to find
        a = read_rows(vis, 6)
        a = a[a[:, 5] >= min_visible, :5]
    else:  # older sets: box overlap with the cards above stands in for it
        a = read_rows(lab, 5)
        a = a[_uncovered(a, max_cover)]
    if not len(a):
        return np.zeros((0, size, size, 3), np.uint8), np.zeros((0,), np.int64)
    img = cv2.imread(str(path))
    if img is None:
        raise ValueError(f"{path}: not a readable image")
    h, w = img.shape[:2]
    xs, ys = [], []
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


def extract_crops(root: Path, split: str, seed: int, copies: int = 1, limit: int | None = None,
                  size: int = CROP, max_cover: float = MAX_COVER,
                  min_visible: float = MIN_VISIBLE, workers: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Crops (N, size, size, 3) and class ids (N,) from the labelled boxes of a YOLO data set split, leaving out
    cards showing less than `min_visible` of their face (from the set's `visibility/` files) or, in sets without
    them, cards mostly covered by cards on top of them (see `_uncovered`).

    Image i's jitter comes from its own generator seeded with (seed, i), so `workers` processes give the same
    crops as one."""
    images = sorted((root / "images" / split).glob("*.jpg"))[:limit]
    jobs = [(path, root / "visibility" / split / f"{path.stem}.txt", root / "labels" / split / f"{path.stem}.txt",
             (seed, i), copies, size, max_cover, min_visible) for i, path in enumerate(images)]
    desc = f"crops from {root.name}/{split}"
    if workers > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(workers) as pool:
            parts = list(tqdm(pool.map(_image_crops, jobs, chunksize=32), total=len(jobs), desc=desc, unit="img"))
    else:
        parts = [_image_crops(j) for j in tqdm(jobs, desc=desc, unit="img")]
    if not parts:
        return np.zeros((0, size, size, 3), np.uint8), np.zeros((0,), np.int64)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


HEADS = ("pool", "grid")
"""How the last feature map becomes logits (`make_net`): "pool" averages it over the crop, so a card is named
wherever it lies; "grid" keeps where each feature lies (one weight per cell of the map), for crops whose layout
is fixed, as the lower-card model's turned crops are (the lower card's strip always at the left, the top card,
which must not be named, at the right)."""


def make_net(nc: int, width: float = 1.0, head: str = "pool", crop: int = CROP):  # type: ignore[no-untyped-def]
    """A small all-convolutional net: a square crop -> nc logits (about 45 MFLOPs at 96x96 at width 1, and
    width**2 times that otherwise; channels 16-32-32-64-64-128-128 times `width`, in multiples of 8). `head`: see
    `HEADS`; "grid" needs the crop side the net will see (`crop`), as its last layer has a weight per cell."""
    from torch import nn

    def ch(c: int) -> int:
        return max(8, int(round(c * width / 8)) * 8)

    def block(i: int, o: int, s: int) -> list[nn.Module]:
        return [nn.Conv2d(i, o, 3, s, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True)]

    c = [3] + [ch(x) for x in (16, 32, 32, 64, 64, 128, 128)]
    layers: list[nn.Module] = []
    for k, stride in enumerate((2, 1, 2, 1, 2, 1, 2)):
        layers += block(c[k], c[k + 1], stride)
    if head == "pool":
        return nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.1), nn.Linear(c[-1], nc))
    if head != "grid":
        raise ValueError(f"unknown head {head!r}: one of {', '.join(HEADS)}")
    side = -(-crop // 16)  # four stride-2 layers, each rounding up
    # nn.Identity where "pool" pools keeps the layers' indices, so a "pool" net's trunk loads into this one
    return nn.Sequential(*layers, nn.Identity(), nn.Flatten(), nn.Dropout(0.3), nn.Linear(c[-1] * side * side, nc))


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
    def build(names: list[str], width: float = 1.0, head: str = "pool",  # type: ignore[no-untyped-def]
              crop: int = CROP):
        import torch
        from torch import nn

        trunk = make_net(len(COLOURS) + len(VALUES), width, head, crop)
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


def _augment(x, gen, turn: bool = True):  # type: ignore[no-untyped-def]
    """Quarter turns (unless not `turn`: crops that come in one orientation), brightness/contrast and white
    balance on a uint8 batch (N, H, W, 3) already on the training device; returns float32 (N, 3, H, W) RGB in
    [0, 1]. Torch ops, so a GPU run augments on the GPU."""
    import torch

    n, dev = len(x), x.device
    k = int(torch.randint(0, 4, (1,), generator=gen))  # drawn either way, so the generator's stream is kept
    k = k if turn else 0
    x = torch.rot90(x, k, dims=(1, 2)).float()

    def uniform(lo: float, hi: float, *shape: int):  # type: ignore[no-untyped-def]
        return (lo + (hi - lo) * torch.rand(*shape, generator=gen)).to(dev)

    x = (x * uniform(0.6, 1.35, n, 1, 1, 1) * uniform(0.88, 1.12, n, 1, 1, 3) + uniform(-30, 30, n, 1, 1, 1))
    return (x.clamp(0, 255).flip(3) / 255.0).permute(0, 3, 1, 2).contiguous()  # BGR -> RGB, NCHW


def _path_and_number(spec: str) -> tuple[str, str | None]:
    """`PATH:NUMBER` split at its last colon, or (`spec`, None) when no number ends it (a colon inside the path,
    as in `/mnt/a:b/close`, is not one)."""
    path, sep, n = spec.rpartition(":")
    if not sep or not n.replace(".", "", 1).isdigit():
        return spec, None
    return path, n


def parse_more(spec: str) -> tuple[Path, int]:
    """`PATH` or `PATH:COPIES` (an extra data set and its jittered crops per card) as (path, copies)."""
    path, n = _path_and_number(spec)
    if n is None:
        return Path(spec), 1
    if not n.isdigit() or int(n) < 1:
        raise ValueError(f"copies must be a whole number, at least 1, in {spec!r}")
    return Path(path), int(n)


Crops = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""Training crops, their class ids, val crops, their class ids."""


def load_crops(data_root: Path, copies: int = 1, more: tuple[tuple[Path, int], ...] = (), seed: int = 0,
               crop: int = CROP, max_cover: float = MAX_COVER, workers: int = 1, limit: int | None = None) -> Crops:
    """The train and val crops of `data_root` (`copies` jittered crops per card) and of each `more` set.

    `limit`: at most this many training images from each set, so that a fine-tune on a new set can keep a sample
    of the old sets (against forgetting) without cutting all of their crops."""
    sets = [(data_root, copies), *more]
    parts = [extract_crops(root, "train", seed + 10 * k, n, limit=limit, size=crop, max_cover=max_cover,
                           workers=workers)
             for k, (root, n) in enumerate(sets)]
    vals = [extract_crops(root, "val", seed + 10 * k + 1, 1, size=crop, max_cover=max_cover, workers=workers)
            for k, (root, _) in enumerate(sets)]
    return (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
            np.concatenate([p[0] for p in vals]), np.concatenate([p[1] for p in vals]))


def train_classifier(data_root: Path, out: Path, names: list[str], epochs: int = 8, batch: int = 32,
                     copies: int = 1, seed: int = 0, minutes: float | None = None, threads: int = 1,
                     init: Path | None = None, lr: float = 3e-3,
                     more: tuple[tuple[Path, int], ...] = (), max_cover: float = MAX_COVER,
                     crop: int = CROP, device: str = "cpu", workers: int = 1, width: float = 1.0,
                     crops: Crops | None = None, limit: int | None = None, turn: bool = True,
                     head: str = "pool") -> dict[str, float]:
    """Train on `data_root` train crops, report val accuracy, export `out` (.onnx) and `out.json`.

    `more`: further data sets with their own copies per card, e.g. close-up scenes (`--kind closeup`) weighted up:
    a table scene holds a dozen small cards and a close-up one or two big ones, so in a mixed build the big,
    sharp cards of hand-held photos are only about a tenth of the crops.
    `device` ("cpu", "cuda", "cuda:1"): where the crops, the augmentation and the network live; `workers`: processes
    cutting the crops; `width`: the network's channel multiplier (`make_net`); `crops`: crops already cut by
    `load_crops` (then the data arguments are not read); `limit`: training images per set (`load_crops`); `turn`:
    augment with quarter-turns (off for crops that always come in one orientation, `datasets.pairs`'s canonical);
    `head`: `HEADS` (an `init` of another head keeps its trunk, and the new head starts afresh)."""
    import torch
    from torch import nn

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    dev = torch.device(device)
    gen = torch.Generator().manual_seed(seed)
    x_np, ytr, xva, yva = crops or load_crops(data_root, copies, more, seed, crop, max_cover, workers, limit)
    xtr = torch.from_numpy(x_np).to(dev)
    print(f"{len(xtr)} training crops, {len(xva)} val crops, on {dev}", flush=True)
    net = Factorised.build(names, width, head, int(x_np.shape[1])).to(dev)
    if init is not None:  # continue from a saved state dict (e.g. a run cut short by its time budget)
        load_trunk(net, torch.load(init, map_location=dev))
    pairs = torch.from_numpy(np.array([split_code(n) for n in names])).to(dev)
    labels = torch.from_numpy(ytr).to(dev)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    steps = epochs * (len(xtr) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=max(1, steps), pct_start=0.15)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    start = time.time()
    step = 0
    history: dict[str, float] = {}
    for ep in range(epochs):
        net.train()
        order = torch.randperm(len(xtr), generator=gen).to(dev)
        bar = tqdm(range(len(xtr) // batch), desc=f"classifier epoch {ep + 1}/{epochs}", unit="batch",
                   mininterval=2.0)
        for b in bar:
            idx = order[b * batch : (b + 1) * batch]
            c_logits, v_logits = net.heads(_augment(xtr[idx], gen, turn))
            y = pairs[labels[idx]]
            loss = loss_fn(c_logits, y[:, 0]) + loss_fn(v_logits, y[:, 1])
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step < steps - 1:
                sched.step()
            step += 1
            if b % 50 == 0:
                bar.set_postfix(loss=f"{loss.item():.3f}")
        acc = evaluate(net, xva, yva)
        history[f"epoch{ep + 1}_val_acc"] = acc
        print(f"epoch {ep + 1}: val accuracy {acc:.4f} ({time.time() - start:.0f} s)", flush=True)
        torch.save({k: v.cpu() for k, v in net.state_dict().items()}, out.with_suffix(".pth"))  # loads anywhere
        if minutes and time.time() - start > minutes * 60:
            print("time budget reached; stopping", flush=True)
            break
    export(net.cpu(), out, names, crop, head)
    return history


def load_trunk(net, state: dict) -> list[str]:  # type: ignore[no-untyped-def, type-arg]
    """Load `state` into `net`, leaving out the weights whose shape differs (a head of another kind, `HEADS`);
    returns their names, printed, so a run that starts a head afresh says so."""
    own = net.state_dict()
    fresh = [k for k, v in state.items() if k in own and own[k].shape != v.shape]
    net.load_state_dict({k: v for k, v in state.items() if k not in fresh}, strict=not fresh)
    if fresh:
        print(f"starting afresh (shape differs from the init): {', '.join(fresh)}", flush=True)
    return fresh


def evaluate(net, x: np.ndarray, y: np.ndarray) -> float:  # type: ignore[no-untyped-def]
    """Top-1 accuracy of `net` (on whatever device it lives) on uint8 BGR crops `x` with class ids `y`."""
    import torch

    net.eval()
    dev = next(net.parameters()).device
    right = 0
    with torch.no_grad():
        for i in range(0, len(x), 256):
            xb = x[i : i + 256][..., ::-1].transpose(0, 3, 1, 2) / 255.0
            xt = torch.from_numpy(np.ascontiguousarray(xb, np.float32)).to(dev)
            right += int((net(xt).argmax(1).cpu().numpy() == y[i : i + 256]).sum())
    return right / max(1, len(x))


def export(net, out: Path, names: list[str], crop: int = CROP,  # type: ignore[no-untyped-def]
           head: str = "pool") -> None:
    """The ONNX model and its JSON (crop side, margin, class names: what the runtime reads; the head, `HEADS`, for
    whoever continues from its weights)."""
    import torch

    net.eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(net, torch.zeros(1, 3, crop, crop), str(out), input_names=["crops"], output_names=["logits"],
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}}, opset_version=17, dynamo=False)
    meta: dict[str, object] = {"crop": crop, "margin": MARGIN, "names": names}
    if head != "pool":
        meta["head"] = head
    out.with_suffix(".json").write_text(json.dumps(meta, indent=1) + "\n")


def load_part(spec: str, names: list[str]):  # type: ignore[no-untyped-def]
    """A trained classifier from `PATH.pth[:WIDTH]` (width 1 when not given)."""
    import torch

    path, width = _path_and_number(spec)
    net = Factorised.build(names, float(width or 1))
    net.load_state_dict(torch.load(path, map_location="cpu"))
    return net


def export_ensemble(parts: list[str], out: Path, names: list[str], crop: int = CROP,
                    weights: list[float] | None = None) -> Path:
    """One ONNX classifier whose logits are the weighted mean of the parts' log-probabilities (a geometric mean of
    their probabilities; the runtime's softmax renormalises it), so the runtime still runs a single model.

    Why: classifiers trained on different mixes fail differently. Measured on held-out scenes and the real photos,
    a wide net trained on the GPU names half-hidden table cards better, while the older narrow one, trained on
    more close-ups, reads real Reverse cards that the wide one calls 4s; the mean keeps the strengths of both."""
    from torch import nn

    w = weights or [1.0 / len(parts)] * len(parts)
    if len(w) != len(parts) or abs(sum(w) - 1.0) > 1e-6:
        raise ValueError(f"need one weight per part, summing to 1 (got {w} for {len(parts)} parts)")
    nets = [load_part(spec, names) for spec in parts]

    class Ensemble(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.parts = nn.ModuleList(nets)

        def forward(self, x):  # type: ignore[no-untyped-def]
            return sum(wi * net(x) for wi, net in zip(w, self.parts, strict=True))

    export(Ensemble(), out, names, crop)
    return out


if __name__ == "__main__":
    import argparse
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from datasets.export import CLASS_NAMES

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", type=Path, default=None, help="folder made by `unotable dataset build` (to train)")
    ap.add_argument("--out", type=Path, default=Path("models/card_classifier.onnx"))
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--copies", type=int, default=1)
    ap.add_argument("--minutes", type=float, default=None)
    ap.add_argument("--init", type=Path, default=None, help="start from this saved state dict (.pth)")
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--more", action="append", default=[], metavar="PATH[:COPIES]",
                    help="another data set to draw crops from, with its own copies per card (repeatable)")
    ap.add_argument("--limit", type=int, default=None, help="at most this many training images from each set")
    ap.add_argument("--max-cover", type=float, default=MAX_COVER, help="leave out crops covered more than this")
    ap.add_argument("--crop", type=int, default=CROP, help="crop side in pixels (the net is all-convolutional, so "
                    "--init weights from another side still load)")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--width", type=float, default=1.0, help="channel multiplier of the network")
    ap.add_argument("--device", default="cpu", help="torch device: cpu (default), cuda, cuda:1")
    ap.add_argument("--workers", type=int, default=1, help="processes cutting the crops")
    ap.add_argument("--ensemble", nargs="+", default=None, metavar="PATH.pth[:WIDTH]",
                    help="instead of training: export the mean of these trained classifiers to --out")
    a = ap.parse_args()
    if a.ensemble:
        print(export_ensemble(a.ensemble, a.out, list(CLASS_NAMES), a.crop))
        sys.exit(0)
    if a.data is None:
        ap.error("--data is needed to train (or give --ensemble)")
    print(train_classifier(a.data, a.out, list(CLASS_NAMES), a.epochs, copies=a.copies, minutes=a.minutes,
                           init=a.init, lr=a.lr, seed=a.seed, more=tuple(parse_more(m) for m in a.more),
                           max_cover=a.max_cover, crop=a.crop, batch=a.batch, device=a.device,
                           workers=a.workers, width=a.width, limit=a.limit))
