/**
 * Property: malformed input of any kind never yields a 5xx. fast-check throws random bodies, random
 * bytes and mutations of valid requests at the listening server (real engine on fixture checkpoints).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { testApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let url: string;
before(async () => {
  t = await testApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/v1/systemone`;
});
after(async () => {
  await t.close();
});

async function post(body: string | Uint8Array, headers: Record<string, string> = {}) {
  const res = await fetch(url, { method: 'POST', body, headers: { ...t.auth, 'content-type': 'application/json', ...headers } });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text };
}

function assertNo5xx(res: Awaited<ReturnType<typeof post>>, sent: unknown) {
  assert.ok(res.status < 500, `${res.status} for ${String(JSON.stringify(sent)).slice(0, 300)}: ${res.text.slice(0, 300)}`);
  assert.match(res.headers.get('x-request-id') ?? '', /^req_[0-9a-f]{32}$/);
  if (res.status >= 400) assert.ok(res.headers.get('x-service-error-code'), 'error code header');
  assert.doesNotThrow(() => JSON.parse(res.text));
}

const valid = {
  model: 'legacy-latest',
  state: 'My order arrived broken and I want a refund.',
  questions: {
    refund: { type: 'noul', instructions: 'Does the customer ask for a refund?', criteria: { true: 'yes', false: 'no' } },
    topic: { type: 'choice', instructions: 'Topic?', criteria: { shipping: 'Delivery', billing: null, other: 'Anything else' } },
    anger: { type: 'score', instructions: 'How angry?', criteria: ['calm', 'annoyed', 'furious'] },
  },
};

const paths: (string | number)[][] = [
  [], ['model'], ['state'], ['questions'], ['questions', 'refund'], ['questions', 'refund', 'type'],
  ['questions', 'refund', 'instructions'], ['questions', 'refund', 'criteria'], ['questions', 'refund', 'criteria', 'true'],
  ['questions', 'topic', 'criteria'], ['questions', 'topic', 'criteria', 'billing'], ['questions', 'anger', 'criteria'],
  ['questions', 'anger', 'criteria', 1], ['questions', 'anger', 'type'],
];

function mutate(base: unknown, path: (string | number)[], action: 'set' | 'delete', value: unknown): unknown {
  if (path.length === 0) return action === 'set' ? value : undefined;
  if (typeof base !== 'object' || base === null) return base;
  const copy = structuredClone(base) as Record<string | number, unknown>;
  let node: Record<string | number, unknown> = copy;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null) return copy;
    node = next as Record<string | number, unknown>;
  }
  const last = path.at(-1)!;
  if (action === 'delete') delete node[last];
  else node[last] = value;
  return copy;
}

const weird = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.string({ unit: 'grapheme', maxLength: 200 }),
  fc.constantFrom('', '[MASK]', '<mask>', '\u0000', '\ud800', '__proto__', 'x'.repeat(5000), 'word '.repeat(3000)),
  fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 40 }),
  fc.array(fc.string(), { maxLength: 300 }),
  fc.integer(),
  fc.double(),
  fc.constant(null),
);

test('random JSON bodies never get a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(fc.jsonValue({ maxDepth: 5 }), async (body) => {
      assertNo5xx(await post(JSON.stringify(body)), body);
    }),
    { numRuns: 150 },
  );
});

test('random bytes and content types never get a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.uint8Array({ maxLength: 300 }),
      fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/octet-stream', ''),
      async (bytes, contentType) => {
        assertNo5xx(await post(bytes, { 'content-type': contentType }), [...bytes]);
      },
    ),
    { numRuns: 100 },
  );
});

test('mutations of a valid request never get a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.tuple(fc.constantFrom(...paths), fc.constantFrom('set' as const, 'delete' as const), weird), { minLength: 1, maxLength: 3 }),
      async (mutations) => {
        let body: unknown = valid;
        for (const [path, action, value] of mutations) body = mutate(body, path, action, value);
        assertNo5xx(await post(JSON.stringify(body) ?? ''), body);
      },
    ),
    { numRuns: 250 },
  );
});

test('many questions with random names and shapes never get a 5xx', async () => {
  const question = fc.oneof(
    fc.record({ type: fc.constant('noul'), instructions: weird }, { requiredKeys: ['type'] }),
    fc.record({ type: fc.constant('choice'), instructions: weird, criteria: fc.dictionary(fc.string({ maxLength: 8 }), weird, { maxKeys: 12 }) }),
    fc.record({ type: fc.constant('score'), instructions: weird, criteria: fc.array(weird, { maxLength: 12 }) }),
  );
  await fc.assert(
    fc.asyncProperty(fc.dictionary(fc.string({ maxLength: 12 }), question, { minKeys: 0, maxKeys: 40 }), weird, async (questions, state) => {
      const body = { state, questions };
      assertNo5xx(await post(JSON.stringify(body)), body);
    }),
    { numRuns: 120 },
  );
});
