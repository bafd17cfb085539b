/**
 * A loaded checkpoint: manifest + tokenizer + backend + its batcher, plus a cache of tokenized
 * question heads (callers tend to send the same questions again and again).
 */
import fs from 'node:fs';
import path from 'node:path';
import { OnnxBackend, type Backend, type SessionMemory } from './backend.js';
import { Batcher, type BatcherOptions, type BatchStats } from './batcher.js';
import { buildHeads, type QuestionHead } from './layout.js';
import { readManifest, type Manifest } from './manifest.js';
import { sessionGraph } from './session-graph.js';
import { optionKeys, renderHead, renderOptions, type Question } from './render.js';
import { CheckpointTokenizer, type TextTokenizer } from './tokenizer.js';

const HEAD_CACHE_SIZE = 2048;

/** How a checkpoint's graph is opened: the engine's settings, passed through to every checkpoint. */
export interface SessionSettings {
  threads: number;
  /** Batches each checkpoint runs at once (default 1); see Config.engine.lanes. */
  lanes?: number;
  /** Intra-op threads of each lane's session (default threads / lanes); see Config.engine.laneThreads. */
  laneThreads?: number;
  /** The first lane's session over all the threads for a lone row (default on); see Config.engine.wideSession. */
  wideSession?: boolean;
  /** A checkpoint whose graph is larger than this gets one session (see Config.engine.singleSessionAboveMiB). */
  singleSessionAboveMiB?: number;
  /** Sessions open a cached external-data copy of the graph made here (session-graph.ts,
   *  Config.engine.sharedWeightsDir); unset: the graph itself. */
  sharedWeightsDir?: string;
  /** ONNX Runtime's arena and pre-packing (Config.engine.ortArena / ortPrepack). */
  memory?: SessionMemory;
}

export class Checkpoint {
  private readonly heads = new Map<string, QuestionHead>();

  constructor(
    readonly manifest: Manifest,
    readonly tokenizer: TextTokenizer,
    readonly backend: Backend,
    readonly batcher: Batcher,
    /** Which graph runs: 'fp32' or 'int8' (opt-in). */
    readonly precision: 'fp32' | 'int8',
  ) {}

  static async load(
    dir: string,
    opts: SessionSettings & { int8: boolean; batcher: BatcherOptions; onBatch?: (s: BatchStats) => void },
  ): Promise<Checkpoint> {
    const manifest = readManifest(dir);
    const tokenizer = await CheckpointTokenizer.fromFile(path.join(dir, manifest.files.tokenizer), manifest);
    let file = manifest.files.model;
    if (opts.int8) {
      if (!manifest.files.model_int8) throw new Error(`${manifest.name}: int8 requested but the manifest has no model_int8`);
      file = manifest.files.model_int8;
    }
    // Every session holds its own copy of the weights: a large graph gets one session (one lane, no wide,
    // no inline) so that memory stays near the graph's size (Config.engine.singleSessionAboveMiB).
    const single = opts.singleSessionAboveMiB !== undefined && graphBytes(dir, file) > opts.singleSessionAboveMiB * 2 ** 20;
    const inline = !single && (opts.batcher.inlineMaxTokens ?? 0) > 0;
    const lanes = single ? 1 : opts.lanes;
    const graph = opts.sharedWeightsDir ? await sessionGraph(path.join(dir, file), opts.sharedWeightsDir) : path.join(dir, file);
    const backend = await OnnxBackend.load(graph, tokenizer.special.pad, opts.threads, {
      inline,
      lanes,
      laneThreads: single ? undefined : opts.laneThreads,
      wideSession: opts.wideSession,
      memory: opts.memory,
    });
    // Dynamic int8 quantises activations per tensor, so a batch-mate's values would shift a row's
    // answer; one row per run keeps answers independent of batching (contract §3) at int8's speed.
    const batcherOptions = { ...opts.batcher, ...(opts.int8 ? { maxRows: 1 } : {}), ...(single ? { inlineMaxTokens: 0 } : {}) };
    const batcher = new Batcher(backend, batcherOptions, opts.onBatch);
    const checkpoint = new Checkpoint(manifest, tokenizer, backend, batcher, opts.int8 ? 'int8' : recordedPrecision(manifest));
    checkpoint.sessions = backend.sessions;
    return checkpoint;
  }

  /** ONNX Runtime sessions of this checkpoint's graph (each holds its own copy of the weights). */
  sessions = 1;

  get name(): string {
    return this.manifest.name;
  }

  /**
   * How the graph file stores its weights, as its builder recorded it (`provenance.export.weights`:
   * fp32, fp16 or int8 weight-only, which ONNX Runtime de-quantises at load), apart from `precision`,
   * the arithmetic it runs in. The bundled multilingual checkpoint: int8 weights, fp32 arithmetic.
   */
  get weights(): string {
    if (this.precision === 'int8') return 'int8';
    const recorded = (this.manifest.provenance?.['export'] as { weights?: unknown } | undefined)?.weights;
    return typeof recorded === 'string' ? recorded : 'fp32';
  }

  /** Heads of these questions, tokenized once and then served from the cache. */
  async questionHeads(questions: Question[]): Promise<QuestionHead[]> {
    // Keyed by the text the model reads and the answer keys: the same values written differently by
    // the client (key order, 1 vs 1.0) render differently (render.ts) and must not share a head.
    const keys = questions.map((q) => JSON.stringify([renderHead(q), renderOptions(q), optionKeys(q)]));
    const missing = new Map<string, Question>();
    questions.forEach((q, i) => {
      if (!this.heads.has(keys[i]!)) missing.set(keys[i]!, q);
    });
    if (missing.size > 0) {
      const built = await buildHeads(this.tokenizer, [...missing.values()]);
      [...missing.keys()].forEach((key, j) => this.heads.set(key, built[j]!));
      while (this.heads.size > HEAD_CACHE_SIZE) this.heads.delete(this.heads.keys().next().value!);
    }
    return keys.map((k) => this.heads.get(k)!);
  }

  async close(): Promise<void> {
    await this.batcher.drain();
    await this.backend.close();
  }
}

/**
 * The arithmetic the main graph itself runs in, as its builder recorded it (`provenance.export.precision`):
 * an imported Decima int8 export is its own main graph (MatMulNBits computing in int8), built so that a row's
 * answer does not depend on its batch-mates (training/decima/compose.py), so it is batched as any graph.
 */
function recordedPrecision(manifest: Manifest): 'fp32' | 'int8' {
  const recorded = (manifest.provenance?.['export'] as { precision?: unknown } | undefined)?.precision;
  return recorded === 'int8' ? 'int8' : 'fp32';
}

/** A graph's bytes on disk with its external-data files (`model.onnx.data`, `model.onnx_data`, …). */
export function graphBytes(dir: string, file: string): number {
  const base = path.basename(file);
  const folder = path.dirname(path.join(dir, file));
  return fs
    .readdirSync(folder)
    .filter((f) => f === base || (f.startsWith(base) && !f.endsWith('.onnx')))
    .reduce((n, f) => n + fs.statSync(path.join(folder, f)).size, 0);
}
