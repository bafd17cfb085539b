import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createGate, type AccountsGate } from '../../src/accounts/gate.js';
import { adminRoutes } from '../../src/http/routes/admin.js';
import { usageRoutes } from '../../src/http/routes/usage.js';
import { charge, miniApp, silentLog, testEnv, type TestEnv } from './helpers.js';

describe('GET /v1/usage, /app/usage and the admin routes', () => {
  let env: TestEnv;
  let gate: AccountsGate;
  let app: FastifyInstance;
  let closed: FastifyInstance;
  const ADMIN = 'admin-secret-token-123';
  const now = Date.UTC(2026, 10, 15, 12);

  before(async () => {
    env = await testEnv('sqlite');
    gate = await createGate(env.config, silentLog, { bootstrap: false, clock: () => now });
    app = miniApp();
    await app.register(usageRoutes, { gate });
    await app.register(adminRoutes, { gate, adminToken: ADMIN });
    closed = miniApp();
    await closed.register(adminRoutes, { gate, adminToken: undefined });
  });
  after(async () => {
    await app.close();
    await closed.close();
    await gate.close();
    await env.cleanup();
  });

  const auth = { authorization: `Bearer ${ADMIN}` };

  it('admin routes: 404 when no admin token is configured, 403 with a wrong one', async () => {
    const r1 = await closed.inject({ method: 'GET', url: '/admin/accounts', headers: auth });
    assert.equal(r1.statusCode, 404);
    const r2 = await app.inject({ method: 'GET', url: '/admin/accounts' });
    assert.equal(r2.statusCode, 403);
    assert.equal(r2.headers['x-service-error-code'], 'forbidden');
    const r3 = await app.inject({ method: 'GET', url: '/admin/accounts', headers: { authorization: 'Bearer nope' } });
    assert.equal(r3.statusCode, 403);
  });

  it('admin: create a key (account created), list, usage, revoke', async () => {
    const c = await app.inject({ method: 'POST', url: '/admin/keys', headers: auth, payload: { account: 'carol', monthly_allowance: 5000 } });
    assert.equal(c.statusCode, 201, c.body);
    const created = c.json();
    assert.match(created.key, /^sqa_live_/);
    assert.equal(created.account_created, true);
    const list = (await app.inject({ method: 'GET', url: '/admin/keys?account=carol', headers: auth })).json();
    assert.equal(list.keys.length, 1);
    assert.equal(list.keys[0].prefix, created.key.slice(0, 17));
    assert.ok(!JSON.stringify(list).includes(created.key));
    const accts = (await app.inject({ method: 'GET', url: '/admin/accounts', headers: auth })).json();
    assert.equal(accts.accounts.find((a: { name: string }) => a.name === 'carol').limits.monthly_allowance, 5000);
    const patch = await app.inject({ method: 'PATCH', url: '/admin/accounts/carol', headers: auth, payload: { in_flight: 3 } });
    assert.equal(patch.json().limits.in_flight, 3);
    const bad = await app.inject({ method: 'PATCH', url: '/admin/accounts/carol', headers: auth, payload: { in_flight: 'x' } });
    assert.equal(bad.statusCode, 422);
    const missing = await app.inject({ method: 'PATCH', url: '/admin/accounts/nobody', headers: auth, payload: { in_flight: 3 } });
    assert.equal(missing.statusCode, 404);
    const dup = await app.inject({ method: 'POST', url: '/admin/accounts', headers: auth, payload: { name: 'carol' } });
    assert.equal(dup.statusCode, 422);

    // Usage through the key.
    const acct = await gate.authenticate(`Bearer ${created.key}`);
    await (await gate.admit(acct, { processedTokens: 1200 })).commit(charge('a', 1200, 'core-0.3.20'));
    await (await gate.admit(acct, { processedTokens: 800 })).commit(charge('b', 800, 'core-multilingual-0.3.20'));
    const u = await app.inject({ method: 'GET', url: '/v1/usage', headers: { authorization: `Bearer ${created.key}` } });
    assert.equal(u.statusCode, 200);
    const body = u.json();
    assert.equal(body.allowance, 5000);
    assert.equal(body.used, 2000);
    assert.equal(body.remaining, 3000);
    assert.equal(body.resets_at, '2026-12-01T00:00:00.000Z');
    assert.equal(body.by_day.length, 15);
    assert.deepEqual(body.by_day[14].by_model, { 'core-0.3.20': 1200, 'core-multilingual-0.3.20': 800 });
    assert.deepEqual(body.by_model.map((m: { model: string }) => m.model), ['core-0.3.20', 'core-multilingual-0.3.20']);
    const au = (await app.inject({ method: 'GET', url: '/admin/accounts/carol/usage', headers: auth })).json();
    assert.equal(au.used, 2000);

    const rev = await app.inject({ method: 'DELETE', url: `/admin/keys/${created.prefix}`, headers: auth });
    assert.equal(rev.statusCode, 200);
    assert.ok(rev.json().revoked_at);
    const after = await app.inject({ method: 'GET', url: '/v1/usage', headers: { authorization: `Bearer ${created.key}` } });
    assert.equal(after.statusCode, 401);
    assert.equal(after.headers['x-service-error-code'], 'invalid_api_key');
    assert.equal(after.headers['www-authenticate'], 'Bearer');
  });

  it('/v1/usage: 403 without a key, 401 for an earlier-service key, 422 for a bad month', async () => {
    const r = await app.inject({ method: 'GET', url: '/v1/usage' });
    assert.equal(r.statusCode, 403);
    assert.equal(r.headers['x-service-error-code'], 'missing_api_key');
    assert.equal(r.json().detail.error_type, 'authentication_error');
    const e = await app.inject({ method: 'GET', url: '/v1/usage', headers: { authorization: 'Bearer tsk_0123456789abcdef' } });
    assert.equal(e.statusCode, 401);
    assert.match(e.json().detail.message, /separate/);
    const { key } = await gate.createKey('dave', { create: true });
    const m = await app.inject({ method: 'GET', url: '/v1/usage?month=2026-13', headers: { authorization: `Bearer ${key}` } });
    assert.equal(m.statusCode, 422);
  });

  it('/app/usage is a self-contained HTML page with a strict CSP', async () => {
    const r = await app.inject({ method: 'GET', url: '/app/usage' });
    assert.equal(r.statusCode, 200);
    assert.match(String(r.headers['content-type']), /text\/html/);
    assert.match(String(r.headers['content-security-policy']), /default-src 'none'; script-src 'sha256-/);
    assert.ok(!/https?:\/\//.test(r.body.replace('http://www.w3.org/2000/svg', '')), 'no external URLs');
  });
});
