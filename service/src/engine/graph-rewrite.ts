/**
 * A rewrite of the shared-weights copy (session-graph.ts): an embedding table stored as int8 (a scale per
 * row) behind a `DequantizeLinear` that only `Gather`s read is gathered first and de-quantised after.
 *
 * Why: ONNX Runtime never folds a `DequantizeLinear` into a constant (it keeps QDQ pairs for its int8
 * kernels), so as written it de-quantises the whole table on every run into the session's arena: on the
 * bundled multilingual checkpoint a 49,216 × 384 table, 72 MiB of fp32 per session and about a quarter
 * of a run's time, to read the few rows of the call's tokens. Gathering the int8 rows (and their scales
 * and zero points) first gives the same values: `DequantizeLinear` is element-wise, `(q − zero point) ×
 * scale` for each element with its row's scale, and the same kernel computes it on the gathered rows.
 */
import onnxProto from 'onnx-proto';
import type { onnx } from 'onnx-proto';

const O = onnxProto.onnx;
const INT = O.AttributeProto.AttributeType.INT;
const INT64 = O.TensorProto.DataType.INT64;

const axisOf = (node: onnx.INodeProto, fallback: number): number => {
  const a = node.attribute?.find((x) => x.name === 'axis');
  return a ? Number(a.i ?? 0) : fallback;
};

const int64Tensor = (name: string, values: number[]): onnx.ITensorProto => ({
  name,
  dims: [values.length],
  dataType: INT64,
  rawData: new Uint8Array(BigInt64Array.from(values.map(BigInt)).buffer),
});

/**
 * The model with every such table gathered before it is de-quantised, and the names of the tables'
 * former fp32 outputs. A `DequantizeLinear` is rewritten only when its input, scale and zero point are
 * initializers, the input is a 2-D table quantised per row (axis 0, a scale per row), and every reader
 * of its output is a `Gather` along axis 0 of that table; anything else is left as it is. A table
 * quantised per tensor is left too: its `DequantizeLinear` right before a reader would let ONNX Runtime
 * fuse the pair into an int8 kernel (a MatMul of two de-quantised inputs, say), which changes answers;
 * per row, the `Reshape` after it keeps such fusions away.
 */
export function gatherBeforeDequantize(bytes: Uint8Array): { bytes: Uint8Array; rewritten: string[] } {
  const model = O.ModelProto.decode(bytes);
  const graph = model.graph!;
  const initializers = new Map((graph.initializer ?? []).map((t) => [t.name!, t]));
  const graphOutputs = new Set((graph.output ?? []).map((o) => o.name!));
  const rewritten: string[] = [];
  for (const dq of [...(graph.node ?? [])]) {
    if (dq.opType !== 'DequantizeLinear' || (dq.domain ?? '') !== '') continue;
    const [tableName, scaleName, zeroName] = dq.input ?? [];
    const table = initializers.get(tableName!);
    const scale = initializers.get(scaleName!);
    if (!table || !scale || (zeroName && !initializers.has(zeroName))) continue;
    if ((dq.attribute ?? []).some((a) => a.name !== 'axis')) continue; // e.g. block_size: not one scale per row
    const dims = (table.dims ?? []).map(Number);
    const scaleDims = (scale.dims ?? []).map(Number);
    const axis = axisOf(dq, 1);
    if (dims.length !== 2 || scaleDims.length !== 1 || scaleDims[0] !== dims[0] || !(axis === 0 || axis === -2)) continue;
    const out = dq.output![0]!;
    if (graphOutputs.has(out)) continue;
    const readers = graph.node!.filter((n) => n !== dq && (n.input ?? []).includes(out));
    const gathers = readers.every((g) => g.opType === 'Gather' && (g.domain ?? '') === '' && g.input![0] === out && !g.input!.slice(1).includes(out) && axisOf(g, 0) === 0);
    if (readers.length === 0 || !gathers) continue;
    for (const g of readers) {
      const ids = g.input![1]!;
      const y = g.output![0]!;
      const p = `${y}__gathered`;
      const gather = (input: string, output: string): onnx.INodeProto => ({ opType: 'Gather', name: `${p}/Gather_${output.split('/').at(-1)}`, input: [input, ids], output: [output], attribute: [{ name: 'axis', type: INT, i: 0 }] });
      // The gathered rows with their scales and zero points, flattened to one row each ([N, width], [N]) so
      // that DequantizeLinear's per-axis form (a 1-D scale along axis 0) applies, then the shape back.
      graph.initializer!.push(int64Tensor(`${p}/rows_by_width`, [-1, dims[1]!]), int64Tensor(`${p}/rows`, [-1]));
      const nodes: onnx.INodeProto[] = [gather(tableName!, `${p}/q`), gather(scaleName!, `${p}/scale`)];
      if (zeroName) nodes.push(gather(zeroName, `${p}/zero_point`));
      nodes.push(
        { opType: 'Shape', name: `${p}/Shape`, input: [`${p}/q`], output: [`${p}/shape`] },
        { opType: 'Reshape', name: `${p}/Reshape_q`, input: [`${p}/q`, `${p}/rows_by_width`], output: [`${p}/q_rows`] },
        { opType: 'Reshape', name: `${p}/Reshape_scale`, input: [`${p}/scale`, `${p}/rows`], output: [`${p}/scale_rows`] },
        ...(zeroName ? [{ opType: 'Reshape', name: `${p}/Reshape_zero_point`, input: [`${p}/zero_point`, `${p}/rows`], output: [`${p}/zero_point_rows`] }] : []),
        {
          opType: 'DequantizeLinear',
          name: `${p}/DequantizeLinear`,
          input: [`${p}/q_rows`, `${p}/scale_rows`, ...(zeroName ? [`${p}/zero_point_rows`] : [])],
          output: [`${p}/rows_fp32`],
          attribute: [{ name: 'axis', type: INT, i: 0 }],
        },
        { opType: 'Reshape', name: `${p}/Reshape_back`, input: [`${p}/rows_fp32`, `${p}/shape`], output: [y] },
      );
      graph.node!.splice(graph.node!.indexOf(g), 1, ...nodes);
    }
    graph.node!.splice(graph.node!.indexOf(dq), 1);
    graph.valueInfo = (graph.valueInfo ?? []).filter((v) => v.name !== out);
    rewritten.push(out);
  }
  return { bytes: rewritten.length > 0 ? O.ModelProto.encode(model).finish() : bytes, rewritten };
}
