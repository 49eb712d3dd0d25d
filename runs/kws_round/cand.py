"""Stop 50: a candidate's folder for `unotable eval-speech`: the shipped card's files (from a copy of the shipped
folder), with parts replaced and a rule.
  cand.py SHIPPED_DIR OUT_DIR RULE.json [kws_w.onnx=PATH] [kws_emb.onnx=PATH] [weights=0.25,0.25,0.5]
(weights: the parts' weights in the card's order, stop 51)"""
import json, shutil, sys
from pathlib import Path
src, out, rule = Path(sys.argv[1]), Path(sys.argv[2]), json.loads(Path(sys.argv[3]).read_text())
out.mkdir(parents=True, exist_ok=True)
for f in src.iterdir():
    shutil.copy(f, out / f.name)
weights = None
for spec in sys.argv[4:]:
    name, path = spec.split("=", 1)
    if name == "weights":
        weights = [float(w) for w in path.split(",")]
        continue
    shutil.copy(path, out / name)
card = json.loads((out / "kws.json").read_text())
if weights is not None:
    assert len(weights) == len(card["parts"]), "one weight a part"
    for part, w in zip(card["parts"], weights):
        part["weight"] = w
card.update(threshold=rule["threshold"], class_thresholds=rule["class_thresholds"], smooth=rule["smooth"],
            persist=rule["persist"])
(out / "kws.json").write_text(json.dumps(card, indent=2))
print(out, {k: card[k] for k in ("class_thresholds", "smooth", "persist")}, [(p["model"], p["weight"]) for p in card["parts"]])
