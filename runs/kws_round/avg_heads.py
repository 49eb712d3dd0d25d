"""Stop 58: one head file that averages several exported heads' posteriors (one speech-embedding front end for all,
so the card's cost grows by the heads' few hundred thousand multiply-adds, not by another embedding network).
    avg_heads.py OUT.onnx HEAD.onnx [HEAD.onnx ...]
Each head's graph is copied under its own prefix; the output `probs` is the mean of their `probs`. The card beside
OUT (kws_emb.json) is the first head's, with `members` listing the files averaged."""
import json
import sys
from pathlib import Path
import numpy as np
import onnx
from onnx import compose, helper
out, heads = Path(sys.argv[1]), [Path(p) for p in sys.argv[2:]]
graphs = []
for i, p in enumerate(heads):
    m = onnx.load(str(p))
    assert [x.name for x in m.graph.input] == ["emb"] and [x.name for x in m.graph.output] == ["probs"], p
    graphs.append(compose.add_prefix(m, f"h{i}_").graph)
nodes, inits = [], []
for i, g in enumerate(graphs):
    for n in g.node:  # the shared input keeps its name
        n.input[:] = ["emb" if x == f"h{i}_emb" else x for x in n.input]
    nodes += list(g.node); inits += list(g.initializer)
nodes.append(helper.make_node("Sum", [f"h{i}_probs" for i in range(len(graphs))], ["sum_probs"]))
inits.append(helper.make_tensor("inv_n", onnx.TensorProto.FLOAT, [], [1.0 / len(graphs)]))
nodes.append(helper.make_node("Mul", ["sum_probs", "inv_n"], ["probs"]))
g0 = graphs[0]
graph = helper.make_graph(nodes, "averaged_heads", [helper.make_tensor_value_info("emb", onnx.TensorProto.FLOAT,
                          [None, None, None])], [helper.make_tensor_value_info("probs", onnx.TensorProto.FLOAT,
                          [None, None])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = onnx.load(str(heads[0])).ir_version
onnx.checker.check_model(model)
onnx.save(model, str(out))
card = json.loads(heads[0].with_suffix(".json").read_text())
card["members"] = [{"file": str(p)} for p in heads]
out.with_suffix(".json").write_text(json.dumps(card, indent=2))
# check: the average equals the mean of the heads run one by one
import onnxruntime as ort
x = np.random.default_rng(0).normal(size=(3, card["context"], 96)).astype(np.float32)
one = [ort.InferenceSession(str(p)).run(None, {"emb": x[j:j + 1]})[0] for p in heads for j in range(3)]
mean = np.mean(np.array(one).reshape(len(heads), 3, -1), axis=0)
got = np.concatenate([ort.InferenceSession(str(out)).run(None, {"emb": x[j:j + 1]})[0] for j in range(3)])
assert np.allclose(got, mean, atol=1e-5), np.abs(got - mean).max()
print(out, "averages", len(heads), "heads; checked against the heads run one by one")
