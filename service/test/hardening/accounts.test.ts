/**
 * Issue 20, items 9 and 10 (accounts): Stripe's idempotency rule, account names that cannot pass for
 * ids, unambiguous lookups, an honest in-flight Retry-After.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AccountError, createGate, type AccountsGate } from '../../src/accounts/gate.js';
import type { Account } from '../../src/accounts/types.js';
import { IdempotencyKeyReused, InFlightLimit, RateLimited } from '../../src/errors.js';
import { BACKENDS, charge, silentLog, testEnv, type TestEnv } from '../accounts/helpers.js';

for (const backend of BACKENDS) {
  describe(`hardening of accounts (${backend})`, () => {
    let env: TestEnv;
    let gate: AccountsGate;
    let now = Date.UTC(2026, 10, 20, 12, 0, 0);
    let n = 0;
    const fresh = async (limits: { inFlight?: number } = {}): Promise<Account> => {
      const a = await gate.createAccount(`hard${++n}`, { monthlyAllowance: 100_000, ...limits });
      return { id: a.id, name: a.name, limits: a.limits };
    };
    before(async () => {
      env = await testEnv(backend);
      gate = await createGate(env.config, silentLog, { clock: () => now, bootstrap: false });
    });
    after(async () => {
      await gate.close();
      await env.cleanup();
    });

    it('the same Idempotency-Key with another body is refused (400 idempotency_key_reused), never replayed', async () => {
      const acct = await fresh();
      const first = await gate.admit(acct, { processedTokens: 10, idempotencyKey: 'k1', requestHash: 'body-a' });
      // while the first call runs: another body → reused; the same body → still being answered
      await assert.rejects(gate.admit(acct, { processedTokens: 10, idempotencyKey: 'k1', requestHash: 'body-b' }), IdempotencyKeyReused);
      await assert.rejects(gate.admit(acct, { processedTokens: 10, idempotencyKey: 'k1', requestHash: 'body-a' }), RateLimited);
      await first.commit(charge('req_a', 10));
      // after it was answered: another body → reused; the same body → the stored answer
      await assert.rejects(gate.admit(acct, { processedTokens: 10, idempotencyKey: 'k1', requestHash: 'body-b' }), (e: unknown) => {
        assert.ok(e instanceof IdempotencyKeyReused);
        assert.equal(e.status, 400);
        assert.equal(e.code, 'idempotency_key_reused');
        return true;
      });
      const replay = await gate.admit(acct, { processedTokens: 10, idempotencyKey: 'k1', requestHash: 'body-a' });
      assert.equal(replay.replay?.body, charge('req_a', 10).responseBody);
      assert.equal((await gate.totals({ accountId: acct.id })).records, 1);
    });

    it('an account may not be named like an id, and an id never finds an account by its name', async () => {
      const a = await gate.createAccount(`named${++n}`);
      await assert.rejects(gate.createAccount(a.id), AccountError);
      await assert.rejects(gate.createAccount('acct_0000000000000000'), AccountError);
      assert.equal((await gate.getAccount(a.id))?.name, a.name);
      assert.equal((await gate.getAccount(a.name))?.id, a.id);
      assert.equal(await gate.getAccount('acct_doesnotexist'), undefined);
    });

    it('the in-flight Retry-After is not below what calls of the service typically take', async () => {
      const acct = await fresh({ inFlight: 1 });
      // calls that take 0.5–1.5 s
      for (const ms of [500, 1500, 900, 1200, 700, 1400, 1000, 1300, 600, 1100]) {
        const a = await gate.admit(acct, { processedTokens: 1 });
        now += ms;
        await a.commit(charge(`req_${ms}`, 1));
      }
      const held = await gate.admit(acct, { processedTokens: 1 });
      await assert.rejects(gate.admit(acct, { processedTokens: 1 }), (e: unknown) => {
        assert.ok(e instanceof InFlightLimit);
        assert.ok(Number(e.headers['retry-after-ms']) >= 1300, `retry-after-ms ${e.headers['retry-after-ms']}`);
        return true;
      });
      await held.release();
    });
  });
}
