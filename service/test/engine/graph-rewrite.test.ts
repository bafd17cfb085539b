/**
 * The shared-weights copy's rewrite of int8 embedding tables (graph-rewrite.ts): gathered, then
 * de-quantised, with the same values to the bit; tables read otherwise are left alone.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import onnxProto from 'onnx-proto';
import ort from 'onnxruntime-node';
import { gatherBeforeDequantize } from '../../src/engine/graph-rewrite.js';
import { DataType, GraphBuilder } from '../../src/fixtures/onnx-graph.js';

const ROWS = 50;
const WIDTH = 6;

/** ids [b, t] → embedding rows of an int8 table (per row or per tensor) + a MatMul on a DQ weight. */
function graph(scales: 'row' | 'tensor'): Uint8Array {
  const g = new GraphBuilder();
  const ids = g.input('ids', DataType.INT64, ['b', 't']);
  const q = g.int8('table_q', [ROWS, WIDTH], Int8Array.from({ length: ROWS * WIDTH }, (_, i) => ((i * 37) % 255) - 127));
  const scale = scales === 'row' ? g.float('table_scale', [ROWS], Float32Array.from({ length: ROWS }, (_, i) => 0.0137 * (i + 1) ** 0.5)) : g.scalarFloat('table_scale', 0.0213);
  const zero = scales === 'row' ? g.int8('table_zero', [ROWS], Int8Array.from({ length: ROWS }, (_, i) => (i % 7) - 3)) : g.int8('table_zero', [], Int8Array.of(-2));
  const table = g.op1('DequantizeLinear', [q, scale, zero], scales === 'row' ? { axis: { i: 0 } } : {});
  const rows = g.op1('Gather', [table, ids], { axis: { i: 0 } });
  // a DequantizeLinear whose output a MatMul reads: ONNX Runtime's int8 kernels fuse that pair; left alone
  const wq = g.int8('w_q', [WIDTH, 3], Int8Array.from({ length: WIDTH * 3 }, (_, i) => i * 5 - 40));
  const w = g.op1('DequantizeLinear', [wq, g.scalarFloat('w_scale', 0.05), g.int8('w_zero', [], Int8Array.of(1))]);
  g.op1('MatMul', [rows, w], {}, 'out');
  g.output('out', DataType.FLOAT, ['b', 't', 3]);
  g.op1('Identity', [rows], {}, 'rows');
  g.output('rows', DataType.FLOAT, ['b', 't', WIDTH]);
  return g.encode({ graphName: 'rewrite', producerVersion: 'test', docString: '', opset: 17 });
}

async function run(bytes: Uint8Array, ids: number[][]): Promise<Float32Array[]> {
  const session = await ort.InferenceSession.create(bytes, { graphOptimizationLevel: 'all', intraOpNumThreads: 1 });
  const feeds = { ids: new ort.Tensor('int64', BigInt64Array.from(ids.flat().map(BigInt)), [ids.length, ids[0]!.length]) };
  const out = await session.run(feeds);
  await session.release();
  return [out.out!.data as Float32Array, out.rows!.data as Float32Array];
}

test('an int8 table quantised per row is gathered before it is de-quantised, with the same values to the bit', async () => {
  const before = graph('row');
  const { bytes, rewritten } = gatherBeforeDequantize(before);
  assert.equal(rewritten.length, 1, 'the table, and not the MatMul weight');
  const nodes = onnxProto.onnx.ModelProto.decode(bytes).graph!.node!;
  const dequantized = nodes.filter((n) => n.opType === 'DequantizeLinear').map((n) => n.input![0]);
  assert.ok(!dequantized.includes('table_q'), 'no DequantizeLinear reads the whole table');
  assert.ok(dequantized.includes('w_q'), 'the MatMul weight keeps its DequantizeLinear');
  const ids = [[0, 3, 49, 7, 7], [12, 1, 0, 48, 25]];
  const [a, b] = [await run(before, ids), await run(bytes, ids)];
  for (let k = 0; k < 2; k++) assert.deepEqual(Array.from(b[k]!), Array.from(a[k]!));
});

test('a table quantised per tensor, and a graph without such a table, come back as they were', () => {
  const g = new GraphBuilder();
  const x = g.input('x', DataType.FLOAT, [2]);
  g.op1('Relu', [x], {}, 'y');
  g.output('y', DataType.FLOAT, [2]);
  for (const bytes of [graph('tensor'), g.encode({ graphName: 'plain', producerVersion: 'test', docString: '', opset: 17 })]) {
    const result = gatherBeforeDequantize(bytes);
    assert.deepEqual(result.rewritten, []);
    assert.equal(result.bytes, bytes);
  }
});
