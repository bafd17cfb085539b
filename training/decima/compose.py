"""Compose a published Decima ONNX export (encoder.onnx + scorer.onnx + decima.json) into one engine graph.

    python training/decima/compose.py --src EXPORT_DIR --out WORK_DIR [--check-rows N] [--external-data-mb M]

EXPORT_DIR is what `decima-ai` 2.4.0 writes (`decima.export`: encoder.onnx, scorer.onnx, decima.json with
the "ordinal" head weights, tokenizer/; `decima.quantize` writes the same layout in int8) and what its ONNX
runtime reads (`decima.runtime.DecimaOnnx`; the published repositories hold it as onnx/<precision>/). The two
published graphs are used as they are, weights and operators included (int8 exports keep their
com.microsoft MatMulNBits and their dynamic MatMulInteger), inside one graph with the engine's five inputs
in the late-interaction row layout (engine/late-layout.ts, the same as training/decima/convert.py):

    row = <s> state text </s>  <s> option₀ text </s>  <s> option₁ text </s> …    (right-padded)
    marker_pos[k] = where option k's segment starts; the state is everything before the first marker

  1. the row is cut back into its segments: the states [B, Ls] and the options [B·K, Lc], each from
     position 0, padded with the tokenizer's pad id as Decima's tokenizer pads them;
  2. the published encoder graph, inlined twice (state rows, option rows; one copy of its weights);
  3. a Loop over the batch: per row, the state's token states cut to its own length and the row's real
     options cut to their own longest length — exactly the tensors DecimaOnnx hands its scorer for that
     question (the scorer takes one state per call; an int8 scorer quantises each activation tensor with
     one scale, so the tensor must be the same, padding included) — through the published scorer graph
     (inlined in the Loop body with the fusions onnxruntime makes when DecimaOnnx opens it, so that the same
     kernels run), divided by decima.json's temperature;
  4. per question type: choose/verify the scores as they are (the engine's softmax is DecimaOnnx's), score
     `DecimaOnnx.ordinal` in float64 on the row's own levels (so no padded level ever enters it), the
     logits padded to K with −1e4.

Writes into WORK_DIR: model.onnx (+ model.onnx.data above --external-data-mb), tokenizer.json (the
export's own) and decima_import.json (the facts the manifest is made from and the agreement check of the
composed graph against DecimaOnnx on the same folder). Refusals: exit status 2, `refused: …` on stderr.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from converting import (INPUTS, Refused, batched_logits, converter_args, private_tmp, read_json, run_converter,  # noqa: E402
                        save_graph, softmax, step, write_facts)

ONNX_FILES = ("encoder.onnx", "scorer.onnx", "decima.json", "tokenizer/tokenizer.json")
ENCODER_IO = (["input_ids", "attention_mask"], 1)
SCORER_IO = (["state_h", "state_mask", "choice_h", "choice_mask"], 2)
# operator domains the engine's onnxruntime-node runs (com.microsoft: decima.quantize's MatMulNBits)
DOMAINS = {"", "ai.onnx", "com.microsoft"}
# what DecimaOnnx reads from decima.json with a default (runtime.py); the rest it requires
RUNTIME_DEFAULTS = {"question_in_state": False, "question_in_choices": True, "choice_fit": False,
                    "state_prefix": "query: ", "choice_prefix": "passage: "}
QUANTISED_OPS = {"MatMulNBits", "MatMulInteger", "DynamicQuantizeLinear", "QLinearMatMul", "MatMulIntegerToFloat",
                 "DynamicQuantizeMatMul", "DequantizeLinear", "QuantizeLinear", "GatherBlockQuantized"}


# ---------------------------------------------------------------------------------------------- reading

def load_export(src: Path):
    import onnx

    missing = [f for f in ONNX_FILES if not (src / f).exists()]
    if missing:
        raise Refused(f"{src}: not a Decima ONNX export: missing {', '.join(missing)} (decima.export writes encoder.onnx, "
                      "scorer.onnx, decima.json with the ordinal head, tokenizer/)")
    cfg = read_json(src / "decima.json", "decima.json")
    read_json(src / "tokenizer" / "tokenizer.json", "tokenizer/tokenizer.json")
    need = [k for k in ("max_state_tokens", "max_choice_tokens", "temperature", "ordinal") if k not in cfg]
    if need:
        raise Refused(f"{src}/decima.json: no {', '.join(need)}: DecimaOnnx needs them (decima.export writes the ordinal head "
                      "weights next to the config)")
    o = cfg["ordinal"]
    if not isinstance(o, dict) or any(k not in o for k in ("ord_g_w", "ord_g_b", "ord_gap_w", "ord_gap_b")):
        raise Refused(f"{src}/decima.json: its \"ordinal\" head lacks ord_g_w/ord_g_b/ord_gap_w/ord_gap_b")
    if not (len(o["ord_g_w"]) == len(o["ord_gap_w"]) > 0):
        raise Refused(f"{src}/decima.json: the ordinal head's weights have different sizes ({len(o['ord_g_w'])}, {len(o['ord_gap_w'])})")
    enc = onnx.load(str(src / "encoder.onnx"), load_external_data=True)
    sc = onnx.load(str(src / "scorer.onnx"), load_external_data=True)
    for label, m, (inputs, n_out) in (("encoder.onnx", enc, ENCODER_IO), ("scorer.onnx", sc, SCORER_IO)):
        names = [i.name for i in m.graph.input]
        if names != inputs or len(m.graph.output) != n_out:
            raise Refused(f"{src}/{label}: inputs {names} and {len(m.graph.output)} outputs, expected {inputs} and {n_out} "
                          "(decima.export's graph)")
        if m.graph.sparse_initializer:
            raise Refused(f"{src}/{label}: sparse initializers are not supported")
        domains = sorted({o.domain for o in m.opset_import} - DOMAINS)
        if domains:
            raise Refused(f"{src}/{label}: operators of the domain(s) {', '.join(domains)}, which the engine's onnxruntime "
                          f"does not run (it runs {', '.join(sorted(d or 'ai.onnx' for d in DOMAINS - {'ai.onnx'}))})")
    v_enc, v_sc = default_opset(enc), default_opset(sc)
    if v_enc != v_sc:
        raise Refused(f"{src}: encoder.onnx is opset {v_enc} and scorer.onnx opset {v_sc}: one graph needs one opset "
                      "(decima.export writes both at one)")
    if v_enc < 13:
        raise Refused(f"{src}: opset {v_enc}: the composition needs opset 13 or later (decima.export writes 17)")
    z_dim = dim_of(sc.graph.output[1], 1)
    if isinstance(z_dim, int) and z_dim != len(o["ord_g_w"]):
        raise Refused(f"{src}: the scorer's z has {z_dim} features and the ordinal head {len(o['ord_g_w'])} weights")
    return enc, sc, cfg


def optimised_scorer(src: Path, work: Path):
    """scorer.onnx as onnxruntime optimises it when DecimaOnnx opens it (its fusions: DynamicQuantizeMatMul,
    MatMulIntegerToFloat, SkipLayerNormalization, …), saved at the `extended` level (no layout tied to this
    CPU). Inside the Loop body onnxruntime would not find all of them (the body knows fewer shapes), and an int8
    scorer quantises each activation tensor with one scale, so a 1-ulp difference in a fused kernel moves a
    rounding step and the answer by up to 1e-3: with the fusions made here the body runs DecimaOnnx's kernels."""
    import onnx
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    so.optimized_model_filepath = str(work / "scorer.optimised.onnx")
    ort.InferenceSession(str(src / "scorer.onnx"), so, providers=["CPUExecutionProvider"])
    m = onnx.load(so.optimized_model_filepath, load_external_data=True)
    (work / "scorer.optimised.onnx").unlink()
    return m


def default_opset(m) -> int:
    return next((o.version for o in m.opset_import if o.domain in ("", "ai.onnx")), 0)


def dim_of(value_info, axis: int):
    dims = value_info.type.tensor_type.shape.dim
    return dims[axis].dim_value if len(dims) > axis and dims[axis].HasField("dim_value") else None


def load_tokenizer(src: Path):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(src / "tokenizer")
    for t in ("cls_token", "sep_token", "pad_token"):
        if getattr(tok, t) is None:
            raise Refused(f"{src}/tokenizer: the tokenizer has no {t}: the layout needs <s>, </s> and <pad>")
    if tok.padding_side != "right":
        raise Refused(f"{src}/tokenizer: pads on the {tok.padding_side}: DecimaOnnx's encodings would then start at another "
                      "position for a shorter option than the engine's rows give them")
    probe = tok("a")["input_ids"]
    if probe[0] != tok.cls_token_id or probe[-1] != tok.sep_token_id:
        raise Refused(f"{src}/tokenizer: a text does not encode as <cls> … <sep> ({probe}): the row layout needs that frame")
    return tok


# ---------------------------------------------------------------------------------------------- building

class Builder:
    """Nodes of one graph (the main graph or the Loop body), named under a prefix of their own."""

    def __init__(self, opset: int, prefix: str):
        self.opset, self.prefix, self.nodes, self.k = opset, prefix, [], 0

    def fresh(self, hint: str) -> str:
        self.k += 1
        return f"{self.prefix}{hint}_{self.k}"

    def op(self, op_type: str, *inputs: str, hint: str | None = None, **attrs) -> str:
        from onnx import helper

        out = self.fresh(hint or op_type)
        self.nodes.append(helper.make_node(op_type, list(inputs), [out], name=self.fresh("node_" + op_type), **attrs))
        return out

    def const(self, value, dtype) -> str:
        import numpy as np
        from onnx import helper, numpy_helper

        out = self.fresh("const")
        self.nodes.append(helper.make_node("Constant", [], [out], name=self.fresh("node_Constant"),
                                           value=numpy_helper.from_array(np.array(value, dtype=dtype), out)))
        return out

    def unsqueeze(self, x: str, axes: list[int]) -> str:
        import numpy as np

        return self.op("Unsqueeze", x, self.const(axes, np.int64))

    def reduce(self, op_type: str, x: str, axes: list[int] | None = None, keepdims: int = 0) -> str:
        """A Reduce* node for the graph's opset (axes an input from opset 18, from 13 for ReduceSum)."""
        import numpy as np

        if op_type == "ReduceSum" or self.opset >= 18:
            extra = [self.const(axes, np.int64)] if axes is not None else []
            return self.op(op_type, x, *extra, keepdims=keepdims)
        return self.op(op_type, x, keepdims=keepdims, **({"axes": axes} if axes is not None else {}))

    def shape_at(self, x: str, axis: int) -> str:
        import numpy as np

        return self.op("Gather", self.op("Shape", x), self.const(axis, np.int64), axis=0)


def inline(graph, tag: str, init_prefix: str, inputs: dict[str, str]):
    """The nodes of `graph` with every value renamed under `tag` (its inputs to `inputs`, its initializers under
    `init_prefix`, shared by every inlined copy), and the names its outputs take."""
    from onnx import AttributeProto, NodeProto

    inits = {t.name for t in graph.initializer}

    def name(n: str) -> str:
        if n == "":
            return ""
        if n in inputs:
            return inputs[n]
        if n in inits:
            return init_prefix + n
        return tag + n

    def rename_graph(g) -> None:  # a subgraph (If/Loop/Scan body): its own values under the tag as well
        for v in list(g.input) + list(g.output) + list(g.value_info):
            v.name = name(v.name)
        for t in g.initializer:
            t.name = tag + t.name
        for n in g.node:
            rename_node(n)

    def rename_node(n) -> None:
        n.name = tag + n.name if n.name else ""
        n.input[:] = [name(i) for i in n.input]
        n.output[:] = [name(o) for o in n.output]
        for a in n.attribute:
            if a.type == AttributeProto.GRAPH:
                rename_graph(a.g)
            elif a.type == AttributeProto.GRAPHS:
                for g in a.graphs:
                    rename_graph(g)

    nodes = []
    for node in graph.node:
        new = NodeProto()
        new.CopyFrom(node)
        rename_node(new)
        nodes.append(new)
    return nodes, [name(o.name) for o in graph.output]


def shared_initializers(graph, init_prefix: str):
    from onnx import TensorProto

    out = []
    for t in graph.initializer:
        c = TensorProto()
        c.CopyFrom(t)
        c.name = init_prefix + t.name
        out.append(c)
    return out


def compose(enc, sc, cfg: dict, pad_id: int):
    import numpy as np
    from onnx import TensorProto, helper

    opset = default_opset(enc)
    i64, f32 = np.int64, np.float32
    g = Builder(opset, "sq/")
    ids, att, mpos, mmask, qtype = INPUTS

    # 1. the segments
    state_len = g.op("Gather", mpos, g.const(0, i64), axis=1, hint="state_len")                     # [B]
    ls = g.op("Range", g.const(0, i64), g.reduce("ReduceMax", state_len), g.const(1, i64))          # [Ls]
    s_valid = g.op("Less", g.unsqueeze(ls, [0]), g.unsqueeze(state_len, [1]))                        # [B, Ls]
    s_ids = g.op("Where", s_valid, g.op("Gather", ids, ls, axis=1), g.const(pad_id, i64), hint="state_ids")
    s_mask = g.op("Cast", s_valid, to=TensorProto.INT64, hint="state_mask")
    row_len = g.reduce("ReduceSum", att, [1])                                                         # [B]
    row_len_c = g.unsqueeze(row_len, [1])                                                             # [B, 1]
    big = g.const([2**62], i64)
    nxt = g.op("Concat", g.op("Slice", mpos, g.const([1], i64), big, g.const([1], i64)), row_len_c, axis=1)
    no_more = g.op("Cast", g.op("Mul", row_len_c, g.const(0, i64)), to=TensorProto.BOOL)             # [B, 1] false
    nxt_real = g.op("Concat", g.op("Slice", mmask, g.const([1], i64), big, g.const([1], i64)), no_more, axis=1)
    end = g.op("Where", nxt_real, nxt, row_len_c)                                                     # [B, K]
    seg = g.op("Where", mmask, g.op("Sub", end, mpos), g.const(0, i64), hint="seg")                   # option lengths
    lc = g.op("Range", g.const(0, i64), g.reduce("ReduceMax", seg), g.const(1, i64))                 # [Lc]
    lc3 = g.op("Reshape", lc, g.const([1, 1, -1], i64))
    T = g.shape_at(ids, 1)
    at = g.op("Min", g.op("Add", g.unsqueeze(mpos, [2]), lc3), g.op("Sub", T, g.const(1, i64)))     # [B, K, Lc]
    B = g.shape_at(ids, 0)
    row0 = g.op("Reshape", g.op("Mul", g.op("Range", g.const(0, i64), B, g.const(1, i64)), T), g.const([-1, 1, 1], i64))
    gathered = g.op("Gather", g.op("Reshape", ids, g.const([-1], i64)), g.op("Add", at, row0), axis=0)
    c_valid = g.op("Less", lc3, g.unsqueeze(seg, [2]))                                               # [B, K, Lc]
    flat = g.const([-1], i64)
    Lc = g.shape_at(lc, 0)
    c_shape = g.op("Concat", flat, g.unsqueeze(Lc, [0]), axis=0)
    c_ids = g.op("Reshape", g.op("Where", c_valid, gathered, g.const(pad_id, i64)), c_shape, hint="choice_ids")
    # a padded marker reads one token (never an all-masked row); the Loop leaves it out
    c_mask = g.op("Reshape", g.op("Cast", g.op("Or", c_valid, g.op("Equal", lc3, g.const(0, i64))), to=TensorProto.INT64),
                  c_shape, hint="choice_mask")

    # 2. the encoder, inlined for the states and the options (one copy of its weights)
    nodes_s, (hs,) = inline(enc.graph, "enc_state/", "enc:", {"input_ids": s_ids, "attention_mask": s_mask})
    nodes_c, (hc,) = inline(enc.graph, "enc_choice/", "enc:", {"input_ids": c_ids, "attention_mask": c_mask})

    # 3. the scorer, once per row in a Loop: exactly DecimaOnnx's tensors for that question
    b = Builder(opset, "sq_row/")
    it, cond_in = "sq_row/iter", "sq_row/cond_in"
    K = g.shape_at(mpos, 1)
    b1 = b.unsqueeze(it, [0])
    sl = b.unsqueeze(b.op("Gather", state_len, it, axis=0), [0])
    axes01 = b.const([0, 1], i64)
    s_start = b.op("Concat", b1, b.const([0], i64), axis=0)
    s_end = b.op("Concat", b.op("Add", b1, b.const([1], i64)), sl, axis=0)
    hs_b = b.op("Slice", hs, s_start, s_end, axes01)                                                 # [1, Ls_b, d]
    sm_b = b.op("Slice", s_mask, s_start, s_end, axes01)                                             # [1, Ls_b]
    n = b.reduce("ReduceSum", b.op("Cast", b.op("Gather", mmask, it, axis=0), to=TensorProto.INT64))
    lc_b = b.unsqueeze(b.reduce("ReduceMax", b.op("Gather", seg, it, axis=0)), [0])
    first = b.op("Mul", b1, b.unsqueeze(K, [0]))
    c_start = b.op("Concat", first, b.const([0], i64), axis=0)
    c_end = b.op("Concat", b.op("Add", first, b.unsqueeze(n, [0])), lc_b, axis=0)
    hc_b = b.op("Slice", hc, c_start, c_end, axes01)                                                 # [n, Lc_b, d]
    cm_b = b.op("Slice", c_mask, c_start, c_end, axes01)
    nodes_sc, (scores, z) = inline(sc.graph, "scorer/", "scr:", {"state_h": hs_b, "state_mask": sm_b, "choice_h": hc_b, "choice_mask": cm_b})
    b.nodes.extend(nodes_sc)
    s = b.op("Div", scores, b.const(float(cfg["temperature"]), f32), hint="s")                       # [n]
    ordinal = ordinal_nodes(b, s, z, n, cfg["ordinal"])
    chosen = b.op("Where", b.op("Equal", b.op("Gather", qtype, it, axis=0), b.const(1, i64)), ordinal, s)
    fill = b.op("Expand", b.const(-1e4, f32), b.unsqueeze(b.op("Sub", K, n), [0]))
    row = b.op("Concat", chosen, fill, axis=0, hint="row")
    cond_out = b.op("Identity", cond_in, hint="cond_out")
    # the body's constants live in the main graph (outer scope): onnxruntime 1.30 (onnxruntime-node) writes a
    # subgraph's initializers twice when it saves an optimised copy (the engine's shared-weights copy), which
    # then does not load
    body_nodes, hoisted = hoist_constants(b.nodes)
    # the scorer's inputs with their shapes (the hidden size known, as in the published scorer graph): without
    # them onnxruntime does not make the same fusions in the body (SkipLayerNormalization) as in the scorer
    # alone, and an int8 scorer's per-tensor activation scales then round differently
    d = dim_of(enc.graph.output[0], 2) or "d"
    shapes = [helper.make_tensor_value_info(hs_b, TensorProto.FLOAT, [1, "state_seq", d]),
              helper.make_tensor_value_info(sm_b, TensorProto.INT64, [1, "state_seq"]),
              helper.make_tensor_value_info(hc_b, TensorProto.FLOAT, ["n_choices", "choice_seq", d]),
              helper.make_tensor_value_info(cm_b, TensorProto.INT64, ["n_choices", "choice_seq"])]
    body = helper.make_graph(
        body_nodes, "decima_row",
        [helper.make_tensor_value_info(it, TensorProto.INT64, []), helper.make_tensor_value_info(cond_in, TensorProto.BOOL, [])],
        [helper.make_tensor_value_info(cond_out, TensorProto.BOOL, []), helper.make_tensor_value_info(row, TensorProto.FLOAT, None)],
        value_info=shapes,
    )
    g.nodes.extend(nodes_s + nodes_c)
    g.nodes.append(helper.make_node("Loop", [B, g.const(True, np.bool_)], ["logits"], name="sq/per_row", body=body))

    graph = helper.make_graph(
        g.nodes, "decima_late_interaction",
        [helper.make_tensor_value_info(ids, TensorProto.INT64, ["B", "T"]),
         helper.make_tensor_value_info(att, TensorProto.INT64, ["B", "T"]),
         helper.make_tensor_value_info(mpos, TensorProto.INT64, ["B", "K"]),
         helper.make_tensor_value_info(mmask, TensorProto.BOOL, ["B", "K"]),
         helper.make_tensor_value_info(qtype, TensorProto.INT64, ["B"])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["B", "K"])],
        initializer=shared_initializers(enc.graph, "enc:") + shared_initializers(sc.graph, "scr:") + hoisted,
    )
    opsets = {}
    for m in (enc, sc):
        for o in m.opset_import:
            d = "" if o.domain == "ai.onnx" else o.domain
            opsets[d] = max(opsets.get(d, 0), o.version)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in sorted(opsets.items())],
                              producer_name="structqa training/decima/compose.py")
    model.ir_version = max(enc.ir_version, sc.ir_version)
    return model


def hoist_constants(nodes):
    """Constant nodes → initializers (for the main graph); the other nodes as they are."""
    from onnx import AttributeProto, TensorProto, helper

    kept, inits = [], []
    for n in nodes:
        a = {x.name: x for x in n.attribute}
        t = None
        if n.op_type == "Constant" and n.domain in ("", "ai.onnx") and len(a) == 1:
            (name, attr), = a.items()
            if name == "value" and attr.type == AttributeProto.TENSOR:
                t = TensorProto(); t.CopyFrom(attr.t)
            elif name == "value_float":
                t = helper.make_tensor("", TensorProto.FLOAT, [], [attr.f])
            elif name == "value_floats":
                t = helper.make_tensor("", TensorProto.FLOAT, [len(attr.floats)], list(attr.floats))
            elif name == "value_int":
                t = helper.make_tensor("", TensorProto.INT64, [], [attr.i])
            elif name == "value_ints":
                t = helper.make_tensor("", TensorProto.INT64, [len(attr.ints)], list(attr.ints))
        if t is None:
            kept.append(n)
        else:
            t.name = n.output[0]
            inits.append(t)
    return kept, inits


def ordinal_nodes(b: Builder, s: str, z: str, n: str, head: dict) -> str:
    """DecimaOnnx.ordinal(s, z) for the row's own n levels, with numpy's dtypes: the log-softmax of s in float32,
    everything after it in float64 (numpy promotes there: the weights are float64 lists), float32 at the end."""
    import numpy as np
    from onnx import TensorProto

    f64, f32 = np.float64, np.float32
    D = TensorProto.DOUBLE

    def log_softmax(x: str, dtype) -> str:
        x = b.op("Sub", x, b.reduce("ReduceMax", x, [0], keepdims=1))
        return b.op("Sub", x, b.op("Log", b.reduce("ReduceSum", b.op("Exp", x), [0], keepdims=1)))

    nf = b.op("Cast", n, to=D)
    levels = b.op("Cast", b.op("Range", b.const(0, np.int64), n, b.const(1, np.int64)), to=D)
    p_s = b.op("Cast", b.op("Exp", log_softmax(s, f32)), to=D)
    expected = b.op("Sub", b.reduce("ReduceSum", b.op("Mul", p_s, levels)),
                    b.op("Div", b.op("Sub", nf, b.const(1.0, f64)), b.const(2.0, f64)))
    zm = b.op("Cast", b.reduce("ReduceMean", z, [0]), to=D)                                     # z.mean(0), float32
    g = b.op("Add", b.op("Add", b.reduce("ReduceSum", b.op("Mul", zm, b.const(head["ord_g_w"], f64))),
                         b.const(float(head["ord_g_b"]), f64)), expected)
    x = b.op("Add", b.reduce("ReduceSum", b.op("Mul", b.op("Cast", z, to=D), b.const(head["ord_gap_w"], f64)), [1]),
             b.const(float(head["ord_gap_b"]), f64))
    softplus = b.op("Add", b.op("Max", x, b.const(0.0, f64)),                                    # np.logaddexp(0, x)
                    b.op("Log", b.op("Add", b.const(1.0, f64), b.op("Exp", b.op("Neg", b.op("Abs", x))))))
    gaps = b.op("Add", softplus, b.const(1e-3, f64))
    cum = b.op("CumSum", gaps, b.const(0, np.int64))
    theta = b.op("Sub", b.op("Slice", cum, b.const([0], np.int64), b.const([-1], np.int64), b.const([0], np.int64)),
                 b.op("Div", b.reduce("ReduceSum", gaps), b.const(2.0, f64)))
    sig = b.op("Div", b.const(1.0, f64), b.op("Add", b.const(1.0, f64), b.op("Exp", b.op("Neg", b.op("Sub", g, theta)))))
    p = b.op("Sub", b.op("Concat", b.const([1.0], f64), sig, axis=0), b.op("Concat", sig, b.const([0.0], f64), axis=0))
    lp = b.op("Log", b.op("Max", p, b.const(1e-7, f64)))                                         # np.clip(p, 1e-7, None)
    return b.op("Cast", log_softmax(lp, f64), to=TensorProto.FLOAT, hint="ordinal")


# ---------------------------------------------------------------------------------------------- checking

def check(src: Path, tok, onnx_path: Path, rows: int, seed: int) -> dict:
    """The composed graph against DecimaOnnx on the same folder: varied questions of the three kinds, the
    graph fed in batches of eight (padding and batch-mates included). Max |Δp| over real options."""
    import numpy as np
    import onnxruntime as ort
    from decima.runtime import DecimaOnnx
    from decima.types import Question

    rt = DecimaOnnx(src, threads=1)
    cfg = rt.cfg
    sess = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    rng = random.Random(seed)
    words = ["refund", "order", "late", "angry", "happy", "billing", "the", "customer", "asks", "for", "a", "delivery",
             "Zahlung", "заказ", "注文", "طلب", "주문", "42", "3.5", "{", "}", "\"key\":"]
    text = lambda m: " ".join(rng.choice(words) for _ in range(rng.randint(1, m)))  # noqa: E731
    items = []
    while len(items) < rows:
        kind = ["choose", "score", "verify"][len(items) % 3]
        k = 2 if kind == "verify" else rng.randint(2, 10 if kind == "score" else 16)
        choices = ["yes", "no"] if kind == "verify" else list(dict.fromkeys(text(4) for _ in range(k)))
        if len(choices) < 2:
            continue
        q, state = Question(text(8), choices, kind=kind, lang="en"), text(rng.randint(5, 80))
        s_ids = tok(rt._state(state, q))["input_ids"]
        _, qt = rt._choice_key(q)
        c_ids = [tok(t)["input_ids"] for t in rt._choice_texts(q, qt)]
        if len(s_ids) > cfg["max_state_tokens"] or any(len(c) > cfg["max_choice_tokens"] for c in c_ids):
            continue  # DecimaOnnx would cut them; the engine refuses such questions
        p = np.array(rt.decide_many(state, [q])[0].probs, np.float64)
        ids, markers = list(s_ids), []
        for c in c_ids:
            markers.append(len(ids))
            ids += c
        items.append((ids, markers, {"choose": 0, "score": 1, "verify": 2}[kind], p))
    worst = 0.0
    for (_, m, _, want), got in batched_logits(sess, items, tok.pad_token_id):
        worst = max(worst, float(np.abs(softmax(got[:len(m)]) - want).max()))
        if not np.all(got[len(m):] == -1e4):
            raise Refused("the composed graph does not give −1e4 on padded markers")
    return {"rows": rows, "reference": "decima.runtime.DecimaOnnx.decide_many on the same folder", "max_abs_prob_diff": worst}


# ---------------------------------------------------------------------------------------------- main

def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def main() -> int:
    a = converter_args(__doc__).parse_args()
    return run_converter(lambda: convert(a), a.verbose)


def convert(a) -> int:
    import onnx
    from importlib.metadata import version

    src, out = Path(a.src), Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    tmp = private_tmp(out)
    step("reading the export")
    enc, sc, cfg = load_export(src)
    tok = load_tokenizer(src)
    ops = sorted({f"{n.domain or 'ai.onnx'}.{n.op_type}" for m in (enc, sc) for n in m.graph.node})
    quantised = sorted({o for o in ops if o.split(".")[-1] in QUANTISED_OPS})
    custom = sorted(o for o in ops if not o.startswith("ai.onnx."))
    out.mkdir(parents=True, exist_ok=True)
    step("composing the encoder and scorer graphs")
    model = compose(enc, optimised_scorer(src, out), cfg, int(tok.pad_token_id))
    del enc, sc
    path = out / "model.onnx"
    # written with its weights apart first (a graph over 2 GB has no single-protobuf form), checked from the file,
    # then rewritten by the Laya converter's step: one file, or one external-data file above --external-data-mb
    onnx.save_model(model, str(path), save_as_external_data=True, all_tensors_to_one_file=True, location="model.onnx.data",
                    size_threshold=1024)
    del model
    try:
        onnx.checker.check_model(str(path))
    except onnx.checker.ValidationError as e:
        raise Refused(f"the composed graph does not validate: {str(e).splitlines()[0]}")
    save_graph(path, out, a.external_data_mb)
    shutil.copyfile(src / "tokenizer" / "tokenizer.json", out / "tokenizer.json")
    if a.check_rows > 0:
        step(f"checking the graph against decima.runtime.DecimaOnnx ({a.check_rows} rows)")
    result = check(src, tok, path, a.check_rows, a.seed) if a.check_rows > 0 else None
    worst = result["max_abs_prob_diff"] if result else None
    if worst is not None and worst > 1e-4:
        raise Refused(f"the composed graph's probabilities disagree with DecimaOnnx by {worst:.2e} (> 1e-4) on its "
                      f"{a.check_rows} check rows")
    method = None
    if (src / "quantize.txt").exists():
        method = next((l.split("=", 1)[1] for l in (src / "quantize.txt").read_text().splitlines() if l.startswith("method=")), None)
    late = {k: cfg.get(k, v) for k, v in RUNTIME_DEFAULTS.items()}
    shutil.rmtree(tmp, ignore_errors=True)
    return write_facts(out, "decima_import.json", {
        "format": "decima-onnx-import/1",
        "decima_version": version("decima-ai"),
        "encoder": cfg.get("backbone"),
        "encoder_family": "onnx export",
        "precision": "int8" if quantised else "fp32",
        "quantize_method": method,
        "quantised_ops": quantised,
        "custom_ops": custom,
        "scorer_optimised_by": f"onnxruntime {version('onnxruntime')} (extended level, as DecimaOnnx's session at load)",
        "late_interaction": {
            "max_state_tokens": int(cfg["max_state_tokens"]), "max_choice_tokens": int(cfg["max_choice_tokens"]),
            "state_prefix": late["state_prefix"], "choice_prefix": late["choice_prefix"],
            "question_in_state": bool(late["question_in_state"]), "question_in_choices": bool(late["question_in_choices"]),
            "choice_fit": bool(late["choice_fit"]),
        },
        "temperature": float(cfg["temperature"]),
        "special_tokens": {"cls": tok.cls_token, "sep": tok.sep_token, "mask": tok.mask_token or tok.unk_token, "pad": tok.pad_token},
        "check": {"rows": a.check_rows, "max_abs_prob_diff": worst, **({"reference": result["reference"]} if result else {})},
        "source_sha256": {f: sha256(src / f) for f in ("encoder.onnx", "scorer.onnx", "decima.json")},
        "files": sorted(f.name for f in out.iterdir() if not f.name.startswith(".")),
    })


if __name__ == "__main__":
    sys.exit(main())
