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
  /** How many batches it runs at once; the batcher keeps up to this many going. */
  readonly lanes: number;
  /**
   * Whether `run` with `wide` gets more of the cores than a lane's share (a wide session, or lanes that
   * each have all the threads). Unset: as with `wide` true. When false, the batcher runs a lone row
   * that is not inline as a lane batch, so that the other lanes stay free beside it.
   */
  readonly wide?: boolean;
  /**
   * Runs a batch on one of the lanes, or with `wide` on all the cores: the batcher asks for that
   * only while nothing else runs.
   */
  run(rows: Row[], opts?: { wide?: boolean }): Promise<BackendResult>;
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

/** How a session holds memory beside the weights (Config.engine.ortArena / ortPrepack). */
export interface SessionMemory {
  /** ONNX Runtime's CPU arena: keeps the largest run's buffers for the next run (per session). */
  arena: boolean;
  /** MLAS pre-packs each MatMul's weights at load: a second, private copy of them per session. */
  prepack: boolean;
}

export const DEFAULT_SESSION_MEMORY: SessionMemory = { arena: true, prepack: true };

/** The service's ONNX Runtime settings (the bench's raw runs use the same). */
export function sessionOptions(threads: number, memory: SessionMemory = DEFAULT_SESSION_MEMORY): ort.InferenceSession.SessionOptions {
  return {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
    // Set explicitly from the cores this process may use; ORT's own default reads the host.
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    enableCpuMemArena: memory.arena,
    extra: {
      session: {
        // ORT's pool spins after each run; on a small machine that steals the cores the event loop needs
        // to finish the call (charge, reply) and take the next one.
        intra_op: { allow_spinning: '0' },
        ...(memory.prepack ? {} : { disable_prepacking: '1' }),
      },
    },
  };
}

interface Job {
  resolve: (v: BackendResult) => void;
  reject: (e: Error) => void;
  markers: number;
}

/** One worker thread with its own session; it runs one batch at a time. */
interface Lane {
  worker: Worker;
  jobs: Map<number, Job>;
  /** Set when the worker failed or exited: the lane takes no more batches. */
  failure?: Error;
}

/**
 * ONNX Runtime (CPU) behind worker threads: `session.run` blocks the thread that calls it, so the
 * sessions live in `onnx-worker.js` and batches travel as transferred typed arrays.
 *
 * The cores are split into `lanes`, each a worker with a session of `threads / lanes` intra-op
 * threads (or `laneThreads`), running batches side by side. One session over all cores loses about twice what the event
 * loop takes from it: whenever the loop preempts one of its threads, the others wait for it at the end
 * of every parallel step; separate lanes only lose the preempted lane's share (docs/performance.md).
 * With more than one lane of fewer than all the threads, the first lane's worker holds a second session
 * over all of them for `wide` runs (unless `wideSession` is false): a lone row cannot be split between
 * lanes, and on one lane's share of the cores it takes about a third longer. With `inline`, one more
 * session over all the threads serves `runInline`, on the calling thread, for a small batch that nothing
 * else waits behind. Each session holds its own pre-packed weights and arena (about 90 MiB on the English
 * checkpoint; docs/performance.md).
 */
export class OnnxBackend implements Backend {
  /** Present only when the backend was loaded with `inline`. */
  readonly runInline?: (rows: Row[]) => Promise<BackendResult>;
  private nextId = 0;

  private constructor(
    private readonly laneList: Lane[],
    private readonly padId: number,
    private readonly layout: { wide: boolean; wideSession: boolean; laneThreads: number },
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
    for (const lane of laneList) {
      lane.worker.on('message', (message: { id: number; logits?: Float32Array; modelMs?: number; error?: string }) => {
        const job = lane.jobs.get(message.id);
        if (!job) return;
        lane.jobs.delete(message.id);
        if (message.error !== undefined) job.reject(new Error(`onnxruntime: ${message.error}`));
        else job.resolve({ logits: message.logits!, markers: job.markers, modelMs: message.modelMs });
      });
      lane.worker.on('error', (error) => this.failAll(lane, error));
      lane.worker.on('exit', (code) => this.failAll(lane, new Error(`onnxruntime worker exited with code ${code}`)));
    }
  }

  /**
   * `threads` intra-op threads in all: each of the `lanes` (default 1) gets `laneThreads` (default
   * `threads / lanes`, at least 1); the first lane's wide session (with more than one lane of fewer
   * threads, unless `wideSession` is false) and the inline session (when asked for) get all of them.
   */
  static async load(
    modelPath: string,
    padId: number,
    threads: number,
    opts: { inline?: boolean; lanes?: number; laneThreads?: number; wideSession?: boolean; memory?: SessionMemory } = {},
  ): Promise<OnnxBackend> {
    const lanes = Math.max(1, opts.lanes ?? 1);
    const laneThreads = Math.max(1, opts.laneThreads ?? Math.floor(threads / lanes));
    const laneOptions = sessionOptions(laneThreads, opts.memory);
    const allThreads = sessionOptions(threads, opts.memory);
    // A wide session only where a lane has fewer than all the threads (and it is not turned off).
    const wideSession = lanes > 1 && laneThreads < threads && opts.wideSession !== false;
    const started = Array.from({ length: lanes }, (_, i) => startLane(modelPath, laneOptions, i === 0 && wideSession ? allThreads : undefined));
    const settled = await Promise.allSettled(started);
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) {
      await Promise.all(settled.map((r) => (r.status === 'fulfilled' ? r.value.worker.terminate() : undefined)));
      throw failed.reason;
    }
    const laneList = settled.map((r) => (r as PromiseFulfilledResult<Lane>).value);
    const inline = opts.inline ? await ort.InferenceSession.create(modelPath, allThreads) : undefined;
    return new OnnxBackend(laneList, padId, { wide: wideSession || laneThreads >= threads, wideSession, laneThreads }, inline);
  }

  get lanes(): number {
    return this.laneList.length;
  }

  get wide(): boolean {
    return this.layout.wide;
  }

  /** ONNX Runtime sessions it holds: one per lane, the first lane's wide session, the inline session. */
  get sessions(): number {
    return this.laneList.length + (this.layout.wideSession ? 1 : 0) + (this.inlineSession ? 1 : 0);
  }

  /** Intra-op threads of each lane's session. */
  get laneThreads(): number {
    return this.layout.laneThreads;
  }

  /**
   * Runs on an idle lane (the least busy one if the caller runs more batches than there are lanes);
   * `wide` on the first lane's session over all the threads.
   */
  run(rows: Row[], opts: { wide?: boolean } = {}): Promise<BackendResult> {
    const { feeds, markers } = pack(rows, this.padId);
    const id = this.nextId++;
    const wire: Record<string, { type: string; data: ArrayBufferView; dims: readonly number[] }> = {};
    const transfer: ArrayBuffer[] = [];
    for (const [name, tensor] of Object.entries(feeds)) {
      const data = tensor.data as unknown as ArrayBufferView;
      wire[name] = { type: tensor.type, data, dims: tensor.dims };
      transfer.push(data.buffer as ArrayBuffer);
    }
    const live = this.laneList.filter((l) => !l.failure);
    if (live.length === 0) return Promise.reject(this.laneList[0]!.failure);
    // Without the first lane (its worker died) a wide batch runs on another lane's share of the cores.
    const wide = opts.wide === true && live[0] === this.laneList[0];
    const lane = wide ? live[0]! : live.reduce((best, l) => (l.jobs.size < best.jobs.size ? l : best));
    return new Promise((resolve, reject) => {
      lane.jobs.set(id, { resolve, reject, markers });
      lane.worker.postMessage({ id, feeds: wire, wide }, transfer);
    });
  }

  private failAll(lane: Lane, error: Error): void {
    lane.failure ??= error;
    for (const job of lane.jobs.values()) job.reject(error);
    lane.jobs.clear();
  }

  async close(): Promise<void> {
    await Promise.all(
      this.laneList.map(async ({ worker }) => {
        const exited = new Promise((resolve) => worker.once('exit', resolve));
        worker.postMessage({ type: 'close' });
        await Promise.race([exited, new Promise((r) => setTimeout(r, 2000))]);
        await worker.terminate();
      }),
    );
    await this.inlineSession?.release();
  }
}

async function startLane(
  modelPath: string,
  options: ort.InferenceSession.SessionOptions,
  wideOptions?: ort.InferenceSession.SessionOptions,
): Promise<Lane> {
  const worker = new Worker(new URL('./onnx-worker.js', import.meta.url), { workerData: { modelPath, options, wideOptions } });
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
  return { worker, jobs: new Map() };
}
