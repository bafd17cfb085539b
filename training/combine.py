"""Combine two exported checkpoints into one: a noul specialist and a base model for the other types.

    python training/combine.py --base checkpoints/core-0.3.20 --noul runs/export-noul/core-0.3.20 \\
                               --dest runs/export-combined/core-0.3.20

Both folders must be engine checkpoints (export.py) with the same tokenizer, window and special tokens.
The combined ``model.onnx`` keeps the engine's I/O (docs/checkpoint-format.md): it runs both graphs on
the batch and takes each row's logits from the noul graph where ``qtype`` is noul (2) and from the base
graph otherwise. Initialisers with identical contents are stored once, so ONNX Runtime's common
subexpression elimination can share the work the two graphs have in common (an identical frozen
encoder, for instance). The manifest keeps the base's calibration for choice and score and takes the
noul temperature from the specialist.

A row's logits still depend only on that row (both graphs are row-independent and the selection is
per row). ``--check-rows`` rows of random ids are compared in onnxruntime against each part alone.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from export import ort_session, sha256  # noqa: E402

NOUL = 2  # layout.QTYPE_ID["noul"]
INPUTS = ["input_ids", "attention_mask", "marker_pos", "marker_mask", "qtype"]
SAME = ("window", "special_tokens", "languages", "processed_token_cap")


def _prefixed(graph, prefix: str, keep: set[str]):
    """Rename every value, node and initialiser of ``graph`` with ``prefix``, except the names in ``keep``."""
    def name(n: str) -> str:
        return n if (not n or n in keep) else prefix + n

    for node in graph.node:
        node.name = prefix + node.name
        node.input[:] = [name(n) for n in node.input]
        node.output[:] = [name(n) for n in node.output]
        for attr in node.attribute:
            if attr.g.node or attr.graphs:
                raise SystemExit(f"{node.op_type}: subgraphs are not supported by combine.py")
    for init in graph.initializer:
        init.name = name(init.name)
    for vi in list(graph.value_info) + list(graph.output):
        vi.name = name(vi.name)
    return graph


def _dedup_initializers(graph) -> int:
    """Point every use of an initialiser whose dtype, shape and bytes equal an earlier one at that one."""
    from onnx import numpy_helper

    seen: dict[tuple, str] = {}
    rename: dict[str, str] = {}
    kept = []
    for init in graph.initializer:
        arr = numpy_helper.to_array(init)
        key = (init.data_type, tuple(init.dims), hashlib.sha256(arr.tobytes()).hexdigest())
        if key in seen:
            rename[init.name] = seen[key]
        else:
            seen[key] = init.name
            kept.append(init)
    for node in graph.node:
        node.input[:] = [rename.get(n, n) for n in node.input]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    return len(rename)


def combine_graphs(base_path: Path, noul_path: Path, out_path: Path) -> dict:
    import onnx
    from onnx import TensorProto, helper

    base, noul = onnx.load(str(base_path)), onnx.load(str(noul_path))
    opsets = {(o.domain, o.version) for o in base.opset_import} | {(o.domain, o.version) for o in noul.opset_import}
    if len({d for d, _ in opsets}) != len(opsets):
        raise SystemExit(f"the two graphs use different opsets: {sorted(opsets)}")
    for m, what in ((base, "base"), (noul, "noul")):
        names = [i.name for i in m.graph.input]
        if names != INPUTS:
            raise SystemExit(f"{what}: inputs {names}, expected {INPUTS}")
    keep = set(INPUTS)
    bg = _prefixed(copy.deepcopy(base.graph), "base/", keep)
    ng = _prefixed(copy.deepcopy(noul.graph), "noul/", keep)
    g = helper.make_graph([], "combined", list(base.graph.input), [], [])
    for part in (bg, ng):
        g.node.extend(part.node)
        g.initializer.extend(part.initializer)
        g.value_info.extend(part.value_info)
    g.initializer.append(helper.make_tensor("combine/noul_id", TensorProto.INT64, [], [NOUL]))
    g.initializer.append(helper.make_tensor("combine/axis1", TensorProto.INT64, [1], [1]))
    g.node.extend([
        helper.make_node("Equal", ["qtype", "combine/noul_id"], ["combine/is_noul"], name="combine/equal"),
        helper.make_node("Unsqueeze", ["combine/is_noul", "combine/axis1"], ["combine/is_noul_col"], name="combine/unsqueeze"),
        helper.make_node("Where", ["combine/is_noul_col", "noul/logits", "base/logits"], ["logits"], name="combine/where"),
        helper.make_node("Identity", ["base/act_logits"], ["act_logits"], name="combine/act"),
    ])
    g.output.extend(copy.deepcopy(list(base.graph.output)))
    shared = _dedup_initializers(g)
    m = helper.make_model(g, opset_imports=list(base.opset_import), producer_name="structqa training/combine.py")
    m.ir_version = min(base.ir_version, noul.ir_version)
    onnx.checker.check_model(m)
    onnx.save(m, str(out_path))
    return {"shared_initializers": shared, "bytes": out_path.stat().st_size}


def check(combined: Path, base: Path, noul: Path, rows: int, vocab: int, seed: int = 7) -> dict:
    """max |Δlogit| of the combined graph against each part alone, on random rows of every type."""
    rng = np.random.default_rng(seed)
    sc, sb, sn = ort_session(combined), ort_session(base), ort_session(noul)
    worst = {"base": 0.0, "noul": 0.0}
    for r in range(rows):
        t, k = int(rng.integers(12, 80)), int(rng.integers(2, 6))
        ids = rng.integers(5, vocab, size=(2, t)).astype(np.int64)
        pos = np.sort(rng.choice(np.arange(3, t - 3), size=(2, k), replace=False), axis=1).astype(np.int64)
        feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids), "marker_pos": pos,
                 "marker_mask": np.ones((2, k), dtype=bool), "qtype": np.array([r % 3, NOUL], dtype=np.int64)}
        got = sc.run(["logits"], feeds)[0]
        b, n = sb.run(["logits"], feeds)[0], sn.run(["logits"], feeds)[0]
        want = np.where((feeds["qtype"] == NOUL)[:, None], n, b)
        for i, part in enumerate(["noul" if q == NOUL else "base" for q in feeds["qtype"]]):
            worst[part] = max(worst[part], float(np.abs(got[i] - want[i]).max()))
    return {"rows": rows, "max_abs_diff": worst}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", type=Path, required=True, help="checkpoint folder answering choice and score")
    ap.add_argument("--noul", type=Path, required=True, help="checkpoint folder answering noul")
    ap.add_argument("--dest", type=Path, required=True)
    ap.add_argument("--description", default=None)
    ap.add_argument("--check-rows", type=int, default=24)
    args = ap.parse_args(argv)
    mb = json.loads((args.base / "manifest.json").read_text(encoding="utf-8"))
    mn = json.loads((args.noul / "manifest.json").read_text(encoding="utf-8"))
    for k in SAME:
        if mb.get(k) != mn.get(k):
            raise SystemExit(f"{k} differs: base {mb.get(k)!r}, noul {mn.get(k)!r}")
    tb, tn = args.base / mb["files"]["tokenizer"], args.noul / mn["files"]["tokenizer"]
    if sha256(tb) != sha256(tn):
        raise SystemExit("the two checkpoints use different tokenizers")
    args.dest.mkdir(parents=True, exist_ok=True)
    out = args.dest / "model.onnx"
    base_graph, noul_graph = args.base / mb["files"]["model"], args.noul / mn["files"]["model"]
    info = combine_graphs(base_graph, noul_graph, out)
    vocab = json.loads(tb.read_text(encoding="utf-8"))["model"]["vocab"]
    info["check"] = check(out, base_graph, noul_graph, args.check_rows, len(vocab))
    if max(info["check"]["max_abs_diff"].values()) > 1e-4:
        raise SystemExit(f"the combined graph differs from its parts: {info['check']}")
    (args.dest / "tokenizer.json").write_bytes(tb.read_bytes())
    temps = dict(mb["calibration"]["temperature"])
    temps["noul"] = mn["calibration"]["temperature"].get("noul", {})
    manifest = {**mb, "files": {"model": "model.onnx", "tokenizer": "tokenizer.json"},
                "calibration": {**mb["calibration"], "temperature": temps},
                "description": args.description or f"{mb['description']} Noul questions: {mn['description']}",
                "provenance": {"combined": {"base": mb["provenance"], "noul": mn["provenance"], **info,
                                            "builder": "training/combine.py " + " ".join(argv if argv is not None else sys.argv[1:])},
                               "sha256": {"model.onnx": sha256(out), "tokenizer.json": sha256(tb)}}}
    (args.dest / "manifest.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False), encoding="utf-8")
    print(json.dumps(info, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
