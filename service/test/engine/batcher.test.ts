import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Batcher, ClientGone, selectBatch } from '../../src/engine/batcher.js';
import type { Backend } from '../../src/engine/backend.js';
import type { Row } from '../../src/engine/layout.js';
import { Overloaded } from '../../src/errors.js';

/** TEST FIXTURE: a backend that records the batches it is given and answers logit = row length. */
class RecordingBackend implements Backend {
  batches: number[][] = [];
  release?: () => void;
  modelMs?: number;
  constructor(private readonly gate = false) {}
  /** Wait until a batch is held, then let it finish. */
  async releaseNext() {
    while (!this.release) await new Promise((r) => setImmediate(r));
    const release = this.release;
    this.release = undefined;
    release();
  }
  async run(rows: Row[]) {
    this.batches.push(rows.map((r) => r.ids.length));
    if (this.gate) await new Promise<void>((r) => (this.release = r));
    const markers = Math.max(...rows.map((r) => r.markers.length));
    const logits = new Float32Array(rows.length * markers).fill(-1e4);
    rows.forEach((r, i) => r.markers.forEach((_, j) => (logits[i * markers + j] = r.ids.length + j)));
    return { logits, markers, modelMs: this.modelMs };
  }
  async close() {}
}

/** TEST FIXTURE: a RecordingBackend that can also run on the calling thread, recording which path each batch took. */
class InlineRecordingBackend extends RecordingBackend {
  paths: ('worker' | 'inline')[] = [];
  override async run(rows: Row[]) {
    this.paths.push('worker');
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
  assert.equal(a.modelMs, 0.25);
  await backend.releaseNext();
  await backend.releaseNext();
  const b = await second;
  assert.ok(b.queuedMs >= 25, `second: waited behind the first (${b.queuedMs} ms)`);
  assert.equal(b.modelMs, 0.5, 'the model time of both of its batches');
  assert.deepEqual(backend.batches, [[10], [10, 10], [10]]);
});

test('rows queued while the backend runs are batched together on the next run', async () => {
  const backend = new RecordingBackend(true);
  const batcher = new Batcher(backend, options);
  const first = batcher.submit([row(10)]);
  await new Promise((r) => setImmediate(r));
  const second = batcher.submit([row(10), row(12)]);
  const third = batcher.submit([row(11)]);
  backend.release!();
  await first;
  await new Promise((r) => setImmediate(r));
  backend.release!();
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
  backend.release!();
  await running;
  await new Promise((r) => setImmediate(r));
  backend.release!();
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
  gone.abort();
  backend.release!();
  await running;
  await assert.rejects(abandoned, (e: unknown) => e instanceof ClientGone);
  await new Promise((r) => setImmediate(r));
  backend.release!();
  await kept;
  assert.deepEqual(backend.batches, [[5], [6]]);
});

test('a small batch that nothing else waits behind runs inline; anything else goes to the backend thread', async () => {
  const backend = new InlineRecordingBackend(true);
  const batcher = new Batcher(backend, { ...options, tokenBudget: 40, inlineMaxTokens: 20 });
  const lone = batcher.submit([row(10), row(8)]); // 2 × 10 = 20 padded tokens, nothing else queued
  await backend.releaseNext();
  await lone;
  assert.deepEqual(backend.paths, ['inline']);

  const big = batcher.submit([row(10), row(10), row(7)]); // 30 padded tokens > 20
  await backend.releaseNext();
  await big;
  assert.deepEqual(backend.paths, ['inline', 'worker']);

  // While one batch runs, 5 rows queue up; the row limit (4) cuts them into 4 + 1 rows.
  const running = batcher.submit([row(30)]);
  await new Promise((r) => setImmediate(r));
  const waiting = batcher.submit([row(5), row(5), row(5), row(5), row(5)]);
  await backend.releaseNext(); // the 30-token row: 30 > 20, backend thread
  await running;
  await backend.releaseNext(); // 4 of the 5 rows, with one left behind them: backend thread
  await backend.releaseNext(); // the last row, alone and small: inline
  await waiting;
  assert.deepEqual(backend.batches.slice(2), [[30], [5, 5, 5, 5], [5]]);
  assert.deepEqual(backend.paths, ['inline', 'worker', 'worker', 'worker', 'inline']);
});

test('no batch runs inline when the limit is 0 or the backend cannot run inline', async () => {
  const off = new InlineRecordingBackend();
  await new Batcher(off, { ...options, inlineMaxTokens: 0 }).submit([row(5)]);
  assert.deepEqual(off.paths, ['worker']);
  const plain = new RecordingBackend();
  await new Batcher(plain, { ...options, inlineMaxTokens: 1000 }).submit([row(5)]);
  assert.deepEqual(plain.batches, [[5]]);
});
