/**
 * Issue 20, items 1, 2 and 10 (input): bounded nesting (422 with loc, never a stack overflow), names as
 * data whatever the content type ("__proto__" included), no empty option names.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { tooDeep } from '../../src/http/body.js';
import { testApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(async () => {
  await t.close();
});

async function post(payload: string, contentType?: string) {
  const headers: Record<string, string> = { ...t.auth };
  if (contentType !== undefined) headers['content-type'] = contentType;
  const res = await t.app.inject({ method: 'POST', url: '/v1/systemone', payload, headers });
  return { status: res.statusCode, code: res.headers['x-service-error-code'], body: res.json() as Record<string, any> };
}

const nest = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

test('a state, instructions or criteria nested 10,000 deep is a 422 invalid_request pointing at the value, not a 500', async () => {
  const limit = t.config.maxNestingDepth;
  const bodies: [string, (string | number)[]][] = [
    [`{"state":${nest(10_000)},"questions":{"q":{"type":"noul"}}}`, ['body', 'state']],
    [`{"state":"x","questions":{"q":{"type":"noul","instructions":${nest(5_000)}}}}`, ['body', 'questions', 'q', 'instructions']],
    [`{"state":"x","questions":{"q":{"type":"score","criteria":[${nest(3_000)},"b"]}}}`, ['body', 'questions', 'q', 'criteria', 0]],
  ];
  for (const [body, start] of bodies) {
    const res = await post(body, 'application/json');
    assert.equal(res.status, 422, JSON.stringify(res.body).slice(0, 300));
    assert.equal(res.code, 'invalid_request');
    const loc = res.body.detail[0].loc as (string | number)[];
    assert.deepEqual(loc.slice(0, start.length), start);
    assert.equal(loc.length, limit + 1, 'loc reaches the first value past the limit'); // "body" + limit keys
    assert.equal(res.body.detail[0].type, 'too_deep');
  }
});

test('nesting up to the limit is answered', async () => {
  const limit = t.config.maxNestingDepth;
  // body (1) → state (2) → … : the state may hold limit − 1 levels.
  const res = await post(`{"state":${nest(limit - 1)},"questions":{"q":{"type":"noul"}}}`, 'application/json');
  assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
});

test('tooDeep is iterative: a million levels do not overflow the stack', () => {
  let deep: unknown = [];
  for (let i = 0; i < 1_000_000; i++) deep = [deep];
  assert.equal(tooDeep(deep, 64)?.length, 64);
  assert.equal(tooDeep({ a: [1, { b: 2 }] }, 3), undefined);
  assert.deepEqual(tooDeep({ a: [1, { b: [] }] }, 3), ['a', 1, 'b']);
});

test('"__proto__" as a question name and as an option: the same answer whatever the content type', async () => {
  const body = JSON.stringify({
    state: 'My parcel arrived broken.',
    questions: JSON.parse('{"__proto__": {"type": "choice", "criteria": {"__proto__": "a prototype", "constructor": "a builder", "other": null}}, "q": {"type": "noul"}}'),
  });
  assert.match(body, /"__proto__":\{"type":"choice"/);
  const results = [];
  for (const contentType of ['application/json', 'text/plain', 'application/x-www-form-urlencoded', '', 'json', undefined]) {
    const res = await post(body, contentType);
    assert.equal(res.status, 200, `${contentType}: ${JSON.stringify(res.body)}`);
    const answers = res.body.answers as Record<string, any>;
    assert.deepEqual(Object.keys(answers), ['__proto__', 'q']);
    const choice = answers['__proto__'];
    assert.deepEqual(Object.keys(choice.probabilities), ['__proto__', 'constructor', 'other']);
    assert.ok(Object.keys(choice.probabilities).includes(choice.choice));
    results.push(res.body);
  }
  for (const r of results) assert.deepEqual(r, results[0]);
});

test('"__proto__" named in a state_too_long error keeps its room', async () => {
  const body = JSON.stringify({ state: 'word '.repeat(5000), questions: JSON.parse('{"__proto__": {"type": "noul"}}') });
  const res = await post(body, 'application/json');
  assert.equal(res.status, 413);
  assert.deepEqual(Object.keys(res.body.detail.questions), ['__proto__']);
});

test('a choice option named "" is a 422 invalid_request', async () => {
  const res = await post(JSON.stringify({ state: 'x', questions: { q: { type: 'choice', criteria: { '': 'empty', b: 'bee' } } } }), 'application/json');
  assert.equal(res.status, 422);
  assert.equal(res.code, 'invalid_request');
  assert.deepEqual(res.body.detail, [{ loc: ['body', 'questions', 'q', 'choice', 'criteria', ''], msg: 'Option names should have at least 1 character', type: 'string_too_short' }]);
});
