"""Export a trained marker model as a service checkpoint folder (issue 6).

    python training/export.py --run OUT --dest MODELS/core-0.3.20 --weights fp16
    python training/export.py --run OUT --dest MODELS/core-multilingual-0.3.20 --weights int8

Writes DEST/model.onnx (opset 17; inputs input_ids/attention_mask [B,T] int64, marker_pos [B,K] int64,
marker_mask [B,K] bool, qtype [B] int64; outputs logits [B,K], act_logits [B,2]), DEST/tokenizer.json,
DEST/manifest.json (docs/checkpoint-format.md) and, with --int8, DEST/model.int8.onnx
(onnxruntime quantize_dynamic). Checks every graph in onnxruntime against torch on real dev rows.

--weights decides how model.onnx stores its large weight matrices (the computation is fp32 in all cases,
so rows stay independent of padding and batch-mates):
  fp32  plain fp32 initialisers;
  fp16  fp16 initialisers + Cast (onnxruntime folds the Cast at load: fp32 weights in memory);
  int8  symmetric int8 per output channel (per row for embeddings) + DequantizeLinear (weight-only).
A run trained with a pruned vocabulary (train.py, default for me5-small) exports that vocabulary:
OUT/tokenizer.json and the embedding rows listed in OUT/vocab.json (training/vocab.py).
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import random
import shutil
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from layout import Layout  # noqa: E402
from model import build, collate, set_special_ids  # noqa: E402
from train import build_examples, load_split  # noqa: E402

INPUTS = ["input_ids", "attention_mask", "marker_pos", "marker_mask", "qtype"]
OUTPUTS = ["logits", "act_logits"]


def export_graph(model, path: Path, opset: int = 17) -> None:
    enc = model.encoder
    prev = enc.config._attn_implementation
    enc.set_attn_implementation("eager")  # plain MatMul/Softmax: faster in onnxruntime than the SDPA export
    model.eval()
    ids = torch.randint(5, min(1000, enc.config.vocab_size), (2, 16), dtype=torch.long)
    args = (ids, torch.ones_like(ids), torch.tensor([[3, 6, 9], [3, 6, 0]]),
            torch.tensor([[True, True, True], [True, True, False]]), torch.tensor([0, 2]))
    try:
        with torch.no_grad():
            torch.onnx.export(
                model, args, str(path), input_names=INPUTS, output_names=OUTPUTS, opset_version=opset, dynamo=False,
                dynamic_axes={"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"},
                              "marker_pos": {0: "batch", 1: "markers"}, "marker_mask": {0: "batch", 1: "markers"},
                              "qtype": {0: "batch"}, "logits": {0: "batch", 1: "markers"}, "act_logits": {0: "batch"}})
    finally:
        enc.set_attn_implementation(prev)
    import onnx

    m = onnx.load(str(path))
    if m.ir_version > 8:
        m.ir_version = 8
        onnx.save(m, str(path))


def compress_weights(src: Path, dst: Path, mode: str, min_elems: int = 4096) -> dict:
    """Store large float initialisers as fp16 (+Cast) or int8 per-channel (+DequantizeLinear)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    m = onnx.load(str(src))
    g = m.graph
    if mode == "fp32":
        onnx.save(m, str(dst))
        return {"converted": 0}
    consumers = defaultdict(list)
    for node in g.node:
        for i, name in enumerate(node.input):
            consumers[name].append((node.op_type, i))
    keep, extra, nodes, n = [], [], [], 0
    for init in g.initializer:
        if init.data_type != TensorProto.FLOAT or len(init.dims) < 2 or int(np.prod(init.dims)) < min_elems:
            keep.append(init)
            continue
        arr = numpy_helper.to_array(init).astype(np.float32)
        n += 1
        if mode == "fp16":
            extra.append(numpy_helper.from_array(arr.astype(np.float16), init.name + "__fp16"))
            nodes.append(helper.make_node("Cast", [init.name + "__fp16"], [init.name], to=TensorProto.FLOAT,
                                          name=init.name + "__cast"))
        elif mode == "int8":
            axis = 0 if any(op == "Gather" and i == 0 for op, i in consumers[init.name]) else arr.ndim - 1
            red = tuple(a for a in range(arr.ndim) if a != axis)
            scale = np.abs(arr).max(axis=red) / 127.0
            scale = np.where(scale == 0, 1.0, scale).astype(np.float32)
            shape = [1] * arr.ndim
            shape[axis] = -1
            q = np.clip(np.rint(arr / scale.reshape(shape)), -127, 127).astype(np.int8)
            extra += [numpy_helper.from_array(q, init.name + "__q"), numpy_helper.from_array(scale, init.name + "__scale"),
                      numpy_helper.from_array(np.zeros_like(scale, dtype=np.int8), init.name + "__zp")]
            nodes.append(helper.make_node("DequantizeLinear", [init.name + "__q", init.name + "__scale", init.name + "__zp"],
                                          [init.name], axis=axis, name=init.name + "__dq"))
        else:
            raise ValueError(mode)
    del g.initializer[:]
    g.initializer.extend(keep + extra)
    old = list(g.node)
    del g.node[:]
    g.node.extend(nodes + old)
    onnx.checker.check_model(m)
    onnx.save(m, str(dst))
    return {"converted": n}


def ort_session(path: Path, threads: int = 2):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])


def compare(model, sess, examples, pad: int, one_row: bool = False) -> dict:
    """Max abs diff of logits (real markers) and act_logits, and argmax agreement, ORT vs torch."""
    model.eval()
    rng = random.Random(7)
    ex = list(examples)
    rng.shuffle(ex)
    diff = act = 0.0
    agree = total = 0
    sizes = [1] if one_row else [1, 3, 8, 5]
    i = 0
    while i < len(ex):
        b = ex[i: i + sizes[(i // 8) % len(sizes)]]
        i += len(b)
        inp = collate(b, pad)
        with torch.no_grad():
            ref, ref_act = model(*inp)
        feed = dict(zip(INPUTS, [t.numpy() for t in inp]))
        got, got_act = sess.run(OUTPUTS, feed)
        for r, e in enumerate(b):
            a, c = ref[r, : e.n].numpy(), got[r, : e.n]
            diff = max(diff, float(np.abs(a - c).max()))
            agree += int(a.argmax() == c.argmax())
            total += 1
            assert np.all(got[r, e.n:] == -1e4), "masked markers must read -1e4"
        act = max(act, float(np.abs(ref_act.numpy() - got_act).max()))
    return {"rows": total, "max_abs_diff_logits": float(f"{diff:.3g}"), "max_abs_diff_act": float(f"{act:.3g}"),
            "argmax_agreement": round(agree / max(1, total), 4)}


def sha256(p: Path) -> str:
    h = hashlib.sha256()
    with open(p, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def describe(head: str | None, bcfg: dict, multi: bool) -> str:
    backbone = f"{bcfg['model']} ({bcfg['package']} {bcfg['package_version']}"
    corpus = f"the structqa training corpus ({'multilingual' if multi else 'English'})"
    if head == "segment":
        return (f"Segment-head checkpoint: {backbone}, frozen) encodes question, options and state as separate "
                f"texts; a head trained on {corpus}.")
    return f"Marker-head checkpoint trained from {backbone}) on {corpus}."


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", type=Path, required=True)
    ap.add_argument("--dest", type=Path, required=True)
    ap.add_argument("--name", default=None, help="default core-0.3.20 (en) / core-multilingual-0.3.20 (multi)")
    ap.add_argument("--weights", choices=["fp32", "fp16", "int8"], default="fp16")
    ap.add_argument("--int8", action="store_true", help="also write model.int8.onnx (quantize_dynamic)")
    ap.add_argument("--check-rows", type=int, default=64)
    ap.add_argument("--description", default=None)
    ap.add_argument("--release-date", default=dt.date.today().isoformat())
    args = ap.parse_args(argv)
    torch.set_num_threads(2)

    tc = json.loads((args.run / "train_config.json").read_text())
    multi = tc["langs"] == "multi"
    name = args.name or ("core-multilingual-0.3.20" if multi else "core-0.3.20")
    model, tj, bcfg = build(tc["backbone"], tc["seed"], tc.get("head", "marker"), tc.get("interact", 0))
    specials = tc["special_tokens"]
    args.dest.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="structqa-export-"))
    info: dict = {"name": name, "weights": args.weights}

    dev_all = load_split("dev")
    dev_items = [it for it in dev_all if (it["lang"] == "en") or multi]
    tok_out = args.dest / "tokenizer.json"
    run_tok = args.run / "tokenizer.json"
    if (args.run / "vocab.json").exists():  # trained with a pruned vocabulary (train.py --prune-vocab)
        import vocab

        v = json.loads((args.run / "vocab.json").read_text(encoding="utf-8"))
        vocab.apply_to_model(model, v["kept"])
        info["vocab_pruning"] = v["stats"]
    model.load_state_dict(torch.load(args.run / "best.pt"))
    model.eval()
    shutil.copyfile(run_tok if run_tok.exists() else tj, tok_out)

    layout = Layout(tok_out, specials, tc["window"])
    set_special_ids(model, layout.sep, layout.mask)
    dev, _ = build_examples(layout, dev_items)
    rng = random.Random(11)
    check = rng.sample(dev, min(args.check_rows, len(dev)))

    fp32 = work / "model.fp32.onnx"
    export_graph(model, fp32)
    info["fp32_bytes"] = fp32.stat().st_size
    info["check_fp32"] = compare(model, ort_session(fp32), check, layout.pad)
    out = args.dest / "model.onnx"
    info["compress"] = compress_weights(fp32, out, args.weights)
    info["model_bytes"] = out.stat().st_size
    info["check_model"] = compare(model, ort_session(out), check, layout.pad)
    files = {"model": "model.onnx", "tokenizer": "tokenizer.json"}
    if args.int8:
        from onnxruntime.quantization import QuantType, quantize_dynamic

        q = args.dest / "model.int8.onnx"
        quantize_dynamic(str(fp32), str(q), weight_type=QuantType.QInt8)
        info["int8_bytes"] = q.stat().st_size
        info["check_int8_one_row"] = compare(model, ort_session(q), check, layout.pad, one_row=True)
        files["model_int8"] = "model.int8.onnx"
    shutil.rmtree(work, ignore_errors=True)

    cal_file = args.run / "calibration.json"
    calibration = json.loads(cal_file.read_text())["calibration"] if cal_file.exists() else {"temperature": {}}
    summary = json.loads((args.run / "summary.json").read_text()) if (args.run / "summary.json").exists() else {}
    manifest = {
        "format": "structqa-checkpoint/1",
        "name": name,
        "version": name.rsplit("-", 1)[-1],
        "description": args.description or describe(tc.get("head"), bcfg, multi),
        "release_date": args.release_date,
        "languages": ["*"] if multi else ["en"],
        "window": tc["window"],
        "processed_token_cap": 6000 if multi else 3500,
        "fixture": False,
        "files": files,
        "special_tokens": specials,
        "calibration": calibration,
        "provenance": {
            "backbone": tc["backbone"], "backbone_model": bcfg["model"], "backbone_package": bcfg["package"],
            "backbone_package_version": bcfg["package_version"], "backbone_license": bcfg["model_license"],
            "corpus_sha256": tc["corpus_sha256"], "seed": tc["seed"], "git_commit": tc["git_commit"],
            "train": {k: tc[k] for k in ("freeze_layers", "batch_tokens", "lr", "epochs", "planned_steps", "max_minutes",
                                         "train_rows", "dev_rows", "torch")},
            "best": summary.get("best"), "dev_accuracy": summary.get("dev_acc_full"),
            "export": {k: v for k, v in info.items() if k != "name"},
            "builder": "training/export.py " + " ".join(argv if argv is not None else sys.argv[1:]),
            "sha256": {f: sha256(args.dest / f) for f in files.values()},
        },
    }
    (args.dest / "manifest.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False), encoding="utf-8")
    print(json.dumps(info, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
