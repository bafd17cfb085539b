/** A call whose client disconnects while it waits in the queue is dropped before it runs, and not charged. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startServer } from '../helpers/server.js';

const CHECKPOINT = 'core-0.3.20';

test('an abandoned queued call is not run and not charged', async () => {
  // A budget of 800 padded tokens cuts the busy calls' 64 short rows into several batches and keeps
  // the abandoned call's long row (over 400 tokens) out of all of them: it can only run after the
  // last busy row, so it is still queued when its client hangs up, however fast the host is.
  const server = await startServer({ env: { STRUCTQA_BATCH_TOKEN_BUDGET: '800' } });
  try {
    const auth = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });
    const usage = async (key: string) =>
      (await (await fetch(`${server.url}/v1/usage`, { headers: auth(key) })).json()) as { requests: number; reserved: number };
    const queuedRows = async () => {
      const body = (await (await fetch(`${server.url}/readyz`)).json()) as { checkpoints: Record<string, { queued_rows: number }> };
      return body.checkpoints[CHECKPOINT]!.queued_rows;
    };
    const waitUntil = async (check: () => Promise<boolean>, what: string) => {
      const until = Date.now() + 30_000;
      while (!(await check())) {
        if (Date.now() > until) throw new Error(`timed out waiting until ${what}`);
        await new Promise((r) => setTimeout(r, 2));
      }
    };

    const many = Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`q${i}`, { type: 'noul', instructions: `Statement ${i}?` }]));
    const short = JSON.stringify({ state: 'A parcel arrived late and damaged. '.repeat(5), questions: many });
    const busy = [1, 2].map(() => fetch(`${server.url}/v1/systemone`, { method: 'POST', headers: auth(server.firstKey), body: short }));
    await waitUntil(async () => (await queuedRows()) > 0, 'busy rows wait behind a running batch');

    // The abandoned call comes from its own account, so that account's reservation shows when the call is admitted.
    const callerKey = await server.createKey();
    const gone = new AbortController();
    const abandoned = fetch(`${server.url}/v1/systemone`, {
      method: 'POST',
      headers: auth(callerKey),
      body: JSON.stringify({ state: 'This caller explains at length and then hangs up. '.repeat(30), questions: { q: { type: 'noul', instructions: 'Anyone there?' } } }),
      signal: gone.signal,
    });
    await waitUntil(async () => (await usage(callerKey)).reserved > 0, 'the abandoned call is admitted');
    assert.ok((await queuedRows()) > 1, 'busy rows are still queued ahead of the abandoned row');
    gone.abort();
    await assert.rejects(abandoned);

    for (const res of await Promise.all(busy)) {
      assert.equal(res.status, 200);
      await res.text(); // read the answer, so that its connection goes idle before the stop
    }
    await waitUntil(async () => (await usage(callerKey)).reserved === 0, 'the abandoned call released its reservation');
    assert.equal((await usage(callerKey)).requests, 0, 'the abandoned call is not charged');
    assert.equal((await usage(server.firstKey)).requests, 2, 'the two answered calls are charged');
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    const runRows = new RegExp(`structqa_batch_rows_sum\\{checkpoint="${CHECKPOINT}"\\} (\\d+)`).exec(metrics);
    assert.ok(runRows, metrics.slice(0, 500));
    assert.equal(Number(runRows[1]), 64, 'the model ran the 64 rows of the answered calls and not the abandoned row');
  } finally {
    await server.stop();
  }
});
