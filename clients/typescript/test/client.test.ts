/**
 * Behaviour of the client against the in-process fake server (test fixture): requests, retries,
 * server delays, deadline, idempotency key, request id. Waits go through a fake clock: `sleep`
 * records the delay and advances `now` without waiting.
 */

import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import {
  APITimeoutError,
  APIUserAbortError,
  AllowanceExhaustedError,
  AuthenticationError,
  Client,
  type ClientOptions,
  DeadlineExceededError,
  OverloadedError,
  RateLimitError,
  StructqaError,
  choice,
  noul,
  score,
} from '../src/index.js';
import { type FakeServer, type Handler, errorReply, okReply, startFakeServer } from './fixtures/fake-server.js';

const T0 = Date.UTC(2026, 10, 22, 5, 0, 0);

function fakeClock() {
  let t = T0;
  const sleeps: number[] = [];
  return {
    now: () => t,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      t += ms;
    },
    random: () => 0,
    sleeps,
  };
}

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function setup(handler: Handler, options: ClientOptions = {}) {
  server = await startFakeServer(handler);
  const clock = fakeClock();
  const client = new Client({ baseURL: `${server.url}/`, apiKey: 'sq_test_key', ...clock, ...options });
  return { server, clock, client };
}

/** Answer `replies` in order, then 200. */
const sequence = (...replies: ReturnType<typeof errorReply>[]): Handler => (req) => replies[req.n] ?? okReply(req.body);

const questions = {
  urgent: noul('Is it urgent?'),
  dept: choice('Which department?', { billing: null, technical: 'tech support' }),
  mood: score('How upset?', ['calm', 'annoyed', 'angry']),
};

describe('systemOne', () => {
  it('sends the documented request and returns typed answers with the request id', async () => {
    const { server, client } = await setup((req) => okReply(req.body));
    const res = await client.systemOne({ state: 'I was charged twice!', questions });
    assert.equal(server.requests.length, 1);
    const [req] = server.requests;
    assert.equal(req!.method, 'POST');
    assert.equal(req!.url, '/v1/systemone'); // trailing slash of baseURL stripped
    assert.equal(req!.headers.authorization, 'Bearer sq_test_key');
    assert.equal(req!.headers['content-type'], 'application/json');
    assert.match(String(req!.headers['idempotency-key']), /^[0-9a-f-]{36}$/);
    assert.equal(req!.headers['x-retry-count'], undefined);
    assert.deepEqual(req!.body, { state: 'I was charged twice!', questions, model: 'legacy-latest' });

    assert.match(res.requestId ?? '', /^req_[0-9a-f]{32}$/);
    assert.equal(res.model, 'core-0.3.20');
    assert.equal(res.answers.urgent.noul, 0.5);
    assert.equal(res.answers.dept.choice, 'billing');
    assert.equal(res.answers.dept.probabilities.technical, 0.5);
    assert.equal(res.answers.mood.probabilities['2'], 1 / 3);
    assert.equal(res.usage.processed_tokens, 20);
  });

  it('reads the request id from x-typesafe-request-id when x-request-id is absent', async () => {
    const { client } = await setup((req) => ({ ...okReply(req.body), headers: { 'x-request-id': '' } }));
    const res = await client.systemOne({ state: 's', questions: { a: noul() } });
    assert.match(res.requestId ?? '', /^req_[0-9a-f]{32}$/);
  });

  it('uses the per-call model, the client model, default headers and extra fields', async () => {
    const { server, client } = await setup((req) => okReply(req.body), { model: 'core-latest', defaultHeaders: { 'x-team': 'qa' } });
    await client.systemOne({ state: 's', questions: { a: noul() } });
    await client.systemOne({ state: 's', questions: { a: noul() }, model: 'core-0.3.20', trace: 'ignored-by-server' });
    assert.equal((server.requests[0]!.body as { model: string }).model, 'core-latest');
    assert.equal((server.requests[1]!.body as { model: string }).model, 'core-0.3.20');
    assert.equal((server.requests[1]!.body as { trace: string }).trace, 'ignored-by-server');
    assert.equal(server.requests[0]!.headers['x-team'], 'qa');
  });

  it('checks questions before sending', async () => {
    const { server, client } = await setup((req) => okReply(req.body));
    await assert.rejects(client.systemOne({ state: 's', questions: {} }), StructqaError);
    await assert.rejects(client.systemOne({ state: 's', questions: { s: { type: 'score', criteria: ['only one'] } } }), /at least two/);
    assert.throws(() => choice('x', ['a', 'b'] as never), /map/);
    assert.throws(() => score('x', { a: 1 } as never), /list/);
    assert.equal(server.requests.length, 0);
  });

  it('takes settings from SERVICE_BASE_URL and SERVICE_API_KEY', async () => {
    server = await startFakeServer((req) => okReply(req.body));
    const saved = { ...process.env };
    try {
      process.env.SERVICE_BASE_URL = server.url;
      process.env.SERVICE_API_KEY = ' sq_from_env ';
      const client = new Client();
      assert.equal(client.baseURL, server.url);
      assert.equal(client.model, 'legacy-latest');
      assert.equal(client.timeoutMs, 10_000);
      assert.equal(client.retry.maxRetries, 2);
      await client.systemOne({ state: 's', questions: { a: noul() } });
      assert.equal(server.requests[0]!.headers.authorization, 'Bearer sq_from_env');
      delete process.env.SERVICE_API_KEY;
      assert.throws(() => new Client(), /SERVICE_API_KEY/);
      delete process.env.SERVICE_BASE_URL;
      assert.throws(() => new Client({ apiKey: 'k' }), /SERVICE_BASE_URL/);
    } finally {
      process.env = saved;
    }
  });
});

describe('retries', () => {
  it('retries 529 then succeeds, honouring retry-after-ms, with X-Retry-Count and one Idempotency-Key', async () => {
    const busy = errorReply(529, 'overloaded', {}, { 'retry-after': '1', 'retry-after-ms': '250' });
    const { server, clock, client } = await setup(sequence(busy, busy));
    const res = await client.systemOne({ state: 's', questions: { a: noul() } });
    assert.equal(res.answers.a.noul, 0.5);
    assert.equal(server.requests.length, 3);
    assert.deepEqual(clock.sleeps, [250, 250]);
    assert.deepEqual(server.requests.map((r) => r.headers['x-retry-count']), [undefined, '1', '2']);
    const keys = new Set(server.requests.map((r) => r.headers['idempotency-key']));
    assert.equal(keys.size, 1, 'the same Idempotency-Key on every attempt');
    // a new call gets a new key
    await client.systemOne({ state: 's', questions: { a: noul() } });
    assert.notEqual(server.requests[3]!.headers['idempotency-key'], server.requests[0]!.headers['idempotency-key']);
  });

  it('uses a caller-given Idempotency-Key on every attempt', async () => {
    const { server, client } = await setup(sequence(errorReply(500, 'internal_error')));
    await client.systemOne({ state: 's', questions: { a: noul() } }, { idempotencyKey: 'order-42' });
    assert.deepEqual(server.requests.map((r) => r.headers['idempotency-key']), ['order-42', 'order-42']);
  });

  it('honours Retry-After in seconds when retry-after-ms is absent (429)', async () => {
    const { clock, client } = await setup(sequence(errorReply(429, 'rate_limited', {}, { 'retry-after': '2' })));
    await client.systemOne({ state: 's', questions: { a: noul() } });
    assert.deepEqual(clock.sleeps, [2000]);
  });

  it('honours Retry-After as an HTTP date', async () => {
    const { clock, client } = await setup(sequence(errorReply(429, 'rate_limited', {}, { 'retry-after': new Date(T0 + 3000).toUTCString() })));
    await client.systemOne({ state: 's', questions: { a: noul() } });
    assert.deepEqual(clock.sleeps, [3000]);
  });

  it('ignores server delays over 60 s in favour of backoff; backs off without headers', async () => {
    const { clock, client } = await setup(sequence(errorReply(529, 'starting', {}, { 'retry-after-ms': '90000' }), errorReply(503, 'x')));
    await client.systemOne({ state: 's', questions: { a: noul() } });
    assert.deepEqual(clock.sleeps, [500, 1000]);
  });

  it('gives up after maxRetries with the last error', async () => {
    const busy = errorReply(529, 'overloaded', {}, { 'retry-after-ms': '10' });
    const { server, client } = await setup(() => busy);
    const e = await client.systemOne({ state: 's', questions: { a: noul() } }).catch((x: unknown) => x);
    assert.ok(e instanceof OverloadedError);
    assert.equal(e.retryAfterMs, 10);
    assert.equal(server.requests.length, 3);
  });

  it('per-call maxRetries overrides the client', async () => {
    const { server, client } = await setup(() => errorReply(429, 'rate_limited', {}, { 'retry-after-ms': '1' }));
    await assert.rejects(client.systemOne({ state: 's', questions: { a: noul() } }, { maxRetries: 0 }), RateLimitError);
    assert.equal(server.requests.length, 1);
  });

  it('never retries 402 or other 4xx', async () => {
    const allowance = errorReply(402, 'allowance_exhausted', { allowance: 10, used: 10, resets_at: '2026-12-01T00:00:00Z' }, { 'retry-after-ms': '1' });
    const { server, clock, client } = await setup(() => allowance);
    await assert.rejects(client.systemOne({ state: 's', questions: { a: noul() } }), AllowanceExhaustedError);
    assert.equal(server.requests.length, 1);
    assert.deepEqual(clock.sleeps, []);
    const s2 = await setup(() => errorReply(401, 'invalid_api_key'));
    await assert.rejects(s2.client.systemOne({ state: 's', questions: { a: noul() } }), AuthenticationError);
    assert.equal(s2.server.requests.length, 1);
    await server.close();
  });

  it('retries connection errors', async () => {
    const { server, client } = await setup((req) => (req.n === 0 ? 'destroy' : okReply(req.body)));
    await client.systemOne({ state: 's', questions: { a: noul() } });
    assert.equal(server.requests.length, 2);
    assert.equal(server.requests[1]!.headers['x-retry-count'], '1');
  });

  it('retries a per-attempt timeout (real timers)', async () => {
    server = await startFakeServer((req) => (req.n === 0 ? 'hang' : okReply(req.body)));
    const client = new Client({ baseURL: server.url, apiKey: 'k', timeoutMs: 100, sleep: async () => {} });
    const res = await client.systemOne({ state: 's', questions: { a: noul() } });
    assert.equal(res.answers.a.noul, 0.5);
    assert.equal(server.requests.length, 2);
  });

  it('throws APITimeoutError when every attempt times out', async () => {
    server = await startFakeServer(() => 'hang');
    const client = new Client({ baseURL: server.url, apiKey: 'k', timeoutMs: 50, maxRetries: 1, sleep: async () => {} });
    const e = await client.systemOne({ state: 's', questions: { a: noul() } }).catch((x: unknown) => x);
    assert.ok(e instanceof APITimeoutError);
    assert.equal(e.timeoutMs, 50);
    assert.equal(server.requests.length, 2);
  });
});

describe('deadline', () => {
  it('stops retrying when the next wait would pass the deadline (fake clock)', async () => {
    const busy = errorReply(529, 'overloaded', {}, { 'retry-after-ms': '1000' });
    const { server, clock, client } = await setup(() => busy, { maxRetries: 5 });
    const e = await client.systemOne({ state: 's', questions: { a: noul() } }, { deadlineMs: 1500 }).catch((x: unknown) => x);
    assert.ok(e instanceof DeadlineExceededError, String(e));
    assert.ok(e.lastError instanceof OverloadedError);
    assert.equal(e.attempts, 2);
    assert.equal(server.requests.length, 2);
    assert.deepEqual(clock.sleeps, [1000]); // the second 1000 ms wait was never started
  });

  it('the client-wide deadlineMs applies to every call', async () => {
    const { server, client } = await setup(() => errorReply(429, 'rate_limited', {}, { 'retry-after-ms': '800' }), { deadlineMs: 500 });
    await assert.rejects(client.systemOne({ state: 's', questions: { a: noul() } }), DeadlineExceededError);
    assert.equal(server.requests.length, 1);
  });

  it('an absolute deadlineAt already passed sends nothing', async () => {
    const { server, client } = await setup((req) => okReply(req.body));
    await assert.rejects(client.systemOne({ state: 's', questions: { a: noul() } }, { deadlineAt: T0 - 1 }), DeadlineExceededError);
    assert.equal(server.requests.length, 0);
  });

  it('cuts a slow attempt at the deadline instead of the 10 s timeout (real timers)', async () => {
    server = await startFakeServer(() => 'hang');
    const client = new Client({ baseURL: server.url, apiKey: 'k' });
    const started = Date.now();
    const e = await client.systemOne({ state: 's', questions: { a: noul() } }, { deadlineMs: 150 }).catch((x: unknown) => x);
    const took = Date.now() - started;
    assert.ok(e instanceof DeadlineExceededError, String(e));
    assert.ok(e.lastError instanceof APITimeoutError);
    assert.ok(took < 1000, `took ${took} ms`);
    assert.equal(server.requests.length, 1);
  });
});

describe('abort, models, usage', () => {
  it('an aborted signal stops the call, including a retry wait', async () => {
    const { client } = await setup(() => errorReply(529, 'overloaded', {}, { 'retry-after-ms': '10' }), {
      sleep: (_ms, signal) =>
        new Promise((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason), { once: true })),
    });
    const controller = new AbortController();
    const p = client.systemOne({ state: 's', questions: { a: noul() } }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(p, APIUserAbortError);
    const pre = new AbortController();
    pre.abort();
    await assert.rejects(client.systemOne({ state: 's', questions: { a: noul() } }, { signal: pre.signal }), APIUserAbortError);
  });

  it('models.list() unwraps {"models": [...]}', async () => {
    const models = [{ name: 'legacy-latest', description: 'alias', release_date: '2026-11-01' }];
    const { server, client } = await setup(() => ({ status: 200, body: { models } }));
    assert.deepEqual(await client.models.list(), models);
    assert.equal(server.requests[0]!.method, 'GET');
    assert.equal(server.requests[0]!.url, '/v1/models');
    assert.equal(server.requests[0]!.headers['idempotency-key'], undefined);
  });

  it('usage() GETs /v1/usage with the key', async () => {
    const report = { allowance: 1_000_000, used: 1234, resets_at: '2026-12-01T00:00:00Z' };
    const { server, client } = await setup(() => ({ status: 200, body: report }));
    assert.deepEqual(await client.usage(), report);
    assert.equal(server.requests[0]!.url, '/v1/usage');
    assert.equal(server.requests[0]!.headers.authorization, 'Bearer sq_test_key');
    const month = await client.usage({ month: '2026-10' });
    assert.equal(month.used, 1234);
    assert.equal(server.requests[1]!.url, '/v1/usage?month=2026-10');
  });
});
