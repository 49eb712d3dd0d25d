"""Torch networks rebuilt from a shipped keyword model (`models/kws.onnx`), so that a later round can fine-tune them.

Why: the checkpoints a model was exported from live under `data/speech/` (ignored by git, never shipped), so a new
machine has only the ONNX file. Its graph holds every member of the ensemble with BatchNorm folded into the
convolutions on export (y = W'x + b'). `members_from_onnx` puts W' back into each convolution and gives the
BatchNorm after it running statistics measured on calibration windows (mean m, variance v of W'x) and the affine
part that undoes them (gamma = sqrt(v + eps), beta = m + b'): the network is then exactly the shipped one in eval
mode, and close to it in train mode (where BatchNorm normalises by the batch's own statistics), so a fine-tune
starts from the shipped function rather than from a disturbed one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np


def members_from_onnx(onnx_path: Path, calib: np.ndarray, width: int = 64, blocks: int = 5) -> list[Any]:
    """The DS-CNN members of an exported ensemble (`speech.train.export`), as torch modules in eval mode.

    `calib`: log-mel windows (n, frames, mels), ideally training windows, that set each BatchNorm's statistics;
    `width`/`blocks`: the members' architecture (`models/kws.json` `members[].arch`)."""
    import onnx
    import torch
    from onnx import numpy_helper

    from speech.train import build_model

    graph = onnx.load(str(onnx_path)).graph
    init = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    convs = [n for n in graph.node if n.op_type == "Conv"]
    per = 1 + 2 * blocks
    if not convs or len(convs) % per:
        raise ValueError(f"{onnx_path}: {len(convs)} convolutions is not a whole number of DS-CNNs with "
                         f"{blocks} blocks ({per} each)")
    members = []
    for k in range(len(convs) // per):
        net = build_model(width=width, blocks=blocks)
        nodes = convs[k * per:(k + 1) * per]
        conv_mods = [m for m in net.body if isinstance(m, torch.nn.Conv2d)]
        for node, cm in zip(nodes, conv_mods, strict=True):
            w = init[node.input[1]]
            if tuple(w.shape) != tuple(cm.weight.shape):
                raise ValueError(f"{onnx_path}: member {k} convolution {node.name} has shape {w.shape}, the "
                                 f"architecture (width {width}, blocks {blocks}) needs {tuple(cm.weight.shape)}")
            cm.weight.data = torch.from_numpy(w.copy())
        net.head.weight.data = torch.from_numpy(init[f"m.{k}.head.weight"].copy())
        net.head.bias.data = torch.from_numpy(init[f"m.{k}.head.bias"].copy())
        # the exporter keeps one copy of constants the members share (the input scale)
        net.mu.fill_(float(init.get(f"m.{k}.mu", init["m.0.mu"])))
        net.sd.fill_(float(init.get(f"m.{k}.sd", init["m.0.sd"])))
        net.eval()
        x = ((torch.from_numpy(np.asarray(calib, np.float32)) - net.mu) / net.sd).unsqueeze(1)
        with torch.no_grad():
            last_conv = -1
            for mod in net.body:
                if isinstance(mod, torch.nn.BatchNorm2d):
                    bias = torch.from_numpy(init[nodes[last_conv].input[2]].copy())
                    mean, var = x.mean(dim=(0, 2, 3)), x.var(dim=(0, 2, 3), unbiased=False)
                    assert mod.running_mean is not None and mod.running_var is not None  # track_running_stats
                    mod.running_mean.copy_(mean)
                    mod.running_var.copy_(var)
                    mod.weight.data = torch.sqrt(var + mod.eps)
                    mod.bias.data = mean + bias
                elif isinstance(mod, torch.nn.Conv2d):
                    last_conv += 1
                x = mod(x)
        members.append(net)
    return members


def save_members(members: list[Any], out_dir: Path, arch: dict[str, int]) -> list[Path]:
    """Each member as a checkpoint `speech.train.train(init_from=...)` and `speech.train.export` read."""
    import torch

    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for k, net in enumerate(members):
        p = out_dir / f"member{k}.pt"
        torch.save({"model": net.state_dict(), "epoch": 0, "arch": dict(arch)}, p)
        paths.append(p)
    return paths
