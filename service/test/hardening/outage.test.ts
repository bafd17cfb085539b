/**
 * Issue 20, item 5: a PostgreSQL outage (cut through a TCP proxy) is answered with the retryable 503
 * storage_unavailable and its Retry-After, /readyz turns unready, and once the database is back a
 * retry with the same Idempotency-Key is run at once instead of being told "still being answered".
 *
 * Issue 32, item 4: no charge without its answer. When a call's commit reaches PostgreSQL but the
 * acknowledgement is lost (the proxy cuts right after COMMIT went out), the service learns the fate of
 * the usage record by the call's request id once the database answers again, within the call's time
 * budget: recorded → 200 with the answer; not recorded (cut before COMMIT) → recorded again → 200;
 * not learnable in time → 503, and the record that landed is voided. The client sends no
 * Idempotency-Key (as the earlier service's official clients), and the ledger stays exact.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { AccountsGate } from '../../src/accounts/gate.js';
import { StorageUnavailable } from '../../src/errors.js';
import { charge, dropSchema, PG_URL, rand, sleep, testEnv, type TestEnv } from '../accounts/helpers.js';
import { testAppWithAccounts, type AccountsTestApp } from '../helpers/app.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

let proxy: TcpProxy;
let env: TestEnv;
let gate: AccountsGate;
let served: AccountsTestApp;
let app: FastifyInstance;
const schema = `t_${rand(6)}`;
const CALL_BUDGET_MS = 4000;

before(async () => {
  const pg = new URL(PG_URL);
  proxy = await startTcpProxy(pg.hostname, Number(pg.port || 5432));
  pg.host = proxy.address;
  env = await testEnv('sqlite');
  served = await testAppWithAccounts({
    STRUCTQA_DATA_DIR: env.config.dataDir,
    DATABASE_URL: pg.toString(),
    STRUCTQA_DATABASE_SCHEMA: schema,
    STRUCTQA_CALL_BUDGET_MS: String(CALL_BUDGET_MS),
  });
  ({ app, gate } = served);
});
after(async () => {
  await served.close();
  await proxy.close();
  await dropSchema(schema);
  await env.cleanup();
});

test('an admitted call that cannot be recorded during the outage: 503 with Retry-After, reservation given back once the database is up', async () => {
  const a = await gate.createAccount(`outage${rand(3)}`);
  const account = { id: a.id, name: a.name, limits: a.limits };
  const admission = await gate.admit(account, { processedTokens: 10, idempotencyKey: 'idem', requestHash: 'h' });
  proxy.cut();
  await assert.rejects(admission.commit(charge('req_1', 10)), (e: unknown) => {
    assert.ok(e instanceof StorageUnavailable);
    assert.equal(e.status, 503);
    assert.ok(Number(e.headers['retry-after']) >= 1);
    return true;
  });
  await admission.release(); // does not throw: given back later
  assert.equal(await gate.ready!(), false);
  proxy.restore();
  // the release is retried in the background; then the retry with the same key runs
  let retried;
  for (let i = 0; i < 100 && !retried; i++) {
    retried = await gate.admit(account, { processedTokens: 10, idempotencyKey: 'idem', requestHash: 'h' }).catch(() => undefined);
    if (!retried) await sleep(100);
  }
  assert.ok(retried && !retried.replay, 'the retry is admitted, not told it is still being answered');
  await retried.commit(charge('req_2', 10));
  const totals = await gate.totals({ accountId: account.id });
  assert.equal(totals.records, 1);
  assert.equal(totals.openReservations, 0);
});

test('HTTP during the outage: 503 storage_unavailable with Retry-After and the request id; /readyz unready, then ready again', async () => {
  const { key } = await gate.createKey(`http${rand(3)}`, { create: true });
  const headers = { authorization: `Bearer ${key}` };
  const payload = { state: 'The parcel is late.', questions: { q: { type: 'noul' } } };
  assert.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
  proxy.cut();
  try {
    const res = await app.inject({ method: 'POST', url: '/v1/systemone', headers, payload });
    assert.equal(res.statusCode, 503, res.body);
    assert.equal(res.headers['x-service-error-code'], 'storage_unavailable');
    assert.ok(Number(res.headers['retry-after']) >= 1);
    assert.match(String(res.headers['x-request-id']), /^req_/);
    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 503);
    assert.equal(ready.json().storage, 'unavailable');
  } finally {
    proxy.restore();
  }
  let ok = 0;
  for (let i = 0; i < 50 && ok !== 200; i++) {
    ok = (await app.inject({ method: 'GET', url: '/readyz' })).statusCode;
    if (ok !== 200) await sleep(100);
  }
  assert.equal(ok, 200);
  assert.equal((await app.inject({ method: 'POST', url: '/v1/systemone', headers, payload })).statusCode, 200);
});

describe('no charge without its answer (the acknowledgement of a commit lost, no Idempotency-Key)', () => {
  const payload = { state: 'The parcel is late and the box was crushed.', questions: { q: { type: 'noul' } } };
  /** One call with the proxy armed, restored `outageMs` after the cut; its response and the account's ledger. */
  async function callThrough(cut: () => Promise<void>, outageMs: number) {
    const { key, account } = await gate.createKey(`ack${rand(3)}`, { create: true });
    const fired = cut().then(() => sleep(outageMs)).then(() => proxy.restore());
    const res = await app.inject({ method: 'POST', url: '/v1/systemone', headers: { authorization: `Bearer ${key}` }, payload });
    await fired;
    return { res, accountId: account.id };
  }
  /** The ledger once the database answers again and the background repairs have run. */
  async function settledTotals(accountId: string) {
    let totals = await gate.totals({ accountId });
    for (let i = 0; i < 50 && totals.openReservations > 0; i++) {
      await sleep(100);
      totals = await gate.totals({ accountId });
    }
    return totals;
  }

  test('COMMIT delivered, its acknowledgement lost: the record is found by request id, 200 with the answer, charged once', async () => {
    const { res, accountId } = await callThrough(() => proxy.cutAfter('INSERT INTO usage_records', 'COMMIT'), 1000);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().answers.q.type, 'noul');
    const totals = await settledTotals(accountId);
    assert.equal(totals.records, 1);
    assert.equal(totals.counterUsed, totals.processedTokens);
    assert.equal(totals.processedTokens, res.json().usage.processed_tokens);
    assert.equal(totals.openReservations, 0);
  });

  test('cut before COMMIT (the transaction rolled back): recorded again, 200, charged once', async () => {
    const { res, accountId } = await callThrough(() => proxy.cutAfter('INSERT INTO usage_records'), 1000);
    assert.equal(res.statusCode, 200, res.body);
    const totals = await settledTotals(accountId);
    assert.equal(totals.records, 1);
    assert.equal(totals.counterUsed, totals.processedTokens);
    assert.equal(totals.openReservations, 0);
  });

  test('the database back only after the call\'s budget: 503 with Retry-After, and the record that landed is voided', async () => {
    const { res, accountId } = await callThrough(() => proxy.cutAfter('INSERT INTO usage_records', 'COMMIT'), CALL_BUDGET_MS + 1000);
    assert.equal(res.statusCode, 503, res.body);
    assert.equal(res.headers['x-service-error-code'], 'storage_unavailable');
    assert.ok(Number(res.headers['retry-after']) >= 1);
    let totals = await settledTotals(accountId);
    for (let i = 0; i < 50 && totals.records > 0; i++) {
      await sleep(100);
      totals = await gate.totals({ accountId });
    }
    assert.equal(totals.records, 0, 'not charged: the client never got the answer');
    assert.equal(totals.counterUsed, 0);
    assert.equal(totals.counterReserved, 0);
  });
});
