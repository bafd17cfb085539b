/**
 * The small interface between the batcher and whatever runs the graph, and its ONNX Runtime
 * implementation (CPU). A batch is packed here: right-padded ids, attention mask, marker positions
 * and mask, question types.
 */
import ort from 'onnxruntime-node';
import type { Row } from './layout.js';

export interface Backend {
  /** Logits [rows, maxMarkers], row-major; padded markers hold −1e4. */
  run(rows: Row[]): Promise<{ logits: Float32Array; markers: number }>;
  close(): Promise<void>;
}

export interface PackedBatch {
  feeds: Record<string, ort.Tensor>;
  markers: number;
}

export function pack(rows: Row[], padId: number): PackedBatch {
  const b = rows.length;
  const t = Math.max(...rows.map((r) => r.ids.length));
  const k = Math.max(...rows.map((r) => r.markers.length));
  const inputIds = new BigInt64Array(b * t).fill(BigInt(padId));
  const attention = new BigInt64Array(b * t);
  const markerPos = new BigInt64Array(b * k);
  const markerMask = new Uint8Array(b * k);
  const qtype = new BigInt64Array(b);
  rows.forEach((row, i) => {
    for (let j = 0; j < row.ids.length; j++) {
      inputIds[i * t + j] = BigInt(row.ids[j]!);
      attention[i * t + j] = 1n;
    }
    row.markers.forEach((pos, j) => {
      markerPos[i * k + j] = BigInt(pos);
      markerMask[i * k + j] = 1;
    });
    qtype[i] = BigInt(row.qtype);
  });
  return {
    markers: k,
    feeds: {
      input_ids: new ort.Tensor('int64', inputIds, [b, t]),
      attention_mask: new ort.Tensor('int64', attention, [b, t]),
      marker_pos: new ort.Tensor('int64', markerPos, [b, k]),
      marker_mask: new ort.Tensor('bool', markerMask, [b, k]),
      qtype: new ort.Tensor('int64', qtype, [b]),
    },
  };
}

export class OnnxBackend implements Backend {
  private constructor(private readonly session: ort.InferenceSession, private readonly padId: number) {}

  static async load(modelPath: string, padId: number, threads: number): Promise<OnnxBackend> {
    const session = await ort.InferenceSession.create(modelPath, {
      executionProviders: ['cpu'],
      graphOptimizationLevel: 'all',
      executionMode: 'sequential',
      // Set explicitly from the cores this process may use; ORT's own default reads the host.
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
    });
    return new OnnxBackend(session, padId);
  }

  async run(rows: Row[]): Promise<{ logits: Float32Array; markers: number }> {
    const { feeds, markers } = pack(rows, this.padId);
    const out = await this.session.run(feeds, ['logits']);
    return { logits: out['logits']!.data as Float32Array, markers };
  }

  async close(): Promise<void> {
    await this.session.release();
  }
}
