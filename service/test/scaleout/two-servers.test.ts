/**
 * Scale-out over HTTP: two real `structqa serve` processes on different ports sharing one PostgreSQL
 * schema and one Redis prefix. Load from many concurrent clients is split across both, and the
 * monthly allowance, the request rate, the in-flight limit and Idempotency-Key replays hold across
 * them; the ledger (usage_records) matches exactly what the clients received.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { usageTotals } from '../../src/accounts/store.js';
import { openDb, type Db } from '../../src/storage/db.js';
import { dropSchema, PG_URL, REDIS_URL } from '../accounts/helpers.js';
import { startServer, type LiveServer } from '../helpers/server.js';
import { call, maxOverlap, newAccount, sharedStateEnv, sleep, tally, usage, type CallResult } from './helpers.js';

const HIGH = { monthly_allowance: 100_000_000, requests_per_second: 100_000, processed_tokens_per_second: 100_000_000, in_flight: 1000 };

describe('two HTTP servers sharing PostgreSQL and Redis', () => {
  const { schema, prefix, env } = sharedStateEnv();
  let a: LiveServer;
  let b: LiveServer;
  let db: Db;
  let redis: Redis;
  let cost1 = 0; // processed tokens of one 1-question call

  before(async () => {
    // Both start together: migrations and the first-start bootstrap run once (advisory locks).
    [a, b] = await Promise.all([startServer({ env }), startServer({ env })]);
    assert.notEqual(a.port, b.port);
    assert.ok(Boolean(a.firstKey) !== Boolean(b.firstKey), 'exactly one replica bootstrapped the default account');
    db = await openDb({ databaseUrl: PG_URL, databaseSchema: schema, sqlitePath: '/nonexistent/unused.sqlite' });
    redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
    const probe = await newAccount(a.url, HIGH);
    const r = await call(b.url, probe.key, { n: 1 });
    assert.equal(r.status, 200, r.body);
    cost1 = r.processedTokens!;
  });

  after(async () => {
    await Promise.allSettled([a?.stop(), b?.stop()]);
    await db?.close();
    if (redis) {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    }
    await dropSchema(schema);
  });

  const servers = () => [a.url, b.url];

  it('(a) the monthly allowance holds across both: drive to 402, the ledger equals what the clients got', async () => {
    const fits = 30;
    const allowance = fits * cost1 + Math.floor(cost1 / 2); // not a multiple of the call's cost
    const acct = await newAccount(b.url, { ...HIGH, monthly_allowance: allowance });
    const results: CallResult[] = [];
    // 16 clients, 8 per server, each calling until it gets a 402.
    await Promise.all(
      Array.from({ length: 16 }, async (_, i) => {
        const url = servers()[i % 2]!;
        for (;;) {
          const r = await call(url, acct.key, { n: 1 });
          results.push(r);
          if (r.status !== 200) return;
        }
      }),
    );
    const t = tally(results);
    const ok = results.filter((r) => r.status === 200);
    assert.deepEqual(Object.keys(t).sort(), ['200', '402:allowance_exhausted'], JSON.stringify(t));
    assert.equal(t['402:allowance_exhausted'], 16);
    assert.ok(ok.every((r) => r.processedTokens === cost1));
    assert.equal(ok.length, fits, JSON.stringify(t)); // every admitted call was answered, so exactly floor(allowance/cost) passed
    for (const url of servers()) assert.ok(ok.some((r) => r.server === url), `server ${url} answered some calls`);

    const totals = await usageTotals(db, { accountId: acct.accountId });
    const charged = ok.reduce((s, r) => s + r.processedTokens!, 0);
    assert.ok(totals.processedTokens <= allowance);
    assert.equal(totals.records, ok.length); // one record per 200, none for a 402
    assert.equal(totals.processedTokens, charged); // Σ usage.processed_tokens of the 200s, exactly
    assert.equal(totals.counterUsed, charged);
    assert.equal(totals.counterReserved, 0);
    assert.equal(totals.openReservations, 0);
    assert.ok(allowance - totals.counterUsed < cost1, 'the 402s were genuine: no call of this cost fits any more');
    const ids = await db.query<{ request_id: string }>('SELECT request_id FROM usage_records WHERE account_id = $1', [acct.accountId]);
    assert.deepEqual(ids.map((r) => r.request_id).sort(), ok.map((r) => r.requestId!).sort());
    // Both replicas report the same usage.
    for (const url of servers()) {
      const u = await usage(url, acct.key);
      assert.equal(u.used, charged);
      assert.equal(u.requests, fits);
      assert.equal(u.reserved, 0);
    }
  });

  it('(b) the request rate holds across both servers', async () => {
    const R = 8; // requests per second; the bucket holds one second's worth (burst = R)
    const acct = await newAccount(a.url, { ...HIGH, requests_per_second: R });
    const results: CallResult[] = [];
    const loadMs = 3000;
    const start = performance.now();
    // 10 clients, 5 per server, retrying 429s after at most 25 ms: the bucket is kept empty.
    await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const url = servers()[i % 2]!;
        while (performance.now() - start < loadMs) {
          const r = await call(url, acct.key, { n: 1 });
          results.push(r);
          if (r.status !== 200) await sleep(Math.min(r.retryAfterMs ?? 25, 25) * Math.random() + 1);
        }
      }),
    );
    const t = tally(results);
    assert.deepEqual(Object.keys(t).sort(), ['200', '429:rate_limited'], JSON.stringify(t));
    const ok = results.filter((r) => r.status === 200);
    for (const url of servers()) assert.ok(ok.some((r) => r.server === url), `server ${url} answered some calls`);
    const first = Math.min(...results.map((r) => r.sent));
    const last = Math.max(...results.map((r) => r.recv));
    // Exact token-bucket bound: every admission happened in [first send, last response], and a bucket of
    // R tokens refilled at R/s admits at most R + R·T in T seconds.
    const bound = R + (R * (last - first)) / 1000;
    assert.ok(ok.length <= bound, `${ok.length} answered in ${(last - first).toFixed(0)} ms > ${bound.toFixed(1)} (${JSON.stringify(t)})`);
    assert.ok(ok.length >= 0.6 * bound, `the limit throttles, it does not starve: ${ok.length} of ≤ ${bound.toFixed(1)}`);
    // 1-second windows (sliding by 50 ms), after the first second (the initial full bucket), counted by
    // the time the 200 was received. A call received in [w, w+1 s) was admitted in [w − L, w+1 s) with
    // L the longest 200 latency; with the bucket kept empty by the retrying clients that allows
    // R·(1 + L) admissions: tolerance = ceil(R·L) + 1 (one token refilled while no client was asking).
    const L = Math.max(...ok.map((r) => r.recv - r.sent)) / 1000;
    const tolerance = Math.ceil(R * L) + 1;
    let worst = 0;
    for (let w = first + 1000; w + 1000 <= last; w += 50) {
      const n = ok.filter((r) => r.recv >= w && r.recv < w + 1000).length;
      worst = Math.max(worst, n);
    }
    assert.ok(worst <= R + tolerance, `a 1-s window held ${worst} answered calls > rate ${R} + tolerance ${tolerance}`);
    // Exact per-window bound, no tolerance: calls sent and answered inside [w, w+1 s) ≤ burst R + R·1 s.
    for (let w = first; w + 1000 <= last; w += 50) {
      const n = ok.filter((r) => r.sent >= w && r.recv < w + 1000).length;
      assert.ok(n <= 2 * R, `window at ${w - first} ms: ${n} > ${2 * R}`);
    }
    const totals = await usageTotals(db, { accountId: acct.accountId });
    assert.equal(totals.records, ok.length);
  });

  it('(c) the in-flight limit holds across both servers', async () => {
    const acct = await newAccount(b.url, { ...HIGH, in_flight: 2 });
    const slots = `${prefix}{${acct.accountId}}:inflight`;
    // Sampled every few ms while the load runs: the shared slot set (Redis), and the open reservations
    // (PostgreSQL; taken after the slot, dropped at commit before the slot is freed). Every call carries
    // a unique Idempotency-Key, so each reservation seen gives the call's admission time (its
    // created_at, server clock) and the ledger gives its commit time: exact server-side timestamps.
    let sampling = true;
    let maxSlots = 0;
    let maxReserved = 0;
    const admittedAt = new Map<string, number>();
    const samplers = [
      (async () => {
        while (sampling) {
          maxSlots = Math.max(maxSlots, await redis.zcard(slots));
          await sleep(5);
        }
      })(),
      (async () => {
        while (sampling) {
          const r = await db.query<{ idempotency_key: string; created_at: unknown }>(
            'SELECT idempotency_key, created_at FROM reservations WHERE account_id = $1',
            [acct.accountId],
          );
          maxReserved = Math.max(maxReserved, r.length);
          for (const row of r) admittedAt.set(row.idempotency_key, Number(row.created_at));
          await sleep(5);
        }
      })(),
    ];
    const results: CallResult[] = [];
    try {
      // 10 clients (5 per server) sending slow 32-question calls (> 1 s each) for 4 s, all starting at
      // once, retrying 429s after 20–60 ms.
      const start = performance.now();
      await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const url = servers()[i % 2]!;
          for (let n = 0; performance.now() - start < 4000; n++) {
            const r = await call(url, acct.key, { n: 32, idempotencyKey: `c${i}-${n}` });
            results.push(r);
            if (r.status !== 200) await sleep(20 + Math.random() * 40);
          }
        }),
      );
    } finally {
      sampling = false;
      await Promise.all(samplers);
    }
    const t = tally(results);
    assert.deepEqual(Object.keys(t).sort(), ['200', '429:in_flight_limit'], JSON.stringify(t));
    const ok = results.filter((r) => r.status === 200);
    assert.ok(ok.length >= 2);
    assert.ok(t['429:in_flight_limit']! >= 2 * ok.length, JSON.stringify(t));
    assert.ok(maxSlots <= 2 && maxSlots >= 1, `max slots seen in Redis ${maxSlots}`);
    assert.ok(maxReserved <= 2 && maxReserved >= 1, `max open reservations seen ${maxReserved}`);
    // Exact intervals [admitted, committed] of every answered call: never 3 at once.
    const rows = await db.query<{ idempotency_key: string; created_at: unknown; request_id: string }>(
      'SELECT idempotency_key, created_at, request_id FROM usage_records WHERE account_id = $1',
      [acct.accountId],
    );
    assert.deepEqual(rows.map((r) => r.request_id).sort(), ok.map((r) => r.requestId!).sort()); // one record per 200
    const intervals = rows.map((r): [number, number] => {
      const from = admittedAt.get(r.idempotency_key);
      assert.ok(from !== undefined, `the sampler saw the reservation of ${r.idempotency_key}`);
      return [from, Number(r.created_at)];
    });
    const overlap = maxOverlap(intervals);
    assert.ok(overlap <= 2 && overlap >= 1, `${overlap} answered calls were admitted at once (${JSON.stringify(t)})`);
    await sleep(50);
    assert.equal(await redis.zcard(slots), 0, 'every slot was released (none leaked)');
  });

  it('(d) an Idempotency-Key retried against the other server is charged once and replayed', async () => {
    const acct = await newAccount(a.url, HIGH);
    // Sequential: answered by A, retried at B.
    const first = await call(a.url, acct.key, { n: 4, idempotencyKey: 'order-1' });
    assert.equal(first.status, 200);
    assert.equal(first.replay, false);
    const again = await call(b.url, acct.key, { n: 4, idempotencyKey: 'order-1' });
    assert.equal(again.status, 200);
    assert.equal(again.replay, true);
    assert.equal(again.body, first.body);
    assert.notEqual(again.requestId, first.requestId);

    // Concurrent: the same key sent to both at once; the loser waits (429 "still being answered") and
    // then receives the replay.
    const both = await Promise.all(
      servers().map(async (url) => {
        for (let i = 0; i < 100; i++) {
          const r = await call(url, acct.key, { n: 4, idempotencyKey: 'order-2' });
          if (r.status === 200) return r;
          assert.equal(r.status, 429, r.body);
          assert.equal(r.code, 'rate_limited');
          await sleep(r.retryAfterMs ?? 100);
        }
        throw new Error('no answer');
      }),
    );
    assert.equal(both.filter((r) => !r.replay).length, 1);
    assert.equal(both[0]!.body, both[1]!.body);

    const rows = await db.query<{ idempotency_key: string; request_id: string; n: unknown }>(
      'SELECT idempotency_key, MIN(request_id) AS request_id, COUNT(*) AS n FROM usage_records WHERE account_id = $1 GROUP BY idempotency_key ORDER BY idempotency_key',
      [acct.accountId],
    );
    assert.deepEqual(
      rows.map((r) => [r.idempotency_key, Number(r.n), r.request_id]),
      [
        ['order-1', 1, first.requestId],
        ['order-2', 1, both.find((r) => !r.replay)!.requestId],
      ],
    );
    const totals = await usageTotals(db, { accountId: acct.accountId });
    assert.equal(totals.processedTokens, first.processedTokens! + both[0]!.processedTokens!);
    assert.equal(totals.counterUsed, totals.processedTokens);
    assert.equal(totals.counterReserved, 0);
  });

  it('over the whole run: ledger and counters agree, nothing reserved', async () => {
    const totals = await usageTotals(db);
    assert.equal(totals.counterUsed, totals.processedTokens);
    assert.equal(totals.counterReserved, 0);
    assert.equal(totals.openReservations, 0);
  });
});
