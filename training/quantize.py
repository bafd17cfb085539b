"""The int8 graph onnxruntime's dynamic quantisation makes, made one weight at a time (issue 31).

onnxruntime 1.31's `quantize_dynamic` loads the whole fp32 graph with its weights into one protobuf, copies
it twice more for its shape inference, and holds the int8 weights beside it until it serialises one more
protobuf: 5.3 GB at the peak for a 1.6 GB graph. `quantize_int8` makes the same graph from the fp32 graph
read without its weights (`onnx.load(..., load_external_data=False)`): each weight is read from disk when
its turn comes and its int8 form written straight to the new graph's external-data file, so the peak is
the graph's structure plus one weight.

The graph is what `quantize_dynamic(fp32, out, weight_type=QInt8, reduce_range=True, per_channel=False,
nodes_to_quantize=NODES)` writes (ONNXQuantizer in IntegerOps mode, read from onnxruntime 1.31.1's source),
node for node and initializer for initializer:

- every Gemm with alpha = beta = 1 and transA = 0 becomes MatMul + Add, its B transposed when transB
  (`ONNXModel.replace_gemm_with_matmul`; the new MatMul is named `<Gemm>_MatMul`, so it is quantised only
  when NODES names it so);
- each MatMul in NODES whose B is a float initializer: A by one DynamicQuantizeLinear (uint8, shared by
  every MatMul reading the same tensor), B by int8 per tensor, symmetric, in the 7-bit range [-64, 64]
  (onnxruntime's own `quantize_data` computes the scale, zero point and values); then MatMulInteger →
  Cast to float → Mul by (A's scale × B's scale), with onnxruntime's names for every node and tensor;
- initializers nobody reads any more are removed, the nodes are sorted by onnxruntime's own topological
  sort, the shapes inferred by onnx's shape inference, producer and metadata set as onnxruntime sets them.

What differs is only where bytes live: every initializer of 1 KiB or more goes to `<target>.data` (onnxruntime
also moves large Constant attributes there; they stay in the graph here). The service's tests compare this
graph with `quantize_dynamic`'s on a fixture, node for node and tensor for tensor, and their logits
(service/test/checkpoints/laya-import.test.ts, service/test/helpers/int8_same_as_onnxruntime.py).
"""

from __future__ import annotations

import os
from pathlib import Path

EXTERNAL_MIN_BYTES = 1024  # smaller tensors stay in the graph (onnx.save_model's size_threshold)


class Source:
    """The fp32 graph's initializers' values, read one at a time: from the graph itself (raw or typed data)
    or from its external-data file, by the offset and length each tensor records."""

    def __init__(self, base: Path):
        self.base = base
        self.files: dict[str, int] = {}

    def array(self, tensor):
        import numpy as np
        from onnx import helper, numpy_helper
        from onnx.external_data_helper import ExternalDataInfo, uses_external_data

        if not uses_external_data(tensor):
            return numpy_helper.to_array(tensor)
        info = ExternalDataInfo(tensor)
        dtype = helper.tensor_dtype_to_np_dtype(tensor.data_type)
        count = int(np.prod(tensor.dims, dtype=np.int64))
        length = info.length or count * dtype.itemsize
        buf = bytearray(length)
        fd = self.fd(info.location)
        got = os.preadv(fd, [buf], info.offset or 0)
        if got != length:
            raise RuntimeError(f"{info.location}: {got} bytes at offset {info.offset} for {tensor.name}; expected {length}")
        return np.frombuffer(buf, dtype=dtype, count=count).reshape(tuple(tensor.dims))

    def fd(self, location: str) -> int:
        if location not in self.files:
            self.files[location] = os.open(self.base / location, os.O_RDONLY)
        return self.files[location]

    def close(self) -> None:
        for fd in self.files.values():
            os.close(fd)
        self.files.clear()


class Sink:
    """The int8 graph's initializers: raw bytes of 1 KiB or more appended to one external-data file (when
    `external`), the rest kept in the graph."""

    def __init__(self, target: Path, external: bool):
        self.location = target.name + ".data"
        self.file = open(target.with_name(self.location), "wb") if external else None

    def tensor(self, name: str, array):
        import numpy as np
        import onnx
        from onnx import helper, numpy_helper

        array = np.ascontiguousarray(array)
        if self.file is None or array.nbytes < EXTERNAL_MIN_BYTES:
            return numpy_helper.from_array(array, name)
        tensor = onnx.TensorProto(name=name, data_type=helper.np_dtype_to_tensor_dtype(array.dtype), dims=list(array.shape))
        tensor.data_location = onnx.TensorProto.EXTERNAL
        for key, value in (("location", self.location), ("offset", self.file.tell()), ("length", array.nbytes)):
            tensor.external_data.add(key=key, value=str(value))
        array.tofile(self.file)
        return tensor

    def close(self) -> None:
        if self.file is not None:
            self.file.close()


def weight_matmuls(model) -> list[str]:
    """The nodes a converter asks to quantise: every MatMul or Gemm whose B is an initializer (a Gemm becomes
    a MatMul under another name first, so onnxruntime leaves it in fp32; named here as the converters always
    named it)."""
    inits = {i.name for i in model.graph.initializer}
    return [n.name for n in model.graph.node if n.op_type in ("MatMul", "Gemm") and len(n.input) > 1 and n.input[1] in inits]


def quantize_int8(fp32: Path, target: Path, external: bool, nodes: list[str] | None = None, progress=None) -> int:
    """Writes `target` (and `<target>.data` when `external`) from the graph at `fp32`, quantising the MatMuls
    named in `nodes` (default: `weight_matmuls`); returns how many MatMuls were quantised.
    `progress(done, total)` is called with the fp32 bytes of the weights quantised so far."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper
    from onnx.external_data_helper import uses_external_data
    from onnxruntime.quantization.onnx_model import ONNXModel
    from onnxruntime.quantization.quant_utils import (TENSOR_NAME_QUANT_SUFFIX, __producer__, __version__,
                                                      add_infer_metadata, quantize_data)

    model = onnx.load(str(fp32), load_external_data=False)
    if any(a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS) for n in model.graph.node for a in n.attribute):
        raise RuntimeError("the graph has subgraphs (If/Loop/Scan), which this quantiser does not handle")
    if nodes is None:
        nodes = weight_matmuls(model)
    source = Source(fp32.parent)
    # as onnxruntime: shapes inferred on the fp32 graph, Gemms replaced, shapes inferred again over the first
    model = onnx.shape_inference.infer_shapes(model)
    replace_gemm_with_matmul(model, source)
    model = onnx.shape_inference.infer_shapes(model)
    add_infer_metadata(model)
    graph = model.graph
    types = {v.name: v.type.tensor_type.elem_type for v in [*graph.value_info, *graph.output, *graph.input]
             if v.type.HasField("tensor_type")}
    inits = {t.name: t for t in graph.initializer}
    floats = (TensorProto.FLOAT, TensorProto.FLOAT16)
    wanted = set(nodes)
    todo = [n for n in graph.node if n.op_type == "MatMul" and n.name in wanted and n.input[1] in inits
            and inits[n.input[1]].data_type in floats and (types.get(n.input[0]) in floats or n.input[0] in inits)]
    quantised_weights = {n.input[1] for n in todo}
    for n in graph.node:
        if n not in todo and any(i in quantised_weights for i in n.input):
            raise RuntimeError(f"weight {next(i for i in n.input if i in quantised_weights)} is read by {n.name or n.op_type} "
                               "beside a quantised MatMul (onnxruntime would dequantise it there); not handled")
    for n in todo:
        if n.input[0] in inits:
            raise RuntimeError(f"MatMul {n.name}: both inputs are initializers; not handled")

    sink = Sink(target, external)
    new_nodes, added, activations, weights = [], [], {}, {}
    done, total = 0, sum(int(np.prod(inits[w].dims)) * helper.tensor_dtype_to_np_dtype(inits[w].data_type).itemsize
                         for w in quantised_weights)
    for node in graph.node:
        if node not in todo:
            new_nodes.append(node)
            continue
        a, w, out = node.input[0], node.input[1], node.output[0]
        if a not in activations:
            activations[a] = (a + TENSOR_NAME_QUANT_SUFFIX, a + "_scale", a + "_zero_point")
            new_nodes.append(helper.make_node("DynamicQuantizeLinear", [a], list(activations[a]), a + "_QuantizeLinear"))
        if w not in weights:
            tensor = inits[w]
            data = source.array(tensor)
            zero_point, scale, q = quantize_data(data.flatten(), TensorProto.INT8, True, reduce_range=True,
                                                 min_real_range=None, rmin_override=None, rmax_override=None)
            done += data.nbytes
            del data
            weights[w] = (w + TENSOR_NAME_QUANT_SUFFIX, w + "_scale", w + "_zero_point")
            added.append(helper.make_tensor(weights[w][1], tensor.data_type, [], scale.reshape((-1,)).tolist()))
            added.append(helper.make_tensor(weights[w][2], TensorProto.INT8, [], zero_point.reshape((-1,)).tolist()))
            added.append(sink.tensor(weights[w][0], np.asarray(q, dtype=np.int8).reshape(tuple(tensor.dims))))
            del q
        (aq, ascale, azp), (wq, wscale, wzp) = activations[a], weights[w]
        name = node.name + "_quant" if node.name else ""
        product = out + "_output_quantized"
        new_nodes.append(helper.make_node("MatMulInteger", [aq, wq, azp, wzp], [product], name))
        new_nodes.append(helper.make_node("Cast", [product], [product + "_cast_output"], product + "_cast", to=types[out]))
        scales = name + "_scales_mul" if name else f"{ascale}_{wscale}_mul"
        if not any(n.name == scales for n in new_nodes):
            new_nodes.append(helper.make_node("Mul", [ascale, wscale], [scales + ":0"], scales))
        new_nodes.append(helper.make_node("Mul", [product + "_cast_output", scales + ":0"], [out],
                                          name + "_output_scale_mul" if name else ""))
        if progress:
            progress(done, total)

    graph.ClearField("node")
    graph.node.extend(new_nodes)
    # onnxruntime's clean_initializers: only what a node or an output reads stays (the fp32 weights go)
    read = {i for n in graph.node for i in n.input if i} | {o.name for o in graph.output}
    read -= {o for n in graph.node for o in n.output}
    kept = [t for t in graph.initializer if t.name in read]
    graph.ClearField("initializer")
    for t in kept:  # the fp32 initializers that stay (embeddings, norms, biases): their bytes into the new graph's data
        moved = uses_external_data(t) or (external and t.HasField("raw_data") and len(t.raw_data) >= EXTERNAL_MIN_BYTES)
        graph.initializer.append(sink.tensor(t.name, source.array(t)) if moved else t)
    graph.initializer.extend(added)
    names = {t.name for t in graph.initializer}
    inputs = [i for i in graph.input if i.name not in inits or i.name in names]
    graph.ClearField("input")
    graph.input.extend(inputs)
    source.close()
    sink.close()
    model.producer_name, model.producer_version = __producer__, __version__
    ONNXModel(model).topological_sort()
    onnx.save_model(model, str(target))
    return len(todo)


def replace_gemm_with_matmul(model, source: Source) -> None:
    """onnxruntime's ONNXModel.replace_gemm_with_matmul on the top-level graph: each Gemm with alpha = beta = 1
    and transA = 0 becomes MatMul (+ Add for a bias); an initializer B under transB is replaced by its
    transpose, appended last (read here from disk; any other B gets a Transpose node)."""
    from onnx import helper, numpy_helper

    graph = model.graph
    out = []
    for node in graph.node:
        if node.op_type != "Gemm":
            out.append(node)
            continue
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        if not (attrs.get("alpha", 1.0) == 1.0 and attrs.get("beta", 1.0) == 1.0 and attrs.get("transA", 0) == 0):
            out.append(node)
            continue
        b = node.input[1]
        if attrs.get("transB", 0) == 1:
            tensor = next((t for t in graph.initializer if t.name == b), None)
            if tensor is not None:
                transposed = numpy_helper.from_array(source.array(tensor).T)
                transposed.name = tensor.name
                graph.initializer.remove(tensor)
                for i in graph.input:
                    if i.name == b:
                        graph.input.remove(i)
                        break
                graph.initializer.extend([transposed])
            else:
                b += "_Transposed"
                out.append(helper.make_node("Transpose", inputs=[node.input[1]], outputs=[b],
                                            name=node.name + "_Transpose" if node.name else ""))
        bias = len(node.input) > 2
        out.append(helper.make_node("MatMul", inputs=[node.input[0], b],
                                    outputs=[node.output[0] + ("_MatMul" if bias else "")],
                                    name=node.name + "_MatMul" if node.name else ""))
        if bias:
            out.append(helper.make_node("Add", inputs=[node.output[0] + "_MatMul", node.input[2]], outputs=node.output,
                                        name=node.name + "_Add" if node.name else ""))
    graph.ClearField("node")
    graph.node.extend(out)
