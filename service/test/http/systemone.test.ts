/**
 * POST /v1/systemone end to end through the real app and engine on the fixture checkpoints
 * (random weights: these tests check mechanics and wire shapes, not answer quality).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { testApp, type TestApp } from '../helpers/app.js';
import { fixtureModels } from '../helpers/checkpoints.js';
import type { FixtureGate } from '../helpers/gate.js';
import { parseServerTiming } from '../../src/engine/timing.js';

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(async () => {
  await t.close();
});

const REQUEST_ID = /^req_[0-9a-f]{32}$/;

const questions = {
  urgent: { type: 'noul', instructions: 'Does this convey urgency?', criteria: { true: 'Explicitly time-sensitive', false: 'No urgency' } },
  department: {
    type: 'choice',
    instructions: 'Which team should handle this?',
    criteria: { billing: 'Payments and invoices', technical: 'Bugs and errors', sales: null },
  },
  frustration: {
    type: 'score',
    instructions: 'How frustrated is the customer?',
    criteria: ['Calm, just stating facts', { level: 'Frustrated but civil' }, 'Very angry, strong language'],
  },
};

async function call(body: unknown, headers: Record<string, string> = t.auth) {
  const res = await t.app.inject({ method: 'POST', url: '/v1/systemone', payload: body as object, headers });
  return { status: res.statusCode, headers: res.headers, body: res.json() as Record<string, any> };
}

function sum(p: Record<string, number>): number {
  return Object.values(p).reduce((a, b) => a + b, 0);
}

describe('answers', () => {
  test('Server-Timing tells the model run apart from the service phases; the parts add up to the total', async () => {
    const res = await call({ model: 'legacy-latest', state: 'The invoice page crashes on open.', questions });
    assert.equal(res.status, 200);
    const phases = parseServerTiming(String(res.headers['server-timing']));
    const order = ['receive', 'auth', 'parse', 'route', 'tokenize', 'admit', 'queue', 'model', 'hop', 'answer', 'record', 'total'];
    assert.deepEqual(String(res.headers['server-timing']).split(', ').map((p) => p.split(';')[0]), order);
    assert.ok(phases.model! > 0, 'the fixture model takes measurable time');
    const parts = sum(phases) - phases.total!;
    assert.ok(parts <= phases.total! + 0.01 && parts > phases.total! - 1, `phases ${parts} vs total ${phases.total}`);
  });

  test('over a real connection, Server-Timing starts when the request reaches the server (receive)', async () => {
    const live = await testApp();
    // A root hook runs before the route's own, as Fastify's routing does; this one takes at least 5 ms.
    live.app.addHook('onRequest', async () => {
      const until = performance.now() + 5;
      while (performance.now() < until);
    });
    try {
      await live.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = live.app.server.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/v1/systemone`, {
        method: 'POST',
        headers: { ...live.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ state: 'The invoice page crashes on open.', questions }),
      });
      assert.equal(res.status, 200);
      const phases = parseServerTiming(res.headers.get('server-timing') ?? '');
      assert.ok(phases.receive! >= 5, `receive ${phases.receive} ms holds the work done before the route's hooks`);
      const parts = sum(phases) - phases.total!;
      assert.ok(parts <= phases.total! + 0.01 && parts > phases.total! - 1, `phases ${parts} vs total ${phases.total}`);
    } finally {
      await live.close();
    }
  });

  test('noul, choice and score answers have the exact contract shapes', async () => {
    const res = await call({ model: 'legacy-latest', state: 'The server is down and customers cannot pay!', questions });
    assert.equal(res.status, 200);
    assert.match(String(res.headers['x-request-id']), REQUEST_ID);
    assert.equal(res.headers['x-request-id'], res.headers['x-typesafe-request-id']);
    assert.deepEqual(Object.keys(res.body).sort(), ['answers', 'model', 'usage']);
    assert.equal(res.body.model, 'core-0.3.20');
    const { urgent, department, frustration } = res.body.answers;
    assert.deepEqual(Object.keys(urgent).sort(), ['noul', 'type']);
    assert.ok(urgent.noul >= 0 && urgent.noul <= 1);
    assert.deepEqual(Object.keys(department).sort(), ['choice', 'confidence', 'probabilities', 'type']);
    assert.deepEqual(Object.keys(department.probabilities).sort(), ['billing', 'sales', 'technical']);
    assert.ok(Math.abs(sum(department.probabilities) - 1) < 1e-6);
    const top = Object.entries(department.probabilities as Record<string, number>).sort((a, b) => b[1] - a[1])[0]![0];
    assert.equal(department.choice, top);
    assert.deepEqual(Object.keys(frustration).sort(), ['confidence', 'legend', 'probabilities', 'score', 'type']);
    assert.deepEqual(frustration.legend, { '0': 'Calm, just stating facts', '1': { level: 'Frustrated but civil' }, '2': 'Very angry, strong language' });
    const p = frustration.probabilities as Record<string, number>;
    assert.deepEqual(Object.keys(p).sort(), ['0', '1', '2']);
    assert.ok(Math.abs(frustration.score - (p['1']! + 2 * p['2']!)) < 1e-9);
    for (const a of [department, frustration]) assert.ok(a.confidence >= 0 && a.confidence <= 1);
    const usage = res.body.usage;
    assert.ok(Number.isInteger(usage.input_tokens) && Number.isInteger(usage.output_tokens) && Number.isInteger(usage.processed_tokens));
    assert.equal(usage.output_tokens, 2 + 3 + 3);
    assert.ok(usage.processed_tokens >= usage.input_tokens / 3 && usage.processed_tokens % 3 === 0);
    const commits = (t.gate as FixtureGate).commits;
    assert.equal(commits.at(-1)!.processedTokens, usage.processed_tokens);
  });

  test('answers do not depend on question order or names (within 1e-4)', async () => {
    const state = { ticket: { subject: 'Refund', body: 'I was charged twice for my plan, please fix it.' } };
    const a = await call({ state, questions });
    const reversed = Object.fromEntries(Object.entries(questions).reverse().map(([k, v], i) => [`renamed_${i}_${k.length}`, v]));
    const b = await call({ state, questions: reversed });
    assert.equal(a.status, 200);
    assert.equal(b.status, 200);
    const byType = (r: typeof a) => Object.fromEntries(Object.values(r.body.answers as Record<string, any>).map((x) => [x.type, x]));
    const [x, y] = [byType(a), byType(b)];
    assert.ok(Math.abs(x.noul.noul - y.noul.noul) < 1e-4);
    for (const type of ['choice', 'score']) {
      for (const [k, v] of Object.entries(x[type].probabilities as Record<string, number>)) {
        assert.ok(Math.abs(v - y[type].probabilities[k]) < 1e-4, `${type}.${k}`);
      }
    }
  });

  test('answers do not depend on what shares the batch (within 1e-4)', async () => {
    const solo = await call({ state: 'Short state.', questions: { q: questions.department } });
    const crowd = await Promise.all([
      call({ state: 'Short state.', questions: { q: questions.department } }),
      ...Array.from({ length: 6 }, (_, i) =>
        call({ state: 'A much longer state that pads the batch. '.repeat(20 + i), questions }),
      ),
    ]);
    const p1 = solo.body.answers.q.probabilities as Record<string, number>;
    const p2 = crowd[0]!.body.answers.q.probabilities as Record<string, number>;
    for (const k of Object.keys(p1)) assert.ok(Math.abs(p1[k]! - p2[k]!) < 1e-4);
  });

  test('unknown top-level and question fields are ignored; object and array states are accepted', async () => {
    const res = await call({
      model: 'jev-latest',
      state: [{ role: 'user', content: 'Hello, I need help with my account settings please.' }],
      questions: { q: { ...questions.urgent, extra: 1 } },
      provider: 'x',
      user: null,
      trace: { id: 1 },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.model, 'core-0.3.20');
  });

  test('noul criteria may be absent, null or one-sided; descriptions may be objects, arrays or null', async () => {
    const res = await call({
      state: 'ok',
      questions: {
        a: { type: 'noul', instructions: 'x' },
        b: { type: 'noul', criteria: null },
        c: { type: 'noul', instructions: { question: 'Is `a.b` set?', a: { b: 1 } }, criteria: { true: ['yes'] } },
        d: { type: 'choice', instructions: null, criteria: { x: null, y: { d: 1 }, z: [1, 2] } },
        e: { type: 'score', criteria: ['low', 'high'] },
      },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body.answers).sort(), ['a', 'b', 'c', 'd', 'e']);
  });
});

describe('routing', () => {
  const cases: [string, unknown, string][] = [
    ['legacy-latest', 'Please reset my password, the link has expired.', 'core-0.3.20'],
    ['legacy-latest', 'Bonjour, je voudrais annuler ma commande et être remboursé rapidement.', 'core-multilingual-0.3.20'],
    ['core-latest', '注文した商品がまだ届いていません。確認していただけますか？', 'core-multilingual-0.3.20'],
    ['legacy-preview', { ticket: { body: 'لم أستلم طلبي حتى الآن، أرجو المساعدة' } }, 'core-multilingual-0.3.20'],
    ['jev-1.13.0', ['The invoice total is wrong.', 'Please send a corrected one.'], 'core-0.3.20'],
    ['core-0.3.20', 'Bonjour, je voudrais annuler ma commande.', 'core-0.3.20'],
    ['core-multilingual', 'Please reset my password.', 'core-multilingual-0.3.20'],
    ['core-multilingual-0.3.20', 'Please reset my password.', 'core-multilingual-0.3.20'],
  ];
  for (const [model, state, expected] of cases) {
    test(`${model} with ${JSON.stringify(state).slice(0, 40)} → ${expected}`, async () => {
      const res = await call({ model, state, questions: { q: questions.urgent } });
      assert.equal(res.status, 200);
      assert.equal(res.body.model, expected);
    });
  }
});

describe('calibration by language', () => {
  test("a checkpoint that calibrates by language uses the state's language, also when the call names the checkpoint", async () => {
    // fixture-multilingual again, with a noul temperature of 5 for French states only
    const source = path.join(await fixtureModels(), 'fixture-multilingual');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'structqa-by-language-'));
    const manifest = JSON.parse(fs.readFileSync(path.join(source, 'manifest.json'), 'utf8'));
    manifest.calibration.by_language = { fr: { noul: { '2': 5 } } };
    fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
    for (const file of ['model.onnx', 'tokenizer.json']) fs.symlinkSync(path.join(source, file), path.join(dir, file));
    const french = await testApp({ env: { STRUCTQA_MULTILINGUAL_DIR: dir } });
    try {
      const ask = async (app: TestApp, model: string, state: string) => {
        const res = await app.app.inject({ method: 'POST', url: '/v1/systemone', payload: { model, state, questions: { q: questions.urgent } }, headers: app.auth });
        assert.equal(res.statusCode, 200);
        return res.json().answers.q.noul as number;
      };
      const fr = 'Bonjour, je voudrais annuler ma commande et être remboursé rapidement.';
      const ja = '注文した商品がまだ届いていません。確認していただけますか？';
      for (const model of ['core-multilingual', 'legacy-latest']) {
        const plain = await ask(t, model, fr);
        const cooled = await ask(french, model, fr);
        assert.ok(Math.abs(cooled - 0.5) < Math.abs(plain - 0.5), `${model}: T = 5 pulls ${plain} towards 0.5, got ${cooled}`);
        assert.ok(Math.abs((await ask(french, model, ja)) - (await ask(t, model, ja))) < 1e-6, `${model}: no entry for ja, same answer`);
      }
    } finally {
      await french.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('errors', () => {
  function assertError(res: Awaited<ReturnType<typeof call>>, status: number, code: string) {
    assert.equal(res.status, status, JSON.stringify(res.body));
    assert.equal(res.headers['x-service-error-code'], code);
    assert.match(String(res.headers['x-request-id']), REQUEST_ID);
    if (code !== 'invalid_request' && code !== 'invalid_json') {
      // error_type follows the earlier service where it is known (docs/conformance.md).
      assert.equal(res.body.detail.error_type, EARLIER_ERROR_TYPE[code] ?? code);
      assert.equal(typeof res.body.detail.message, 'string');
    }
  }
  const EARLIER_ERROR_TYPE: Record<string, string> = {
    missing_api_key: 'authentication_error',
    invalid_api_key: 'authentication_error',
    unknown_model: 'api_usage_error',
  };

  test('403 missing key and 401 invalid key, both authentication_error, with WWW-Authenticate', async () => {
    const missing = await call({ state: 'x', questions }, {});
    assertError(missing, 403, 'missing_api_key');
    assert.equal(missing.headers['www-authenticate'], 'Bearer');
    assertError(await call({ state: 'x', questions }, { authorization: 'Bearer nope' }), 401, 'invalid_api_key');
  });

  test('422 with FastAPI\'s json_invalid detail[] for a body that is not JSON, whatever its content type; the header says invalid_json', async () => {
    for (const contentType of ['application/json', 'text/plain']) {
      const res = await t.app.inject({ method: 'POST', url: '/v1/systemone', payload: '{"state": ', headers: { ...t.auth, 'content-type': contentType } });
      assert.equal(res.statusCode, 422);
      assert.equal(res.headers['x-service-error-code'], 'invalid_json');
      const detail = res.json().detail;
      assert.ok(Array.isArray(detail) && detail.length === 1, res.body);
      assert.equal(detail[0].type, 'json_invalid');
      assert.equal(detail[0].loc[0], 'body');
      assert.equal(typeof detail[0].msg, 'string');
    }
  });

  const invalid: [string, unknown, (string | number)[]][] = [
    ['missing state', { questions }, ['body', 'state']],
    ['null state', { state: null, questions }, ['body', 'state']],
    ['number state', { state: 3, questions }, ['body', 'state']],
    ['missing questions', { state: 'x' }, ['body', 'questions']],
    ['empty questions', { state: 'x', questions: {} }, ['body', 'questions']],
    ['unknown type', { state: 'x', questions: { q: { type: 'bool', instructions: 'x' } } }, ['body', 'questions', 'q']],
    ['one choice option', { state: 'x', questions: { q: { type: 'choice', criteria: { a: null } } } }, ['body', 'questions', 'q', 'choice', 'criteria']],
    // laya's list form is accepted (test/checkpoints/laya-forms.test.ts); what laya refuses in it is refused
    ['choice criteria as a list with a null label', { state: 'x', questions: { q: { type: 'choice', criteria: ['a', null] } } }, ['body', 'questions', 'q', 'choice', 'criteria', 1]],
    ['choice criteria as a list with a repeated label', { state: 'x', questions: { q: { type: 'choice', criteria: ['a', 'b', 'a'] } } }, ['body', 'questions', 'q', 'choice', 'criteria', 2]],
    ['11 score levels', { state: 'x', questions: { q: { type: 'score', criteria: Array.from({ length: 11 }, (_, i) => `l${i}`) } } }, ['body', 'questions', 'q', 'score', 'criteria']],
    ['score criteria as a map', { state: 'x', questions: { q: { type: 'score', criteria: { '0': 'low', '1': 'high' } } } }, ['body', 'questions', 'q', 'score', 'criteria']],
    ['missing choice criteria', { state: 'x', questions: { q: { type: 'choice', instructions: 'x' } } }, ['body', 'questions', 'q', 'choice', 'criteria']],
    ['number instructions', { state: 'x', questions: { q: { type: 'noul', instructions: 5 } } }, ['body', 'questions', 'q', 'noul', 'instructions']],
    // The loc the earlier clients render (Bud's conformance test asserts it exactly).
    ['score without criteria', { state: 'x', questions: { q: { type: 'score', instructions: 'How?' } } }, ['body', 'questions', 'q', 'score', 'criteria']],
    ['model not a string', { model: 5, state: 'x', questions }, ['body', 'model']],
  ];
  for (const [name, body, loc] of invalid) {
    test(`422 invalid_request: ${name}`, async () => {
      const res = await call(body);
      assertError(res, 422, 'invalid_request');
      assert.ok(Array.isArray(res.body.detail), JSON.stringify(res.body));
      const item = res.body.detail[0];
      assert.deepEqual(item.loc.slice(0, loc.length), loc, JSON.stringify(res.body.detail));
      assert.equal(typeof item.msg, 'string');
      assert.equal(typeof item.type, 'string');
    });
  }

  test('a score level given as null has the empty string as its legend, never null', async () => {
    const res = await call({ state: 'x', questions: { anger: { type: 'score', instructions: 'How frustrated?', criteria: ['Calm', null] } } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.answers.anger.legend, { '0': 'Calm', '1': '' });
  });

  test('400 unknown_model lists the accepted names', async () => {
    const res = await call({ model: 'no-such-model', state: 'x', questions });
    assertError(res, 400, 'unknown_model');
    assert.ok(res.body.detail.accepted_models.includes('legacy-latest'));
    assert.ok(res.body.detail.accepted_models.includes('core-multilingual-0.3.20'));
  });

  test('413 too_many_questions above 32', async () => {
    const many = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`q${i}`, questions.urgent]));
    const res = await call({ state: 'x', questions: many });
    assertError(res, 413, 'too_many_questions');
    assert.equal(res.body.detail.limit, 32);
    const ok = await call({ state: 'x', questions: Object.fromEntries(Object.entries(many).slice(0, 32)) });
    assert.equal(ok.status, 200);
  });

  test('413 state_too_long reports room and overflow per question, in the checkpoint tokenizer', async () => {
    const state = 'word '.repeat(700);
    const res = await call({ state, questions: { short: questions.urgent, long: questions.frustration } });
    assertError(res, 413, 'state_too_long');
    assert.equal(res.body.detail.model, 'core-0.3.20');
    assert.ok(res.body.detail.state_tokens >= 700);
    for (const name of ['short', 'long']) {
      const q = res.body.detail.questions[name];
      assert.ok(q.room > 400 && q.room < 511, JSON.stringify(q));
      assert.equal(q.overflow, res.body.detail.state_tokens - q.room);
    }
    assert.ok(res.body.detail.questions.long.room < res.body.detail.questions.short.room);
    assert.equal((t.gate as FixtureGate).commits.filter((c) => c.processedTokens === 0).length, 0);
  });

  test('413 processed_token_cap when questions × longest sequence exceeds the cap', async () => {
    const many = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`q${i}`, questions.urgent]));
    const res = await call({ state: 'word '.repeat(400), questions: many });
    assertError(res, 413, 'processed_token_cap');
    assert.equal(res.body.detail.cap, 3500);
    assert.ok(res.body.detail.cost > 3500);
  });

  test('413 payload_too_large above the body limit', async () => {
    const res = await call({ state: 'x'.repeat(t.config.bodyLimitBytes + 10), questions });
    assertError(res, 413, 'payload_too_large');
    assert.equal(res.body.detail.limit_bytes, t.config.bodyLimitBytes);
  });

  test('404 for an unknown path keeps the FastAPI body', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/nothing' });
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json(), { detail: 'Not Found' });
    assert.equal(res.headers['x-service-error-code'], 'not_found');
    assert.match(String(res.headers['x-typesafe-request-id']), REQUEST_ID);
  });

  test('rejected calls are never charged', async () => {
    const gate = t.gate as FixtureGate;
    const before = gate.commits.length;
    await call({ state: 'word '.repeat(700), questions });
    await call({ model: 'nope', state: 'x', questions });
    await call({ state: 'x', questions: {} });
    assert.equal(gate.commits.length, before);
  });
});
