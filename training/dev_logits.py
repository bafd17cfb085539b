"""Dev-split logits of an exported checkpoint, run in onnxruntime as the engine runs it (issue 19).

    python training/dev_logits.py --checkpoint runs/export/core-0.3.20 --out runs/cal-en/dev_logits.jsonl

Writes one ``{"id", "lang", "type", "label", "logits", "handwritten"}`` line per dev row (the format of
train.py's OUT/dev_logits.jsonl, read by calibrate.py), so a checkpoint that was not trained by
train.py in one run (training/combine.py's, the bundled ones) can be calibrated too. The checkpoint's
languages decide the rows: ``["en"]`` takes the English dev rows, ``["*"]`` every row.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from export import INPUTS, ort_session  # noqa: E402
from layout import Layout  # noqa: E402
from model import collate  # noqa: E402
from train import batches, build_examples, load_split  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--checkpoint", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(argv)
    manifest = json.loads((args.checkpoint / "manifest.json").read_text(encoding="utf-8"))
    layout = Layout(args.checkpoint / manifest["files"]["tokenizer"], manifest["special_tokens"], manifest["window"])
    items = load_split("dev")
    if manifest["languages"] != ["*"]:
        items = [it for it in items if it["lang"] in manifest["languages"]]
    dev, skipped = build_examples(layout, items)
    sess = ort_session(args.checkpoint / manifest["files"]["model"], args.threads)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        for b in batches(dev, 4096, 0, shuffle=False):
            feed = dict(zip(INPUTS, [t.numpy() for t in collate(b, layout.pad)]))
            logits = sess.run(["logits"], feed)[0]
            for e, row in zip(b, logits.tolist()):
                f.write(json.dumps({"id": e.id, "lang": e.lang, "type": e.type, "label": e.label,
                                    "logits": row[: e.n], "handwritten": e.handwritten}) + "\n")
    print(json.dumps({"rows": len(dev), "handwritten": sum(e.handwritten for e in dev),
                      "skipped_overlong": skipped, "out": str(args.out)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
