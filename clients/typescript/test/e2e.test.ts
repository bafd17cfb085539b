/**
 * End-to-end: @structqa/client against the real service (`structqa serve` as a child process, fixture
 * checkpoints with random weights — these tests prove mechanics, not answer quality).
 *
 * One shared server answers most tests; a second one is started held in `starting` (529) to show the
 * client riding start-up out. Every error code of contract §6 that a request can produce is checked
 * through the client, except 500 `internal_error`: it only comes from a bug in the service, so it
 * cannot be produced on purpose (its mapping to `InternalServerError` is covered by the unit tests
 * against the fake server). 529 `overloaded` (queue full) is not forced either: it needs the batch
 * queue saturated, which depends on machine speed; it shares the class and retry path of `starting`.
 */

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import {
  APIConnectionError,
  APIError,
  AllowanceExhaustedError,
  AuthenticationError,
  BadRequestError,
  Client,
  type ClientOptions,
  type Fetch,
  OverloadedError,
  PayloadTooLargeError,
  PermissionDeniedError,
  ProcessedTokenCapError,
  RateLimitError,
  StateTooLongError,
  TooManyQuestionsError,
  UnprocessableEntityError,
  askInChunks,
  choice,
  noul,
  score,
} from '../src/index.js';
import type { JsonValue } from '../src/types.js';

// The service's test helper (service/test/helpers/server.ts) is imported through a computed path so
// this package's type-check (rootDir = clients/typescript) does not pull in the service's sources.
interface LiveServer {
  url: string;
  dataDir: string;
  firstKey: string;
  createKey(limits?: Record<string, number>): Promise<string>;
  stop(): Promise<number | null>;
  output(): string;
}
const SERVER_HELPER: string = '../../../service/test/helpers/server.js';
const { startServer } = (await import(SERVER_HELPER)) as {
  startServer(opts?: { holdStarting?: boolean; env?: Record<string, string> }): Promise<LiveServer>;
};
/** Where startServer() has built the fixture checkpoints. */
const FIXTURES_DIR = fileURLToPath(new URL('../../../service/.cache/fixtures', import.meta.url));

const REQUEST_ID = /^req_[0-9a-f]{32}$/;

let server: LiveServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server?.stop();
  if (server) fs.rmSync(server.dataDir, { recursive: true, force: true });
});

/** A client on the shared server; retries off unless asked for, so error tests see the first answer. */
const client = (options: ClientOptions = {}) =>
  new Client({ baseURL: server.url, apiKey: server.firstKey, maxRetries: 0, ...options });

/** A fetch that counts attempts (and lets a test rewrite each request). */
function countingFetch(rewrite?: (init: RequestInit, n: number) => RequestInit) {
  const calls: { url: string; headers: Record<string, string> }[] = [];
  const f: Fetch = async (url, init = {}) => {
    const n = calls.length;
    const next = rewrite ? rewrite(init, n) : init;
    calls.push({ url, headers: { ...(next.headers as Record<string, string>) } });
    return fetch(url, next);
  };
  return { fetch: f, calls };
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  assert.fail('expected the call to be rejected');
}

function assertDistribution(probabilities: Record<string, number>, keys: string[]) {
  assert.deepEqual(Object.keys(probabilities).sort(), [...keys].sort());
  let sum = 0;
  for (const p of Object.values(probabilities)) {
    assert.ok(Number.isFinite(p) && p >= 0 && p <= 1, `probability ${p}`);
    sum += p;
  }
  assert.ok(Math.abs(sum - 1) < 1e-6, `sum ${sum}`);
}

/** Three questions, one of each type; descriptions null and objects, instructions text and an object. */
const questions = {
  urgent: noul('Does the customer need help urgently?', { true: { signal: 'time-sensitive wording' }, false: null }),
  department: choice(
    { task: 'route the ticket', note: 'pick one team' },
    { billing: 'payments, refunds', technical: null, shipping: { covers: ['delivery', 'tracking'] } },
  ),
  frustration: score('How frustrated is the customer?', ['calm', { level: 'annoyed' }, null, 'furious']),
};

function assertAnswers(res: Awaited<ReturnType<Client['systemOne']>>) {
  const a = res.answers as Record<string, any>;
  assert.equal(a.urgent.type, 'noul');
  assert.ok(a.urgent.noul >= 0 && a.urgent.noul <= 1);
  assert.equal('confidence' in a.urgent, false, 'a noul answer has no confidence');

  assert.equal(a.department.type, 'choice');
  assertDistribution(a.department.probabilities, ['billing', 'technical', 'shipping']);
  const best = Object.entries(a.department.probabilities as Record<string, number>).sort((x, y) => y[1] - x[1])[0]![0];
  assert.equal(a.department.choice, best);
  assert.ok(a.department.confidence >= 0 && a.department.confidence <= 1);

  assert.equal(a.frustration.type, 'score');
  assertDistribution(a.frustration.probabilities, ['0', '1', '2', '3']);
  const expected = Object.entries(a.frustration.probabilities as Record<string, number>).reduce((s, [i, p]) => s + Number(i) * p, 0);
  assert.ok(Math.abs(a.frustration.score - expected) < 1e-6);
  assert.deepEqual(Object.keys(a.frustration.legend).sort(), ['0', '1', '2', '3']);
  assert.ok(a.frustration.confidence >= 0 && a.frustration.confidence <= 1);

  for (const k of Object.values(a)) assert.equal('action' in k || 'act_probability' in k, false);
  assert.match(res.requestId ?? '', REQUEST_ID);
  assert.ok(res.usage.processed_tokens > 0 && res.usage.input_tokens > 0);
}

describe('answers', () => {
  const states: [string, string | { [key: string]: JsonValue } | JsonValue[]][] = [
    ['string', 'I was charged twice this month and nobody answers my emails!'],
    ['object', { customer: 'Ana', message: 'My parcel never arrived.', order: { id: 42, items: ['lamp', 'desk'] } }],
    ['array', ['Order 42 placed.', { event: 'shipped', late: true }, 'Customer asked for a refund.']],
  ];
  for (const [kind, state] of states) {
    test(`every question type with a ${kind} state`, async () => {
      const res = await client().systemOne({ state, questions });
      assert.equal(res.model, 'core-0.3.20'); // legacy-latest, English → the English checkpoint
      assertAnswers(res);
    });
  }

  test("score levels given as bare numbers (laya's form) are answered, their legend as text", async () => {
    const res = await client().systemOne({ state: 'The parcel is two weeks late.', questions: { q: score('How late is it, in weeks?', ['none', 1, 2.5, true]) } });
    const a = res.answers['q']!;
    assert.equal(a.type, 'score');
    assert.deepEqual(a.type === 'score' && a.legend, { '0': 'none', '1': '1', '2': '2.5', '3': 'true' });
    assertDistribution((a as { probabilities: Record<string, number> }).probabilities, ['0', '1', '2', '3']);
  });

  test('aliases route by language; checkpoint names are used as named', async () => {
    const c = client();
    const fr = await c.systemOne({
      state: 'Bonjour, je voudrais un remboursement pour ma commande qui est arrivée en retard.',
      questions: { q: noul('Le client demande-t-il un remboursement ?') },
    });
    assert.equal(fr.model, 'core-multilingual-0.3.20');
    const named = await c.systemOne({ state: 'Hello there.', questions: { q: noul(null) }, model: 'core-multilingual-0.3.20' });
    assert.equal(named.model, 'core-multilingual-0.3.20');
    const jev = await c.systemOne({ state: 'Hello there.', questions: { q: noul('Is this a greeting?') }, model: 'jev-latest' });
    assert.equal(jev.model, 'core-0.3.20');
  });

  test('models.list() returns every accepted name with its card', async () => {
    const models = await client().models.list();
    const names = models.map((m) => m.name);
    for (const name of ['legacy-latest', 'legacy-preview', 'legacy-1.13.0', 'core-latest', 'jev-latest', 'core-0.3.20', 'core-multilingual-0.3.20']) {
      assert.ok(names.includes(name), name);
    }
    for (const m of models) {
      assert.equal(typeof m.description, 'string');
      assert.match(m.release_date, /^\d{4}-\d{2}-\d{2}$/);
    }
  });

  test('usage() reports the account, allowance and what was charged', async () => {
    const key = await server.createKey({ monthly_allowance: 100_000 });
    const c = client({ apiKey: key });
    const before = await c.usage();
    assert.equal(before.allowance, 100_000);
    assert.equal(before.used, 0);
    assert.equal(before.requests, 0);
    const res = await c.systemOne({ state: 'Where is my order?', questions: { q: noul('Is this about an order?') } });
    const after = await c.usage();
    assert.equal(after.requests, 1);
    assert.equal(after.used, res.usage.processed_tokens);
    assert.equal(after.remaining, 100_000 - res.usage.processed_tokens);
    assert.match(after.resets_at ?? '', /^\d{4}-\d{2}-01T00:00:00(\.000)?Z$/);
    assert.match(after.period ?? '', /^\d{4}-\d{2}$/);
    const model = after.by_model?.find((m) => m.model === 'core-0.3.20');
    assert.equal(model?.requests, 1);
    const past = await c.usage({ month: '2020-01' });
    assert.equal(past.used, 0);
  });
});

describe('errors (contract §6) through the client', () => {
  test('422 invalid_json: a raw bad body through request() maps to UnprocessableEntityError', async () => {
    // request() always serialises its body, so the injected fetch swaps in a broken one.
    const { fetch: f } = countingFetch((init) => ({ ...init, body: '{"state": "x", "questions": ' }));
    const err = await rejection(client({ fetch: f }).request('POST', '/v1/systemone', { body: {} }));
    assert.ok(err instanceof UnprocessableEntityError, String(err));
    assert.equal(err.status, 422);
    assert.equal(err.code, 'invalid_json');
    assert.match(err.requestId ?? '', REQUEST_ID);

    // And the mapping function on a response fetched directly.
    const res = await fetch(`${server.url}/v1/systemone`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.firstKey}`, 'content-type': 'application/json' },
      body: 'not json',
    });
    const mapped = APIError.fromResponse({ status: res.status, body: await res.json(), headers: res.headers });
    assert.ok(mapped instanceof UnprocessableEntityError);
    assert.equal(mapped.code, 'invalid_json');
  });

  test('422 invalid_request → UnprocessableEntityError with detail[] locations', async () => {
    const c = client();
    const one = await rejection(
      c.systemOne({ state: 'x', questions: { pick: { type: 'choice', instructions: 'x', criteria: { only: null } } } as never }),
    );
    assert.ok(one instanceof UnprocessableEntityError, String(one));
    assert.equal(one.status, 422);
    assert.equal(one.code, 'invalid_request');
    assert.ok(one.issues.length > 0);
    assert.ok(one.issues.some((i) => i.loc.includes('pick')), JSON.stringify(one.issues));

    const eleven = await rejection(
      c.systemOne({ state: 'x', questions: { s: score('How much?', Array.from({ length: 11 }, (_, i) => `level ${i}`)) } }),
    );
    assert.ok(eleven instanceof UnprocessableEntityError, String(eleven));
    const unknownType = await rejection(c.systemOne({ state: 'x', questions: { q: { type: 'maybe', instructions: 'x' } } as never }));
    assert.ok(unknownType instanceof UnprocessableEntityError, String(unknownType));
  });

  test('400 unknown_model → BadRequestError with the accepted names', async () => {
    const err = await rejection(client({ model: 'gpt-nope' }).systemOne({ state: 'x', questions: { q: noul('x?') } }));
    assert.ok(err instanceof BadRequestError, String(err));
    assert.equal(err.code, 'unknown_model');
    assert.ok(err.acceptedModels?.includes('legacy-latest'));
    assert.ok(err.acceptedModels?.includes('core-0.3.20'));
  });

  test('403 missing key → PermissionDeniedError, 401 invalid keys → AuthenticationError, with WWW-Authenticate', async () => {
    // The client refuses to run without a key, so the injected fetch drops the header it sends.
    const { fetch: strip } = countingFetch((init) => {
      const headers = { ...(init.headers as Record<string, string>) };
      delete headers.Authorization;
      return { ...init, headers };
    });
    const missing = await rejection(client({ fetch: strip }).systemOne({ state: 'x', questions: { q: noul('x?') } }));
    assert.ok(missing instanceof PermissionDeniedError, String(missing));
    assert.equal(missing.status, 403);
    assert.equal(missing.code, 'missing_api_key');
    assert.match(missing.headers.get('www-authenticate') ?? '', /^Bearer/);

    for (const key of ['sqa_live_' + 'x'.repeat(40), 'not-a-key', 'ts_' + 'a'.repeat(40)]) {
      const err = await rejection(client({ apiKey: key }).systemOne({ state: 'x', questions: { q: noul('x?') } }));
      assert.ok(err instanceof AuthenticationError, `${key}: ${String(err)}`);
      assert.equal(err.code, 'invalid_api_key');
      assert.match(err.headers.get('www-authenticate') ?? '', /^Bearer/);
    }
  });

  test('402 allowance_exhausted → AllowanceExhaustedError, never retried', async () => {
    const key = await server.createKey({ monthly_allowance: 10 });
    const { fetch: f, calls } = countingFetch();
    const c = new Client({ baseURL: server.url, apiKey: key, fetch: f, maxRetries: 5 });
    const err = await rejection(c.systemOne({ state: 'Hello there, please help me.', questions }));
    assert.ok(err instanceof AllowanceExhaustedError, String(err));
    assert.equal(err.status, 402);
    assert.equal(err.code, 'allowance_exhausted');
    assert.equal(calls.length, 1, 'a 402 is not retried');
    assert.equal(err.allowance, 10);
    assert.equal(typeof err.used, 'number');
    assert.ok(!Number.isNaN(Date.parse(err.resetsAt ?? '')) && err.resetsAt!.endsWith('Z'), err.resetsAt);
    assert.equal(err.usageView, '/app/usage');
    const usage = await c.usage();
    assert.equal(usage.requests, 0, 'a rejected request is not charged');
  });

  test('413 state_too_long → StateTooLongError exposing the room per question', async () => {
    const qs = {
      short: noul('Urgent?'),
      long: choice('Which of the following teams should handle this ticket, given everything the customer wrote?', {
        billing: 'payments, refunds, invoices and anything about money',
        technical: 'bugs, outages, errors',
      }),
    };
    const err = await rejection(client().systemOne({ state: 'word '.repeat(800), questions: qs }));
    assert.ok(err instanceof StateTooLongError, String(err));
    assert.equal(err.status, 413);
    assert.equal(err.code, 'state_too_long');
    assert.equal(err.model, 'core-0.3.20');
    assert.ok((err.stateTokens ?? 0) >= 800);
    assert.deepEqual(Object.keys(err.questions).sort(), ['long', 'short']);
    for (const { room, overflow } of Object.values(err.questions)) {
      assert.ok(room > 0 && overflow > 0);
      assert.equal(room + overflow, err.stateTokens);
    }
    assert.ok(err.questions.long!.room < err.questions.short!.room, 'a longer head leaves less room');
    assert.equal(err.minRoom, err.questions.long!.room);
  });

  test('413 too_many_questions → TooManyQuestionsError with the limit', async () => {
    const many = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`q${i}`, noul('Urgent?')]));
    const err = await rejection(client().systemOne({ state: 'x', questions: many }));
    assert.ok(err instanceof TooManyQuestionsError, String(err));
    assert.equal(err.code, 'too_many_questions');
    assert.equal(err.limit, 32);
  });

  test('413 processed_token_cap → ProcessedTokenCapError with cost and cap', async () => {
    const many = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`q${i}`, noul('Is it urgent?')]));
    const err = await rejection(client().systemOne({ state: 'word '.repeat(300), questions: many }));
    assert.ok(err instanceof ProcessedTokenCapError, String(err));
    assert.equal(err.code, 'processed_token_cap');
    assert.equal(err.cap, 3500);
    assert.ok((err.cost ?? 0) > 3500);
    assert.equal(err.model, 'core-0.3.20');
  });

  test('413 payload_too_large → PayloadTooLargeError with the byte limit', async () => {
    const err = await rejection(client().systemOne({ state: 'a'.repeat(1_200_000), questions: { q: noul('x?') } }));
    // the service drains the rest of an oversized body before answering, so the 413 always arrives
    assert.ok(err instanceof PayloadTooLargeError, String(err));
    assert.ok(!(err instanceof StateTooLongError));
    assert.equal(err.code, 'payload_too_large');
    assert.equal(err.limitBytes, 1024 * 1024);
  });

  test('429 rate_limited → RateLimitError with retryAfterMs; with retries the client rides it out', async () => {
    const key = await server.createKey({ requests_per_second: 1 });
    const q = { q: noul('Urgent?') };
    await client({ apiKey: key }).systemOne({ state: 'first', questions: q });
    const err = await rejection(client({ apiKey: key }).systemOne({ state: 'second', questions: q }));
    assert.ok(err instanceof RateLimitError, String(err));
    assert.equal(err.status, 429);
    assert.equal(err.code, 'rate_limited');
    assert.ok((err.retryAfterMs ?? 0) > 0 && err.retryAfterMs! <= 1000, String(err.retryAfterMs));
    assert.ok(Number(err.headers.get('retry-after')) >= 1);

    const { fetch: f, calls } = countingFetch();
    const res = await client({ apiKey: key, fetch: f, maxRetries: 5 }).systemOne({ state: 'third', questions: q }, { deadlineMs: 20_000 });
    assert.equal(res.answers.q.type, 'noul');
    assert.ok(calls.length >= 2, `rode the rate limit out after ${calls.length - 1} retries`);
    assert.equal(calls[1]!.headers['X-Retry-Count'], '1');
    assert.equal(calls[1]!.headers['Idempotency-Key'], calls[0]!.headers['Idempotency-Key']);
  });

  test('429 in_flight_limit → RateLimitError with retryAfterMs; with retries every call completes', async () => {
    const key = await server.createKey({ in_flight: 1 });
    // Eight calls at once of ~300 tokens × 3 questions: long enough on the fixtures that they overlap.
    // Only the one admitted runs the model; the others are turned away at once.
    const heavy = 'The parcel was late again and the support line kept me waiting for an hour. '.repeat(20);
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, () => client({ apiKey: key }).systemOne({ state: heavy, questions })),
    );
    const limited = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason);
    assert.ok(limited.length >= 1, 'at least one concurrent call is over the in-flight limit');
    for (const err of limited) {
      assert.ok(err instanceof RateLimitError, String(err));
      assert.equal(err.code, 'in_flight_limit');
      assert.ok((err.retryAfterMs ?? 0) > 0);
    }
    // With retries, concurrent calls all complete (each waits out the others' slot).
    const { fetch: f, calls } = countingFetch();
    const state = 'The parcel was late again and the support line kept me waiting for an hour. '.repeat(8);
    const patient = await Promise.all(
      Array.from({ length: 4 }, () => client({ apiKey: key, fetch: f, maxRetries: 20 }).systemOne({ state, questions }, { deadlineMs: 30_000 })),
    );
    for (const res of patient) assertAnswers(res);
    assert.ok(calls.length >= 4);
  });
});

describe('idempotency', () => {
  test('a retried call (response lost) carries the same Idempotency-Key and is charged once', async () => {
    const key = await server.createKey({});
    // The first attempt reaches the server and is answered, but the answer is "lost" on the way back.
    let lost = 0;
    const sent: string[] = [];
    const f: Fetch = async (url, init = {}) => {
      sent.push((init.headers as Record<string, string>)['Idempotency-Key']!);
      const res = await fetch(url, init);
      if (init.method === 'POST' && lost++ === 0) {
        await res.text();
        throw new TypeError('fetch failed', { cause: new Error('socket hang up (simulated)') });
      }
      return res;
    };
    const c = new Client({ baseURL: server.url, apiKey: key, fetch: f, maxRetries: 2, retry: { backoffInitialMs: 10 } });
    const before = await c.usage();
    const raw = await c.request('POST', '/v1/systemone', {
      body: { state: 'Please refund my order.', questions: { q: noul('Refund?') }, model: 'legacy-latest' },
    });
    assert.equal(raw.attempts, 2);
    assert.equal(raw.headers.get('x-idempotent-replay'), 'true');
    const postKeys = sent.slice(1); // sent[0] is the usage() GET
    assert.equal(postKeys.length, 2);
    assert.equal(postKeys[0], postKeys[1]);
    const after = await c.usage();
    assert.equal((after.requests ?? 0) - (before.requests ?? 0), 1, 'charged once');
    assert.equal((after.used ?? 0) - (before.used ?? 0), (raw.body as { usage: { processed_tokens: number } }).usage.processed_tokens);

    // The same key on a new call replays the first answer without a second charge.
    const again = await c.systemOne(
      { state: 'Please refund my order.', questions: { q: noul('Refund?') } },
      { idempotencyKey: postKeys[0] },
    );
    assert.deepEqual(again.answers, (raw.body as { answers: unknown }).answers);
    assert.equal((await c.usage()).requests, after.requests);
  });
});

describe('askInChunks', () => {
  test('a state three times too long is answered in chunks that fit, and combined', async () => {
    const subjects = ['The parcel', 'My invoice', 'The support agent', 'Your website', 'The refund', 'Our order'];
    const verbs = ['arrived late again', 'was wrong twice', 'never answered my emails', 'showed an error page', 'took three weeks', 'went missing'];
    const tails = ['and I am upset about it.', 'so please fix this soon.', 'which is not acceptable.', 'though the driver was kind.'];
    const sentences: string[] = [];
    for (let i = 0; sentences.join(' ').split(/\s+/).length < 1500; i++) {
      sentences.push(`${subjects[i % 6]} ${verbs[(i * 5 + 1) % 6]} on day ${i + 1} ${tails[i % 4]}`);
    }
    const text = sentences.map((s, i) => (i % 12 === 11 ? `${s}\n\n` : `${s} `)).join('').trim();

    const c = client({ maxRetries: 2 });
    const first = await rejection(c.systemOne({ state: text, questions }));
    assert.ok(first instanceof StateTooLongError, String(first));
    assert.ok(first.stateTokens! >= 3 * first.minRoom!, `state ${first.stateTokens} tokens vs room ${first.minRoom}`);

    const { chunks, combined } = await askInChunks(c, { state: text, questions }, { deadlineMs: 120_000 });
    assert.ok(chunks.length >= 3, `${chunks.length} chunks`);
    for (const chunk of chunks) {
      assert.ok(text.includes(chunk.text), 'each chunk is a substring of the state');
      assertAnswers(chunk.response); // answered: it fitted every question's room
    }
    // Nothing lost: the chunks, in order, hold every word of the state.
    assert.deepEqual(chunks.map((ch) => ch.text).join(' ').split(/\s+/), text.split(/\s+/));

    const a = combined.answers as Record<string, any>;
    const nouls = chunks.map((ch) => (ch.response.answers as Record<string, any>).urgent.noul as number);
    assert.ok(Math.abs(a.urgent.noul - Math.max(...nouls)) < 1e-12, 'noul combines by max');
    assertDistribution(a.department.probabilities, ['billing', 'technical', 'shipping']);
    assertDistribution(a.frustration.probabilities, ['0', '1', '2', '3']);
    assert.equal(
      combined.usage.processed_tokens,
      chunks.reduce((s, ch) => s + ch.response.usage.processed_tokens, 0),
    );
    assert.deepEqual(combined.models, ['core-0.3.20']);
  });
});

describe('start-up', () => {
  test('529 starting: OverloadedError without retries; with retries the client rides start-up out', async () => {
    // A shorter retry-after for `starting` (default 2 s) keeps the test quick; the client honours it.
    const starting = await startServer({ holdStarting: true, env: { STRUCTQA_STARTING_RETRY_MS: '500' } });
    try {
      const base = { baseURL: starting.url, apiKey: starting.firstKey };
      const q = { state: 'Is the service up yet?', questions: { q: noul('Is this a question?') } };
      const err = await rejection(new Client({ ...base, maxRetries: 0 }).systemOne(q));
      assert.ok(err instanceof OverloadedError, String(err));
      assert.equal(err.status, 529);
      assert.equal(err.code, 'starting');
      assert.ok((err.retryAfterMs ?? 0) > 0);

      const { fetch: f, calls } = countingFetch();
      const call = new Client({ ...base, fetch: f, maxRetries: 30 }).systemOne(q, { deadlineMs: 30_000 });
      // Let the call meet 529 first, then hand the service its checkpoints (copied aside, then moved in
      // whole, so it never sees a half-copied folder).
      await new Promise((r) => setTimeout(r, 300));
      const pending = path.join(starting.dataDir, 'models-pending');
      const staging = path.join(starting.dataDir, 'models-staging');
      fs.mkdirSync(pending, { recursive: true });
      for (const name of ['fixture-en', 'fixture-multilingual']) {
        fs.cpSync(path.join(FIXTURES_DIR, name), path.join(staging, name), { recursive: true });
        fs.renameSync(path.join(staging, name), path.join(pending, name));
      }
      const res = await call;
      assert.equal(res.model, 'core-0.3.20');
      assert.ok(calls.length >= 2, `answered after ${calls.length - 1} retries`);
      assert.equal(new Set(calls.map((x) => x.headers['Idempotency-Key'])).size, 1);
    } finally {
      await starting.stop();
      fs.rmSync(starting.dataDir, { recursive: true, force: true });
    }
  });
});
