/**
 * The small interface between the batcher and whatever runs the graph, and its ONNX Runtime
 * implementation (CPU). A batch is packed here: right-padded ids, attention mask, marker positions
 * and mask, question types.
 */
import { Worker } from 'node:worker_threads';
import ort from 'onnxruntime-node';
import type { Row } from './layout.js';

export interface BackendResult {
  /** Logits [rows, maxMarkers], row-major; padded markers hold −1e4. */
  logits: Float32Array;
  markers: number;
  /** Time spent running the graph itself, when the backend can tell it from its own overhead (ms). */
  modelMs?: number;
}

export interface Backend {
  run(rows: Row[]): Promise<BackendResult>;
  /**
   * Run on the calling thread, which it holds for the whole run. Optional; the batcher uses it for a
   * small batch that nothing else waits behind, so a lone call skips the hops to and from the
   * backend's own thread.
   */
  runInline?(rows: Row[]): Promise<BackendResult>;
  close(): Promise<void>;
}

export interface PackedBatch {
  feeds: Record<string, ort.Tensor>;
  markers: number;
}

/** Right-padded feeds for a batch; T and K are the batch maxima (or `minT` / `minK` when larger). */
export function pack(rows: Row[], padId: number, minT = 0, minK = 0): PackedBatch {
  const b = rows.length;
  const t = Math.max(minT, ...rows.map((r) => r.ids.length));
  const k = Math.max(minK, 1, ...rows.map((r) => r.markers.length));
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

/** The service's ONNX Runtime settings (the bench's raw runs use the same). */
export function sessionOptions(threads: number): ort.InferenceSession.SessionOptions {
  return {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
    // Set explicitly from the cores this process may use; ORT's own default reads the host.
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    // ORT's pool spins after each run; on a small machine that steals the cores the event loop needs
    // to finish the call (charge, reply) and take the next one.
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  };
}

/**
 * ONNX Runtime (CPU) behind a worker thread: `session.run` blocks the thread that calls it, so the
 * session lives in `onnx-worker.js` and batches travel as transferred typed arrays. With `inline`, a
 * second session of the same graph on the calling thread serves `runInline`.
 */
export class OnnxBackend implements Backend {
  /** Present only when the backend was loaded with `inline`. */
  readonly runInline?: (rows: Row[]) => Promise<BackendResult>;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (v: BackendResult) => void; reject: (e: Error) => void; markers: number }>();

  private constructor(
    private readonly worker: Worker,
    private readonly padId: number,
    private readonly inlineSession?: ort.InferenceSession,
  ) {
    if (inlineSession) {
      this.runInline = async (rows) => {
        const { feeds, markers } = pack(rows, this.padId);
        const started = performance.now();
        const out = await inlineSession.run(feeds, ['logits']);
        return { logits: out.logits!.data as Float32Array, markers, modelMs: performance.now() - started };
      };
    }
    worker.on('message', (message: { id: number; logits?: Float32Array; modelMs?: number; error?: string }) => {
      const job = this.pending.get(message.id);
      if (!job) return;
      this.pending.delete(message.id);
      if (message.error !== undefined) job.reject(new Error(`onnxruntime: ${message.error}`));
      else job.resolve({ logits: message.logits!, markers: job.markers, modelMs: message.modelMs });
    });
    worker.on('error', (error) => this.failAll(error));
    worker.on('exit', (code) => this.failAll(new Error(`onnxruntime worker exited with code ${code}`)));
  }

  static async load(modelPath: string, padId: number, threads: number, opts: { inline?: boolean } = {}): Promise<OnnxBackend> {
    const options = sessionOptions(threads);
    const worker = new Worker(new URL('./onnx-worker.js', import.meta.url), { workerData: { modelPath, options } });
    await new Promise<void>((resolve, reject) => {
      const onMessage = (m: { type?: string; message?: string }) => {
        if (m.type === 'ready') resolve();
        else if (m.type === 'error') reject(new Error(`${modelPath}: ${m.message}`));
        else return;
        worker.off('message', onMessage);
      };
      worker.on('message', onMessage);
      worker.once('error', reject);
    });
    const inline = opts.inline ? await ort.InferenceSession.create(modelPath, options) : undefined;
    return new OnnxBackend(worker, padId, inline);
  }

  run(rows: Row[]): Promise<BackendResult> {
    const { feeds, markers } = pack(rows, this.padId);
    const id = this.nextId++;
    const wire: Record<string, { type: string; data: ArrayBufferView; dims: readonly number[] }> = {};
    const transfer: ArrayBuffer[] = [];
    for (const [name, tensor] of Object.entries(feeds)) {
      const data = tensor.data as unknown as ArrayBufferView;
      wire[name] = { type: tensor.type, data, dims: tensor.dims };
      transfer.push(data.buffer as ArrayBuffer);
    }
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, markers });
      this.worker.postMessage({ id, feeds: wire }, transfer);
    });
  }

  private failAll(error: Error): void {
    for (const job of this.pending.values()) job.reject(error);
    this.pending.clear();
  }

  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.worker.once('exit', resolve));
    this.worker.postMessage({ type: 'close' });
    await Promise.race([exited, new Promise((r) => setTimeout(r, 2000))]);
    await this.worker.terminate();
    await this.inlineSession?.release();
  }
}
