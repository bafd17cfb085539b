/**
 * Issue 20, items 4 and 6: admission (in-flight slot, request rate) before any text work; a long state
 * tokenized off the event loop; in-flight slots as leases a dead replica cannot hold for long.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createGate, type AccountsGate } from '../../src/accounts/gate.js';
import { readManifest } from '../../src/engine/manifest.js';
import { CheckpointTokenizer } from '../../src/engine/tokenizer.js';
import { MemoryLimiter, RedisLimiter } from '../../src/limits/index.js';
import { InFlightLimit } from '../../src/errors.js';
import { rand, REDIS_URL, silentLog, sleep, testEnv, type TestEnv } from '../accounts/helpers.js';
import { testAppWithAccounts, type AccountsTestApp } from '../helpers/app.js';
import { fixtureModels } from '../helpers/checkpoints.js';

describe('admission before text work', () => {
  let env: TestEnv;
  let gate: AccountsGate;
  let served: AccountsTestApp;
  let app: FastifyInstance;
  before(async () => {
    env = await testEnv('sqlite');
    served = await testAppWithAccounts({ STRUCTQA_DATA_DIR: env.config.dataDir });
    ({ app, gate } = served);
  });
  after(async () => {
    await served.close();
    await env.cleanup();
  });

  test('an oversized state from an account past its request rate is refused 429 before it is tokenized', async () => {
    const { key } = await gate.createKey('flood', { create: true, limits: { requestsPerSecond: 1 } });
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const small = await app.inject({ method: 'POST', url: '/v1/systemone', headers, payload: { state: 'hi', questions: { q: { type: 'noul' } } } });
    assert.equal(small.statusCode, 200, small.body);
    // ~900 KB of words: tokenizing it is the expensive part, and the account has no request left
    const big = await app.inject({ method: 'POST', url: '/v1/systemone', headers, payload: { state: 'lorem ipsum '.repeat(75_000), questions: { q: { type: 'noul' } } } });
    assert.equal(big.statusCode, 429, big.body.slice(0, 300));
    assert.equal(big.headers['x-service-error-code'], 'rate_limited');
    assert.ok(Number(big.headers['retry-after-ms']) > 0);
  });
});

test('a long state is tokenized off the event loop, with the same ids', async () => {
  const dir = path.join(await fixtureModels(), 'fixture-en');
  const manifest = readManifest(dir);
  const js = await CheckpointTokenizer.fromFile(path.join(dir, manifest.files.tokenizer), manifest);
  const native = await CheckpointTokenizer.fromFile(path.join(dir, manifest.files.tokenizer), manifest, { prefer: 'native' });
  assert.equal(js.implementation, 'js');
  const text = 'The parcel arrived late and the box was crushed. '.repeat(20_000); // ~1 MB
  let ticks = 0;
  const ticker = setInterval(() => ticks++, 1);
  const ids = await js.encode([text]);
  clearInterval(ticker);
  assert.ok(ticks > 0, 'other work ran while the long text was encoded');
  assert.deepEqual(ids, await native.encode([text]));
});

describe('in-flight slots are leases', () => {
  test('memory: a slot that is not renewed lapses after its lease; a renewed one holds', async () => {
    let now = 0;
    const lim = new MemoryLimiter(() => now);
    const held = await lim.acquireSlot('a', 1, 1000);
    assert.ok(held.ok);
    now = 900;
    await held.renew();
    now = 1500;
    assert.equal((await lim.acquireSlot('a', 1, 1000)).ok, false, 'renewed at 900: held until 1900');
    now = 2000;
    assert.equal((await lim.acquireSlot('a', 1, 1000)).ok, true, 'not renewed since: lapsed');
  });

  test('Redis: the slots of a replica that died are free within one lease; a live holder keeps its slot', async () => {
    const prefix = `sqa-test-${rand(6)}:`;
    const dead = new RedisLimiter({ url: REDIS_URL, prefix, timeoutMs: 1000 });
    const live = new RedisLimiter({ url: REDIS_URL, prefix, timeoutMs: 1000 });
    try {
      await Promise.all([dead.ready(2000), live.ready(2000)]);
      const a = await dead.acquireSlot('acct', 2, 400);
      const b = await live.acquireSlot('acct', 2, 400);
      assert.ok(a.ok && b.ok);
      assert.equal((await live.acquireSlot('acct', 2, 400)).ok, false);
      dead.redis.disconnect(); // "SIGKILL": never released, never renewed
      for (let i = 0; i < 4; i++) {
        await sleep(200);
        await b.renew();
      }
      const c = await live.acquireSlot('acct', 2, 400);
      assert.ok(c.ok, "the dead replica's slot lapsed");
      assert.equal((await live.acquireSlot('acct', 2, 400)).ok, false, 'the renewed slot is still held');
    } finally {
      dead.redis.disconnect();
      await live.close();
    }
  });

  test('the gate renews the slot of a running call', async () => {
    const env = await testEnv('sqlite', { redis: true, env: { STRUCTQA_SLOT_LEASE_MS: '300', STRUCTQA_IN_FLIGHT: '1' } });
    const gate = await createGate(env.config, silentLog, { bootstrap: false });
    try {
      const a = await gate.createAccount(`lease${rand(3)}`);
      const account = { id: a.id, name: a.name, limits: a.limits };
      const entry = await gate.enter(account, {});
      await sleep(900); // three leases
      await assert.rejects(gate.enter(account, {}), InFlightLimit);
      await entry.leave();
      await (await gate.enter(account, {})).leave();
    } finally {
      await gate.close();
      await env.cleanup();
    }
  });
});

test('an allowance reservation is a lease renewed while its call runs; a dead process lets go of its Idempotency-Key within one lease', async () => {
  const env = await testEnv('sqlite', { env: { STRUCTQA_RESERVATION_TTL_MS: '300' } });
  const gate = await createGate(env.config, silentLog, { bootstrap: false });
  try {
    const a = await gate.createAccount(`rsv${rand(3)}`);
    const account = { id: a.id, name: a.name, limits: a.limits };
    const running = await gate.admit(account, { processedTokens: 5, idempotencyKey: 'live', requestHash: 'h' });
    await sleep(900); // three leases: renewed meanwhile
    await assert.rejects(gate.admit(account, { processedTokens: 5, idempotencyKey: 'live', requestHash: 'h' }), /still being answered/);
    await running.release();
    // a process that died: its reservation is never renewed
    await gate.store.reserve({ accountId: account.id, allowance: 1000, tokens: 5, idempotencyKey: 'dead', requestHash: 'h', now: Date.now(), ttlMs: 300 });
    await sleep(400);
    const retry = await gate.admit(account, { processedTokens: 5, idempotencyKey: 'dead', requestHash: 'h' });
    assert.ok(!retry.replay);
    await retry.release();
  } finally {
    await gate.close();
    await env.cleanup();
  }
});
