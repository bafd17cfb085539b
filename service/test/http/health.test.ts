/** Readiness, 529 while starting, /v1/models, /metrics and /openapi.json. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testApp } from '../helpers/app.js';

const body = { state: 'Is this working?', questions: { q: { type: 'noul', instructions: 'Is it a question?' } } };

test('until the checkpoints are loaded and warmed: /readyz 503 and calls get 529 starting with retry headers', async () => {
  const t = await testApp({ start: false });
  try {
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 503);
    assert.equal((await t.app.inject({ method: 'GET', url: '/livez' })).statusCode, 200);
    const res = await t.app.inject({ method: 'POST', url: '/v1/systemone', payload: body, headers: t.auth });
    assert.equal(res.statusCode, 529);
    assert.equal(res.headers['x-service-error-code'], 'starting');
    assert.equal(res.headers['retry-after'], String(Math.ceil(t.config.engine.startingRetryMs / 1000)));
    assert.equal(res.headers['retry-after-ms'], String(t.config.engine.startingRetryMs));
    await t.engine.start();
    assert.equal((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
    const after = await t.app.inject({ method: 'POST', url: '/v1/systemone', payload: body, headers: t.auth });
    assert.equal(after.statusCode, 200);
  } finally {
    await t.close();
  }
});

test('a full queue answers 529 overloaded', async () => {
  const t = await testApp({ env: { STRUCTQA_QUEUE_MAX_ROWS: '1' } });
  try {
    const two = { ...body, questions: { a: body.questions.q, b: { type: 'noul', instructions: 'Other?' } } };
    const res = await t.app.inject({ method: 'POST', url: '/v1/systemone', payload: two, headers: t.auth });
    assert.equal(res.statusCode, 529);
    assert.equal(res.headers['x-service-error-code'], 'overloaded');
    assert.ok(Number(res.headers['retry-after-ms']) > 0);
  } finally {
    await t.close();
  }
});

test('/v1/models lists every accepted name with a date-only release_date', async () => {
  const t = await testApp();
  try {
    const res = await t.app.inject({ method: 'GET', url: '/v1/models' });
    assert.equal(res.statusCode, 200);
    const models = res.json().models as { name: string; description: string; release_date: string }[];
    const names = models.map((m) => m.name);
    for (const name of ['legacy-latest', 'legacy-preview', 'legacy-1.13.0', 'core-latest', 'core-0.3.20', 'core-multilingual', 'core-multilingual-0.3.20', 'jev-latest', 'jev-preview', 'jev-1.13.0']) {
      assert.ok(names.includes(name), name);
    }
    for (const m of models) {
      assert.deepEqual(Object.keys(m).sort(), ['description', 'name', 'release_date']);
      assert.match(m.release_date, /^\d{4}-\d{2}-\d{2}$/);
    }
    assert.match(models.find((m) => m.name === 'core-0.3.20')!.description, /FIXTURE/);
  } finally {
    await t.close();
  }
});

test('/metrics counts requests by route, status and error code, queue depth and processed tokens', async () => {
  const t = await testApp();
  try {
    await t.app.inject({ method: 'POST', url: '/v1/systemone', payload: body, headers: t.auth });
    await t.app.inject({ method: 'POST', url: '/v1/systemone', payload: { ...body, model: 'nope' }, headers: t.auth });
    const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
    assert.match(text, /structqa_http_requests_total\{route="\/v1\/systemone",method="POST",status="200",code=""\} 1/);
    assert.match(text, /structqa_http_requests_total\{route="\/v1\/systemone",method="POST",status="400",code="unknown_model"\} 1/);
    assert.match(text, /structqa_http_request_duration_seconds_bucket\{le="[^"]+",route="\/v1\/systemone"/);
    assert.match(text, /structqa_queue_rows\{checkpoint="core-0.3.20"\} 0/);
    assert.match(text, /structqa_processed_tokens_total\{checkpoint="core-0.3.20"\} \d+/);
  } finally {
    await t.close();
  }
});

test('/openapi.json is OpenAPI 3.1 generated from the validating schemas', async () => {
  const t = await testApp({ start: false });
  try {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    assert.equal(doc.openapi, '3.1.0');
    const post = doc.paths['/v1/systemone'].post;
    assert.equal(post.operationId, 'systemone_v1_systemone_post');
    const schema = post.requestBody.content['application/json'].schema;
    assert.deepEqual(schema.required.sort(), ['questions', 'state']);
    const question = schema.properties.questions.additionalProperties ?? Object.values(schema.properties.questions.patternProperties ?? {})[0];
    assert.equal(question.oneOf.length, 3);
    // laya's forms shown as accepted extensions: list-form choice criteria, number and boolean score levels
    const [, choice, score] = question.oneOf;
    const [map, list] = choice.properties.criteria.anyOf;
    assert.equal(map.type, 'object');
    assert.equal(list.type, 'array');
    assert.deepEqual(list.items.anyOf.map((s: { type: string }) => s.type), ['string', 'number', 'boolean']);
    assert.equal(list['x-distinct-labels'], true);
    assert.ok(['number', 'boolean'].every((t) => score.properties.criteria.items.anyOf.some((s: { type: string }) => s.type === t)));
    assert.ok(doc.paths['/v1/models'].get);
    assert.ok(post.responses['422'] && post.responses['413'] && post.responses['529']);
  } finally {
    await t.close();
  }
});
