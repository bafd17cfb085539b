/**
 * One queue of rows per checkpoint, shared by every request. Whenever one of the backend's lanes is
 * free it takes what is queued — no idle timer — as a batch cut by a padded-token budget (rows ×
 * longest row) and a row limit, choosing rows of similar length around the oldest one so that
 * padding stays small and nothing starves. Batches run side by side on the lanes; a lone row runs
 * alone over all the cores. Rows of a request whose client has gone are dropped before they are run.
 */
import { Overloaded, ServiceError } from '../errors.js';
import type { Backend } from './backend.js';
import type { Row } from './layout.js';

export interface BatcherOptions {
  tokenBudget: number;
  maxRows: number;
  /**
   * Rows × the longest row's padded length², the size of a batch's attention scores: a second row of
   * 512 tokens doubles the arena every session keeps for good (about +33 MiB a lane on the English
   * checkpoint), and long rows run no faster in pairs. 0 or unset: no bound (the service passes
   * `STRUCTQA_BATCH_ATTENTION_BUDGET`). The oldest row is always taken, whatever its length.
   */
  attentionBudget?: number;
  /**
   * A batch that runs alone (see `pump`) of at most this many padded tokens runs on the event-loop
   * thread (`Backend.runInline`, when the backend has it) rather than behind the hop to a worker
   * thread. 0 or unset: never (the service passes `STRUCTQA_INLINE_MAX_TOKENS`).
   */
  inlineMaxTokens?: number;
  maxQueuedRows: number;
  overloadedRetryMs: number;
  /**
   * A call whose rows could not start within this long (estimated from what is queued ahead and the
   * recent time per padded token) is refused at once with 529 overloaded, and a row that has waited
   * this long anyway is dropped the same way: no work is done for a client that has given up (the
   * clients' attempt timeout is 10 s). 0 or unset: no bound.
   */
  maxQueueWaitMs?: number;
}

export interface BatchStats {
  rows: number;
  paddedTokens: number;
  realTokens: number;
  seconds: number;
}

interface Pending {
  row: Row;
  /** performance.now() when it was queued. */
  queuedAt: number;
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
  /** Time in the queue: from submission until its first batch started, and between its batches. */
  queuedMs: number;
  /** Time while one of its batches ran (batches on separate lanes may overlap; that time counts once). */
  runMs: number;
  /** The part of runMs spent running the graph itself, by the share its batches report. */
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
 * rows × longest row stays within the token budget, rows × longest row² within the attention budget
 * (0: none), and the row limit holds. Returns queue indices.
 */
export function selectBatch(lengths: number[], tokenBudget: number, maxRows: number, attentionBudget = 0): number[] {
  if (lengths.length === 0) return [];
  const sorted = lengths.map((_, i) => i).sort((a, b) => lengths[a]! - lengths[b]! || a - b);
  const start = sorted.indexOf(0);
  let lo = start;
  let hi = start;
  const count = () => hi - lo + 1;
  const fits = (longest: number, rows: number) => rows <= maxRows && longest * rows <= tokenBudget && (attentionBudget <= 0 || longest * longest * rows <= attentionBudget);
  while (lo > 0 && fits(lengths[0]!, count() + 1)) lo--;
  while (hi < sorted.length - 1 && fits(lengths[sorted[hi + 1]!]!, count() + 1)) hi++;
  return sorted.slice(lo, hi + 1);
}

/** Length of the union of time intervals [from, to]. */
export function coveredMs(intervals: readonly (readonly [number, number])[]): number {
  let covered = 0;
  let reach = -Infinity;
  for (const [from, to] of [...intervals].sort((a, b) => a[0] - b[0])) {
    if (to <= reach) continue;
    covered += to - Math.max(from, reach);
    reach = to;
  }
  return covered;
}

function paddedTokens(batch: Pending[]): number {
  return batch.length * Math.max(...batch.map((p) => p.row.ids.length));
}

export class Batcher {
  private queue: Pending[] = [];
  /** Batches running now (inline or on the backend's lanes). */
  private running = 0;
  /** A batch runs over all the cores (inline or wide): nothing else starts until it ends. */
  private runningAlone = false;
  private closed = false;
  private nextBatchId = 0;
  /** Recent milliseconds per padded token of one batch on one lane (moving average; 0 until measured). */
  private msPerToken = 0;
  /** Σ row lengths queued (what the queue ahead costs to run). */
  private queuedTokens = 0;

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
    const maxWait = this.options.maxQueueWaitMs ?? 0;
    const waitMs = this.estimatedWaitMs(rows);
    if (maxWait > 0 && waitMs > maxWait) {
      throw new Overloaded(
        Math.max(this.options.overloadedRetryMs, Math.ceil(waitMs - maxWait)),
        `The inference queue would hold this call for about ${Math.ceil(waitMs)} ms, past the ${maxWait} ms bound; retry after the delay.`,
      );
    }
    const submittedAt = performance.now();
    const promises = rows.map(
      (row) =>
        new Promise<RowResult>((resolve, reject) => {
          this.queue.push({ row, queuedAt: submittedAt, signal, resolve, reject });
          this.queuedTokens += row.ids.length;
        }),
    );
    this.pump();
    const results = await Promise.all(promises);
    const batches = [...new Map(results.map((r) => [r.batch.id, r.batch])).values()];
    const runMs = coveredMs(batches.map((b) => [b.startedAt, b.startedAt + b.runMs] as const));
    const lastEnd = Math.max(...batches.map((b) => b.startedAt + b.runMs));
    const modelShare = batches.reduce((s, b) => s + b.modelMs, 0) / Math.max(1e-9, batches.reduce((s, b) => s + b.runMs, 0));
    return {
      logits: results.map((r) => r.logits),
      queuedMs: lastEnd - submittedAt - runMs,
      runMs,
      modelMs: runMs * Math.min(1, modelShare),
    };
  }

  /**
   * How long until the last of these rows could start: what is queued ahead and the rows before it,
   * at the recent time per padded token, spread over the lanes. 0 until a batch has been measured.
   */
  estimatedWaitMs(rows: Row[]): number {
    const own = rows.reduce((n, r) => n + r.ids.length, 0) - (rows.at(-1)?.ids.length ?? 0);
    return ((this.queuedTokens + own) * this.msPerToken) / this.backend.lanes;
  }

  private dropAbandoned(): void {
    const kept: Pending[] = [];
    const maxWait = this.options.maxQueueWaitMs ?? 0;
    const now = performance.now();
    for (const p of this.queue) {
      if (p.signal?.aborted) p.reject(new ClientGone());
      else if (maxWait > 0 && now - p.queuedAt > maxWait) p.reject(new Overloaded(this.options.overloadedRetryMs, 'The call waited in the inference queue past its bound; retry after the delay.'));
      else {
        kept.push(p);
        continue;
      }
      this.queuedTokens -= p.row.ids.length;
    }
    this.queue = kept;
  }

  private pump(): void {
    this.dropAbandoned();
    if (this.queue.length === 0 || this.runningAlone) return;
    if (this.running === 0) {
      // Alone: a lone row (which cannot be split between lanes), or everything queued when there is
      // only one lane, runs over all the cores; on the event-loop thread when it is small, which
      // costs nobody anything: calls that arrive meanwhile wait in the socket instead of the queue.
      // Without a wide session (Backend.wide false) a lone row that is not inline runs as a lane batch.
      const whole = this.select(this.options.maxRows);
      if (whole.length === this.queue.length && (whole.length === 1 || this.backend.lanes === 1)) {
        const inline = this.backend.runInline !== undefined && paddedTokens(whole.map((i) => this.queue[i]!)) <= (this.options.inlineMaxTokens ?? 0);
        if (inline || this.backend.wide !== false) {
          this.start(this.take(whole), inline ? 'inline' : 'wide');
          return;
        }
      }
    }
    while (this.running < this.backend.lanes && this.queue.length > 0) {
      // With lanes free and little queued, the rows are spread over the free lanes so that they run side
      // by side instead of on one lane's share of the cores; with more queued this cap does not bind.
      const free = this.backend.lanes - this.running;
      this.start(this.take(this.select(Math.min(this.options.maxRows, Math.ceil(this.queue.length / free)))), 'lane');
    }
  }

  /** Queue indices of the next batch, of at most `maxRows` rows. */
  private select(maxRows: number): number[] {
    return selectBatch(
      this.queue.map((p) => p.row.ids.length),
      this.options.tokenBudget,
      maxRows,
      this.options.attentionBudget,
    );
  }

  private take(indices: number[]): Pending[] {
    const chosen = new Set(indices);
    const batch = indices.map((i) => this.queue[i]!);
    this.queue = this.queue.filter((_, i) => !chosen.has(i));
    for (const p of batch) this.queuedTokens -= p.row.ids.length;
    return batch;
  }

  private start(batch: Pending[], where: 'inline' | 'wide' | 'lane'): void {
    this.running++;
    this.runningAlone = where !== 'lane';
    void this.runBatch(batch, where).finally(() => {
      this.running--;
      this.runningAlone = false;
      this.pump();
    });
  }

  private async runBatch(batch: Pending[], where: 'inline' | 'wide' | 'lane'): Promise<void> {
    const startedAt = performance.now();
    try {
      const rows = batch.map((p) => p.row);
      const { logits, markers, modelMs } = await (where === 'inline' ? this.backend.runInline!(rows) : this.backend.run(rows, { wide: where === 'wide' }));
      const runMs = performance.now() - startedAt;
      // Batches over all the cores (inline, wide) run faster per token than one lane's: the estimate
      // only learns from lane batches when there are several lanes, so it does not understate the wait.
      if (where === 'lane' || this.backend.lanes === 1) {
        const perToken = runMs / Math.max(1, paddedTokens(batch));
        this.msPerToken = this.msPerToken === 0 ? perToken : this.msPerToken * 0.8 + perToken * 0.2;
      }
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
    while (this.running > 0 || this.queue.length > 0) await new Promise((r) => setTimeout(r, 10));
    this.closed = true;
  }
}
