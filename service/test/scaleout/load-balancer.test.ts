/**
 * The multi-replica topology for real, on loopback: three `structqa serve` replicas sharing one
 * PostgreSQL schema and one Redis prefix, behind Debian's HAProxy running deploy/haproxy/haproxy.cfg
 * (the very file the Compose stack runs), under load from the official clients (@structqa/client
 * in this process, the `structqa` Python client in a subprocess). Mid-load one replica is killed
 * (SIGKILL) and restarted, another drained (SIGTERM) and restarted.
 *
 * Checked: every call the clients made was answered (their retries ride through; the attempts that
 * were retried are counted by status), the ledger holds each answered call exactly once (ledger =
 * Σ answered calls, no Idempotency-Key charged twice), and the allowance and the request rate are
 * exact across the replicas. Figures: docs/deploy.md (`npm run chaos` runs this file alone).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { usageTotals } from '../../src/accounts/store.js';
import { openDb, type Db } from '../../src/storage/db.js';
import { dropSchema, PG_URL, REDIS_URL } from '../accounts/helpers.js';
import { freePort, startServer, type LiveServer } from '../helpers/server.js';
import { newAccount, sharedStateEnv, sleep, STATE } from './helpers.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(here, '../../..');
const HAPROXY_CFG = path.join(ROOT, 'deploy/haproxy/haproxy.cfg');
const HIGH = { monthly_allowance: 100_000_000, requests_per_second: 100_000, processed_tokens_per_second: 100_000_000, in_flight: 1000 };
/** Short, so that a call caught on the killed replica is answered by another one within seconds. */
const RESERVATION_TTL_MS = 4000;

// ---- the official TypeScript client, loaded from its sources (it is a sibling workspace) -----------
interface TsClient {
  systemOne(request: { state: string; questions: Record<string, unknown> }, options?: { idempotencyKey?: string }): Promise<{ usage: { processed_tokens: number } }>;
}
interface TsClientModule {
  Client: new (options: Record<string, unknown>) => TsClient;
  APIError: new (...args: never[]) => Error & { status: number; code?: string };
}
const loadClient = async (): Promise<TsClientModule> =>
  (await import(pathToFileURL(path.join(ROOT, 'clients/typescript/src/index.ts')).href)) as TsClientModule;

/** One HTTP attempt a client made (its retries included), seen through its `fetch`. */
interface Attempt {
  status: number;
  code?: string;
  replica?: string;
  replay?: boolean;
  sent: number;
  recv: number;
}
interface CallOutcome {
  key: string;
  ok: boolean;
  processedTokens?: number;
  error?: string;
}

/** A `fetch` for the client that records every attempt. */
function recordingFetch(attempts: Attempt[]): typeof fetch {
  return async (input, init) => {
    const sent = performance.now();
    try {
      const res = await fetch(input, init);
      attempts.push({
        status: res.status,
        code: res.headers.get('x-service-error-code') ?? undefined,
        replica: res.headers.get('x-structqa-replica') ?? undefined,
        replay: res.headers.get('x-idempotent-replay') === 'true',
        sent,
        recv: performance.now(),
      });
      return res;
    } catch (err) {
      attempts.push({ status: 0, code: (err as Error).message, sent, recv: performance.now() });
      throw err;
    }
  };
}

const questions = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`q${i}`, { type: 'noul', instructions: `Is statement number ${i} true?` }]));

// ---- HAProxy with the Compose stack's configuration -----------------------------------------------
interface Balancer {
  url: string;
  process: ChildProcess;
  output: () => string;
  stop(): Promise<void>;
}

function haproxyBinary(): string {
  for (const p of ['/usr/sbin/haproxy', '/usr/bin/haproxy']) if (fs.existsSync(p)) return p;
  throw new Error('haproxy is not installed: scripts/test-all.sh installs it (apt-get install haproxy)');
}

async function startBalancer(replicas: string[]): Promise<Balancer> {
  const port = await freePort();
  const env = { ...process.env, LB_BIND: `127.0.0.1:${port}` } as Record<string, string>;
  replicas.forEach((r, i) => (env[`STRUCTQA_REPLICA_${i + 1}`] = r));
  const child = spawn(haproxyBinary(), ['-db', '-f', HAPROXY_CFG], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout!.on('data', (d) => (log += d));
  child.stderr!.on('data', (d) => (log += d));
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`haproxy exited (${child.exitCode}):\n${log}`);
    if (await fetch(`${url}/lb-healthz`).then((r) => r.ok, () => false)) break;
    if (Date.now() > until) throw new Error(`haproxy not listening:\n${log}`);
    await sleep(100);
  }
  return {
    url,
    process: child,
    output: () => log,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Until the balancer has sent a request to every replica it names (all marked up by their checks). */
async function waitAllUp(url: string, names: string[], timeoutMs = 60_000): Promise<void> {
  const seen = new Set<string>();
  const until = Date.now() + timeoutMs;
  while (names.some((n) => !seen.has(n))) {
    if (Date.now() > until) throw new Error(`replicas never all up behind the balancer: saw ${[...seen].join(', ')}`);
    const res = await fetch(`${url}/livez`).catch(() => undefined);
    const replica = res?.headers.get('x-structqa-replica');
    if (res?.ok && replica) seen.add(replica);
    await sleep(50);
  }
}

// ---- the Python client's load, in a subprocess ---------------------------------------------------
function testVenvPython(): string {
  const venv = path.join(ROOT, '.cache/venv-test');
  const python = path.join(venv, 'bin/python');
  const marker = path.join(venv, '.structqa-client-installed');
  if (!fs.existsSync(python)) execFileSync('python3', ['-m', 'venv', venv], { stdio: 'inherit' });
  if (!fs.existsSync(marker)) {
    // scripts/test-all.sh installs the same; this makes the file runnable alone (`npm run chaos`).
    execFileSync(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '-e', path.join(ROOT, 'clients/python')], { stdio: 'inherit' });
    fs.writeFileSync(marker, '');
  }
  return python;
}

interface PythonLoad {
  stop(): Promise<{ attempts: Attempt[]; calls: CallOutcome[] }>;
  answered(): number;
}

function startPythonLoad(url: string, key: string, workers: number): PythonLoad {
  const child = spawn(testVenvPython(), [path.join(here, 'lb_python_load.py')], {
    env: { ...process.env, SERVER_URL: url, KEY: key, WORKERS: String(workers), PREFIX: 'py', MAX_SECONDS: '150' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const attempts: Attempt[] = [];
  const calls: CallOutcome[] = [];
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  readline.createInterface({ input: child.stdout! }).on('line', (line) => {
    const r = JSON.parse(line) as Record<string, unknown>;
    if (r.kind === 'attempt') attempts.push({ status: r.status as number, code: (r.code as string) ?? undefined, replica: (r.replica as string) ?? undefined, sent: 0, recv: 0 });
    if (r.kind === 'call') calls.push({ key: r.key as string, ok: r.ok as boolean, processedTokens: r.processed_tokens as number, error: r.error as string });
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return {
    answered: () => calls.filter((c) => c.ok).length,
    async stop() {
      child.stdin!.end('stop\n');
      const code = await exited;
      assert.equal(code, 0, `python load exited ${code}:\n${stderr}`);
      return { attempts, calls };
    },
  };
}

function tallyAttempts(attempts: Attempt[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const a of attempts) {
    const k = a.status === 200 ? (a.replay ? '200_replay' : '200') : `${a.status}:${a.code ?? ''}`;
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

describe('three replicas behind HAProxy (deploy/haproxy/haproxy.cfg), sharing PostgreSQL and Redis', () => {
  const { schema, prefix, env: shared } = sharedStateEnv();
  const env = {
    ...shared,
    STRUCTQA_RESERVATION_TTL_MS: String(RESERVATION_TTL_MS),
    // Three replicas share two cores here: one lane each, no inline session.
    STRUCTQA_LANES: '1',
    STRUCTQA_INLINE_MAX_TOKENS: '0',
  };
  const replicas: LiveServer[] = [];
  let lb: Balancer;
  let db: Db;
  let ts: TsClientModule;
  const names = ['replica1', 'replica2', 'replica3'];

  before(async () => {
    ts = await loadClient();
    replicas.push(...(await Promise.all([0, 1, 2].map(() => startServer({ env })))));
    lb = await startBalancer(replicas.map((r) => `127.0.0.1:${r.port}`));
    await waitAllUp(lb.url, names);
    db = await openDb({ databaseUrl: PG_URL, databaseSchema: schema, sqlitePath: '/nonexistent/unused.sqlite' });
  });

  after(async () => {
    await lb?.stop();
    await Promise.allSettled(replicas.map((r) => r.stop('SIGKILL')));
    for (const r of replicas) fs.rmSync(r.dataDir, { recursive: true, force: true });
    await db?.close();
    const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
    await dropSchema(schema);
  });

  /** Restart replica `i` on its port and data folder; resolves when it is ready. */
  async function restart(i: number): Promise<void> {
    const old = replicas[i]!;
    replicas[i] = await startServer({ env, port: old.port, dataDir: old.dataDir });
  }

  it('a replica killed and restarted, another drained, under load: every call answered, charged exactly once', async (t) => {
    const acct = await newAccount(lb.url, HIGH);
    const attempts: Attempt[] = [];
    const calls: CallOutcome[] = [];
    let stopping = false;
    // 6 TypeScript clients, 1/4/8 questions, each call with its own Idempotency-Key. More retries than
    // the default within a 90 s deadline: a call caught on the killed replica gets 429 "still being
    // answered" until that replica's reservation expires (RESERVATION_TTL_MS).
    const tsWorkers = Array.from({ length: 6 }, async (_, i) => {
      const client = new ts.Client({
        baseURL: lb.url,
        apiKey: acct.key,
        fetch: recordingFetch(attempts),
        retry: { maxRetries: 1000, backoffInitialMs: 50, backoffMaxMs: 500 },
        deadlineMs: 90_000,
        // 30 s per attempt rather than the default 10: on a loaded 2-core machine (CI, or an image
        // build beside it) an attempt once took over 10 s and was retried; slow attempts are reported.
        timeoutMs: 30_000,
      });
      for (let n = 0; !stopping; n++) {
        const key = `ts-${i}-${n}`;
        try {
          const r = await client.systemOne({ state: STATE, questions: questions([1, 4, 8][(i + n) % 3]!) }, { idempotencyKey: key });
          calls.push({ key, ok: true, processedTokens: r.usage.processed_tokens });
        } catch (err) {
          calls.push({ key, ok: false, error: String(err) });
        }
      }
    });
    const py = startPythonLoad(lb.url, acct.key, 3);
    const answered = () => calls.filter((c) => c.ok).length + py.answered();
    const waitAnswered = async (n: number, what: string) => {
      const until = Date.now() + 60_000;
      while (answered() < n) {
        if (Date.now() > until) throw new Error(`load stalled before ${what}: ${answered()} answered`);
        await sleep(50);
      }
    };
    const events: string[] = [];
    const t0 = performance.now();
    const mark = (what: string) => events.push(`${((performance.now() - t0) / 1000).toFixed(1)} s ${what} (${answered()} answered)`);

    try {
      await waitAnswered(40, 'the kill');
      mark('SIGKILL replica1');
      await replicas[0]!.stop('SIGKILL');
      await sleep(1500);
      mark('restart replica1');
      await restart(0);
      mark('replica1 ready');
      await waitAnswered(answered() + 40, 'the drain');
      mark('SIGTERM replica2');
      const drained = await replicas[1]!.stop('SIGTERM');
      mark(`replica2 exited (${drained})`);
      await restart(1);
      mark('replica2 ready');
      await waitAllUp(lb.url, names);
      await waitAnswered(answered() + 40, 'the end');
      mark('load stops');
    } finally {
      stopping = true;
      await Promise.all(tsWorkers);
    }
    const pyResult = await py.stop();
    attempts.push(...pyResult.attempts);
    calls.push(...pyResult.calls);

    const tally = tallyAttempts(attempts);
    t.diagnostic(`timeline: ${events.join('; ')}`);
    const lost = attempts.filter((a) => a.status === 0).map((a) => `${((a.sent - t0) / 1000).toFixed(1)}–${((a.recv - t0) / 1000).toFixed(1)} s`);
    if (lost.length) t.diagnostic(`attempts without a response: ${lost.join(', ')}`);
    const slow = attempts.filter((a) => a.recv - a.sent > 10_000).length;
    if (slow) t.diagnostic(`attempts slower than 10 s: ${slow}`);
    // HAProxy's own view of every request that did not end plainly (status, timers, termination state).
    const unusual = lb
      .output()
      .split('\n')
      .filter((l) => /replicas\//.test(l) && !/ 20[01] \d+ - - ---- /.test(l));
    if (unusual.length) t.diagnostic(`balancer log, requests not plainly answered (${unusual.length}):\n${unusual.slice(0, 30).join('\n')}`);
    // The clients saw no failure: every call ended in a 200 (retries included).
    const failed = calls.filter((c) => !c.ok);
    assert.deepEqual(failed, [], 'client-visible failures');
    // What was retried: 529 (a replica starting), 429 rate_limited (a key whose call was running on the
    // killed replica, until its reservation expires). Nothing else reached a client.
    for (const k of Object.keys(tally)) assert.ok(['200', '200_replay', '429:rate_limited', '529:starting', '529:overloaded'].includes(k), `unexpected attempt outcome ${k}: ${JSON.stringify(tally)}`);

    // Ledger = Σ answered calls: each answered key exactly once, with the processed tokens its client got.
    const rows = await db.query<{ idempotency_key: string; n: unknown; tokens: unknown }>(
      'SELECT idempotency_key, COUNT(*) AS n, SUM(processed_tokens) AS tokens FROM usage_records WHERE account_id = $1 GROUP BY idempotency_key',
      [acct.accountId],
    );
    const doubles = rows.filter((r) => Number(r.n) !== 1);
    assert.deepEqual(doubles, [], 'no Idempotency-Key charged twice');
    const charged = new Map(rows.map((r) => [r.idempotency_key, Number(r.tokens)]));
    assert.equal(charged.size, calls.length, 'one ledger record per answered call, none for anything else');
    for (const c of calls) assert.equal(charged.get(c.key), c.processedTokens, `${c.key}: charged what its client was told`);
    const sumAnswered = calls.reduce((s, c) => s + c.processedTokens!, 0);
    let totals = await usageTotals(db, { accountId: acct.accountId });
    assert.equal(totals.processedTokens, sumAnswered);
    assert.equal(totals.counterUsed, sumAnswered);
    // The killed replica's reservations expire; then nothing is reserved.
    const until = Date.now() + 5 * RESERVATION_TTL_MS;
    while ((totals.openReservations > 0 || totals.counterReserved > 0) && Date.now() < until) {
      await sleep(200);
      totals = await usageTotals(db, { accountId: acct.accountId });
    }
    assert.equal(totals.openReservations, 0);
    assert.equal(totals.counterReserved, 0);

    const perReplica: Record<string, number> = {};
    for (const a of attempts) if (a.status === 200 && a.replica) perReplica[a.replica] = (perReplica[a.replica] ?? 0) + 1;
    for (const n of names) assert.ok((perReplica[n] ?? 0) > 0, `${n} answered calls: ${JSON.stringify(perReplica)}`);
    t.diagnostic(
      `calls ${calls.length} (TypeScript ${calls.filter((c) => c.key.startsWith('ts-')).length}, Python ${pyResult.calls.length}), ` +
        `failed 0, ledger records ${totals.records}, processed tokens ${totals.processedTokens} = Σ answered, double charges ${doubles.length}`,
    );
    t.diagnostic(`attempts ${attempts.length}: ${JSON.stringify(tally)}; answered per replica ${JSON.stringify(perReplica)}`);
  });

  it('the monthly allowance is exact across the three replicas', async (t) => {
    const probe = await newAccount(lb.url, HIGH);
    const attempts: Attempt[] = [];
    const one = new ts.Client({ baseURL: lb.url, apiKey: probe.key, fetch: recordingFetch(attempts) });
    const cost1 = (await one.systemOne({ state: STATE, questions: questions(1) })).usage.processed_tokens;
    const fits = 45;
    const allowance = fits * cost1 + Math.floor(cost1 / 2);
    const acct = await newAccount(lb.url, { ...HIGH, monthly_allowance: allowance });
    const calls: CallOutcome[] = [];
    const refusals: string[] = [];
    // 12 clients, each calling until the service says 402 (never retried by the client).
    await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const client = new ts.Client({ baseURL: lb.url, apiKey: acct.key, fetch: recordingFetch(attempts) });
        for (let n = 0; ; n++) {
          try {
            const r = await client.systemOne({ state: STATE, questions: questions(1) }, { idempotencyKey: `a-${i}-${n}` });
            calls.push({ key: `a-${i}-${n}`, ok: true, processedTokens: r.usage.processed_tokens });
          } catch (err) {
            const e = err as { status?: number; code?: string };
            refusals.push(`${e.status}:${e.code}`);
            return;
          }
        }
      }),
    );
    assert.deepEqual([...new Set(refusals)], ['402:allowance_exhausted']);
    assert.equal(calls.length, fits, 'exactly floor(allowance / cost) calls answered');
    const totals = await usageTotals(db, { accountId: acct.accountId });
    assert.equal(totals.records, fits);
    assert.equal(totals.processedTokens, fits * cost1);
    assert.equal(totals.counterUsed, fits * cost1);
    assert.equal(totals.counterReserved, 0);
    const served = new Set(attempts.filter((a) => a.status === 200).map((a) => a.replica));
    for (const n of names) assert.ok(served.has(n), `${n} answered some of them`);
    t.diagnostic(`allowance ${allowance} = ${fits} calls of ${cost1} + ${Math.floor(cost1 / 2)}: answered ${calls.length}, 402s ${refusals.length}, ledger ${totals.records}`);
  });

  it('the request rate is exact across the three replicas', async (t) => {
    const R = 10;
    const acct = await newAccount(lb.url, { ...HIGH, requests_per_second: R });
    const attempts: Attempt[] = [];
    const start = performance.now();
    let answered = 0;
    // 9 clients for 3 s; the client retries each 429 after the Retry-After the service sends.
    await Promise.all(
      Array.from({ length: 9 }, async () => {
        const client = new ts.Client({ baseURL: lb.url, apiKey: acct.key, fetch: recordingFetch(attempts), retry: { maxRetries: 1000 } });
        while (performance.now() - start < 3000) {
          await client.systemOne({ state: STATE, questions: questions(1) });
          answered++;
        }
      }),
    );
    const ok = attempts.filter((a) => a.status === 200);
    assert.equal(ok.length, answered);
    const others = attempts.filter((a) => a.status !== 200);
    assert.ok(others.every((a) => a.status === 429 && a.code === 'rate_limited'), JSON.stringify(tallyAttempts(others)));
    const first = Math.min(...attempts.map((a) => a.sent));
    const last = Math.max(...attempts.map((a) => a.recv));
    // A bucket of R tokens refilled at R/s admits at most R + R·T in T seconds, whichever replica asks.
    const bound = R + (R * (last - first)) / 1000;
    assert.ok(ok.length <= bound, `${ok.length} answered in ${(last - first).toFixed(0)} ms > ${bound.toFixed(1)}`);
    assert.ok(ok.length >= 0.6 * bound, `the limit throttles, it does not starve: ${ok.length} of ≤ ${bound.toFixed(1)}`);
    for (let w = first; w + 1000 <= last; w += 50) {
      const n = ok.filter((a) => a.sent >= w && a.recv < w + 1000).length;
      assert.ok(n <= 2 * R, `window at ${(w - first).toFixed(0)} ms: ${n} > ${2 * R}`);
    }
    const totals = await usageTotals(db, { accountId: acct.accountId });
    assert.equal(totals.records, ok.length);
    const served = new Set(ok.map((a) => a.replica));
    for (const n of names) assert.ok(served.has(n), `${n} answered some of them`);
    t.diagnostic(`rate ${R}/s: ${ok.length} answered in ${((last - first) / 1000).toFixed(2)} s (bound ${bound.toFixed(1)}), ${others.length} 429s retried`);
  });
});
