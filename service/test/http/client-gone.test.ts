/** A call whose client disconnects while it waits in the queue is dropped before it runs, and not charged. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startServer } from '../helpers/server.js';

test('an abandoned queued call is not run and not charged', async () => {
  const server = await startServer();
  try {
    const headers = { authorization: `Bearer ${server.firstKey}`, 'content-type': 'application/json' };
    const many = Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`q${i}`, { type: 'noul', instructions: `Statement ${i}?` }]));
    const slow = JSON.stringify({ state: 'A parcel arrived late and damaged. '.repeat(5), questions: many });
    // occupy the backend with two big calls so that the next call waits in the queue
    const busy = [fetch(`${server.url}/v1/systemone`, { method: 'POST', headers, body: slow }), fetch(`${server.url}/v1/systemone`, { method: 'POST', headers, body: slow })];
    await new Promise((r) => setTimeout(r, 100));
    const gone = new AbortController();
    const abandoned = fetch(`${server.url}/v1/systemone`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ state: 'This caller will hang up.', questions: { q: { type: 'noul', instructions: 'Anyone there?' } } }),
      signal: gone.signal,
    });
    await new Promise((r) => setTimeout(r, 50));
    gone.abort();
    await assert.rejects(abandoned);
    for (const res of await Promise.all(busy)) assert.equal(res.status, 200);
    await new Promise((r) => setTimeout(r, 300));
    const usage = (await (await fetch(`${server.url}/v1/usage`, { headers })).json()) as { requests: number; reserved: number };
    assert.equal(usage.requests, 2, 'only the two answered calls are charged');
    assert.equal(usage.reserved, 0, 'the abandoned call released its reservation');
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    const rows = /structqa_batch_rows_count\{checkpoint="core-0.3.20"\} (\d+)/.exec(metrics);
    const runRows = /structqa_batch_rows_sum\{checkpoint="core-0.3.20"\} (\d+)/.exec(metrics);
    assert.ok(rows && runRows, metrics.slice(0, 500));
    assert.equal(Number(runRows![1]), 64, 'the model ran the 64 rows of the answered calls and not the abandoned row');
  } finally {
    await server.stop();
  }
});
