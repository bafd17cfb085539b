/** Every error status and code maps to its class, against the in-process fake server (test fixture). */

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  APIConnectionError,
  APIError,
  AllowanceExhaustedError,
  AuthenticationError,
  BadRequestError,
  Client,
  InternalServerError,
  NotFoundError,
  OverloadedError,
  PayloadTooLargeError,
  PermissionDeniedError,
  ProcessedTokenCapError,
  RateLimitError,
  StateTooLongError,
  StructqaError,
  TooManyQuestionsError,
  UnprocessableEntityError,
  noul,
} from '../src/index.js';
import { type FakeServer, type Reply, errorReply, startFakeServer } from './fixtures/fake-server.js';

const retry = { 'retry-after': '1', 'retry-after-ms': '5' };

/** status, code, extra detail fields, headers → expected class. */
const cases: [string, Reply, new (...a: never[]) => APIError][] = [
  ['400 invalid_json', errorReply(400, 'invalid_json'), BadRequestError],
  ['400 unknown_model', errorReply(400, 'unknown_model', { model: 'x', accepted_models: ['legacy-latest', 'core-0.3.20'] }), BadRequestError],
  ['401 missing_api_key', errorReply(401, 'missing_api_key', {}, { 'www-authenticate': 'Bearer' }), AuthenticationError],
  ['401 invalid_api_key', errorReply(401, 'invalid_api_key'), AuthenticationError],
  ['402 allowance_exhausted', errorReply(402, 'allowance_exhausted', { allowance: 1000, used: 1000, resets_at: '2026-12-01T00:00:00Z', usage_view: '/app/usage' }), AllowanceExhaustedError],
  ['403 forbidden', errorReply(403, 'forbidden'), PermissionDeniedError],
  ['404 not_found', { status: 404, body: { detail: 'Not Found' } }, NotFoundError],
  ['413 state_too_long', errorReply(413, 'state_too_long', { model: 'core-0.3.20', state_tokens: 900, questions: { a: { room: 476, overflow: 424 }, b: { room: 470, overflow: 430 } } }), StateTooLongError],
  ['413 too_many_questions', errorReply(413, 'too_many_questions', { limit: 32, count: 33 }), TooManyQuestionsError],
  ['413 processed_token_cap', errorReply(413, 'processed_token_cap', { cost: 4000, cap: 3500, model: 'core-0.3.20' }), ProcessedTokenCapError],
  ['413 payload_too_large', errorReply(413, 'payload_too_large', { limit_bytes: 1048576 }), PayloadTooLargeError],
  ['422 invalid_request', { status: 422, headers: { 'x-service-error-code': 'invalid_request' }, body: { detail: [{ loc: ['body', 'questions', 'q', 'type'], msg: 'unknown type', type: 'enum' }] } }, UnprocessableEntityError],
  ['429 rate_limited', errorReply(429, 'rate_limited', { retry_after_ms: 5 }, retry), RateLimitError],
  ['429 in_flight_limit', errorReply(429, 'in_flight_limit', { limit: 4 }, retry), RateLimitError],
  ['500 internal_error', errorReply(500, 'internal_error'), InternalServerError],
  ['503 (any other 5xx)', { status: 503, body: 'upstream down' }, InternalServerError],
  ['529 overloaded', errorReply(529, 'overloaded', {}, retry), OverloadedError],
  ['529 starting', errorReply(529, 'starting', {}, retry), OverloadedError],
  ['409 (unmapped status)', errorReply(409, 'conflict'), APIError],
];

describe('error status mapping', () => {
  let server: FakeServer;
  let reply: Reply;
  before(async () => {
    server = await startFakeServer(() => reply);
  });
  after(() => server.close());
  const client = () => new Client({ baseURL: server.url, apiKey: 'sq_test', maxRetries: 0 });

  for (const [name, r, cls] of cases) {
    it(`${name} → ${cls.name}`, async () => {
      reply = r;
      const err = await client()
        .systemOne({ state: 'text', questions: { a: noul('a?'), b: noul('b?') } })
        .then(() => assert.fail('should throw'), (e: unknown) => e);
      assert.ok(err instanceof cls, `got ${(err as Error).constructor.name}`);
      assert.equal((err as Error).constructor, cls);
      assert.ok(err instanceof APIError && err instanceof StructqaError);
      const e = err as APIError;
      assert.equal(e.status, r.status);
      assert.equal(e.code, r.headers?.['x-service-error-code']);
      assert.match(e.requestId ?? '', /^req_[0-9a-f]{32}$/);
      assert.ok(e.message.startsWith(`${r.status} `));
      assert.deepEqual(e.body, r.body);
    });
  }

  it('exposes the fields of each condition', async () => {
    const get = async (r: Reply) => {
      reply = r;
      return client()
        .systemOne({ state: 'text', questions: { a: noul('a?'), b: noul('b?') } })
        .catch((e: unknown) => e);
    };
    const stl = (await get(cases[7]![1])) as StateTooLongError;
    assert.deepEqual(stl.questions, { a: { room: 476, overflow: 424 }, b: { room: 470, overflow: 430 } });
    assert.equal(stl.stateTokens, 900);
    assert.equal(stl.model, 'core-0.3.20');
    assert.equal(stl.minRoom, 470);
    assert.ok(stl instanceof PayloadTooLargeError);

    const allowance = (await get(cases[4]![1])) as AllowanceExhaustedError;
    assert.equal(allowance.allowance, 1000);
    assert.equal(allowance.resetsAt, '2026-12-01T00:00:00Z');
    assert.equal(allowance.usageView, '/app/usage');

    const cap = (await get(cases[9]![1])) as ProcessedTokenCapError;
    assert.deepEqual([cap.cost, cap.cap, cap.model], [4000, 3500, 'core-0.3.20']);
    assert.equal(((await get(cases[8]![1])) as TooManyQuestionsError).limit, 32);
    assert.equal(((await get(cases[10]![1])) as PayloadTooLargeError).limitBytes, 1048576);
    assert.deepEqual(((await get(cases[1]![1])) as BadRequestError).acceptedModels, ['legacy-latest', 'core-0.3.20']);

    const invalid = (await get(cases[11]![1])) as UnprocessableEntityError;
    assert.deepEqual(invalid.issues, [{ loc: ['body', 'questions', 'q', 'type'], msg: 'unknown type', type: 'enum' }]);
    assert.equal(invalid.message, '422 questions.q.type: unknown type');

    const limited = (await get(cases[12]![1])) as RateLimitError;
    assert.equal(limited.retryAfterMs, 5);
    const overloaded = (await get(cases[16]![1])) as OverloadedError;
    assert.equal(overloaded.retryAfterMs, 5);
    assert.ok(overloaded instanceof InternalServerError, '529 stays an InternalServerError like the earlier SDK');
  });

  it('falls back to detail.error_type when the header is missing', async () => {
    reply = { status: 413, body: { detail: { error_type: 'state_too_long', message: 'm', state_tokens: 5, questions: {} } } };
    const e = await client().systemOne({ state: 's', questions: { a: noul() } }).catch((x: unknown) => x);
    assert.ok(e instanceof StateTooLongError);
    assert.equal(e.code, 'state_too_long');
  });

  it('a dropped connection is an APIConnectionError', async () => {
    const s = await startFakeServer(() => 'destroy');
    try {
      const e = await new Client({ baseURL: s.url, apiKey: 'k', maxRetries: 0 })
        .systemOne({ state: 's', questions: { a: noul() } })
        .catch((x: unknown) => x);
      assert.ok(e instanceof APIConnectionError, String(e));
    } finally {
      await s.close();
    }
  });
});
