/**
 * Issue 20, item 7: the queue refuses up front (529 overloaded, Retry-After) a call it could not start
 * within its wait bound, instead of holding it past the client's timeout; a row that waited past the
 * bound anyway is dropped the same way.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Batcher } from '../../src/engine/batcher.js';
import type { Backend } from '../../src/engine/backend.js';
import type { Row } from '../../src/engine/layout.js';
import { Overloaded } from '../../src/errors.js';

/** TEST FIXTURE: a one-lane backend whose batches run until the test lets them finish. */
class HeldBackend implements Backend {
  readonly lanes = 1;
  held: (() => void)[] = [];
  async run(rows: Row[]) {
    await new Promise<void>((r) => this.held.push(r));
    const markers = Math.max(...rows.map((r) => r.markers.length));
    return { logits: new Float32Array(rows.length * markers), markers };
  }
  async finishAll() {
    while (this.held.length === 0) await new Promise((r) => setTimeout(r, 5));
    this.held.splice(0).forEach((f) => f());
    await new Promise((r) => setImmediate(r));
  }
  async close() {}
}

const row = (length: number): Row => ({ ids: new Int32Array(length), markers: [1, 2], qtype: 2 });

test('a call that could not start within the bound is refused at once with 529 and a Retry-After; a short queue is not', async () => {
  const backend = new HeldBackend();
  const batcher = new Batcher(backend, { tokenBudget: 64, maxRows: 4, maxQueuedRows: 10_000, overloadedRetryMs: 100, maxQueueWaitMs: 200 });
  // one measured batch: 4 rows × 16 tokens, held ~60 ms → about 1 ms per padded token
  const first = batcher.submit([row(16), row(16), row(16), row(16)]);
  await new Promise((r) => setTimeout(r, 60));
  await backend.finishAll();
  await first;
  assert.ok(batcher.estimatedWaitMs([row(16)]) === 0, 'nothing queued: no wait');
  // calls of one row keep coming while the lane is busy: the queue grows until the next could not
  // start within 200 ms (about 13 rows of 16 tokens at that rate), and that one is refused at once
  const accepted: Promise<unknown>[] = [];
  let refused: unknown;
  for (let i = 0; i < 1000 && !refused; i++) {
    const p = batcher.submit([row(16)]);
    p.catch(() => undefined);
    // a refusal comes at once; an accepted call stays pending (its lane is held)
    const outcome = await Promise.race([p.then(() => 'answered', (e: unknown) => e), new Promise((r) => setTimeout(() => r('pending'), 1))]);
    if (outcome === 'pending') accepted.push(p);
    else refused = outcome;
  }
  assert.ok(refused instanceof Overloaded, String(refused));
  assert.equal(refused.status, 529);
  assert.ok(Number(refused.headers['retry-after-ms']) >= 100);
  assert.ok(accepted.length >= 5 && accepted.length < 100, `accepted ${accepted.length}`);
  // the accepted ones run
  let settled = false;
  void Promise.allSettled(accepted).then(() => (settled = true));
  while (!settled) {
    backend.held.splice(0).forEach((f) => f());
    await new Promise((r) => setTimeout(r, 5));
  }
});

test('a row that waited past the bound is dropped with 529 before it runs', async () => {
  const backend = new HeldBackend();
  const batcher = new Batcher(backend, { tokenBudget: 16, maxRows: 1, maxQueuedRows: 100, overloadedRetryMs: 100, maxQueueWaitMs: 50 });
  const running = batcher.submit([row(16)]); // holds the only lane (not measured yet: estimate 0)
  const waiting = batcher.submit([row(16)]);
  waiting.catch(() => undefined);
  await new Promise((r) => setTimeout(r, 120)); // longer than the bound
  await backend.finishAll();
  await running;
  await assert.rejects(waiting, Overloaded);
});
