/**
 * The earlier service's official JavaScript client, @typesafe-ai/sdk@0.6.0, unchanged but for its base
 * URL and key, against a live structqa server (fixture checkpoints: mechanics, not answer quality).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  APIError,
  AuthenticationError,
  InternalServerError,
  RateLimitError,
  TypeSafeClient,
  UnprocessableEntityError,
  choice,
  noul,
  score,
} from '@typesafe-ai/sdk';
import { startServer, type LiveServer } from '../helpers/server.js';

let server: LiveServer;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server.stop();
});

const client = (apiKey = server.firstKey, retry: Record<string, unknown> = {}) =>
  new TypeSafeClient({ apiKey, baseURL: server.url, retry: { maxRetries: 0, ...retry } });

const questions = {
  urgent: noul('Does this convey urgency?', { true: 'Explicitly time-sensitive', false: 'No urgency expressed' }),
  tone: choice("What is the customer's tone?", { calm: null, frustrated: null, angry: null }),
  frustration: score('How frustrated the customer appears', ['Calm', 'Frustrated but civil', 'Very angry']),
};

test('systemOne answers noul, choice and score; request id is readable; alias resolves to a checkpoint', async () => {
  const { data, requestId } = await client()
    .systemOne({ state: 'I have been waiting three weeks for my refund. This is unacceptable!', questions })
    .withResponse();
  assert.match(requestId ?? '', /^req_[0-9a-f]{32}$/);
  assert.equal(data.model, 'core-0.3.20'); // the SDK sends jev-latest by default
  assert.equal(data.answers.urgent.type, 'noul');
  assert.ok(data.answers.urgent.noul >= 0 && data.answers.urgent.noul <= 1);
  assert.ok(['calm', 'frustrated', 'angry'].includes(data.answers.tone.choice));
  assert.equal(typeof data.answers.frustration.score, 'number');
  assert.deepEqual(Object.keys(data.answers.frustration.legend).sort(), ['0', '1', '2']);
});

test('models.list returns every accepted name', async () => {
  const models = await client().models.list();
  const names = models.map((m: { name: string }) => m.name);
  for (const name of ['legacy-latest', 'jev-latest', 'core-0.3.20', 'core-multilingual-0.3.20']) assert.ok(names.includes(name), name);
});

test('401 → AuthenticationError', async () => {
  await assert.rejects(client('sqa_live_' + 'x'.repeat(40)).systemOne({ state: 'x', questions }), AuthenticationError);
});

test('402 → APIError (not retried), with the allowance in the body', async () => {
  const key = await server.createKey({ monthly_allowance: 10 });
  let attempts = 0;
  const counting = new TypeSafeClient({
    apiKey: key,
    baseURL: server.url,
    fetch: (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
      attempts++;
      return fetch(input, init);
    },
  });
  const error = await counting.systemOne({ state: 'Hello there, please help me.', questions }).catch((e: unknown) => e);
  assert.ok(error instanceof APIError);
  assert.equal((error as APIError).status, 402);
  assert.equal(attempts, 1);
});

test('413 state_too_long → APIError with status 413', async () => {
  const error = await client().systemOne({ state: 'word '.repeat(800), questions }).catch((e: unknown) => e);
  assert.ok(error instanceof APIError);
  assert.equal((error as APIError).status, 413);
});

test('422 → UnprocessableEntityError', async () => {
  const bad = { q: { type: 'choice', instructions: 'x', criteria: { only: null } } } as never;
  await assert.rejects(client().systemOne({ state: 'x', questions: bad }), UnprocessableEntityError);
});

test('429 → RateLimitError with retryAfterMs; with retries on, the SDK rides it out', async () => {
  const key = await server.createKey({ requests_per_second: 1 });
  const c = client(key);
  await c.systemOne({ state: 'first', questions: { q: questions.urgent } });
  const error = await c.systemOne({ state: 'second', questions: { q: questions.urgent } }).catch((e: unknown) => e);
  assert.ok(error instanceof RateLimitError, String(error));
  assert.ok(((error as RateLimitError).retryAfterMs ?? 0) > 0);
  const patient = client(key, { maxRetries: 3 });
  const ok = await patient.systemOne({ state: 'third', questions: { q: questions.urgent } });
  assert.equal(ok.answers.q.type, 'noul');
});

test('529 while starting → InternalServerError', async () => {
  const starting = await startServer({ holdStarting: true });
  try {
    const error = await new TypeSafeClient({ apiKey: starting.firstKey, baseURL: starting.url, retry: { maxRetries: 0 } })
      .systemOne({ state: 'x', questions })
      .catch((e: unknown) => e);
    assert.ok(error instanceof InternalServerError, String(error));
    assert.equal((error as InternalServerError).status, 529);
  } finally {
    await starting.stop();
  }
});
