import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Batcher, ClientGone, coveredMs, selectBatch } from '../../src/engine/batcher.js';
import type { Backend } from '../../src/engine/backend.js';
import type { Row } from '../../src/engine/layout.js';
import { Overloaded } from '../../src/errors.js';

/** TEST FIXTURE: a backend that records the batches it is given and answers logit = row length. */
class RecordingBackend implements Backend {
  batches: number[][] = [];
  /** Batches held (gate on), oldest first, each with what lets it finish. */
  held: (() => void)[] = [];
  /** The most batches that ran at the same time. */
  mostAtOnce = 0;
  modelMs?: number;
  private runningNow = 0;
  constructor(
    private readonly gate = false,
    readonly lanes = 1,
  ) {}
  /** Wait until a batch is held, then let the oldest held one finish. */
  async releaseNext() {
    while (this.held.length === 0) await new Promise((r) => setImmediate(r));
    this.held.shift()!();
    await new Promise((r) => setImmediate(r));
  }
  async run(rows: Row[]) {
    this.batches.push(rows.map((r) => r.ids.length));
    this.mostAtOnce = Math.max(this.mostAtOnce, ++this.runningNow);
    try {
      if (this.gate) await new Promise<void>((r) => this.held.push(r));
    } finally {
      this.runningNow--;
    }
    const markers = Math.max(...rows.map((r) => r.markers.length));
    const logits = new Float32Array(rows.length * markers).fill(-1e4);
    rows.forEach((r, i) => r.markers.forEach((_, j) => (logits[i * markers + j] = r.ids.length + j)));
    return { logits, markers, modelMs: this.modelMs };
  }
  async close() {}
}

/** TEST FIXTURE: a RecordingBackend that can also run on the calling thread, recording where each batch ran. */
class InlineRecordingBackend extends RecordingBackend {
  paths: ('lane' | 'wide' | 'inline')[] = [];
  override async run(rows: Row[], opts: { wide?: boolean } = {}) {
    this.paths.push(opts.wide ? 'wide' : 'lane');
    return super.run(rows);
  }
  async runInline(rows: Row[]) {
    this.paths.push('inline');
    return super.run(rows);
  }
}

const row = (length: number, markers = 2): Row => ({ ids: new Int32Array(length), markers: Array.from({ length: markers }, (_, i) => i + 1), qtype: 2 });
const options = { tokenBudget: 100, maxRows: 4, maxQueuedRows: 10, overloadedRetryMs: 500 };

test('selectBatch: always the oldest row, then shorter ones, then longer ones within budget and row limit', () => {
  const table: { lengths: number[]; budget: number; maxRows: number; expected: number[] }[] = [
    { lengths: [10], budget: 5, maxRows: 4, expected: [0] }, // oversize oldest still runs alone
    { lengths: [10, 5, 20, 10], budget: 40, maxRows: 8, expected: [1, 0, 3] }, // 3 × 10 = 30; adding 20 → 80
    { lengths: [10, 5, 20, 10], budget: 80, maxRows: 8, expected: [1, 0, 3, 2] },
    { lengths: [10, 5, 6, 7], budget: 1000, maxRows: 2, expected: [3, 0] },
    { lengths: [50, 10, 10, 60], budget: 120, maxRows: 8, expected: [2, 0] }, // 2 × 50 fits, 3 × 50 does not
  ];
  for (const { lengths, budget, maxRows, expected } of table) {
    const picked = selectBatch(lengths, budget, maxRows);
    assert.ok(picked.includes(0), `oldest row always picked for ${lengths}`);
    assert.deepEqual(picked, expected, `lengths=${lengths} budget=${budget} maxRows=${maxRows}`);
    const longest = Math.max(...picked.map((i) => lengths[i]!));
    if (picked.length > 1) assert.ok(longest * picked.length <= budget);
    assert.ok(picked.length <= maxRows);
  }
});

test('selectBatch: the attention budget (rows × longest²) keeps long rows one or two a run, and leaves short ones alone', () => {
  const A = 512 * 512;
  const table: { lengths: number[]; attention: number; expected: number[] }[] = [
    { lengths: [512, 512, 512], attention: A, expected: [0] }, // the token budget alone would take two
    { lengths: [512, 512, 512], attention: 0, expected: [0, 1] }, // 0: no bound
    { lengths: [384, 384, 200], attention: A, expected: [0] }, // 2 × 384² is over, also for the shorter row, padded to 384
    { lengths: [200, 384, 100], attention: A, expected: [2, 0] }, // 2 × 200² fits; 3 × 384² would not
    { lengths: [300, 300, 300], attention: A, expected: [0, 1] }, // 2 × 300² fits, 3 × 300² does not (the token budget would take 3)
    { lengths: [256, 256, 256, 256, 256], attention: A, expected: [0, 1, 2, 3] }, // 4 × 256² = 512²: what the token budget takes anyway
    { lengths: [700, 10, 10], attention: A, expected: [0] }, // an over-budget oldest row still runs, alone: nothing fits beside 700² (padded to its length)
  ];
  for (const { lengths, attention, expected } of table) {
    const picked = selectBatch(lengths, 1024, 64, attention);
    const longest = Math.max(...picked.map((i) => lengths[i]!));
    assert.deepEqual(picked, expected, `lengths=${lengths} attention=${attention}`);
    if (picked.length > 1 && attention > 0) assert.ok(longest * longest * picked.length <= attention);
  }
});

test('a lone request runs at once (no idle timer) and gets each row sliced to its own markers', async () => {
  const backend = new RecordingBackend();
  const batcher = new Batcher(backend, options);
  const { logits } = await batcher.submit([row(7, 3), row(5, 2)]);
  assert.equal(logits[0]!.length, 3);
  assert.equal(logits[1]!.length, 2);
  assert.deepEqual(Array.from(logits[1]!), [5, 6]);
});

test('a request learns how long it waited and ran; the model time is what the backend reports', async () => {
  const backend = new RecordingBackend(true);
  backend.modelMs = 0.25;
  const batcher = new Batcher(backend, { ...options, tokenBudget: 20 });
  const first = batcher.submit([row(10)]);
  await new Promise((r) => setImmediate(r));
  const second = batcher.submit([row(10), row(10), row(10)]); // 3 × 10 > 20: two batches
  await new Promise((r) => setTimeout(r, 30));
  await backend.releaseNext();
  const a = await first;
  assert.ok(a.runMs >= 25, `first: held ~30 ms in the backend (${JSON.stringify(a)})`);
  assert.ok(a.queuedMs < a.runMs, JSON.stringify(a));
  assert.ok(Math.abs(a.modelMs - 0.25) < 1e-9, `${a.modelMs}`);
  for (let i = 0; i < 2; i++) {
    await new Promise((r) => setTimeout(r, 5)); // each held longer than the 0.25 ms it reports as model time
    await backend.releaseNext();
  }
  const b = await second;
  assert.ok(b.queuedMs >= 25, `second: waited behind the first (${b.queuedMs} ms)`);
  assert.ok(Math.abs(b.modelMs - 0.5) < 1e-9, `the model time of both of its batches, one after the other (${b.modelMs})`);
  assert.deepEqual(backend.batches, [[10], [10, 10], [10]]);
});

test('rows queued while the backend runs are batched together on the next run', async () => {
  const backend = new RecordingBackend(true);
  const batcher = new Batcher(backend, options);
  const first = batcher.submit([row(10)]);
  await new Promise((r) => setImmediate(r));
  const second = batcher.submit([row(10), row(12)]);
  const third = batcher.submit([row(11)]);
  await backend.releaseNext();
  await first;
  await new Promise((r) => setImmediate(r));
  await backend.releaseNext();
  await Promise.all([second, third]);
  assert.deepEqual(backend.batches, [[10], [10, 11, 12]]);
});

test('a full queue answers 529 overloaded without queueing anything', async () => {
  const backend = new RecordingBackend(true);
  const batcher = new Batcher(backend, { ...options, maxQueuedRows: 3 });
  const running = batcher.submit([row(5)]);
  await new Promise((r) => setImmediate(r));
  const queued = batcher.submit([row(5), row(5)]);
  await assert.rejects(batcher.submit([row(5), row(5)]), (e: unknown) => e instanceof Overloaded && e.status === 529);
  assert.equal(batcher.depth, 2);
  await backend.releaseNext();
  await running;
  await new Promise((r) => setImmediate(r));
  await backend.releaseNext();
  await queued;
});

test('rows of a request whose client has gone are dropped before they run', async () => {
  const backend = new RecordingBackend(true);
  const batcher = new Batcher(backend, options);
  const running = batcher.submit([row(5)]);
  await new Promise((r) => setImmediate(r));
  const gone = new AbortController();
  const abandoned = batcher.submit([row(9), row(9)], gone.signal);
  const kept = batcher.submit([row(6)]);
  const dropped = assert.rejects(abandoned, (e: unknown) => e instanceof ClientGone);
  gone.abort();
  await backend.releaseNext();
  await running;
  await dropped;
  await new Promise((r) => setImmediate(r));
  await backend.releaseNext();
  await kept;
  assert.deepEqual(backend.batches, [[5], [6]]);
});

test('with one lane: a small batch that nothing else waits behind runs inline; anything else on the lane', async () => {
  const backend = new InlineRecordingBackend(true);
  const batcher = new Batcher(backend, { ...options, tokenBudget: 40, inlineMaxTokens: 20 });
  const lone = batcher.submit([row(10), row(8)]); // 2 × 10 = 20 padded tokens, nothing else queued
  await backend.releaseNext();
  await lone;
  assert.deepEqual(backend.paths, ['inline']);

  const big = batcher.submit([row(10), row(10), row(7)]); // 30 padded tokens > 20: alone, over all the cores
  await backend.releaseNext();
  await big;
  assert.deepEqual(backend.paths, ['inline', 'wide']);

  // While one batch runs, 5 rows queue up; the row limit (4) cuts them into 4 + 1 rows.
  const running = batcher.submit([row(30)]);
  await new Promise((r) => setImmediate(r));
  const waiting = batcher.submit([row(5), row(5), row(5), row(5), row(5)]);
  await backend.releaseNext(); // the 30-token row: 30 > 20
  await running;
  await backend.releaseNext(); // 4 of the 5 rows, with one left behind them
  await backend.releaseNext(); // the last row, alone and small: inline
  await waiting;
  assert.deepEqual(backend.batches.slice(2), [[30], [5, 5, 5, 5], [5]]);
  assert.deepEqual(backend.paths, ['inline', 'wide', 'wide', 'lane', 'inline']);
});

test('no batch runs inline when the limit is 0 or the backend cannot run inline', async () => {
  const off = new InlineRecordingBackend();
  await new Batcher(off, { ...options, inlineMaxTokens: 0 }).submit([row(5)]);
  assert.deepEqual(off.paths, ['wide']);
  const plain = new RecordingBackend();
  await new Batcher(plain, { ...options, inlineMaxTokens: 1000 }).submit([row(5)]);
  assert.deepEqual(plain.batches, [[5]]);
});

test('coveredMs: the length of the union of intervals', () => {
  const table: { intervals: [number, number][]; expected: number }[] = [
    { intervals: [[0, 10]], expected: 10 },
    { intervals: [[0, 10], [10, 15]], expected: 15 }, // one after another
    { intervals: [[0, 10], [2, 8]], expected: 10 }, // one inside the other
    { intervals: [[5, 12], [0, 10]], expected: 12 }, // overlapping, out of order
    { intervals: [[0, 4], [6, 9]], expected: 7 }, // a gap between them does not count
  ];
  for (const { intervals, expected } of table) assert.equal(coveredMs(intervals), expected, JSON.stringify(intervals));
});

test('with two lanes, two batches run at once and never more; rows queued meanwhile wait for a free lane', async () => {
  const backend = new RecordingBackend(true, 2);
  const batcher = new Batcher(backend, options);
  const first = batcher.submit([row(10), row(10)]); // one row on each lane
  await new Promise((r) => setImmediate(r));
  const second = batcher.submit([row(9), row(12), row(11)]); // both lanes busy: waits
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(backend.batches, [[10], [10]]);
  await backend.releaseNext();
  assert.deepEqual(backend.batches.at(-1), [9, 11, 12], 'the freed lane takes the waiting rows');
  await backend.releaseNext();
  await backend.releaseNext();
  await Promise.all([first, second]);
  assert.equal(backend.mostAtOnce, 2);
});

test('an idle backend spreads a lone batch over its free lanes; a busy queue fills whole batches', async () => {
  const backend = new RecordingBackend(true, 2);
  const batcher = new Batcher(backend, options);
  const lone = batcher.submit([row(10), row(10), row(10)]);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(backend.batches, [[10, 10], [10]], 'two lanes free: the rows are split between them');
  const queued = batcher.submit(Array.from({ length: 8 }, () => row(10)));
  await backend.releaseNext();
  await backend.releaseNext();
  await lone;
  // 8 rows queued, two lanes free: the row limit (4) binds before the spread does.
  assert.deepEqual(backend.batches.slice(2), [[10, 10, 10, 10], [10, 10, 10, 10]]);
  await backend.releaseNext();
  await backend.releaseNext();
  await queued;
});

test('a call whose batches ran side by side counts the overlap once', async () => {
  const backend = new RecordingBackend(true, 2);
  backend.modelMs = 0.25;
  const batcher = new Batcher(backend, options);
  const call = batcher.submit([row(10), row(10)]); // spread: one row per lane, both held together
  await new Promise((r) => setTimeout(r, 30));
  await backend.releaseNext();
  await backend.releaseNext();
  const { runMs, queuedMs, modelMs } = await call;
  assert.equal(backend.mostAtOnce, 2);
  assert.ok(runMs >= 25 && runMs < 45, `both batches held ~30 ms at the same time, not 60 (${runMs})`);
  assert.ok(queuedMs < 5, `neither waited (${queuedMs})`);
  assert.ok(Math.abs(modelMs - 0.25) < 0.05, `each batch's model share of the shared time (${modelMs})`);
});

test('with lanes: a lone row runs alone over all the cores, and nothing starts beside it', async () => {
  const backend = new InlineRecordingBackend(true, 2);
  const batcher = new Batcher(backend, { ...options, inlineMaxTokens: 20 });
  const long = batcher.submit([row(30)]); // one row, 30 > 20: wide
  await new Promise((r) => setImmediate(r));
  const small = batcher.submit([row(5)]); // waits: the lone row holds every core
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(backend.paths, ['wide']);
  await backend.releaseNext();
  await long;
  await backend.releaseNext(); // then alone and small: inline
  await small;
  assert.deepEqual(backend.paths, ['wide', 'inline']);
  assert.equal(backend.mostAtOnce, 1);
});

test('with lanes and no wide session: a lone row over the inline budget runs on a lane, and the next one beside it', async () => {
  const backend = Object.assign(new InlineRecordingBackend(true, 2), { wide: false });
  const batcher = new Batcher(backend, { ...options, inlineMaxTokens: 20 });
  const long = batcher.submit([row(30)]); // one row, 30 > 20, and no session over all the cores: a lane
  await new Promise((r) => setImmediate(r));
  const other = batcher.submit([row(30)]); // the other lane is free: it starts at once
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(backend.paths, ['lane', 'lane']);
  assert.equal(backend.mostAtOnce, 2);
  await backend.releaseNext();
  await backend.releaseNext();
  await Promise.all([long, other]);
  const small = batcher.submit([row(5)]); // alone and within the budget: still inline
  await backend.releaseNext();
  await small;
  assert.deepEqual(backend.paths, ['lane', 'lane', 'inline']);
});

test('with lanes: nothing runs inline or wide while a lane is busy', async () => {
  const backend = new InlineRecordingBackend(true, 2);
  const batcher = new Batcher(backend, { ...options, inlineMaxTokens: 20 });
  const pair = batcher.submit([row(10), row(10)]); // two rows: spread over both lanes
  await new Promise((r) => setImmediate(r));
  const small = batcher.submit([row(5)]); // both lanes busy: waits
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(backend.paths, ['lane', 'lane']);
  await backend.releaseNext(); // one lane frees while the other still runs: the small row takes it
  assert.deepEqual(backend.paths, ['lane', 'lane', 'lane']);
  await backend.releaseNext();
  await backend.releaseNext();
  await Promise.all([pair, small]);
});
