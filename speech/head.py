"""The keyword head: a small network over the last 16 speech embeddings (1.28 s of hops, ~2 s of audio), trained
here on embedded synthetic table recordings (`speech.embed_data`) and exported to ONNX.

Why this shape: the front end (`speech.embedding`) already says which sounds were spoken every 80 ms; the head only
has to find a keyword's sequence of sounds at the end of its window, so a few fully connected layers over the
flattened window are enough (openWakeWord's design), cost a few hundred thousand multiply-adds a hop, and train in
minutes on two CPU cores. Inputs are float32 (1, context, 96) named `emb` (16 shipped); outputs the posteriors of `speech.vocab.CLASSES`.
"""

from __future__ import annotations

import functools
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from speech.embedding import EMB_DIM
from speech.vocab import CLASSES

CONTEXT = 16  # embeddings a decision reads
SHIPPED_WEIGHT = 0.6
"""The DS-CNN part's share (four networks since stop 44) of the averaged posterior (the head has the rest), chosen
on validation streams of training voices (`speech.tune.fuse`; see models/KWS_MODEL_CARD.md)."""
SHIPPED_RULE: dict[str, Any] = {
    "threshold": 0.35, "smooth": 2, "persist": 2,
    "class_thresholds": {"uno": 0.35, "red": 0.4, "yellow": 0.35, "green": 0.35, "blue": 0.35, "pass": 0.35}}
"""The fused model's firing rule: per-class thresholds (`speech.tune.per_class_rules`, none below the previous
rule's 0.35) at the validation budget of 25 false alarms an hour, re-chosen in stop 44 for the four-network
DS-CNN part (see models/KWS_MODEL_CARD.md)."""


def build_head(context: int = CONTEXT, hidden: int = 256, layers: int = 2, dropout: float = 0.3,
               kind: str = "mlp") -> Any:
    """The head network: (B, context, 96) embeddings to 7 logits.

    kind "mlp": the flattened window through `layers` fully connected layers (openWakeWord's design; it learns
    where in the window each sound lies). kind "conv": 1-D convolutions along time (kernel 3, dilations 1, 2, 4),
    then the last 4 positions flattened beside a max over the whole window: a sound is found wherever it lies, and
    the decision still knows how recently it ended (tried in stop 23 and not shipped: see the model card).
    """
    mlp, conv = _head_classes()
    if kind == "mlp":
        return mlp(context, hidden, layers, dropout)
    if kind == "conv":
        return conv(context, hidden, layers, dropout)
    raise ValueError(f"unknown head kind {kind!r} (mlp or conv)")


@functools.cache
def _head_classes() -> tuple[Any, Any]:
    """The torch modules, defined on first use: torch is a training dependency, the runtime needs none."""
    import torch
    from torch import nn

    class MlpHead(nn.Module):
        def __init__(self, context: int, hidden: int, layers: int, dropout: float) -> None:
            super().__init__()
            blocks: list[nn.Module] = [nn.Flatten(), nn.Linear(context * EMB_DIM, hidden), nn.LayerNorm(hidden),
                                       nn.ReLU(), nn.Dropout(dropout)]
            for _ in range(layers - 1):
                blocks += [nn.Linear(hidden, hidden), nn.LayerNorm(hidden), nn.ReLU(), nn.Dropout(dropout)]
            blocks.append(nn.Linear(hidden, len(CLASSES)))
            self.net = nn.Sequential(*blocks)

        def forward(self, x: torch.Tensor) -> torch.Tensor:  # (B, context, 96) -> logits
            return self.net(x)

    class ConvHead(nn.Module):
        def __init__(self, context: int, hidden: int, layers: int, dropout: float) -> None:
            super().__init__()
            convs: list[nn.Module] = []
            ch = EMB_DIM
            for i in range(layers + 1):
                d = 2 ** min(i, 2)
                convs += [nn.Conv1d(ch, hidden, 3, padding=d, dilation=d), nn.BatchNorm1d(hidden), nn.ReLU(),
                          nn.Dropout(dropout)]
                ch = hidden
            self.convs = nn.Sequential(*convs)
            self.tail = min(4, context)
            self.out = nn.Sequential(nn.Linear(hidden * (self.tail + 1), hidden), nn.ReLU(), nn.Dropout(dropout),
                                     nn.Linear(hidden, len(CLASSES)))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            h = self.convs(x.transpose(1, 2))  # (B, hidden, T)
            return self.out(torch.cat([h[:, :, -self.tail:].flatten(1), h.amax(dim=2)], dim=1))

    return MlpHead, ConvHead


def window_index(lab: np.ndarray, lengths: np.ndarray, context: int = CONTEXT) -> np.ndarray:
    """Positions (into the concatenated embeddings) of every labelled hop with `context` embeddings of its own
    recording before it."""
    out = []
    start = 0
    for n in lengths:
        idx = np.arange(start + context - 1, start + n)
        out.append(idx[lab[idx] >= 0])
        start += n
    return np.concatenate(out) if out else np.zeros(0, np.int64)


def gather(emb: np.ndarray, idx: np.ndarray, context: int = CONTEXT) -> np.ndarray:
    """The windows (B, context, 96) ending at positions `idx`."""
    return emb[idx[:, None] - np.arange(context - 1, -1, -1)[None]].astype(np.float32)


def soft_targets(teacher: Path, emb: np.ndarray, idx: np.ndarray, context: int = CONTEXT,
                 batch: int = 4096) -> np.ndarray:
    """A teacher model's posteriors (len(emb), classes) at the windows ending at positions `idx` (zeros elsewhere),
    float16: the targets `train_head(teacher=...)` distils from.

    Why: an average of heads (`average_exported`) fires less on real speech than its members but costs as many heads
    a hop; a head trained to give the average's posteriors can keep some of that at one head's cost."""
    from tqdm import tqdm

    from speech.kws import load_session

    sess = load_session(teacher, threads=2)
    out = np.zeros((len(emb), len(CLASSES)), np.float16)
    for a in tqdm(range(0, len(idx), batch), desc="teacher posteriors", mininterval=10):
        sel = idx[a:a + batch]
        out[sel] = sess.run(None, {"emb": gather(emb, sel, context)})[0]
    return out


def train_head(train: tuple[np.ndarray, np.ndarray, np.ndarray], val: tuple[np.ndarray, np.ndarray, np.ndarray],
               out_dir: Path, epochs: int = 12, lr: float = 2e-3, batch: int = 256, seed: int = 0,
               threads: int = 2, hidden: int = 256, layers: int = 2, other_weight: float = 1.0,
               noise: float = 0.0, kind: str = "mlp", context: int = CONTEXT, dropout: float = 0.3,
               teacher: np.ndarray | None = None, soft_weight: float = 0.7) -> Path:
    """Train on (embeddings, labels, lengths); keep the epoch with the lowest validation loss. Returns best.pt.

    other_weight: the loss weight of `other` hops (above 1 trades recall for fewer false alarms); noise: the
    standard deviation of Gaussian noise added to the embeddings while training; kind, context, dropout: the
    network (`build_head`), saved in the checkpoint's `arch`. teacher: posteriors at every training position
    (`soft_targets`); the loss is then (1 - soft_weight) x the labels' cross-entropy + soft_weight x the
    cross-entropy with the teacher's posteriors (distillation). The validation loss is the labels' either way."""
    import torch
    from torch import nn
    from tqdm import tqdm

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    rng = np.random.default_rng(seed)
    emb, lab, lengths = train
    idx = window_index(lab, lengths, context)
    vemb, vlab, vlen = val
    vidx = window_index(vlab, vlen, context)
    vx = torch.from_numpy(gather(vemb, vidx, context))
    vy = torch.from_numpy(vlab[vidx].astype(np.int64))
    arch = {"kind": kind, "hidden": hidden, "layers": layers, "context": context, "dropout": dropout}
    if teacher is not None and teacher.shape != (len(emb), len(CLASSES)):
        raise ValueError(f"teacher posteriors {teacher.shape}; expected ({len(emb)}, {len(CLASSES)}), one row a "
                         "training position")
    model = build_head(**arch)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-2)
    steps = epochs * (len(idx) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=max(1, steps))
    w = torch.ones(len(CLASSES))
    w[0] = other_weight
    loss_fn = nn.CrossEntropyLoss(weight=w, label_smoothing=0.05)
    out_dir.mkdir(parents=True, exist_ok=True)
    best, best_loss, log = out_dir / "best.pt", float("inf"), []
    for ep in range(epochs):
        model.train()
        perm = rng.permutation(idx)
        t0, tot = time.time(), 0.0
        for b in tqdm(range(len(perm) // batch), desc=f"head epoch {ep + 1}/{epochs}", leave=False,
                      mininterval=10):
            sel = perm[b * batch:(b + 1) * batch]
            x = torch.from_numpy(gather(emb, sel, context))
            if noise:
                x = x + noise * torch.randn_like(x)
            logits = model(x)
            loss = loss_fn(logits, torch.from_numpy(lab[sel].astype(np.int64)))
            if teacher is not None:
                soft = nn.functional.cross_entropy(logits, torch.from_numpy(teacher[sel].astype(np.float32)))
                loss = (1.0 - soft_weight) * loss + soft_weight * soft
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += float(loss.detach())
        model.eval()
        with torch.no_grad():
            logits = torch.cat([model(vx[i:i + 4096]) for i in range(0, len(vx), 4096)])
            vloss = float(nn.functional.cross_entropy(logits, vy))
            pred = logits.argmax(1)
            pos = vy > 0
            vrec = float((pred[pos] == vy[pos]).float().mean()) if pos.any() else 0.0
            vfa = float((pred[~pos] != 0).float().mean()) if (~pos).any() else 0.0
        row = {"epoch": ep + 1, "train_loss": tot / max(1, len(perm) // batch), "val_loss": vloss,
               "val_keyword_hops_right": vrec, "val_other_hops_wrong": vfa, "seconds": time.time() - t0}
        log.append(row)
        print(json.dumps(row), flush=True)
        state = {"model": model.state_dict(), "epoch": ep + 1, "arch": arch}
        torch.save(state, out_dir / "last.pt")
        if vloss < best_loss:
            best_loss = vloss
            torch.save(state, best)
    (out_dir / "log.json").write_text(json.dumps(log, indent=1) + "\n")
    return best


def _arch(saved: dict[str, Any]) -> dict[str, Any]:
    """`build_head`'s arguments from a checkpoint's `arch` (older checkpoints: an MLP over 16 embeddings)."""
    return {"kind": saved.get("kind", "mlp"), "hidden": saved["hidden"], "layers": saved["layers"],
            "context": saved.get("context", CONTEXT), "dropout": saved.get("dropout", 0.3)}


def export_head(checkpoints: list[Path] | Path, out: Path, rule: dict[str, Any]) -> Path:
    """Write the head (several checkpoints: their posteriors averaged) as ONNX (`emb` (1, 16, 96) to `probs`) and
    its card `out.json` (front end, classes, context, firing rule)."""
    import torch

    cks = [checkpoints] if isinstance(checkpoints, Path) else list(checkpoints)
    members = []
    for ck in cks:
        state = torch.load(ck, map_location="cpu", weights_only=False)
        m = build_head(**_arch(state["arch"]))
        m.load_state_dict(state["model"])
        m.eval()
        members.append((m, state))

    from speech.train import averaged

    out.parent.mkdir(parents=True, exist_ok=True)
    context = _arch(members[0][1]["arch"])["context"]
    if any(_arch(s["arch"])["context"] != context for _, s in members):
        raise ValueError("the heads averaged in one file must read the same context")
    torch.onnx.export(averaged([m for m, _ in members]), torch.zeros(1, context, EMB_DIM), str(out), input_names=["emb"],
                      output_names=["probs"], dynamic_axes={"emb": {0: "batch"}, "probs": {0: "batch"}},
                      opset_version=17, dynamo=False)
    meta = {"front_end": "speech_embedding", "classes": list(CLASSES), "context": context,
            "members": [{"checkpoint": f"{Path(ck).parent.name}/{Path(ck).name}", "epoch": s["epoch"],
                         "arch": s["arch"]} for ck, (_, s) in zip(cks, members, strict=True)]}
    meta.update(rule)
    out.with_suffix(".json").write_text(json.dumps(meta, indent=2) + "\n")
    return out


def _mlp_weights(model: Any) -> list[tuple[Any, ...]] | None:
    """An exported MLP head's weights, or None for any other graph (a conv head: averaged graph by graph).

    Returns the three fully connected layers as (weight (out, in), bias), then the two LayerNorms as (scale, bias,
    epsilon), in graph order: the shape `build_head`'s "mlp" exports to."""
    from onnx import helper, numpy_helper

    init = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    gemms, norms = [], []
    for n in model.graph.node:
        attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
        if n.op_type == "Identity" and n.input[0] in init:  # the exporter shares equal constants through Identity
            init[n.output[0]] = init[n.input[0]]
        elif n.op_type == "Gemm":
            if attrs.get("transB") != 1 or attrs.get("alpha", 1.0) != 1.0 or attrs.get("beta", 1.0) != 1.0:
                return None
            gemms.append((init[n.input[1]], init[n.input[2]]))
        elif n.op_type == "LayerNormalization":
            if attrs.get("axis", -1) != -1:
                return None
            norms.append((init[n.input[1]], init[n.input[2]], float(attrs.get("epsilon", 1e-5))))
        elif n.op_type not in ("Flatten", "Relu", "Softmax", "Constant", "Unsqueeze", "Concat", "ReduceMean"):
            return None
    if len(gemms) != 3 or len(norms) != 2:
        return None
    return [*gemms, *norms]


def _fused_mlp_heads(layers: list[list[Any]], context: int) -> Any:
    """One graph computing several MLP heads at once: the first layers side by side in one matrix product, the
    others as batched products, then the mean of their softmaxes. The same function as the heads one by one (to
    float rounding) in a dozen nodes instead of a dozen a head. Measured at stop 58 it runs no cheaper than the
    heads merged graph by graph: at one inference a hop the cost is reading every head's weights, so fewer heads or
    smaller weights (int8) are what lower it; the fused graph is kept as the smaller file to quantise."""
    import onnx
    from onnx import helper, numpy_helper

    k = len(layers)
    f32 = onnx.TensorProto.FLOAT

    def t(name: str, a: np.ndarray) -> Any:
        return numpy_helper.from_array(np.ascontiguousarray(a, dtype=np.float32), name)

    (w1, b1), (w2, b2), (w3, b3) = ([(np.stack([h[i][0] for h in layers]), np.stack([h[i][1] for h in layers]))
                                     for i in range(3)])
    hidden = w1.shape[1]
    eps = {h[3][2] for h in layers} | {h[4][2] for h in layers}
    if len(eps) != 1:
        raise ValueError("the heads' LayerNorms use different epsilons")
    inits = [
        t("w1", w1.reshape(k * hidden, -1).T), t("b1", b1.reshape(-1)),
        numpy_helper.from_array(np.array([-1, k, hidden], np.int64), "shape1"),
        t("ones", np.ones(hidden)), t("zeros", np.zeros(hidden)),
        t("g1", np.stack([h[3][0] for h in layers])[:, None]), t("c1", np.stack([h[3][1] for h in layers])[:, None]),
        t("w2", w2.transpose(0, 2, 1)), t("b2", b2[:, None]),
        t("g2", np.stack([h[4][0] for h in layers])[:, None]), t("c2", np.stack([h[4][1] for h in layers])[:, None]),
        t("w3", w3.transpose(0, 2, 1)), t("b3", b3[:, None]),
    ]
    e = eps.pop()
    nodes = [
        helper.make_node("Flatten", ["emb"], ["x"], axis=1),
        helper.make_node("Gemm", ["x", "w1", "b1"], ["h1"]),  # (B, k * hidden)
        helper.make_node("Reshape", ["h1", "shape1"], ["h1k"]),  # (B, k, hidden)
        helper.make_node("Transpose", ["h1k"], ["h1t"], perm=[1, 0, 2]),  # (k, B, hidden)
        helper.make_node("LayerNormalization", ["h1t", "ones", "zeros"], ["n1"], axis=-1, epsilon=e),
        helper.make_node("Mul", ["n1", "g1"], ["s1"]), helper.make_node("Add", ["s1", "c1"], ["a1"]),
        helper.make_node("Relu", ["a1"], ["r1"]),
        helper.make_node("MatMul", ["r1", "w2"], ["m2"]), helper.make_node("Add", ["m2", "b2"], ["h2"]),
        helper.make_node("LayerNormalization", ["h2", "ones", "zeros"], ["n2"], axis=-1, epsilon=e),
        helper.make_node("Mul", ["n2", "g2"], ["s2"]), helper.make_node("Add", ["s2", "c2"], ["a2"]),
        helper.make_node("Relu", ["a2"], ["r2"]),
        helper.make_node("MatMul", ["r2", "w3"], ["m3"]), helper.make_node("Add", ["m3", "b3"], ["logits"]),
        helper.make_node("Softmax", ["logits"], ["p"], axis=-1),  # (k, B, classes)
        helper.make_node("ReduceMean", ["p"], ["probs"], axes=[0], keepdims=0),
    ]
    graph = helper.make_graph(nodes, "averaged_mlp_heads",
                              [helper.make_tensor_value_info("emb", f32, ["batch", context, EMB_DIM])],
                              [helper.make_tensor_value_info("probs", f32, ["batch", len(CLASSES)])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def average_exported(heads: list[Path], out: Path, labels: list[str] | None = None) -> Path:
    """One head file whose `probs` is the mean of several exported heads' `probs`, and its card `out.json`.

    Why: a head's false alarms on real speech depend on the draw of synthetic data it learnt (heads of one recipe on
    different draws fire 1.6-2x apart on the real spoken digits; see the model card, "Round of stop 58"), and an
    average of draws fires less than most of its members. Exported MLP heads are fused into one graph of a dozen
    nodes (`_fused_mlp_heads`); other heads are merged graph by graph (each under its own name prefix, one shared
    input). Either way heads whose checkpoints were not kept can be averaged, and the detector runs one embedding
    front end for all of them. `labels` name where each head came from in the card's `members`; the card's other
    fields (front end, classes, context, rule) are the first head's."""
    import onnx
    from onnx import compose, helper

    if not heads:
        raise ValueError("average_exported needs at least one head")
    names = labels or [str(p) for p in heads]
    if len(names) != len(heads):
        raise ValueError(f"{len(names)} labels for {len(heads)} heads")
    models = [onnx.load(str(p)) for p in heads]
    cards = [json.loads(Path(p).with_suffix(".json").read_text()) for p in heads]
    for p, m, c in zip(heads, models, cards, strict=True):
        if [x.name for x in m.graph.input] != ["emb"] or [x.name for x in m.graph.output] != ["probs"]:
            raise ValueError(f"{p}: not an exported head (input 'emb', output 'probs')")
        if c.get("context") != cards[0].get("context"):
            raise ValueError(f"{p}: context {c.get('context')} differs from {heads[0]}'s {cards[0].get('context')}; "
                             "the heads averaged in one file must read the same context")
    layers = [_mlp_weights(m) for m in models]
    if all(lay is not None for lay in layers):
        merged = _fused_mlp_heads(layers, int(cards[0].get("context", CONTEXT)))
    else:
        nodes, inits = [], []
        for i, m in enumerate(models):
            g = compose.add_prefix(m, f"h{i}_").graph
            for n in g.node:  # every head reads the one shared input
                n.input[:] = ["emb" if x == f"h{i}_emb" else x for x in n.input]
            nodes += list(g.node)
            inits += list(g.initializer)
        nodes.append(helper.make_node("Sum", [f"h{i}_probs" for i in range(len(models))], ["sum_probs"]))
        inits.append(helper.make_tensor("inv_n", onnx.TensorProto.FLOAT, [], [1.0 / len(models)]))
        nodes.append(helper.make_node("Mul", ["sum_probs", "inv_n"], ["probs"]))
        f32 = onnx.TensorProto.FLOAT
        graph = helper.make_graph(nodes, "averaged_heads",
                                  [helper.make_tensor_value_info("emb", f32, [None, None, None])],
                                  [helper.make_tensor_value_info("probs", f32, [None, None])], inits)
        merged = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    merged.ir_version = models[0].ir_version
    onnx.checker.check_model(merged)
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(merged, str(out))
    meta = dict(cards[0])
    meta["members"] = [{"head": name, "members": c.get("members", [])} for name, c in zip(names, cards, strict=True)]
    out.with_suffix(".json").write_text(json.dumps(meta, indent=2) + "\n")
    return out


def add_to_card(main_onnx: Path, head_onnx: Path, weight_main: float, rule: dict[str, Any]) -> Path:
    """Make the main (log-mel) model's card list both parts, the DS-CNN pair and the head, with their weights and
    the fused firing rule: `speech.kws.KeywordDetector` then runs both and averages their posteriors."""
    card = main_onnx.with_suffix(".json")
    meta = json.loads(card.read_text()) if card.exists() else {"classes": list(CLASSES)}
    head_meta = json.loads(head_onnx.with_suffix(".json").read_text())
    meta["parts"] = [
        {"model": main_onnx.name, "front_end": "logmel", "weight": weight_main},
        {"model": head_onnx.name, "front_end": "speech_embedding", "context": head_meta.get("context", CONTEXT),
         "weight": round(1.0 - weight_main, 6)},
    ]
    meta.update(rule)
    card.write_text(json.dumps(meta, indent=2) + "\n")
    return card


def rebuild(bank_paths: list[Path], data_dir: Path, out_onnx: Path, n_recordings: int = 1600, epochs: int = 20,
            workers: int = 2, threads: int = 2, seed: int = 3, teacher: Path | None = None) -> Path:
    """The head's whole recipe: embedded table recordings of the training banks (plus 60 for validation), training,
    export to `out_onnx` (the stop-48 head: 1,600 recordings, 20 epochs). With `teacher` (a head file) the head
    learns the teacher's posteriors too (`soft_targets`; 0.7 of the loss): stop 59's candidate HD was distilled so
    from stop 58's eight heads averaged, on four such draws for 10 epochs (`runs/kws_round/distil.py`)."""
    from speech.embed_data import build_embedded, load_embedded, save_embedded

    train_path, val_path = data_dir / f"train_{n_recordings}_{seed}.npz", data_dir / "val.npz"
    if not train_path.exists():
        save_embedded(train_path, *build_embedded(bank_paths, n_recordings, seed=seed, workers=workers))
    if not val_path.exists():
        save_embedded(val_path, *build_embedded(bank_paths, max(2, n_recordings // 25), seed=seed + 1000,
                                                workers=workers))
    train = load_embedded(train_path)
    soft = None if teacher is None else soft_targets(teacher, train[0], window_index(train[1], train[2]))
    best = train_head(train, load_embedded(val_path), data_dir / "run", epochs=epochs, threads=threads, teacher=soft)
    return export_head(best, out_onnx, {})
