"""Stop 50: a candidate's folder for `unotable eval-speech`: the shipped card's files (from a copy of the shipped
folder), with parts replaced and a rule.  cand.py SHIPPED_DIR OUT_DIR RULE.json [kws_w.onnx=PATH] [kws_emb.onnx=PATH]"""
import json, shutil, sys
from pathlib import Path
src, out, rule = Path(sys.argv[1]), Path(sys.argv[2]), json.loads(Path(sys.argv[3]).read_text())
out.mkdir(parents=True, exist_ok=True)
for f in src.iterdir():
    shutil.copy(f, out / f.name)
for spec in sys.argv[4:]:
    name, path = spec.split("=", 1)
    shutil.copy(path, out / name)
card = json.loads((out / "kws.json").read_text())
card.update(threshold=rule["threshold"], class_thresholds=rule["class_thresholds"], smooth=rule["smooth"],
            persist=rule["persist"])
(out / "kws.json").write_text(json.dumps(card, indent=2))
print(out, {k: card[k] for k in ("class_thresholds", "smooth", "persist")}, [p["model"] for p in card["parts"]])
