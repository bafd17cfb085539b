/**
 * The engine's core: lay a call out on a checkpoint (exact accounting, nothing cut), queue its rows on
 * the checkpoint's batcher, and turn the logits into calibrated answers. Readiness: `starting` until
 * every configured checkpoint is loaded and warmed; new calls get 529 `starting` meanwhile.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Starting } from '../errors.js';
import type { BatcherOptions, BatchStats } from './batcher.js';
import { softmax, temperatureFor, toAnswer, type Answer } from './calibrate.js';
import { Checkpoint, type SessionSettings } from './checkpoint.js';
import { layOutLate } from './late-layout.js';
import { layOut, tokenizeState, type LaidOutCall } from './layout.js';
import type { Question } from './render.js';
import type { CallTiming } from './timing.js';

export interface EngineOptions extends SessionSettings {
  checkpoints: Record<string, { dir: string; int8: boolean }>;
  batcher: BatcherOptions;
  startingRetryMs: number;
  onBatch?: (checkpoint: string, stats: BatchStats) => void;
}

export interface PreparedCall {
  checkpoint: Checkpoint;
  names: string[];
  questions: Question[];
  laidOut: LaidOutCall;
}

export interface AnsweredCall {
  model: string;
  answers: Record<string, Answer>;
  usage: { input_tokens: number; output_tokens: number; processed_tokens: number };
}

export class Engine {
  readonly checkpoints = new Map<string, Checkpoint>();
  private state: 'starting' | 'ready' | 'failed' | 'closed' = 'starting';
  private failure?: Error;

  constructor(private readonly options: EngineOptions) {}

  get ready(): boolean {
    return this.state === 'ready';
  }

  get status(): { state: string; error?: string; checkpoints: Record<string, unknown> } {
    const checkpoints: Record<string, unknown> = {};
    for (const [name, c] of this.checkpoints) {
      checkpoints[name] = { precision: c.precision, weights: c.weights, tokenizer: c.tokenizer.implementation, fixture: c.manifest.fixture, window: c.manifest.window, queued_rows: c.batcher.depth, sessions: c.sessions };
    }
    return { state: this.state, ...(this.failure ? { error: this.failure.message } : {}), checkpoints };
  }

  /**
   * Load and warm every configured checkpoint; readiness follows. A checkpoint folder that does not
   * exist yet (still being built or pulled) is waited for, polling every `missingPollMs`; any other
   * load error leaves the engine failed (and /readyz unready).
   */
  async start(opts: { missingPollMs?: number; onWaiting?: (dir: string) => void } = {}): Promise<void> {
    try {
      for (const [name, cfg] of Object.entries(this.options.checkpoints)) {
        if (this.checkpoints.has(name)) continue;
        const checkpoint = await this.loadWhenPresent(cfg, name, opts);
        if (!checkpoint) return; // closed while waiting
        await this.warm(checkpoint);
        this.checkpoints.set(name, checkpoint);
      }
      this.state = 'ready';
    } catch (error) {
      this.state = 'failed';
      this.failure = error as Error;
      throw error;
    }
  }

  private async loadWhenPresent(
    cfg: { dir: string; int8: boolean },
    name: string,
    opts: { missingPollMs?: number; onWaiting?: (dir: string) => void },
  ): Promise<Checkpoint | undefined> {
    let announced = false;
    while (this.state === 'starting') {
      if (fs.existsSync(path.join(cfg.dir, 'manifest.json'))) {
        const checkpoint = await Checkpoint.load(cfg.dir, {
          int8: cfg.int8,
          threads: this.options.threads,
          lanes: this.options.lanes,
          laneThreads: this.options.laneThreads,
          wideSession: this.options.wideSession,
          singleSessionAboveMiB: this.options.singleSessionAboveMiB,
          sharedWeightsDir: this.options.sharedWeightsDir,
          memory: this.options.memory,
          batcher: this.options.batcher,
          onBatch: (s) => this.options.onBatch?.(name, s),
        });
        if (checkpoint.name !== name) {
          await checkpoint.close();
          throw new Error(`${cfg.dir}: manifest names "${checkpoint.name}" but it is configured as "${name}"`);
        }
        return checkpoint;
      }
      if (!announced) opts.onWaiting?.(cfg.dir);
      announced = true;
      await new Promise((r) => setTimeout(r, opts.missingPollMs ?? 1000));
    }
    return undefined;
  }

  /**
   * One short and one long row on each session (every lane, wide, inline), so the first real call does
   * not pay for lazy initialisation: full-window on the lanes and the wide session, at most the inline
   * budget on the inline session, which never runs more. A session's arena keeps what its longest run
   * needed, so a full-window row there would hold memory it never uses (about 33 MiB on the English
   * checkpoint; docs/performance.md).
   */
  private async warm(checkpoint: Checkpoint): Promise<void> {
    const question: Question = { type: 'noul', instructions: 'warm-up' };
    if (checkpoint.manifest.layout === 'late-interaction') {
      // one short row per session: its rows are built from text (late-layout.ts), not from a head
      const { rows } = await layOutLate(checkpoint, ['w'], [question], 'warm-up');
      const { backend } = checkpoint;
      await Promise.all(Array.from({ length: backend.lanes }, () => backend.run(rows)));
      if (backend.lanes > 1) await backend.run(rows, { wide: true });
      await backend.runInline?.(rows);
      return;
    }
    const [head] = await checkpoint.questionHeads([question]);
    const room = checkpoint.manifest.window - 1 - head!.ids.length;
    const rowsOf = (length: number) =>
      layOut(['w'], [head!], new Array(Math.max(0, length)).fill(checkpoint.tokenizer.special.cls), checkpoint.tokenizer.special.sep, {
        model: checkpoint.name,
        window: checkpoint.manifest.window,
        processedTokenCap: Number.MAX_SAFE_INTEGER,
      }).rows;
    // A row of the state's length plus the head and its [SEP] is `length + 1 + head` tokens long.
    const inlineRoom = Math.min(room, (this.options.batcher.inlineMaxTokens ?? 0) - 1 - head!.ids.length);
    const { backend } = checkpoint;
    for (const length of [8, room]) {
      const rows = rowsOf(length);
      await Promise.all(Array.from({ length: backend.lanes }, () => backend.run(rows)));
      if (backend.lanes > 1 && backend.wide !== false) await backend.run(rows, { wide: true });
      if (backend.runInline) await backend.runInline(length === 8 || inlineRoom <= 8 ? rowsOf(8) : rowsOf(inlineRoom));
    }
  }

  /** Throws 529 starting until every checkpoint is loaded and warmed. */
  assertReady(): void {
    if (this.state !== 'ready') throw new Starting(this.options.startingRetryMs);
  }

  checkpoint(name: string): Checkpoint {
    this.assertReady();
    const checkpoint = this.checkpoints.get(name);
    if (!checkpoint) throw new Error(`checkpoint ${name} is not loaded`);
    return checkpoint;
  }

  /** Tokenize and check a call; throws StateTooLong / ProcessedTokenCap before anything runs. */
  async prepare(checkpointName: string, questions: Record<string, Question>, state: unknown): Promise<PreparedCall> {
    const checkpoint = this.checkpoint(checkpointName);
    const names = Object.keys(questions);
    const list = names.map((n) => questions[n]!);
    if (checkpoint.manifest.layout === 'late-interaction') {
      return { checkpoint, names, questions: list, laidOut: await layOutLate(checkpoint, names, list, state) };
    }
    const [heads, stateIds] = await Promise.all([
      checkpoint.questionHeads(list),
      tokenizeState(checkpoint.tokenizer, state),
    ]);
    const laidOut = layOut(names, heads, stateIds, checkpoint.tokenizer.special.sep, {
      model: checkpoint.name,
      window: checkpoint.manifest.window,
      processedTokenCap: checkpoint.manifest.processed_token_cap,
    });
    return { checkpoint, names, questions: list, laidOut };
  }

  /**
   * Run a prepared call through the shared batcher and shape its answers. `timing` gets the wait in
   * the queue, the model's own run time and the hop to and from its thread.
   */
  async answer(call: PreparedCall, opts: { signal?: AbortSignal; route?: { readonly language?: string }; timing?: CallTiming } = {}): Promise<AnsweredCall> {
    const { checkpoint, laidOut } = call;
    const logits = await this.logits(call, opts);
    // Question names are data ("__proto__" included): entries, then Object.fromEntries (own properties).
    const answers: [string, Answer][] = [];
    let outputTokens = 0;
    // The state's language is only worth detecting when the checkpoint calibrates by language.
    const language = checkpoint.manifest.calibration.by_language ? opts.route?.language : undefined;
    call.names.forEach((name, i) => {
      const head = laidOut.heads[i]!;
      const t = temperatureFor(checkpoint.manifest.calibration, head.type, head.keys.length, language);
      const p = softmax(logits[i]!, t);
      answers.push([name, toAnswer(head.type, head.keys, p, call.questions[i]!.criteria)]);
      outputTokens += head.keys.length;
    });
    return {
      model: checkpoint.name,
      answers: Object.fromEntries(answers),
      usage: {
        input_tokens: laidOut.inputTokens,
        output_tokens: outputTokens,
        processed_tokens: laidOut.processedTokens,
      },
    };
  }

  /**
   * Each question's raw logits in marker order, before any temperature (what `answer` calibrates, and
   * what `structqa models calibrate` fits temperatures on).
   */
  async logits(call: PreparedCall, opts: { signal?: AbortSignal; timing?: CallTiming } = {}): Promise<ArrayLike<number>[]> {
    const { checkpoint, laidOut } = call;
    const { logits, queuedMs, runMs, modelMs } = await checkpoint.batcher.submit(laidOut.rows, opts.signal);
    opts.timing?.carve('queue', queuedMs);
    opts.timing?.carve('model', modelMs);
    opts.timing?.carve('hop', Math.max(0, runMs - modelMs));
    let row = 0;
    return laidOut.rowsPerQuestion.map((count) => {
      // A split choice question's rows hold contiguous groups of its options in order: their logits,
      // joined, are the question's logits in marker order, normalised together.
      const questionLogits = count === 1 ? logits[row]! : logits.slice(row, row + count).flatMap((l) => Array.from(l));
      row += count;
      return questionLogits;
    });
  }

  async close(): Promise<void> {
    this.state = 'closed';
    for (const checkpoint of this.checkpoints.values()) await checkpoint.close();
  }
}
