/**
 * `npm run chaos` (issues 20 and 32): attacks and faults against a live service on loopback, each
 * bounded in count and time, then one table — requests, status counts, 5xx other than the documented
 * retryable 529/503, responses missing the contract headers, ledger vs answered calls, the bystander's
 * p50, CPU per refused request. Exit code 1 when any check fails, 2 for a bad command line.
 * docs/reliability.md describes every scenario and its figures.
 *
 * Needs PostgreSQL and Redis on loopback (TEST_DATABASE_URL, TEST_REDIS_URL; defaults
 * postgres://postgres@127.0.0.1:5432/test and redis://127.0.0.1:6379), and Debian's haproxy for the
 * `balancer` scenario (installed with apt-get when missing, as `npm test` does: scripts/tools.sh).
 * Everything it creates (a schema, a key prefix, a data folder) is unique to the run and removed at the end.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Redis } from 'ioredis';
import { commandLine, numberOption, usageError } from '../src/cli/args.js';
import { ADMIN_TOKEN, startServer, type LiveServer } from '../test/helpers/server.js';
import { startTcpProxy } from '../test/helpers/tcp-proxy.js';
import { table, type ScenarioResult } from './lib.js';
import { OPT_IN, SCENARIOS, type ChaosContext } from './scenarios.js';

export interface ChaosOptions {
  fast?: boolean;
  /** Scenarios to run (default: every one but the opt-in ones). */
  only?: string[];
  /** Length of the soak, minutes. */
  minutes?: number;
  log?: (line: string) => void;
}

export const USAGE = `usage: npm run chaos -- [--fast] [--only NAME,…] [--minutes N]

Faults and attacks against a live service on loopback (docs/reliability.md), then one table.

  --fast          small counts (what \`npm test\` runs for fuzz, slow, postgres and redis)
  --only NAME,…   these scenarios only: ${Object.keys(SCENARIOS).join(' ')}
                  (default: all but the opt-in ${OPT_IN.join(', ')})
  --minutes N     length of the soak (default 10): \`--only soak --minutes 60\`
  -h, --help      this text

Needs PostgreSQL and Redis on loopback (TEST_DATABASE_URL, TEST_REDIS_URL) and Debian's haproxy for
\`balancer\` (installed with apt-get when missing). Exit 1 when a check fails, 2 for a bad command line.`;

export async function runChaos(opts: ChaosOptions = {}): Promise<ScenarioResult[]> {
  const log = opts.log ?? ((line: string) => console.error(line));
  const pgUrl = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
  const redisUrl = new URL(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
  const run = crypto.randomBytes(4).toString('hex');
  const schema = `chaos_${run}`;
  const redisPrefix = `sqa-chaos-${run}:`;
  const graceMs = 10_000;
  const pgProxy = await startTcpProxy(pgUrl.hostname, Number(pgUrl.port || 5432));
  const redisProxy = await startTcpProxy(redisUrl.hostname, Number(redisUrl.port || 6379));
  const viaPg = new URL(pgUrl);
  viaPg.host = pgProxy.address;
  const viaRedis = new URL(redisUrl);
  viaRedis.host = redisProxy.address;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'structqa-chaos-'));
  const env = {
    DATABASE_URL: viaPg.toString(),
    STRUCTQA_DATABASE_SCHEMA: schema,
    REDIS_URL: viaRedis.toString(),
    STRUCTQA_REDIS_PREFIX: redisPrefix,
    STRUCTQA_SHUTDOWN_GRACE_MS: String(graceMs),
    LOG_LEVEL: 'info', // the request log too: no line may hold a whole key
  };
  const db = new pg.Client({ connectionString: pgUrl.toString() });
  await db.connect();
  const redis = new Redis(redisUrl.toString(), { lazyConnect: false, maxRetriesPerRequest: 1 });
  const servers: LiveServer[] = [];
  const results: ScenarioResult[] = [];
  try {
    servers.push(await startServer({ env, dataDir }));
    const ctx: ChaosContext = {
      fast: opts.fast ?? false,
      minutes: opts.minutes,
      server: servers[0]!,
      pgProxy,
      redisProxy,
      pg: db,
      redis,
      schema,
      redisPrefix,
      graceMs,
      adminToken: ADMIN_TOKEN,
      log,
      async restart() {
        const next = await startServer({ env, dataDir });
        servers.push(next);
        ctx.server = next;
      },
      async spawn(extra) {
        const extraDir = fs.mkdtempSync(path.join(dataDir, 'extra-'));
        const server = await startServer({ env: { ...env, ...extra }, dataDir: extraDir });
        servers.push(server);
        return server;
      },
      async newAccount(limits = {}, url = ctx.server.url) {
        const res = await fetch(`${url}/admin/keys`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ account: `chaos-${crypto.randomBytes(4).toString('hex')}`, create_account: true, ...limits }),
        });
        const body = (await res.json()) as { key: string; account_id: string };
        if (res.status !== 201) throw new Error(`admin: ${res.status} ${JSON.stringify(body)}`);
        return { key: body.key, id: body.account_id };
      },
    };
    for (const [name, scenario] of Object.entries(SCENARIOS)) {
      if (opts.only ? !opts.only.includes(name) : OPT_IN.includes(name)) continue;
      log(`chaos: ${name} …`);
      const result = await scenario(ctx);
      results.push(result);
      for (const c of result.checks) log(`  ${c.ok ? 'ok  ' : 'FAIL'} ${c.name}${c.detail ? ` — ${c.detail}` : ''}`);
    }
    // Every line every process logged: no whole API key (only visible prefixes).
    const keys = servers.flatMap((s) => s.output().match(/sqa_live_[0-9A-Za-z]{9,}/g) ?? []);
    const last = results.at(-1);
    const logCheck = { name: 'no whole API key in any log line (all processes, info level)', ok: keys.length === 0, detail: `${keys.length} found in ${servers.reduce((n, s) => n + s.output().split('\n').length, 0)} lines` };
    last?.checks.push(logCheck);
    log(`  ${logCheck.ok ? 'ok  ' : 'FAIL'} ${logCheck.name} — ${logCheck.detail}`);
  } finally {
    // (a process already killed or stopped by a scenario has nothing left to stop)
    await Promise.allSettled(servers.filter((s) => s.process.exitCode === null && s.process.signalCode === null).map((s) => s.stop('SIGKILL')));
    pgProxy.restore();
    redisProxy.restore();
    await pgProxy.close();
    await redisProxy.close();
    await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await db.end();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${redisPrefix}*`, 'COUNT', 500);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
    redis.disconnect();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return results;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = commandLine({ fast: { type: 'boolean' }, only: { type: 'string' }, minutes: { type: 'string' } }, USAGE);
  const only = values.only?.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = only?.filter((name) => !(name in SCENARIOS)) ?? [];
  if (unknown.length) usageError(`unknown scenario ${unknown.join(', ')} (scenarios: ${Object.keys(SCENARIOS).join(' ')})`, USAGE);
  const minutes = values.minutes === undefined ? undefined : numberOption('minutes', values.minutes, USAGE, { min: 0.1, real: true });
  const results = await runChaos({ fast: values.fast ?? false, only, minutes });
  console.log(table(results));
  const failed = results.flatMap((r) => r.checks.filter((c) => !c.ok).map((c) => `${r.name}: ${c.name} — ${c.detail}`));
  if (failed.length) console.log(`\n${failed.length} check(s) failed:\n` + failed.join('\n'));
  process.exit(failed.length ? 1 : 0);
}
