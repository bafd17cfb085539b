import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createGate } from '../../src/accounts/gate.js';
import { InFlightLimit, RateLimited, ServiceError } from '../../src/errors.js';
import { LimitsUnavailable, MemoryLimiter, RedisLimiter, ResilientLimiter, type Limiter } from '../../src/limits/index.js';
import { charge, rand, recordingLog, REDIS_URL, silentLog, sleep, testEnv } from '../accounts/helpers.js';

describe('memory token buckets (injected clock)', () => {
  it('burst = one second; Retry-After is exact and honest', async () => {
    let now = 1_000_000;
    const lim = new MemoryLimiter(() => now);
    const limits = { requestsPerSecond: 5, processedTokensPerSecond: 1000 };
    for (let i = 0; i < 5; i++) assert.deepEqual(await lim.consumeRate('a', limits, 10), { ok: true });
    const d = await lim.consumeRate('a', limits, 10);
    assert.deepEqual(d, { ok: false, retryAfterMs: 200 });
    now += 199;
    assert.equal((await lim.consumeRate('a', limits, 10)).ok, false);
    now += 1;
    assert.equal((await lim.consumeRate('a', limits, 10)).ok, true);
  });
  it('token rate: both buckets or neither; a call larger than the bucket waits for a full bucket', async () => {
    let now = 0;
    const lim = new MemoryLimiter(() => now);
    const limits = { requestsPerSecond: 100, processedTokensPerSecond: 1000 };
    assert.equal((await lim.consumeRate('b', limits, 700)).ok, true);
    const d = await lim.consumeRate('b', limits, 700);
    assert.deepEqual(d, { ok: false, retryAfterMs: 400 });
    now += 400;
    assert.equal((await lim.consumeRate('b', limits, 700)).ok, true);
    now += 10_000;
    assert.equal((await lim.consumeRate('b', limits, 5000)).ok, true); // bigger than the bucket: passes when full, leaves debt
    const w = await lim.consumeRate('b', limits, 1);
    assert.equal(w.ok, false);
    assert.equal((w as { retryAfterMs: number }).retryAfterMs, 4001);
  });
  it('in-flight slots: limit, release, expiry', async () => {
    let now = 0;
    const lim = new MemoryLimiter(() => now);
    const s1 = await lim.acquireSlot('c', 2, 1000);
    const s2 = await lim.acquireSlot('c', 2, 1000);
    assert.ok(s1.ok && s2.ok);
    assert.equal((await lim.acquireSlot('c', 2, 1000)).ok, false);
    if (s1.ok) await s1.release();
    const s3 = await lim.acquireSlot('c', 2, 1000);
    assert.ok(s3.ok);
    assert.equal((await lim.acquireSlot('c', 2, 1000)).ok, false);
    now += 1000; // both held slots expire (a crashed caller)
    assert.ok((await lim.acquireSlot('c', 2, 1000)).ok);
  });
});

describe('redis limits', () => {
  const made: Limiter[] = [];
  const redisLimiter = () => {
    const l = new RedisLimiter({ url: REDIS_URL, prefix: `sqa-test-${rand(6)}:`, timeoutMs: 500 });
    made.push(l);
    return l;
  };
  after(async () => {
    for (const l of made) await l.close();
  });

  it('token bucket across two clients sharing a prefix; waiting Retry-After gets through', async () => {
    const prefix = `sqa-test-${rand(6)}:`;
    const a = new RedisLimiter({ url: REDIS_URL, prefix, timeoutMs: 500 });
    const b = new RedisLimiter({ url: REDIS_URL, prefix, timeoutMs: 500 });
    made.push(a, b);
    await a.ready(2000);
    await b.ready(2000);
    const limits = { requestsPerSecond: 4, processedTokensPerSecond: 100_000 };
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).consumeRate('acct', limits, 1)));
    assert.equal(results.filter((r) => r.ok).length, 4);
    const refused = results.find((r) => !r.ok) as { ok: false; retryAfterMs: number };
    assert.ok(refused.retryAfterMs > 0 && refused.retryAfterMs <= 250, `retry ${refused.retryAfterMs}`);
    const d = await a.consumeRate('acct', limits, 1);
    assert.equal(d.ok, false);
    await sleep((d as { retryAfterMs: number }).retryAfterMs);
    assert.equal((await b.consumeRate('acct', limits, 1)).ok, true);
  });

  it('processed-token bucket: honest wait', async () => {
    const l = redisLimiter();
    await (l as RedisLimiter).ready(2000);
    const limits = { requestsPerSecond: 1000, processedTokensPerSecond: 2000 };
    assert.equal((await l.consumeRate('t', limits, 1500)).ok, true);
    const d = await l.consumeRate('t', limits, 1500);
    assert.equal(d.ok, false);
    const wait = (d as { retryAfterMs: number }).retryAfterMs;
    assert.ok(wait >= 490 && wait <= 500, `wait ${wait}`);
    await sleep(wait);
    assert.equal((await l.consumeRate('t', limits, 1500)).ok, true);
  });

  it('in-flight slots are shared and expire', async () => {
    const l = redisLimiter();
    await (l as RedisLimiter).ready(2000);
    const got = await Promise.all(Array.from({ length: 6 }, () => l.acquireSlot('f', 3, 300)));
    assert.equal(got.filter((g) => g.ok).length, 3);
    const first = got.find((g) => g.ok);
    if (first?.ok) await first.release();
    assert.equal((await l.acquireSlot('f', 3, 300)).ok, true);
    assert.equal((await l.acquireSlot('f', 3, 300)).ok, false);
    await sleep(320); // holders "crashed": their slots expire
    assert.equal((await l.acquireSlot('f', 3, 300)).ok, true);
  });
});

describe('redis unreachable', () => {
  const dead = 'redis://127.0.0.1:1'; // nothing listens there
  it("'open': falls back to in-process limits and warns", async () => {
    const log = recordingLog();
    const redis = new RedisLimiter({ url: dead, prefix: 'x:', timeoutMs: 100 });
    const lim = new ResilientLimiter(redis, new MemoryLimiter(), 'open', log);
    const limits = { requestsPerSecond: 2, processedTokensPerSecond: 1000 };
    const r = await Promise.all([1, 2, 3].map(() => lim.consumeRate('a', limits, 1)));
    assert.deepEqual(r.map((x) => x.ok), [true, true, false]);
    assert.ok(lim.usingFallback);
    const s = await lim.acquireSlot('a', 1, 1000);
    assert.ok(s.ok);
    assert.equal((await lim.acquireSlot('a', 1, 1000)).ok, false);
    assert.equal(log.lines.filter((l) => l.level === 'warn').length, 1);
    await lim.close();
  });
  it("'closed': answers 529 with Retry-After", async () => {
    const redis = new RedisLimiter({ url: dead, prefix: 'x:', timeoutMs: 100 });
    const lim = new ResilientLimiter(redis, new MemoryLimiter(), 'closed', silentLog);
    await assert.rejects(lim.consumeRate('a', { requestsPerSecond: 2, processedTokensPerSecond: 10 }, 1), (e: unknown) => {
      return e instanceof LimitsUnavailable && e.status === 529 && e.headers['retry-after'] === '1';
    });
    await assert.rejects(lim.acquireSlot('a', 1, 1000), LimitsUnavailable);
    await lim.close();
  });
  it('a gate configured with an unreachable Redis still answers (open mode)', async () => {
    const env = await testEnv('sqlite', { env: { REDIS_URL: dead, STRUCTQA_REDIS_TIMEOUT_MS: '100' } });
    const gate = await createGate(env.config, silentLog, { bootstrap: false });
    const a = await gate.createAccount('x');
    const adm = await gate.admit({ id: a.id, name: a.name, limits: a.limits }, { processedTokens: 10 });
    await adm.commit(charge('r', 10));
    await gate.close();
    await env.cleanup();
  });
});

for (const redis of [false, true]) {
  describe(`gate limits (${redis ? 'redis' : 'memory'})`, () => {
    it('429 rate_limited with honest Retry-After / retry-after-ms; waiting it gets through', async () => {
      const env = await testEnv('sqlite', { redis, env: { STRUCTQA_REQUESTS_PER_SECOND: '3' } });
      const gate = await createGate(env.config, silentLog, { bootstrap: false });
      try {
        const a = await gate.createAccount('r');
        const acct = { id: a.id, name: a.name, limits: a.limits };
        for (let i = 0; i < 3; i++) await (await gate.admit(acct, { processedTokens: 1 })).commit(charge(`q${i}`, 1));
        let err: RateLimited | undefined;
        try {
          await gate.admit(acct, { processedTokens: 1 });
        } catch (e) {
          err = e as RateLimited;
        }
        assert.ok(err instanceof RateLimited);
        assert.equal(err.status, 429);
        const ms = Number(err.headers['retry-after-ms']);
        assert.ok(ms > 0 && ms <= 334, `retry-after-ms ${ms}`);
        assert.equal(err.headers['retry-after'], '1');
        assert.equal(err.extra.retry_after_ms, ms);
        await sleep(ms);
        await (await gate.admit(acct, { processedTokens: 1 })).release();
        // Nothing charged for the refused call.
        assert.equal((await gate.totals({ accountId: a.id })).records, 3);
      } finally {
        await gate.close();
        await env.cleanup();
      }
    });

    it('429 in_flight_limit; a slot frees when a call settles', async () => {
      const env = await testEnv('sqlite', { redis, env: { STRUCTQA_IN_FLIGHT: '2' } });
      const gate = await createGate(env.config, silentLog, { bootstrap: false });
      try {
        const a = await gate.createAccount('f');
        const acct = { id: a.id, name: a.name, limits: a.limits };
        const x = await gate.admit(acct, { processedTokens: 1 });
        const y = await gate.admit(acct, { processedTokens: 1 });
        let err: unknown;
        try {
          await gate.admit(acct, { processedTokens: 1 });
        } catch (e) {
          err = e;
        }
        assert.ok(err instanceof InFlightLimit);
        assert.equal((err as ServiceError).extra.limit, 2);
        assert.ok(Number((err as ServiceError).headers['retry-after-ms']) > 0);
        await x.commit(charge('x', 1));
        const z = await gate.admit(acct, { processedTokens: 1 });
        await y.release();
        await z.release();
        // A refused admission does not hold a slot.
        await Promise.all([gate.admit(acct, { processedTokens: 1 }), gate.admit(acct, { processedTokens: 1 })]).then((l) => Promise.all(l.map((s) => s.release())));
      } finally {
        await gate.close();
        await env.cleanup();
      }
    });
  });
}

describe('redis goes away and comes back (through a TCP proxy)', () => {
  it("'open' keeps admitting with local limits during the outage; 'closed' answers 529; both recover", async () => {
    const net = await import('node:net');
    const target = new URL(REDIS_URL);
    const sockets = new Set<import('node:net').Socket>();
    let up = true;
    const proxy = net.createServer((client) => {
      if (!up) return client.destroy();
      const server = net.connect(Number(target.port || 6379), target.hostname);
      sockets.add(client).add(server);
      client.pipe(server).pipe(client);
      const drop = () => {
        client.destroy();
        server.destroy();
      };
      client.on('error', drop).on('close', drop);
      server.on('error', drop).on('close', drop);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const port = (proxy.address() as import('node:net').AddressInfo).port;
    const url = `redis://127.0.0.1:${port}`;
    const mk = (mode: 'open' | 'closed') => {
      const redis = new RedisLimiter({ url, prefix: `sqa-test-${rand(6)}:`, timeoutMs: 150 });
      return { redis, lim: new ResilientLimiter(redis, new MemoryLimiter(), mode, silentLog) };
    };
    const open = mk('open');
    const closed = mk('closed');
    await open.redis.ready(2000);
    await closed.redis.ready(2000);
    const limits = { requestsPerSecond: 1000, processedTokensPerSecond: 1_000_000 };
    try {
      assert.equal((await open.lim.consumeRate('a', limits, 1)).ok, true);
      assert.equal(open.lim.usingFallback, false);
      up = false;
      for (const s of sockets) s.destroy();
      await sleep(50);
      assert.equal((await open.lim.consumeRate('a', limits, 1)).ok, true);
      assert.equal(open.lim.usingFallback, true);
      await assert.rejects(closed.lim.consumeRate('a', limits, 1), LimitsUnavailable);
      up = true;
      await Promise.all([open.redis.ready(5000), closed.redis.ready(5000)]);
      await sleep(1000); // the 1 s back-off after a failure
      assert.equal((await closed.lim.consumeRate('a', limits, 1)).ok, true);
      assert.equal((await open.lim.consumeRate('a', limits, 1)).ok, true);
      assert.equal(open.lim.usingFallback, false);
    } finally {
      await open.lim.close();
      await closed.lim.close();
      for (const s of sockets) s.destroy();
      proxy.close();
    }
  });
});
