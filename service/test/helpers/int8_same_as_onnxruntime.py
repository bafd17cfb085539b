"""Test helper: training/quantize.py's int8 graph against onnxruntime's own `quantize_dynamic` on the same fp32 graph.

    python int8_same_as_onnxruntime.py FP32_GRAPH WORK_DIR

Quantises FP32_GRAPH both ways (the converter's options: QInt8, reduce_range, the MatMul/Gemm nodes whose
B is an initializer), once with the graph's weights inside it and once with them in an external-data file,
and prints one JSON object: for each form, how many nodes and initializers, every difference between the
two graphs (node by node in order: op, name, inputs, outputs, attributes; initializer by initializer in
order: name, type, shape, bytes; value_info, graph inputs and outputs, opsets, producer, metadata) and the
largest difference between their logits on a batch of rows (ONNX Runtime, CPU).
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "training"))
from quantize import quantize_int8, weight_matmuls  # noqa: E402


def attribute(a):
    v = helper.get_attribute_value(a)
    if isinstance(v, onnx.TensorProto):
        return ("tensor", v.data_type, list(v.dims), numpy_helper.to_array(v).tobytes())
    return v


def differences(ours: onnx.ModelProto, theirs: onnx.ModelProto) -> list[str]:
    out = []
    for what in ("ir_version", "producer_name", "producer_version"):
        if getattr(ours, what) != getattr(theirs, what):
            out.append(f"{what}: {getattr(ours, what)!r} vs {getattr(theirs, what)!r}")
    for what in ("opset_import", "metadata_props"):
        if sorted(x.SerializeToString() for x in getattr(ours, what)) != sorted(x.SerializeToString() for x in getattr(theirs, what)):
            out.append(f"{what} differ")
    a, b = ours.graph, theirs.graph
    for what in ("input", "output", "value_info"):
        if [x.SerializeToString() for x in getattr(a, what)] != [x.SerializeToString() for x in getattr(b, what)]:
            out.append(f"graph.{what} differ ({len(getattr(a, what))} vs {len(getattr(b, what))})")
    if len(a.node) != len(b.node):
        out.append(f"{len(a.node)} nodes vs {len(b.node)}")
    for i, (x, y) in enumerate(zip(a.node, b.node)):
        mine = (x.op_type, x.name, x.domain, list(x.input), list(x.output), {t.name: attribute(t) for t in x.attribute})
        ref = (y.op_type, y.name, y.domain, list(y.input), list(y.output), {t.name: attribute(t) for t in y.attribute})
        if mine != ref:
            out.append(f"node {i}: {mine[:5]} vs {ref[:5]}")
    if [t.name for t in a.initializer] != [t.name for t in b.initializer]:
        out.append(f"initializer names or order differ ({len(a.initializer)} vs {len(b.initializer)})")
    theirs_by_name = {t.name: t for t in b.initializer}
    for t in a.initializer:
        u = theirs_by_name.get(t.name)
        if u is None:
            continue
        if (t.data_type, list(t.dims)) != (u.data_type, list(u.dims)) or \
                numpy_helper.to_array(t).tobytes() != numpy_helper.to_array(u).tobytes():
            out.append(f"initializer {t.name} differs")
    return out[:40]


def feed(model: onnx.ModelProto):
    rng = np.random.default_rng(31)
    B, T, K = 3, 40, 4
    ids = rng.integers(5, 200, size=(B, T)).astype(np.int64)
    att = np.ones((B, T), np.int64)
    att[1, 30:] = 0
    pos = np.array([[3, 7, 11, 15], [4, 8, 12, 0], [5, 9, 0, 0]], np.int64)
    mask = pos > 0
    return {"input_ids": ids, "attention_mask": att, "marker_pos": pos, "marker_mask": mask, "qtype": np.array([0, 1, 2], np.int64)}


def main() -> int:
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    logging.disable(logging.WARNING)  # quantize_dynamic's advice to pre-process
    fp32, work = Path(sys.argv[1]), Path(sys.argv[2])
    graph = onnx.load(str(fp32))
    nodes = weight_matmuls(graph)
    report = {}
    for form in ("inline", "external"):
        d = work / form
        d.mkdir(parents=True, exist_ok=True)
        src = d / "model.onnx"
        if form == "external":
            onnx.save_model(graph, str(src), save_as_external_data=True, all_tensors_to_one_file=True,
                            location="model.onnx.data", size_threshold=1024)
        else:
            onnx.save_model(graph, str(src))
        external = form == "external"
        quantize_dynamic(str(src), str(d / "ort.onnx"), weight_type=QuantType.QInt8, reduce_range=True,
                         nodes_to_quantize=nodes, use_external_data_format=external)
        quantized = quantize_int8(src, d / "ours.onnx", external, nodes)
        ours, theirs = onnx.load(str(d / "ours.onnx")), onnx.load(str(d / "ort.onnx"))
        f = feed(ours)
        logits = [ort.InferenceSession(str(d / name), providers=["CPUExecutionProvider"]).run(["logits"], f)[0]
                  for name in ("ours.onnx", "ort.onnx")]
        report[form] = {
            "quantized_matmuls": quantized,
            "nodes": len(ours.graph.node),
            "initializers": len(ours.graph.initializer),
            "ours_has_data_file": (d / "ours.onnx.data").exists(),
            "differences": differences(ours, theirs),
            "max_abs_logit_diff": float(np.abs(logits[0] - logits[1]).max()),
        }
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
