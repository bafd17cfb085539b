/**
 * Scale-out: two replicas = two node processes, each with its own Gate, PostgreSQL pool and Redis
 * connection, sharing one PostgreSQL schema and one Redis prefix. The allowance, the request rate and
 * the in-flight limit hold across them, and no usage is lost or counted twice under concurrent load.
 */
import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { createGate, type AccountsGate } from '../../src/accounts/gate.js';
import { PG_URL, REDIS_URL, rand, silentLog, testEnv, type TestEnv } from './helpers.js';

const here = path.dirname(fileURLToPath(import.meta.url));

class Replica {
  private seq = 0;
  private waiting = new Map<number, (m: { counts?: Record<string, number>; error?: string }) => void>();
  readonly ready: Promise<void>;
  constructor(readonly child: ChildProcess) {
    this.ready = new Promise((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`replica exited ${code}`)));
      child.on('message', (m: { seq: number; ready?: boolean; counts?: Record<string, number>; error?: string }) => {
        if (m.ready) return resolve();
        this.waiting.get(m.seq)?.(m);
        this.waiting.delete(m.seq);
      });
    });
  }
  call(msg: Record<string, unknown>): Promise<Record<string, number>> {
    const seq = ++this.seq;
    return new Promise((resolve, reject) => {
      this.waiting.set(seq, (m) => (m.error ? reject(new Error(m.error)) : resolve(m.counts ?? {})));
      this.child.send({ ...msg, seq });
    });
  }
}

function spawnReplica(env: Record<string, string>): Replica {
  const child = fork(path.join(here, 'scaleout-worker.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Replica(child);
}

const sum = (a: Record<string, number>, b: Record<string, number>) => {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
  return out;
};

describe('two replicas sharing PostgreSQL and Redis', () => {
  const schema = `t_${rand(6)}`;
  const prefix = `sqa-test-${rand(6)}:`;
  const sharedEnv = {
    DATABASE_URL: PG_URL,
    STRUCTQA_DATABASE_SCHEMA: schema,
    REDIS_URL: REDIS_URL,
    STRUCTQA_REDIS_PREFIX: prefix,
    STRUCTQA_REDIS_FAILURE_MODE: 'closed',
    STRUCTQA_DATA_DIR: '/tmp/sqa-scaleout-unused',
    STRUCTQA_REQUESTS_PER_SECOND: '100000',
    STRUCTQA_PROCESSED_TOKENS_PER_SECOND: '100000000',
    STRUCTQA_IN_FLIGHT: '1000',
  };
  let env: TestEnv;
  let admin: AccountsGate;
  let a: Replica;
  let b: Replica;

  before(async () => {
    env = await testEnv('postgres', { schema, env: sharedEnv });
    admin = await createGate(env.config, silentLog, { bootstrap: false });
    a = spawnReplica(sharedEnv);
    b = spawnReplica(sharedEnv);
    await Promise.all([a.ready, b.ready]);
  });
  after(async () => {
    await Promise.allSettled([a.call({ op: 'close' }), b.call({ op: 'close' })]);
    await admin.close();
    await env.cleanup();
  });

  it('allowance and idempotency hold across replicas: nothing lost, nothing doubled', async () => {
    const { key, account } = await admin.createKey('shared', { create: true, limits: { monthlyAllowance: 10_000 } });
    // 160 calls of 100 tokens, 120 distinct Idempotency-Keys (40 sent to both replicas at once).
    const keysA = Array.from({ length: 80 }, (_, i) => `k${i}`);
    const keysB = Array.from({ length: 80 }, (_, i) => `k${i + 40}`);
    const [ra, rb] = await Promise.all([
      a.call({ op: 'burst', key, cost: 100, idemKeys: keysA, holdMs: 5, retries: 50 }),
      b.call({ op: 'burst', key, cost: 100, idemKeys: keysB, holdMs: 5, retries: 50 }),
    ]);
    const all = sum(ra, rb);
    const t = await admin.totals({ accountId: account.id });
    assert.equal(all.committed, 100, JSON.stringify(all));
    assert.equal(t.records, 100);
    assert.equal(t.processedTokens, 10_000);
    assert.equal(t.counterUsed, 10_000);
    assert.equal(t.counterReserved, 0);
    assert.equal(t.openReservations, 0);
    assert.equal((all.committed ?? 0) + (all.replay ?? 0) + (all.allowance_exhausted ?? 0), 160, JSON.stringify(all));
    const dup = await admin.db.query<{ n: unknown }>(
      'SELECT COUNT(*) AS n FROM (SELECT idempotency_key FROM usage_records WHERE account_id = $1 GROUP BY idempotency_key HAVING COUNT(*) > 1) d',
      [account.id],
    );
    assert.equal(Number(dup[0]!.n), 0);
  });

  it('without idempotency keys: exactly floor(allowance / cost) calls pass across both', async () => {
    const { key, account } = await admin.createKey('race', { create: true, limits: { monthlyAllowance: 7_000 } });
    const none = Array.from({ length: 60 }, () => null);
    const [ra, rb] = await Promise.all([
      a.call({ op: 'burst', key, cost: 150, idemKeys: none, holdMs: 1, retries: 0 }),
      b.call({ op: 'burst', key, cost: 150, idemKeys: none, holdMs: 1, retries: 0 }),
    ]);
    const all = sum(ra, rb);
    assert.equal(all.committed, Math.floor(7000 / 150), JSON.stringify(all));
    const t = await admin.totals({ accountId: account.id });
    assert.equal(t.processedTokens, 46 * 150);
    assert.equal(t.counterUsed, t.processedTokens);
    assert.equal(t.counterReserved, 0);
  });

  it('the in-flight limit holds across replicas', async () => {
    const { key } = await admin.createKey('inflight', { create: true, limits: { inFlight: 5 } });
    const ha = await a.call({ op: 'hold', key, n: 3 });
    assert.deepEqual(ha, { admitted: 3 });
    const hb = await b.call({ op: 'hold', key, n: 5 });
    assert.deepEqual(hb, { admitted: 2, in_flight_limit: 3 });
    await a.call({ op: 'releaseHeld' });
    const hb2 = await b.call({ op: 'hold', key, n: 4 });
    assert.deepEqual(hb2, { admitted: 3, in_flight_limit: 1 });
    await b.call({ op: 'releaseHeld' });
  });

  it('the request rate holds across replicas', async () => {
    const { key } = await admin.createKey('rate', { create: true, limits: { requestsPerSecond: 10 } });
    const none = Array.from({ length: 15 }, () => null);
    const [ra, rb] = await Promise.all([
      a.call({ op: 'burst', key, cost: 1, idemKeys: none, holdMs: 0, retries: 0 }),
      b.call({ op: 'burst', key, cost: 1, idemKeys: none, holdMs: 0, retries: 0 }),
    ]);
    const all = sum(ra, rb);
    // Burst of 10, plus at most what refills while the 30 calls are decided (one per 100 ms).
    assert.ok(all.committed! >= 10 && all.committed! <= 11, JSON.stringify(all));
    assert.equal(all.committed! + all.rate_limited!, 30);
  });
});
