/**
 * Issue 20, items 8, 9 and 10 (HTTP): keys named by id or prefix and never written to a log line,
 * over-long Idempotency-Keys refused (not cut), 405 with Allow, ?month from 1970, expected 529s not
 * logged as errors.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { createGate, type AccountsGate } from '../../src/accounts/gate.js';
import { buildApp } from '../../src/http/app.js';
import { loggerOptions } from '../../src/http/redact.js';
import { adminRoutes } from '../../src/http/routes/admin.js';
import { usageRoutes } from '../../src/http/routes/usage.js';
import { Metrics } from '../../src/http/metrics.js';
import { ModelRouter } from '../../src/routing/models.js';
import { createEngine } from '../../src/server.js';
import type { Engine } from '../../src/engine/engine.js';
import { silentLog, testEnv, type TestEnv } from '../accounts/helpers.js';
import { testConfig } from '../helpers/checkpoints.js';

const ADMIN = 'admin-token-for-hardening-tests';
let env: TestEnv;
let gate: AccountsGate;
let engine: Engine;
let app: FastifyInstance;
let logged = '';
let key = '';

before(async () => {
  env = await testEnv('sqlite');
  const config = await testConfig({ STRUCTQA_DATA_DIR: env.config.dataDir, STRUCTQA_ADMIN_TOKEN: ADMIN });
  gate = await createGate(config, silentLog, { bootstrap: false });
  engine = createEngine(config, new Metrics());
  const sink = new Writable({
    write(chunk, _enc, done) {
      logged += chunk.toString();
      done();
    },
  });
  app = await buildApp({
    config,
    engine,
    router: new ModelRouter(config.models),
    gate,
    loggerInstance: pino(loggerOptions('info'), sink),
    plugins: [(a) => usageRoutes(a, { gate }), (a) => adminRoutes(a, { gate, adminToken: ADMIN })],
  });
  // The engine is not started: calls get 529 starting (expected, not an error).
  key = (await gate.createKey('hardening', { create: true })).key;
});
after(async () => {
  await app.close();
  await engine.close();
  await gate.close();
  await env.cleanup();
});

test('DELETE /admin/keys/<whole key> is refused and the key is in no log line, whatever the admin token', async () => {
  for (const token of [ADMIN, 'wrong-token']) {
    const res = await app.inject({ method: 'DELETE', url: `/admin/keys/${key}`, headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.statusCode, token === ADMIN ? 422 : 403);
    assert.ok(!res.body.includes(key), 'the key is not echoed');
  }
  // by its visible prefix it works
  const res = await app.inject({ method: 'DELETE', url: `/admin/keys/${key.slice(0, 17)}`, headers: { authorization: `Bearer ${ADMIN}` } });
  assert.equal(res.statusCode, 200, res.body);
  assert.ok(logged.includes(key.slice(0, 17)), 'the prefix is logged');
  assert.ok(!logged.includes(key), 'no line holds the whole key');
  assert.ok(!logged.includes(key.slice(0, 18)), 'nothing past the visible prefix');
});

test('an Idempotency-Key over 255 characters is refused (422), not cut', async () => {
  const fresh = (await gate.createKey('hardening2', { create: true })).key;
  const res = await app.inject({
    method: 'POST',
    url: '/v1/systemone',
    payload: { state: 'x', questions: { q: { type: 'noul' } } },
    headers: { authorization: `Bearer ${fresh}`, 'idempotency-key': 'k'.repeat(256) },
  });
  assert.equal(res.statusCode, 422, res.body);
  assert.deepEqual(res.json().detail[0].loc, ['header', 'idempotency-key']);
});

test('a known path with another method is 405 with Allow; an unknown path stays 404', async () => {
  const res = await app.inject({ method: 'GET', url: '/v1/systemone' });
  assert.equal(res.statusCode, 405);
  assert.equal(res.headers['allow'], 'POST');
  assert.equal(res.headers['x-service-error-code'], 'method_not_allowed');
  const del = await app.inject({ method: 'PUT', url: '/admin/keys/key_abc' });
  assert.equal(del.statusCode, 405);
  assert.equal(del.headers['allow'], 'DELETE');
  assert.equal((await app.inject({ method: 'GET', url: '/nowhere' })).statusCode, 404);
});

test('?month before 1970 is a 422, not another century', async () => {
  for (const month of ['0000-01', '0099-12', '1969-12']) {
    const res = await app.inject({ method: 'GET', url: `/v1/usage?month=${month}`, headers: { authorization: `Bearer ${(await gate.createKey(`m${month}`, { create: true })).key}` } });
    assert.equal(res.statusCode, 422, `${month}: ${res.body}`);
  }
});

test('expected 529 starting responses are not logged at error level', async () => {
  const fresh = (await gate.createKey('hardening3', { create: true })).key;
  logged = '';
  const res = await app.inject({ method: 'POST', url: '/v1/systemone', payload: { state: 'x', questions: { q: { type: 'noul' } } }, headers: { authorization: `Bearer ${fresh}` } });
  assert.equal(res.statusCode, 529);
  const levels = logged.trim().split('\n').map((l) => (JSON.parse(l) as { level: number }).level);
  assert.ok(levels.length > 0);
  assert.ok(levels.every((l) => l < 50), `levels ${levels.join(',')}`);
});
