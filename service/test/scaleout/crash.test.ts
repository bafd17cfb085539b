/**
 * Crash: one server (embedded SQLite) under concurrent load is killed with SIGKILL; a new server on the
 * same data folder finds every answered call in the ledger exactly once, charges nothing that was not
 * committed, and the reservations the killed process left expire and stop counting against the
 * allowance.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, it } from 'node:test';
import { createGate } from '../../src/accounts/gate.js';
import { usageTotals } from '../../src/accounts/store.js';
import { loadConfig } from '../../src/config.js';
import { AllowanceExhausted } from '../../src/errors.js';
import { openDb, type Db } from '../../src/storage/db.js';
import { silentLog } from '../accounts/helpers.js';
import { startServer, type LiveServer } from '../helpers/server.js';
import { admin, call, newAccount, sleep, tally, type CallResult } from './helpers.js';

const TTL_MS = 4000;
const env = { STRUCTQA_RESERVATION_TTL_MS: String(TTL_MS) };
const servers: LiveServer[] = [];
let db: Db | undefined;

after(async () => {
  await Promise.allSettled(servers.map((s) => s.stop('SIGKILL')));
  await db?.close();
  if (servers[0]) fs.rmSync(servers[0].dataDir, { recursive: true, force: true });
});

it('SIGKILL under load: answered calls are in the ledger once, unanswered ones are not charged, stale reservations expire', async (t) => {
  const first = await startServer({ env });
  servers.push(first);
  const acct = await newAccount(first.url, { monthly_allowance: 50_000_000, requests_per_second: 10_000, processed_tokens_per_second: 100_000_000, in_flight: 32 });

  // 8 clients; 0–3 send a unique Idempotency-Key with every call, 4–7 none. Sizes 1, 4, 8 and 32
  // questions, so that calls are running (reserved, not committed) at any moment.
  const sizes = [1, 4, 8, 32];
  const results: CallResult[] = [];
  const start = performance.now();
  const clients = Array.from({ length: 8 }, async (_, i) => {
    for (let n = 0; ; n++) {
      const r = await call(first.url, acct.key, { n: sizes[i % 4]!, idempotencyKey: i < 4 ? `crash-${i}-${n}` : undefined });
      results.push(r);
      if (r.status === 0) return; // the server is gone
      assert.equal(r.status, 200, r.body);
    }
  });
  while (results.filter((r) => r.status === 200).length < 12 || performance.now() - start < 2500) await sleep(20);
  const killWall = Date.now();
  await first.stop('SIGKILL');
  await Promise.all(clients);

  const answered = results.filter((r) => r.status === 200);
  const unanswered = results.filter((r) => r.status === 0);
  assert.equal(answered.length + unanswered.length, results.length, JSON.stringify(tally(results)));
  assert.equal(unanswered.length, 8, 'each client has exactly one call without a response (the one running at the kill)');

  // The killed process's state, read from the SQLite file before anything else touches it.
  db = await openDb({ sqlitePath: path.join(first.dataDir, 'structqa.sqlite') });
  const before = await usageTotals(db, { accountId: acct.accountId });
  const stale = await db.query<{ created_at: unknown; expires_at: unknown; tokens: unknown }>(
    'SELECT created_at, expires_at, tokens FROM reservations WHERE account_id = $1',
    [acct.accountId],
  );
  assert.equal(before.processedTokens, before.counterUsed);
  assert.equal(before.counterReserved, before.openReservedTokens);
  assert.ok(stale.length >= 1, 'calls were running at the kill');
  assert.ok(stale.length <= unanswered.length);
  for (const s of stale) assert.equal(Number(s.expires_at) - Number(s.created_at), TTL_MS);

  // Ledger vs client: every answered call exactly once (by x-request-id); extras are committed calls
  // whose response was lost in the kill.
  const rows = await db.query<{ request_id: string; idempotency_key: string | null; processed_tokens: unknown }>(
    'SELECT request_id, idempotency_key, processed_tokens FROM usage_records WHERE account_id = $1',
    [acct.accountId],
  );
  const byRequest = new Map<string, number>();
  for (const r of rows) byRequest.set(r.request_id, (byRequest.get(r.request_id) ?? 0) + 1);
  for (const r of answered) assert.equal(byRequest.get(r.requestId!), 1, `answered ${r.requestId} is in the ledger once`);
  const answeredIds = new Set(answered.map((r) => r.requestId!));
  const extras = rows.filter((r) => !answeredIds.has(r.request_id));
  assert.equal(rows.length, answered.length + extras.length);
  const unansweredKeys = new Set(unanswered.map((r) => r.idempotencyKey).filter(Boolean));
  for (const e of extras.filter((e) => e.idempotency_key !== null)) {
    assert.ok(unansweredKeys.has(e.idempotency_key!), `extra ${e.idempotency_key} is a call sent without a response`);
  }
  assert.ok(extras.filter((e) => e.idempotency_key === null).length <= unanswered.filter((r) => !r.idempotencyKey).length);
  assert.ok(extras.length + stale.length <= unanswered.length, 'each unanswered call is either committed (extra) or reserved, not both');
  const sum = (xs: number[]) => xs.reduce((x, y) => x + y, 0);
  assert.equal(before.processedTokens, sum(answered.map((r) => r.processedTokens!)) + sum(extras.map((e) => Number(e.processed_tokens))));
  t.diagnostic(
    `answered ${answered.length}, sent without response ${unanswered.length}, committed but response lost ${extras.length}, ` +
      `left reserved ${stale.length}, ledger ${rows.length}`,
  );

  // Until they expire the stale reservations count: set the allowance so that one more 32-question call
  // fits only without them, and ask a Gate on the same file with the clock at the kill: refused.
  const cost32 = answered.find((r) => r.processedTokens! > 1000)?.processedTokens ?? 1152;
  const config = loadConfig({ STRUCTQA_DATA_DIR: first.dataDir, STRUCTQA_RESERVATION_TTL_MS: String(TTL_MS) });
  const gate = await createGate(config, silentLog, { bootstrap: false, clock: () => killWall });
  const allowance = before.counterUsed + cost32;
  const updated = await gate.updateLimits(acct.accountId, { monthlyAllowance: allowance });
  await assert.rejects(gate.admit(updated, { processedTokens: cost32 }), AllowanceExhausted);
  await gate.close();

  // Restart on the same data folder. The new process drops expired reservations (sweep, and at each
  // admission): the allowance is no longer blocked and the counters agree with the ledger again.
  const second = await startServer({ env, dataDir: first.dataDir });
  servers.push(second);
  const waitUntil = Math.max(...stale.map((s) => Number(s.expires_at))) + 2 * TTL_MS;
  let after = await usageTotals(db, { accountId: acct.accountId });
  while (after.openReservations > 0 && Date.now() < waitUntil) {
    await sleep(100);
    after = await usageTotals(db, { accountId: acct.accountId });
  }
  assert.equal(after.openReservations, 0, 'the sweep dropped the stale reservations');
  assert.equal(after.counterReserved, 0);
  assert.equal(after.records, rows.length, 'nothing charged by the restart');
  const fits = await call(second.url, acct.key, { n: 32 });
  assert.equal(fits.status, 200, `the last ${cost32} tokens are usable: ${fits.body}`);
  const full = await call(second.url, acct.key, { n: 1 });
  assert.equal(full.status, 402);

  // A client retrying its unanswered keyed calls with the same Idempotency-Key: the committed ones are
  // replayed (not charged again), the others are charged now — each exactly once in the end.
  const raised = await admin(second.url, 'PATCH', `/admin/accounts/${acct.accountId}`, { monthly_allowance: 50_000_000 });
  assert.equal(raised.status, 200);
  const extraKeys = new Set(extras.map((e) => e.idempotency_key));
  for (const u of unanswered.filter((r) => r.idempotencyKey)) {
    const i = Number(u.idempotencyKey!.split('-')[1]);
    const r = await call(second.url, acct.key, { n: sizes[i % 4]!, idempotencyKey: u.idempotencyKey });
    assert.equal(r.status, 200, r.body);
    assert.equal(r.replay, extraKeys.has(u.idempotencyKey!), `${u.idempotencyKey}: replay iff it had been committed`);
  }
  const dup = await db.query<{ n: unknown }>(
    'SELECT COUNT(*) AS n FROM (SELECT idempotency_key FROM usage_records WHERE account_id = $1 AND idempotency_key IS NOT NULL GROUP BY idempotency_key HAVING COUNT(*) > 1) d',
    [acct.accountId],
  );
  assert.equal(Number(dup[0]!.n), 0);
  const final = await usageTotals(db, { accountId: acct.accountId });
  assert.equal(final.processedTokens, final.counterUsed);
  assert.equal(final.counterReserved, 0);
});
