import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createGate, type AccountsGate } from '../../src/accounts/gate.js';
import type { Account } from '../../src/accounts/types.js';
import { AllowanceExhausted, RateLimited, ServiceError } from '../../src/errors.js';
import { BACKENDS, charge, silentLog, testEnv, type TestEnv } from './helpers.js';

for (const backend of BACKENDS) {
  describe(`monthly allowance and metering (${backend})`, () => {
    let env: TestEnv;
    let gate: AccountsGate;
    let now = Date.UTC(2026, 10, 30, 22, 0, 0); // 2026-11-30 22:00 UTC
    let n = 0;
    const fresh = async (allowance: number): Promise<Account> => {
      const a = await gate.createAccount(`acct${++n}`, { monthlyAllowance: allowance });
      return { id: a.id, name: a.name, limits: a.limits };
    };
    before(async () => {
      env = await testEnv(backend, { env: { STRUCTQA_RESERVATION_TTL_MS: '60000' } });
      gate = await createGate(env.config, silentLog, { clock: () => now, bootstrap: false });
    });
    after(async () => {
      await gate.close();
      await env.cleanup();
    });

    it('charges answered calls, not released ones, and answers 402 with the reset time', async () => {
      const acct = await fresh(1000);
      const a1 = await gate.admit(acct, { processedTokens: 600 });
      await a1.commit(charge('req_1', 600));
      const a2 = await gate.admit(acct, { processedTokens: 300 });
      await a2.release();
      const a3 = await gate.admit(acct, { processedTokens: 400 });
      await a3.commit(charge('req_3', 400));
      let err: unknown;
      try {
        await gate.admit(acct, { processedTokens: 1 });
      } catch (e) {
        err = e;
      }
      assert.ok(err instanceof AllowanceExhausted);
      assert.equal(err.status, 402);
      assert.deepEqual(err.extra, { allowance: 1000, used: 1000, resets_at: '2026-12-01T00:00:00.000Z', usage_view: '/app/usage' });
      const t = await gate.totals({ accountId: acct.id });
      assert.deepEqual(t, { records: 2, processedTokens: 1000, counterUsed: 1000, counterReserved: 0, openReservations: 0, openReservedTokens: 0 });
      const u = await gate.usage(acct);
      assert.equal(u.used, 1000);
      assert.equal(u.remaining, 0);
      assert.equal(u.resets_at, '2026-12-01T00:00:00.000Z');
      assert.equal(u.by_day.length, 30);
      assert.deepEqual(u.by_day.at(-1), { date: '2026-11-30', processed_tokens: 1000, requests: 2, by_model: { 'core-0.3.20': 1000 } });
      assert.deepEqual(u.by_model, [{ model: 'core-0.3.20', processed_tokens: 1000, requests: 2 }]);
    });

    it('a call larger than what remains is refused whole; a smaller one still passes', async () => {
      const acct = await fresh(1000);
      await (await gate.admit(acct, { processedTokens: 900 })).commit(charge('r', 900));
      await assert.rejects(gate.admit(acct, { processedTokens: 101 }), AllowanceExhausted);
      await (await gate.admit(acct, { processedTokens: 100 })).commit(charge('r2', 100));
    });

    it('resets at 00:00 UTC on the 1st (month rollover)', async () => {
      const acct = await fresh(500);
      await (await gate.admit(acct, { processedTokens: 500 })).commit(charge('a', 500));
      now = Date.UTC(2026, 10, 30, 23, 59, 59, 999);
      await assert.rejects(gate.admit(acct, { processedTokens: 1 }), AllowanceExhausted);
      now = Date.UTC(2026, 11, 1, 0, 0, 0, 0);
      const adm = await gate.admit(acct, { processedTokens: 500 });
      await adm.commit(charge('b', 500));
      const dec = await gate.usage(acct);
      assert.equal(dec.period, '2026-12');
      assert.equal(dec.used, 500);
      assert.equal(dec.resets_at, '2027-01-01T00:00:00.000Z');
      assert.equal(dec.by_day.length, 1);
      const nov = await gate.usage(acct, '2026-11');
      assert.equal(nov.used, 500);
      assert.equal(nov.by_day.length, 30);
      now = Date.UTC(2026, 10, 30, 22, 0, 0);
    });

    it('idempotent retries are charged once and answered with the stored body', async () => {
      const acct = await fresh(10_000);
      const first = await gate.admit(acct, { processedTokens: 100, idempotencyKey: 'idem-1' });
      assert.equal(first.replay, undefined);
      // While the first is running, a retry with the same key is told to wait (429), not run twice.
      await assert.rejects(gate.admit(acct, { processedTokens: 100, idempotencyKey: 'idem-1' }), (e: unknown) => e instanceof RateLimited && /Idempotency-Key/.test(e.message));
      const c = charge('req_idem', 100);
      await first.commit(c);
      await first.commit(c); // a double commit is a no-op
      for (let i = 0; i < 3; i++) {
        const retry = await gate.admit(acct, { processedTokens: 100, idempotencyKey: 'idem-1' });
        assert.deepEqual(retry.replay, { status: 200, body: c.responseBody });
        await retry.commit(charge('ignored', 100));
      }
      // Same key on another account is independent.
      const other = await fresh(10_000);
      const o = await gate.admit(other, { processedTokens: 100, idempotencyKey: 'idem-1' });
      assert.equal(o.replay, undefined);
      await o.release();
      // A released call leaves no trace: the key can be used again.
      const again = await gate.admit(other, { processedTokens: 100, idempotencyKey: 'idem-1' });
      assert.equal(again.replay, undefined);
      await again.commit(charge('x', 100));
      const t = await gate.totals({ accountId: acct.id });
      assert.equal(t.records, 1);
      assert.equal(t.processedTokens, 100);
    });

    it('concurrent retries with one Idempotency-Key: exactly one runs and is charged', async () => {
      const acct = await fresh(10_000);
      const results = await Promise.allSettled(Array.from({ length: 20 }, () => gate.admit(acct, { processedTokens: 50, idempotencyKey: 'same' })));
      const admitted = results.filter((r) => r.status === 'fulfilled');
      assert.equal(admitted.length, 1);
      await (admitted[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof gate.admit>>>).value.commit(charge('one', 50));
      const t = await gate.totals({ accountId: acct.id });
      assert.equal(t.records, 1);
      assert.equal(t.processedTokens, 50);
    });

    it('the race for the last tokens: exactly floor(allowance / cost) calls pass', async () => {
      const acct = await fresh(1000);
      await (await gate.admit(acct, { processedTokens: 370 })).commit(charge('pre', 370)); // 630 left
      const cost = 70; // 9 fit exactly
      const results = await Promise.allSettled(Array.from({ length: 40 }, () => gate.admit(acct, { processedTokens: cost })));
      const ok = results.filter((r) => r.status === 'fulfilled') as PromiseFulfilledResult<Awaited<ReturnType<typeof gate.admit>>>[];
      const refused = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
      assert.equal(ok.length, 9);
      assert.ok(refused.every((r) => r.reason instanceof AllowanceExhausted));
      await Promise.all(ok.map((r, i) => (i % 3 === 0 ? r.value.release() : r.value.commit(charge(`race${i}`, cost)))));
      const t = await gate.totals({ accountId: acct.id });
      assert.equal(t.records, 1 + 6);
      assert.equal(t.processedTokens, 370 + 6 * cost);
      assert.equal(t.counterUsed, t.processedTokens);
      assert.equal(t.counterReserved, 0);
      assert.equal(t.openReservations, 0);
    });

    it('stale reservations of a crashed process expire and give their tokens back', async () => {
      const acct = await fresh(1000);
      await gate.admit(acct, { processedTokens: 800, idempotencyKey: 'crash' }); // never settled: the "process" died
      await assert.rejects(gate.admit(acct, { processedTokens: 300 }), AllowanceExhausted);
      assert.equal((await gate.totals({ accountId: acct.id })).openReservations, 1);
      now += 60_001;
      const a = await gate.admit(acct, { processedTokens: 300 });
      await a.commit(charge('after', 300));
      // The crashed call's key is free again: a retry runs (and is charged once).
      const retry = await gate.admit(acct, { processedTokens: 700, idempotencyKey: 'crash' });
      assert.equal(retry.replay, undefined);
      await retry.commit(charge('retry', 700));
      const t = await gate.totals({ accountId: acct.id });
      assert.deepEqual(t, { records: 2, processedTokens: 1000, counterUsed: 1000, counterReserved: 0, openReservations: 0, openReservedTokens: 0 });
    });

    it('an admission drops expired reservations only when they would refuse it', async () => {
      const acct = await fresh(1000);
      await gate.admit(acct, { processedTokens: 500 }); // never settled
      await gate.admit(acct, { processedTokens: 50, idempotencyKey: 'held' }); // never settled
      now += 60_001;
      const small = await gate.admit(acct, { processedTokens: 100 });
      assert.equal((await gate.totals({ accountId: acct.id })).openReservations, 3, 'a call that fits leaves the expired ones to the sweep');
      const large = await gate.admit(acct, { processedTokens: 800 }); // fits only without them
      assert.deepEqual(await gate.totals({ accountId: acct.id }), {
        records: 0, processedTokens: 0, counterUsed: 0, counterReserved: 900, openReservations: 2, openReservedTokens: 900,
      });
      await small.release();
      await large.release();
      // A key held only by an expired reservation is free for a retry, without any other admission first.
      await gate.admit(acct, { processedTokens: 10, idempotencyKey: 'late' });
      now += 60_001;
      const retry = await gate.admit(acct, { processedTokens: 10, idempotencyKey: 'late' });
      assert.equal(retry.replay, undefined);
      await retry.commit(charge('late', 10));
      assert.deepEqual(await gate.totals({ accountId: acct.id }), {
        records: 1, processedTokens: 10, counterUsed: 10, counterReserved: 0, openReservations: 0, openReservedTokens: 0,
      });
    });

    it('the periodic sweep drops expired reservations of every account', async () => {
      const a1 = await fresh(1000);
      const a2 = await fresh(1000);
      await gate.admit(a1, { processedTokens: 10 });
      await gate.admit(a2, { processedTokens: 20 });
      now += 60_001;
      assert.equal(await gate.expireStale(), 2);
      const t1 = await gate.totals({ accountId: a1.id });
      const t2 = await gate.totals({ accountId: a2.id });
      assert.equal(t1.counterReserved + t2.counterReserved, 0);
    });

    it('a call that outlives its reservation is still charged exactly once', async () => {
      const acct = await fresh(1000);
      const slow = await gate.admit(acct, { processedTokens: 400 });
      now += 60_001;
      await gate.expireStale();
      await slow.commit(charge('slow', 400));
      const t = await gate.totals({ accountId: acct.id });
      assert.deepEqual(t, { records: 1, processedTokens: 400, counterUsed: 400, counterReserved: 0, openReservations: 0, openReservedTokens: 0 });
    });

    it('refusals are ServiceErrors with the contract codes', async () => {
      const acct = await fresh(0);
      await assert.rejects(gate.admit(acct, { processedTokens: 1 }), (e: unknown) => e instanceof ServiceError && e.code === 'allowance_exhausted');
    });
  });
}
