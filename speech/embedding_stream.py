"""The speech-embedding network run as a stream: each log-mel frame goes through each layer once.

Why: the keyword spotter needs one embedding every 80 ms (8 frames), and each embedding reads 76 frames, so run
window by window the network computes every frame's first layers about nine times over; that was a third of the
spotter's CPU (1.8% of a core). Google's `speech_embedding` is convolutional in time with no padding in time
(its 3x3 and 3x1 convolutions are "valid" along time; the (1, 3) ones pad only the frequency axis), and its three
time poolings of stride 2 make an output every 8 frames: exactly the embedding step. So the whole network slid over
a long run of frames gives every embedding at once, and run on 8 new frames at a time it needs only the last two
positions each time-convolution saw before. `streaming_model` rewrites the shipped ONNX graph that way: every
convolution with a kernel 3 long in time reads `cache_k` (its input's last two positions from the call before)
joined to its new positions, and returns its new cache; the rest of the graph is unchanged, weights included.

Alignment (why the embeddings are the window-by-window ones, to rounding): window i starts at frame 8 i, so at each
pooling the positions it reads start at an even position of the stream, the same pairs the window's own pooling
takes. A call must therefore bring a whole number of embedding steps (8 frames), after the first call's 76; and
`StreamingEmbedder` keeps what is left over.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

EMB_FRAMES, EMB_STEP, EMB_DIM, N_BINS = 76, 8, 96, 32


def streaming_model(path: Path) -> tuple[bytes, list[tuple[int, int]]]:
    """The ONNX model at `path` (openWakeWord's `embedding_model.onnx`) rewritten to run on a stream (see the module's
    docstring), serialised, and each cache's (channels, width). Inputs: `input_1` (1, frames, 32, 1) and `cache_0`..
    (1, channels, 0 or 2 positions, width); outputs: the embeddings (1, n, 1, 96) and `cache_0_out`.. . Raises
    ValueError for a graph of another shape."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    model = onnx.load(str(path))
    shapes = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim]
              for v in onnx.shape_inference.infer_shapes(model).graph.value_info}
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    if [i.name for i in g.input] != ["input_1"] or len(g.output) != 1:
        raise ValueError(f"{path}: not the speech-embedding graph this code knows (inputs, outputs)")
    nodes = list(g.node)
    reshapes = [n for n in nodes if n.op_type == "Reshape"]
    if len(reshapes) != 2:
        raise ValueError(f"{path}: expected two Reshape nodes (to channels-first, and the output)")
    new_nodes: list[Any] = []
    cache_inputs, cache_outputs = [], []
    sizes: list[tuple[int, int]] = []
    k = 0
    for n in nodes:
        if n is reshapes[0]:  # (1, T, 34, 1) -> (1, 1, T, 34): a transpose, whatever T is
            new_nodes.append(helper.make_node("Transpose", [n.input[0]], list(n.output), perm=[0, 3, 1, 2]))
            continue
        if n is reshapes[1]:  # (1, 96, n, 1) -> (1, n, 1, 96): one embedding per time position
            new_nodes.append(helper.make_node("Transpose", [n.input[0]], list(n.output), perm=[0, 2, 3, 1]))
            continue
        if n.op_type == "Conv":
            attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
            kt = list(attrs.get("kernel_shape", [1, 1]))[0]
            pads = list(attrs.get("pads", [0, 0, 0, 0]))
            strides = list(attrs.get("strides", [1, 1]))
            if pads[0] or pads[2] or strides[0] != 1 or kt not in (1, 3):
                raise ValueError(f"{path}: convolution {n.name} pads or strides along time; it cannot be streamed")
            if kt == 3:
                channels, width = int(inits[n.input[1]].dims[1]), int(shapes[n.input[0]][3])
                sizes.append((channels, width))
                cin, cout, joined = f"cache_{k}", f"cache_{k}_out", f"cache_{k}_joined"
                cache_inputs.append(helper.make_tensor_value_info(cin, TensorProto.FLOAT,
                                                                  [1, channels, f"past_{k}", width]))
                cache_outputs.append(helper.make_tensor_value_info(cout, TensorProto.FLOAT,
                                                                   [1, channels, 2, width]))
                new_nodes.append(helper.make_node("Concat", [cin, n.input[0]], [joined], axis=2))
                new_nodes.append(helper.make_node("Slice", [joined, "_minus_two", "_end", "_axis_time"], [cout]))
                inputs = list(n.input)
                inputs[0] = joined
                new_nodes.append(helper.make_node("Conv", inputs, list(n.output), name=n.name, **attrs))
                k += 1
                continue
        if n.op_type == "MaxPool":
            attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
            if any(list(attrs.get("pads", [0, 0, 0, 0]))):
                raise ValueError(f"{path}: pooling {n.name} pads; it cannot be streamed")
        new_nodes.append(n)
    dropped = {r.input[1] for r in reshapes}  # the two Reshapes' fixed shapes, now unused
    consts = [numpy_helper.from_array(np.array([-2], np.int64), "_minus_two"),
              numpy_helper.from_array(np.array([np.iinfo(np.int64).max], np.int64), "_end"),
              numpy_helper.from_array(np.array([2], np.int64), "_axis_time")]
    x = helper.make_tensor_value_info("input_1", TensorProto.FLOAT, [1, "frames", N_BINS, 1])
    y = helper.make_tensor_value_info(g.output[0].name, TensorProto.FLOAT, [1, "n", 1, EMB_DIM])
    graph = helper.make_graph(new_nodes, "speech_embedding_stream", [x, *cache_inputs], [y, *cache_outputs],
                              initializer=[*(i for i in g.initializer if i.name not in dropped), *consts])
    out = helper.make_model(graph, opset_imports=model.opset_import, ir_version=model.ir_version)
    return bytes(out.SerializeToString()), sizes


class StreamingEmbedder:
    """Embeddings of log-mel frames fed in any number at a time: `push(frames)` returns the embeddings (n, 96)
    that the frames so far complete, the same as `SpeechEmbedder.embed_mel` on all of them (to rounding)."""

    def __init__(self, path: Path, threads: int = 1) -> None:
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        graph, self._sizes = streaming_model(path)
        self.session = ort.InferenceSession(graph, sess_options=opts, providers=["CPUExecutionProvider"])
        self._cache_names = [f"cache_{k}" for k in range(len(self._sizes))]
        self.reset()

    def reset(self) -> None:
        """Forget the stream: the next frames start a new one (its first embedding needs 76 frames)."""
        self._pending = np.zeros((0, N_BINS), np.float32)
        self._started = False
        self._caches = [np.zeros((1, c, 0, w), np.float32) for c, w in self._sizes]

    def needed(self) -> int:
        """Frames still to come before the next embedding can be made."""
        first = EMB_FRAMES if not self._started else EMB_STEP
        return max(0, first - len(self._pending))

    def push(self, frames: np.ndarray) -> np.ndarray:
        self._pending = np.concatenate([self._pending, np.asarray(frames, np.float32).reshape(-1, N_BINS)])
        first = 0 if self._started else EMB_FRAMES - EMB_STEP  # the first call brings 68 frames more than 8 n
        n = max(0, (len(self._pending) - first) // EMB_STEP)
        if n == 0:
            return np.zeros((0, EMB_DIM), np.float32)
        take = first + n * EMB_STEP
        x = self._pending[:take][None, :, :, None]
        feeds = {"input_1": x, **dict(zip(self._cache_names, self._caches, strict=True))}
        out = self.session.run(None, feeds)
        self._caches = list(out[1:])
        self._started = True
        self._pending = self._pending[take:]
        return np.asarray(out[0], np.float32).reshape(-1, EMB_DIM)
