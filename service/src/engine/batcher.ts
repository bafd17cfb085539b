/**
 * One queue of rows per checkpoint, shared by every request. Whenever the backend is free it takes
 * what is queued — no idle timer — as a batch cut by a padded-token budget (rows × longest row) and a
 * row limit, choosing rows of similar length around the oldest one so that padding stays small and
 * nothing starves. Rows of a request whose client has gone are dropped before they are run.
 */
import { Overloaded, ServiceError } from '../errors.js';
import type { Backend } from './backend.js';
import type { Row } from './layout.js';

export interface BatcherOptions {
  tokenBudget: number;
  maxRows: number;
  /**
   * A batch of at most this many padded tokens that nothing else waits behind runs on the event-loop
   * thread (`Backend.runInline`, when the backend has it) rather than behind the hop to the backend's
   * thread. 0 or unset: never (the service passes `STRUCTQA_INLINE_MAX_TOKENS`).
   */
  inlineMaxTokens?: number;
  maxQueuedRows: number;
  overloadedRetryMs: number;
}

export interface BatchStats {
  rows: number;
  paddedTokens: number;
  realTokens: number;
  seconds: number;
}

interface Pending {
  row: Row;
  signal?: AbortSignal;
  resolve: (result: RowResult) => void;
  reject: (error: unknown) => void;
}

interface RowResult {
  logits: Float32Array;
  batch: { id: number; startedAt: number; runMs: number; modelMs: number };
}

/** A request's rows, answered: logits per row, and how long it waited and ran (milliseconds). */
export interface Submitted {
  logits: Float32Array[];
  /** From submission until the first of its batches started. */
  queuedMs: number;
  /** Its batches' backend calls, end to end (summed when its rows ran in several batches). */
  runMs: number;
  /** The part of runMs the backend itself reports as running the graph. */
  modelMs: number;
}

/** The caller hung up before its rows ran: nothing is run or charged (499, as nginx logs it). */
export class ClientGone extends ServiceError {
  constructor() {
    super(499, 'client_gone', 'The client went away before its rows were run; the call was dropped and not charged.');
  }
}

/**
 * Pick the rows of the next batch. `lengths` is in queue order (index 0 = oldest). The oldest row is
 * always taken; then shorter rows (which do not raise the padded length), then longer ones, while
 * rows × longest row stays within the budget and the row limit holds. Returns queue indices.
 */
export function selectBatch(lengths: number[], tokenBudget: number, maxRows: number): number[] {
  if (lengths.length === 0) return [];
  const sorted = lengths.map((_, i) => i).sort((a, b) => lengths[a]! - lengths[b]! || a - b);
  const start = sorted.indexOf(0);
  let lo = start;
  let hi = start;
  const longest = lengths[0]!;
  const count = () => hi - lo + 1;
  while (lo > 0 && count() < maxRows && longest * (count() + 1) <= tokenBudget) lo--;
  while (hi < sorted.length - 1 && count() < maxRows && lengths[sorted[hi + 1]!]! * (count() + 1) <= tokenBudget) hi++;
  return sorted.slice(lo, hi + 1);
}

function paddedTokens(batch: Pending[]): number {
  return batch.length * Math.max(...batch.map((p) => p.row.ids.length));
}

export class Batcher {
  private queue: Pending[] = [];
  private running = false;
  private closed = false;
  private nextBatchId = 0;

  constructor(
    private readonly backend: Backend,
    private readonly options: BatcherOptions,
    private readonly onBatch: (stats: BatchStats) => void = () => {},
  ) {}

  get depth(): number {
    return this.queue.length;
  }

  /** Queue a request's rows; resolves with each row's logits over its own markers. */
  async submit(rows: Row[], signal?: AbortSignal): Promise<Submitted> {
    if (this.closed) throw new Error('batcher closed');
    if (this.queue.length + rows.length > this.options.maxQueuedRows) throw new Overloaded(this.options.overloadedRetryMs);
    const submittedAt = performance.now();
    const promises = rows.map(
      (row) => new Promise<RowResult>((resolve, reject) => this.queue.push({ row, signal, resolve, reject })),
    );
    this.pump();
    const results = await Promise.all(promises);
    const batches = new Map(results.map((r) => [r.batch.id, r.batch]));
    const sum = (f: (b: RowResult['batch']) => number) => [...batches.values()].reduce((s, b) => s + f(b), 0);
    return {
      logits: results.map((r) => r.logits),
      queuedMs: Math.min(...results.map((r) => r.batch.startedAt)) - submittedAt,
      runMs: sum((b) => b.runMs),
      modelMs: sum((b) => b.modelMs),
    };
  }

  private dropAbandoned(): void {
    const kept: Pending[] = [];
    for (const p of this.queue) {
      if (p.signal?.aborted) p.reject(new ClientGone());
      else kept.push(p);
    }
    this.queue = kept;
  }

  private pump(): void {
    if (this.running) return;
    this.dropAbandoned();
    if (this.queue.length === 0) return;
    const picked = selectBatch(
      this.queue.map((p) => p.row.ids.length),
      this.options.tokenBudget,
      this.options.maxRows,
    );
    const chosen = new Set(picked);
    const batch = picked.map((i) => this.queue[i]!);
    const lone = picked.length === this.queue.length;
    this.queue = this.queue.filter((_, i) => !chosen.has(i));
    this.running = true;
    // Holding the event loop for one small run costs nobody anything when nothing else is queued;
    // calls that arrive meanwhile wait in the socket instead of in the queue.
    const inline = lone && this.backend.runInline !== undefined && paddedTokens(batch) <= (this.options.inlineMaxTokens ?? 0);
    void this.runBatch(batch, inline).finally(() => {
      this.running = false;
      this.pump();
    });
  }

  private async runBatch(batch: Pending[], inline: boolean): Promise<void> {
    const startedAt = performance.now();
    try {
      const rows = batch.map((p) => p.row);
      const { logits, markers, modelMs } = await (inline ? this.backend.runInline!(rows) : this.backend.run(rows));
      const runMs = performance.now() - startedAt;
      const info = { id: this.nextBatchId++, startedAt, runMs, modelMs: modelMs ?? runMs };
      batch.forEach((p, i) => p.resolve({ logits: logits.slice(i * markers, i * markers + p.row.markers.length), batch: info }));
      this.onBatch({
        rows: batch.length,
        paddedTokens: paddedTokens(batch),
        realTokens: batch.reduce((s, p) => s + p.row.ids.length, 0),
        seconds: runMs / 1000,
      });
    } catch (error) {
      for (const p of batch) p.reject(error);
    }
  }

  /** Wait for queued work to finish, then refuse new work. */
  async drain(): Promise<void> {
    while (this.running || this.queue.length > 0) await new Promise((r) => setTimeout(r, 10));
    this.closed = true;
  }
}
