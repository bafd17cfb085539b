/**
 * The chaos scenarios (issue 20). Each is bounded in count and time and returns its tally and checks.
 * They run against one live service (`structqa serve` as a child process) on loopback, whose
 * PostgreSQL and Redis connections pass through TCP proxies that can be cut and restored.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import type { Redis } from 'ioredis';
import type { LiveServer } from '../test/helpers/server.js';
import type { TcpProxy } from '../test/helpers/tcp-proxy.js';
import { soak } from './soak.js';
import { callUntilAnswered, percentile, send, sleep, systemOne, Tally, type Check, type ScenarioResult } from './lib.js';

export interface ChaosContext {
  fast: boolean;
  /** Length of the soak, minutes. */
  minutes?: number;
  server: LiveServer;
  pgProxy: TcpProxy;
  redisProxy: TcpProxy;
  /** Direct connections (not through the proxies) for the ledger and the slots. */
  pg: pg.Client;
  redis: Redis;
  schema: string;
  redisPrefix: string;
  graceMs: number;
  adminToken: string;
  /** Start a new service process on the same database, Redis and settings (after a kill). */
  restart(): Promise<void>;
  /** Another service process on the same database, Redis and settings, with these on top (stopped at the end). */
  spawn(env: Record<string, string>): Promise<LiveServer>;
  /** A key of a new account with these limits, from the server at `url` (default: ctx.server). */
  newAccount(limits?: Record<string, number>, url?: string): Promise<{ key: string; id: string }>;
  log(line: string): void;
}

const STATE = 'The parcel arrived two days late and the box was crushed; I want a refund or a replacement.';
const noul = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`q${i}`, { type: 'noul', instructions: `Is statement ${i} true?` }]));
const LOAD_LIMITS = { monthly_allowance: 1_000_000_000, requests_per_second: 10_000, processed_tokens_per_second: 1_000_000_000, in_flight: 64 };

async function ledger(ctx: ChaosContext, accountId: string): Promise<number> {
  const r = await ctx.pg.query(`SELECT COUNT(*) AS n FROM ${ctx.schema}.usage_records WHERE account_id = $1`, [accountId]);
  return Number(r.rows[0].n);
}

function check(name: string, ok: boolean, detail: string): Check {
  return { name, ok, detail };
}

function baseChecks(t: Tally): Check[] {
  return [
    check('no 5xx but the retryable 529/503 with Retry-After', t.bad5xx.length === 0, t.bad5xx.slice(0, 3).join(' | ')),
    check('every response has x-request-id, every error x-service-error-code', t.missingHeaders.length === 0, t.missingHeaders.slice(0, 3).join(' | ')),
  ];
}

/** After a fault: one usage record per answered call, and every call answered once retried. */
function ledgerChecks(records: number, l: { answered: Set<string>; unanswered: string[] }): Check[] {
  return [
    check('ledger = answered calls', records === l.answered.size, `${records} records, ${l.answered.size} answered, ${l.unanswered.length} given up`),
    check('every call answered in the end', l.unanswered.length === 0, `${l.unanswered.length} given up`),
  ];
}

/**
 * Clients that each make calls (unique Idempotency-Key per call, retried as the contract's clients
 * do) until `stop()`; returns the keys answered. Calls started before stop() are carried to an answer.
 */
function load(ctx: ChaosContext, key: string, clients: number, tally: Tally, questions = 4) {
  let stopping = false;
  const answered = new Set<string>();
  const unanswered: string[] = [];
  const workers = Array.from({ length: clients }, async (_, w) => {
    for (let i = 0; !stopping; i++) {
      const idem = `chaos-${w}-${i}-${crypto.randomUUID()}`;
      const n = [1, questions, 2 * questions][i % 3]!;
      if (await callUntilAnswered(() => ctx.server.url, key, { state: STATE, questions: noul(n) }, idem, Date.now() + 60_000, tally)) answered.add(idem);
      else unanswered.push(idem);
    }
  });
  return {
    answered,
    unanswered,
    async stop() {
      stopping = true;
      await Promise.all(workers);
    },
  };
}

// ------------------------------------------------------------------------------------------ fuzz

const nest = (d: number) => '['.repeat(d) + ']'.repeat(d);

/** One fuzzed request: depth and size extremes, names as data, bad bytes and headers, wrong methods. */
function fuzzCase(i: number, rnd: () => number): { body: string | Uint8Array; headers: Record<string, string>; method: string; path: string; what: string } {
  const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const contentType = pick(['application/json', 'text/plain', 'application/octet-stream', 'application/x-www-form-urlencoded', '']);
  const headers: Record<string, string> = contentType ? { 'content-type': contentType } : {};
  const depth = pick([1, 2, 63, 64, 65, 100, 1000, 5000, 20_000]);
  const kinds = [
    () => ({ what: `state depth ${depth}`, body: `{"state":${nest(depth)},"questions":{"q":{"type":"noul"}}}` }),
    () => ({ what: `instructions depth ${depth}`, body: `{"state":"x","questions":{"q":{"type":"noul","instructions":${nest(depth)}}}}` }),
    () => ({ what: `criteria depth ${depth}`, body: `{"state":"x","questions":{"q":{"type":"score","criteria":[${nest(depth)},"b"]}}}` }),
    () => ({ what: 'object depth', body: `{"state":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)},"questions":{"q":{"type":"noul"}}}` }),
    () => ({ what: '__proto__ names', body: '{"state":"x","questions":{"__proto__":{"type":"choice","criteria":{"__proto__":"a","constructor":"b","toString":null}},"constructor":{"type":"noul"}}}' }),
    () => ({ what: 'empty option', body: '{"state":"x","questions":{"q":{"type":"choice","criteria":{"":"a","b":"c"}}}}' }),
    () => ({ what: 'big state', body: JSON.stringify({ state: 'lorem ipsum dolor '.repeat(Math.floor(rnd() * 60_000)), questions: { q: { type: 'noul' } } }) }),
    () => ({ what: 'over the body limit', body: JSON.stringify({ state: 'x'.repeat(1_100_000), questions: { q: { type: 'noul' } } }) }),
    () => ({ what: 'many questions', body: JSON.stringify({ state: 'x', questions: noul(Math.floor(rnd() * 80)) }) }),
    () => ({ what: 'random bytes', body: crypto.randomBytes(Math.floor(rnd() * 400)) }),
    () => ({ what: 'broken JSON', body: '{"state": "x", "questions": {"q": {"type": "noul"' }),
    () => ({ what: 'unicode', body: JSON.stringify({ state: '\ud800\udfff\u0000[MASK]\u202e'.repeat(50), questions: { '\u0000': { type: 'noul', instructions: '\ud83d' } } }) }),
    () => ({ what: 'long idempotency key', body: JSON.stringify({ state: 'x', questions: { q: { type: 'noul' } } }), idem: 'k'.repeat(200 + Math.floor(rnd() * 200)) }),
  ];
  const c = kinds[i % kinds.length]!() as { what: string; body: string | Uint8Array; idem?: string };
  if (c.idem) headers['idempotency-key'] = c.idem;
  const method = i % 17 === 0 ? pick(['GET', 'PUT', 'DELETE', 'PATCH']) : 'POST';
  const path = i % 29 === 0 ? pick(['/v1/systemone/', '/v1/SystemOne', '/v1/nowhere']) : '/v1/systemone';
  return { body: c.body, headers, method, path, what: `${c.what} ${method} ${path} ${contentType}` };
}

export async function fuzz(ctx: ChaosContext): Promise<ScenarioResult> {
  const started = performance.now();
  const { key } = await ctx.newAccount(LOAD_LIMITS);
  const tally = new Tally();
  const count = ctx.fast ? 130 : 1300;
  let seed = 20;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < count) {
        const c = fuzzCase(next++, rnd);
        const body = c.method === 'GET' || c.method === 'HEAD' ? undefined : c.body;
        const o = await send(`${ctx.server.url}${c.path}`, { method: c.method, headers: { authorization: `Bearer ${key}`, ...c.headers }, body: body as string | Uint8Array | undefined });
        tally.record(o, c.what);
      }
    }),
  );
  // names are data: the same body gives the same answer whatever its content type
  const body = '{"state":"x","questions":{"__proto__":{"type":"choice","criteria":{"__proto__":"a","b":"c"}}}}';
  const answers = await Promise.all(['application/json', 'text/plain', ''].map((ct) => systemOne(ctx.server.url, key, body, ct ? { 'content-type': ct } : { 'content-type': '' })));
  answers.forEach((o) => tally.record(o, 'proto by content type'));
  const texts = answers.map((o) => `${o.status} ${JSON.stringify(JSON.parse(o.text ?? '{}').answers ?? null)}`);
  // the smaller items, each answered as documented
  const admin = (method: string, path: string, token: string, body?: unknown) =>
    send(`${ctx.server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const idem = `reuse-${crypto.randomUUID()}`;
  const probes: [string, number, Promise<import('./lib.js').Outcome>][] = [];
  const first = await systemOne(ctx.server.url, key, { state: 'one body', questions: noul(1) }, { 'idempotency-key': idem });
  tally.record(first, 'idempotency first');
  probes.push(['same Idempotency-Key, another body', 400, systemOne(ctx.server.url, key, { state: 'another body', questions: noul(1) }, { 'idempotency-key': idem })]);
  probes.push(['same Idempotency-Key, same body (replay)', 200, systemOne(ctx.server.url, key, { state: 'one body', questions: noul(1) }, { 'idempotency-key': idem })]);
  probes.push(['Idempotency-Key of 256 characters', 422, systemOne(ctx.server.url, key, { state: 'x', questions: noul(1) }, { 'idempotency-key': 'k'.repeat(256) })]);
  probes.push(['GET /v1/systemone', 405, systemOne(ctx.server.url, key, undefined, {}, 'GET')]);
  probes.push(['?month=0000-01', 422, send(`${ctx.server.url}/v1/usage?month=0000-01`, { headers: { authorization: `Bearer ${key}` } })]);
  probes.push(['account named like an id', 422, admin('POST', '/admin/accounts', ctx.adminToken, { name: `acct_${crypto.randomBytes(8).toString('hex')}` })]);
  probes.push(['DELETE /admin/keys/<whole key>, wrong admin token', 403, admin('DELETE', `/admin/keys/${key}`, 'wrong-token')]);
  probes.push(['DELETE /admin/keys/<whole key>', 422, admin('DELETE', `/admin/keys/${key}`, ctx.adminToken)]);
  const probed = await Promise.all(probes.map(async ([what, expected, p]) => {
    const o = await p;
    tally.record(o, what);
    return { what, expected, got: o.status };
  }));
  const wrong = probed.filter((p) => p.got !== p.expected);
  return {
    name: 'fuzz (depth, size, names, bytes, methods)',
    tally,
    seconds: (performance.now() - started) / 1000,
    checks: [
      ...baseChecks(tally),
      check('the smaller items answered as documented', wrong.length === 0, wrong.map((w) => `${w.what}: ${w.got} (expected ${w.expected})`).join(' | ') || probed.map((p) => `${p.what} ${p.got}`).join(', ')),
      check('"__proto__" answered alike for every content type', texts.every((t) => t === texts[0]) && texts[0]!.startsWith('200') && texts[0]!.includes('"__proto__":{"type":"choice"'), texts.map((t) => t.slice(0, 60)).join(' | ')),
    ],
  };
}

// ------------------------------------------------------------------------------------------ slow and stalled clients

export async function slowClients(ctx: ChaosContext): Promise<ScenarioResult> {
  const started = performance.now();
  const { key } = await ctx.newAccount(LOAD_LIMITS);
  const tally = new Tally();
  const port = ctx.server.port;
  const sockets: net.Socket[] = [];
  const open = async (first: string) => {
    const s = net.connect(port, '127.0.0.1');
    s.on('error', () => undefined);
    await new Promise((r) => s.once('connect', r));
    s.write(first);
    sockets.push(s);
    return s;
  };
  const stalled = ctx.fast ? 20 : 100;
  for (let i = 0; i < stalled; i++) {
    if (i % 3 === 0) await open('POST /v1/systemone HTTP/1.1\r\nHost: x\r\nX-Slow: '); // headers never end
    else if (i % 3 === 1) await open(`POST /v1/systemone HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"state": "`); // body never comes
    else await open(''); // connected, silent
  }
  // a trickling client: one byte every 100 ms
  const trickle = await open('');
  const request = `GET /livez HTTP/1.1\r\nHost: x\r\n\r\n`;
  let cursor = 0;
  const dribble = setInterval(() => cursor < request.length && trickle.write(request[cursor++]!), 100);
  const calls = ctx.fast ? 30 : 150;
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const o = await systemOne(ctx.server.url, key, { state: STATE, questions: noul(1) });
    tally.record(o, 'during stalled clients');
    if (o.status === 200) times.push(o.ms);
  }
  clearInterval(dribble);
  for (const s of sockets) s.destroy();
  return {
    name: `slow and stalled clients (${stalled} held open)`,
    tally,
    seconds: (performance.now() - started) / 1000,
    checks: [...baseChecks(tally), check('every call answered meanwhile', times.length === calls, `${times.length}/${calls}, p50 ${percentile(times, 0.5).toFixed(1)} ms`)],
  };
}

// ------------------------------------------------------------------------------------------ CPU flood

export async function cpuFlood(ctx: ChaosContext): Promise<ScenarioResult> {
  const started = performance.now();
  const bystander = await ctx.newAccount(LOAD_LIMITS);
  const flooder = await ctx.newAccount({ requests_per_second: 20, in_flight: 8 });
  const tally = new Tally();
  const samples = ctx.fast ? 20 : 60;
  const measure = async () => {
    const ms: number[] = [];
    for (let i = 0; i < samples; i++) {
      const o = await systemOne(ctx.server.url, bystander.key, { state: STATE, questions: noul(1) });
      tally.record(o, 'bystander');
      if (o.status === 200) ms.push(o.ms);
    }
    return percentile(ms, 0.5);
  };
  await measure(); // warm
  const quietP50 = await measure();
  // eight clients of one 20 rps account send ~900 KB states (they cannot fit: 413 once tokenized),
  // retrying as the contract's clients do
  const big = JSON.stringify({ state: 'lorem ipsum dolor sit amet '.repeat(34_000), questions: noul(1) });
  let flooding = true;
  const flood = Array.from({ length: 8 }, async () => {
    while (flooding) {
      const o = await systemOne(ctx.server.url, flooder.key, big);
      tally.record(o, 'flood');
      if (o.status === 429 || o.status === 529) await sleep(Number(o.headers?.get('retry-after-ms') ?? 100));
    }
  });
  await sleep(500);
  const floodP50 = await measure();
  flooding = false;
  await Promise.all(flood);
  return {
    name: 'CPU flood (8 clients × 900 KB states, 20 rps account)',
    tally,
    seconds: (performance.now() - started) / 1000,
    bystander: { quietP50, floodP50 },
    checks: [...baseChecks(tally), check("bystander's 1-question p50 within 3× its quiet value", floodP50 <= 3 * quietP50, `${quietP50.toFixed(1)} → ${floodP50.toFixed(1)} ms`)],
  };
}

// ------------------------------------------------------------------------------------------ 1 MB bodies ignoring Retry-After

/** CPU seconds (user + system) the process has used, from /proc/PID/stat. */
function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}

async function bodiesParsed(url: string): Promise<number> {
  const metrics = await (await fetch(`${url}/metrics`)).text();
  return Number(/^structqa_request_bodies_parsed_total (\S+)/m.exec(metrics)?.[1] ?? NaN);
}

/**
 * Eight clients send 1 MB bodies back to back, ignoring Retry-After, as fast as loopback allows: first
 * on an account of 1 request/s (nearly every call refused 429 from its key, before its body is read),
 * then, for scale, the same bodies on an account without limits, where each is read, hashed, parsed and
 * refused by validation (422: an unknown question type, so that no admitted call adds tokenizing to
 * either phase). The server's CPU time (user + system) per request of each, and the bodies it parsed.
 */
export async function bodies(ctx: ChaosContext): Promise<ScenarioResult> {
  const started = performance.now();
  const tally = new Tally();
  const pid = ctx.server.process.pid!;
  const seconds = ctx.fast ? 2 : 5;
  const body = JSON.stringify({ state: 'lorem ipsum dolor sit amet '.repeat(38_000), questions: { q: { type: 'no-such-type' } } });
  const phase = async (key: string, payload: string) => {
    const cpu0 = cpuSeconds(pid);
    const parsed0 = await bodiesParsed(ctx.server.url);
    const statuses = new Map<number, number>();
    let requests = 0;
    const until = Date.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (Date.now() < until) {
          const o = await systemOne(ctx.server.url, key, payload);
          tally.record(o, '1 MB body');
          requests++;
          if (o.status !== undefined) statuses.set(o.status, (statuses.get(o.status) ?? 0) + 1);
        }
      }),
    );
    const cpu = cpuSeconds(pid) - cpu0;
    return { requests, statuses, cpuMs: (cpu * 1000) / Math.max(1, requests), parsed: (await bodiesParsed(ctx.server.url)) - parsed0 };
  };
  const flooder = await ctx.newAccount({ requests_per_second: 1, in_flight: 8 });
  const refused = await phase(flooder.key, body);
  const open = await ctx.newAccount(LOAD_LIMITS);
  const invalid = await phase(open.key, body);
  const refusedCount = refused.statuses.get(429) ?? 0;
  const admitted = refused.requests - refusedCount;
  const show = (m: Map<number, number>) => [...m].map(([k, v]) => `${k}:${v}`).join(' ');
  return {
    name: '1 MB bodies ignoring Retry-After (8 clients, 1 rps account)',
    tally,
    seconds: (performance.now() - started) / 1000,
    cpu: { perRefusedMs: refused.cpuMs, perParsedMs: invalid.cpuMs },
    checks: [
      ...baseChecks(tally),
      check('no refused body parsed (bodies parsed = calls admitted)', refused.parsed === admitted && refusedCount > 0, `${refusedCount} refused 429, ${admitted} admitted, ${refused.parsed} bodies parsed (${show(refused.statuses)})`),
      check(
        'a refused 1 MB call costs less CPU than a parsed one',
        refused.cpuMs < invalid.cpuMs,
        `server CPU per request: refused ${refused.cpuMs.toFixed(2)} ms (${refused.requests} requests), parsed and refused by validation ${invalid.cpuMs.toFixed(2)} ms (${invalid.requests} requests, ${invalid.parsed} parsed, ${show(invalid.statuses)}); ratio ${(invalid.cpuMs / refused.cpuMs).toFixed(1)}`,
      ),
    ],
  };
}

// ------------------------------------------------------------------------------------------ a commit's acknowledgement lost

/**
 * Clients that send no Idempotency-Key (as the earlier service's official clients) while PostgreSQL's
 * connection is cut right after a usage record's COMMIT went out, twice: restored within the call's
 * time budget (the service finds the record by request id and answers 200), and restored after it
 * (the call is answered 503 and its record voided). Checked: every call charged was answered — the
 * ledger equals the 200s the clients received.
 */
export async function ackLost(ctx: ChaosContext): Promise<ScenarioResult> {
  const started = performance.now();
  const { key, id } = await ctx.newAccount(LOAD_LIMITS);
  const tally = new Tally();
  let answered = 0;
  let stopping = false;
  const clients = Array.from({ length: 6 }, async (_, c) => {
    for (let i = 0; !stopping; i++) {
      const o = await systemOne(ctx.server.url, key, { state: `${STATE} Ticket ${c}-${i}.`, questions: noul(1 + (i % 4)) });
      tally.record(o, 'no Idempotency-Key');
      if (o.status === 200) answered++;
      else await sleep(o.status === undefined ? 200 : Math.min(1000, Number(o.headers?.get('retry-after-ms') ?? 200)));
    }
  });
  const cutAfterCommit = async (outageMs: number) => {
    await Promise.race([ctx.pgProxy.cutAfter('INSERT INTO usage_records', 'COMMIT'), sleep(10_000)]);
    await sleep(outageMs);
    ctx.pgProxy.restore();
  };
  const logged = (what: RegExp) => (ctx.server.output().match(what) ?? []).length;
  await sleep(1000);
  const settledBefore = logged(/acknowledgement was lost/g);
  await cutAfterCommit(1500); // within the call's budget (STRUCTQA_CALL_BUDGET_MS, 9 s)
  await sleep(1500);
  const settled = logged(/acknowledgement was lost/g) - settledBefore;
  const voidedBefore = logged(/answered 503 voided/g);
  if (!ctx.fast) {
    await cutAfterCommit(10_500); // past it: 503, the record voided once the database answers
    await sleep(1500);
  }
  stopping = true;
  await Promise.all(clients);
  await sleep(1500); // the background repairs (void, release) run every 0.5 s
  const records = await ledger(ctx, id);
  return {
    name: `commit acknowledgement lost, no Idempotency-Key (${ctx.fast ? '1 cut' : '2 cuts'})`,
    tally,
    seconds: (performance.now() - started) / 1000,
    ledger: { records, answered },
    checks: [
      ...baseChecks(tally),
      check('no call charged without its answer: ledger = 200s received', records === answered, `${records} records, ${answered} answered 200`),
      check('a call whose commit lost its acknowledgement was answered 200 (its record found by request id)', settled > 0, `${settled} settled after the first cut`),
      ...(ctx.fast ? [] : [check('a call that could not learn its fate in time was answered 503, its record voided', logged(/answered 503 voided/g) > voidedBefore, `${logged(/answered 503 voided/g) - voidedBefore} voided; ${tally.statusText}`)]),
    ],
  };
}

// ------------------------------------------------------------------------------------------ outages

async function outage(ctx: ChaosContext, which: 'postgres' | 'redis'): Promise<ScenarioResult> {
  const started = performance.now();
  const { key, id } = await ctx.newAccount(LOAD_LIMITS);
  const tally = new Tally();
  const proxy = which === 'postgres' ? ctx.pgProxy : ctx.redisProxy;
  const l = load(ctx, key, 6, tally);
  await sleep(1500);
  proxy.cut();
  const readyz: number[] = [];
  for (let i = 0; i < (ctx.fast ? 10 : 20); i++) {
    const o = await send(`${ctx.server.url}/readyz`);
    if (o.status !== undefined) readyz.push(o.status);
    await sleep(150);
  }
  proxy.restore();
  await sleep(1500);
  await l.stop();
  const records = await ledger(ctx, id);
  const checks = [
    ...baseChecks(tally),
    ...ledgerChecks(records, l),
  ];
  if (which === 'postgres') checks.push(check('/readyz unready during the outage', readyz.includes(503), readyz.join(',')));
  else checks.push(check('calls answered during the outage (limits fall back in-process)', (tally.statuses.get('200') ?? 0) > 0, tally.statusText));
  return { name: `${which === 'postgres' ? 'PostgreSQL' : 'Redis'} cut ${which === 'postgres' ? (ctx.fast ? 1.5 : 3) : 3} s mid-load`, tally, seconds: (performance.now() - started) / 1000, ledger: { records, answered: l.answered.size }, checks };
}

export const postgresOutage = (ctx: ChaosContext) => outage(ctx, 'postgres');
export const redisOutage = (ctx: ChaosContext) => outage(ctx, 'redis');

// ------------------------------------------------------------------------------------------ kills

/** Live (unexpired) in-flight slots of an account in Redis, by Redis's clock. */
async function liveSlots(ctx: ChaosContext, accountId: string): Promise<number> {
  const [s, us] = await ctx.redis.time();
  const now = Number(s) * 1000 + Math.floor(Number(us) / 1000);
  return ctx.redis.zcount(`${ctx.redisPrefix}{${accountId}}:inflight`, now, '+inf');
}

export async function sigkill(ctx: ChaosContext): Promise<ScenarioResult> {
  const started = performance.now();
  const { key, id } = await ctx.newAccount({ ...LOAD_LIMITS, in_flight: 6 });
  const tally = new Tally();
  const l = load(ctx, key, 6, tally, 16);
  // kill while calls hold slots
  let held = 0;
  for (let i = 0; i < 100 && held === 0; i++) {
    await sleep(50);
    held = await liveSlots(ctx, id);
  }
  await sleep(500);
  held = await liveSlots(ctx, id);
  ctx.server.process.kill('SIGKILL');
  const killedAt = performance.now();
  let freedMs = NaN;
  const restarting = ctx.restart();
  for (;;) {
    if ((await liveSlots(ctx, id)) === 0) {
      freedMs = performance.now() - killedAt;
      break;
    }
    if (performance.now() - killedAt > 30_000) break;
    await sleep(50);
  }
  await restarting;
  await sleep(2000);
  await l.stop();
  const records = await ledger(ctx, id);
  return {
    name: 'SIGKILL under load, restart',
    tally,
    seconds: (performance.now() - started) / 1000,
    ledger: { records, answered: l.answered.size },
    checks: [
      ...baseChecks(tally),
      ...ledgerChecks(records, l),
      check("the killed replica's in-flight slots free within 10 s", held > 0 && freedMs <= 10_000, `${held} held at the kill, free after ${(freedMs / 1000).toFixed(1)} s`),
    ],
  };
}

export async function sigterm(ctx: ChaosContext): Promise<ScenarioResult> {
  const started = performance.now();
  const { key, id } = await ctx.newAccount(LOAD_LIMITS);
  const tally = new Tally();
  const l = load(ctx, key, 6, tally, 16);
  await sleep(1500);
  // a client stalled half-way through its request, and one that never finishes its headers
  const stalled = net.connect(ctx.server.port, '127.0.0.1');
  stalled.on('error', () => undefined);
  await new Promise((r) => stalled.once('connect', r));
  stalled.write(`POST /v1/systemone HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"state": "`);
  const slowloris = net.connect(ctx.server.port, '127.0.0.1');
  slowloris.on('error', () => undefined);
  await new Promise((r) => slowloris.once('connect', r));
  slowloris.write('GET /readyz HTTP/1.1\r\nHost: x\r\nX-A: ');
  await sleep(200);
  const termAt = performance.now();
  const code = await ctx.server.stop('SIGTERM');
  const exitMs = performance.now() - termAt;
  stalled.destroy();
  slowloris.destroy();
  await ctx.restart();
  await sleep(1500);
  await l.stop();
  const records = await ledger(ctx, id);
  return {
    name: 'SIGTERM under load + stalled clients, restart',
    tally,
    seconds: (performance.now() - started) / 1000,
    ledger: { records, answered: l.answered.size },
    checks: [
      ...baseChecks(tally),
      check('exit 0 within the grace period', code === 0 && exitMs < ctx.graceMs, `exit ${code} after ${(exitMs / 1000).toFixed(1)} s (grace ${ctx.graceMs / 1000} s)`),
      ...ledgerChecks(records, l),
    ],
  };
}

// ------------------------------------------------------------------------------------------ queue

/** 64 clients of 32-question calls: the queue must refuse what it cannot start in time, not hold it past the clients' 10 s. */
export async function queue(ctx: ChaosContext): Promise<ScenarioResult> {
  const started = performance.now();
  const { key } = await ctx.newAccount(LOAD_LIMITS);
  const tally = new Tally();
  const answeredMs: number[] = [];
  const until = Date.now() + (ctx.fast ? 5000 : 12_000);
  const body = { state: STATE, questions: noul(32) };
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (Date.now() < until) {
        const o = await systemOne(ctx.server.url, key, body);
        tally.record(o, '32 questions');
        if (o.status === 200) answeredMs.push(o.ms);
        else if (o.status === 529 || o.status === 429) await sleep(Math.min(2000, Number(o.headers?.get('retry-after-ms') ?? 500)));
      }
    }),
  );
  const slowest = Math.max(0, ...answeredMs);
  const timedOut = tally.statuses.get('conn') ?? 0;
  return {
    name: 'queue: 64 clients × 32 questions',
    tally,
    seconds: (performance.now() - started) / 1000,
    checks: [
      ...baseChecks(tally),
      check("no answered call took past the clients' 10 s, no attempt timed out", slowest < 10_000 && timedOut === 0, `slowest answered ${(slowest / 1000).toFixed(1)} s, p50 ${(percentile(answeredMs, 0.5) / 1000).toFixed(1)} s, ${timedOut} timed out, ${tally.statuses.get('529') ?? 0} refused with 529`),
    ],
  };
}

// ------------------------------------------------------------------------------------------ load balancer

const SERVICE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Runs a command in the service folder, its output line by line to the log; resolves with its exit code. */
function run(ctx: ChaosContext, command: string, args: string[], onLine: (line: string) => void = () => undefined, env: Record<string, string> = {}): Promise<number | null> {
  const child = spawn(command, args, { cwd: SERVICE_DIR, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  for (const stream of [child.stdout!, child.stderr!]) {
    readline.createInterface({ input: stream }).on('line', (line) => {
      ctx.log(`    ${line}`);
      onLine(line);
    });
  }
  return new Promise((resolve) => child.once('close', (code) => resolve(code)));
}

/**
 * Three replicas behind Debian's HAProxy on deploy/haproxy/haproxy.cfg, one killed and one drained under
 * the official clients' load (service/test/scaleout/load-balancer.test.ts, run as it is in `npm test`).
 * HAProxy is installed with apt-get when missing (scripts/tools.sh, the same step as `npm test`'s).
 */
export async function balancer(ctx: ChaosContext): Promise<ScenarioResult> {
  const started = performance.now();
  const tools = await run(ctx, 'bash', [path.join(SERVICE_DIR, '../scripts/tools.sh'), 'haproxy']);
  let passed = 0;
  let failed = 0;
  const code = tools === 0
    ? await run(ctx, process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', 'test/scaleout/load-balancer.test.ts'], (line) => {
        const m = /^# (pass|fail) (\d+)$/.exec(line);
        if (m) (m[1] === 'pass' ? (passed = Number(m[2])) : (failed = Number(m[2])));
      })
    : null;
  return {
    name: 'three replicas behind HAProxy, kill + drain',
    tally: new Tally(),
    seconds: (performance.now() - started) / 1000,
    checks: [
      check('haproxy installed or found (scripts/tools.sh)', tools === 0, tools === 0 ? '' : `scripts/tools.sh exited ${tools}`),
      check('test/scaleout/load-balancer.test.ts passes', code === 0 && failed === 0 && passed > 0, `${passed} passed, ${failed} failed, exit ${code}`),
    ],
  };
}

// ------------------------------------------------------------------------------------------ fuzzers written by others

/** Pinned in one place: the fuzzers come from PyPI into a virtual environment of their own. */
const OUTSIDE_FUZZERS = ['schemathesis==4.32.5', 'pyradamsa==0.1.1'];
const FUZZ_VENV = path.join(SERVICE_DIR, '.cache/venv-fuzz');

/** Responses the server counted (structqa_http_requests_total), by status. */
async function servedByStatus(url: string): Promise<Map<string, number>> {
  const metrics = await (await fetch(`${url}/metrics`)).text();
  const counts = new Map<string, number>();
  for (const m of metrics.matchAll(/^structqa_http_requests_total\{[^}]*status="(\d+)"[^}]*\} (\S+)$/gm)) counts.set(m[1]!, (counts.get(m[1]!) ?? 0) + Number(m[2]));
  return counts;
}

/**
 * Two fuzzers nobody on the team wrote, from PyPI: radamsa (pyradamsa) mutating well-formed raw
 * requests — bodies by Content-Length and chunked, over the body limit, with and without a key — sent
 * by a client that writes its whole request and then reads (chaos/radamsa_http.py); and schemathesis
 * generating requests from /openapi.json with all its checks and one of ours for the contract's
 * headers (chaos/schemathesis_hooks.py), but two that contradict documented decisions: a missing key
 * is 403, not 401 (missing_required_header; docs/conformance.md), and a model name or a month the
 * schema lets through can still be refused (positive_data_acceptance: 400 unknown_model, 422).
 */
export async function outside(ctx: ChaosContext): Promise<ScenarioResult> {
  const started = performance.now();
  const tally = new Tally();
  const python = path.join(FUZZ_VENV, 'bin/python');
  const checks: Check[] = [];
  if (!fs.existsSync(path.join(FUZZ_VENV, 'bin/st'))) {
    const made = (await run(ctx, 'python3', ['-m', 'venv', FUZZ_VENV])) === 0 && (await run(ctx, python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', ...OUTSIDE_FUZZERS])) === 0;
    if (!made) return { name: 'outside fuzzers', tally, seconds: 0, checks: [check(`${OUTSIDE_FUZZERS.join(', ')} installed from PyPI`, false, 'pip failed')] };
  }
  const { key } = await ctx.newAccount(LOAD_LIMITS);
  const count = ctx.fast ? 200 : 2000;
  let report = '';
  const radamsaExit = await run(ctx, python, [path.join(SERVICE_DIR, 'chaos/radamsa_http.py'), '--port', String(ctx.server.port), '--key', key, '--count', String(count)], (line) => (report = line));
  const radamsa = JSON.parse(report || '{}') as { requests?: number; statuses?: Record<string, number>; broken?: string[]; broken_count?: number };
  for (const [status, n] of Object.entries(radamsa.statuses ?? {})) tally.statuses.set(`radamsa ${status}`, n);
  tally.requests += radamsa.requests ?? 0;
  checks.push(
    check(
      `radamsa: ${count} mutated raw requests — no 5xx but the retryable, every answer with its headers, no reset, none unanswered`,
      radamsaExit === 0 && radamsa.broken_count === 0,
      radamsa.broken_count ? `${radamsa.broken_count} broken: ${radamsa.broken!.slice(0, 3).join(' | ')}` : JSON.stringify(radamsa.statuses),
    ),
  );

  const before = await servedByStatus(ctx.server.url);
  const st = await run(
    ctx,
    path.join(FUZZ_VENV, 'bin/st'),
    [
      'run', `${ctx.server.url}/openapi.json`, '-H', `Authorization: Bearer ${key}`,
      // every check of schemathesis's and ours (contract_headers) but the two that contradict a documented decision
      '--checks', 'all', '--exclude-checks', 'missing_required_header,positive_data_acceptance',
      '--max-examples', String(ctx.fast ? 20 : 200), '--seed', '32', '--generation-database', 'none', '--no-color', '--workers', '2',
    ],
    undefined,
    { SCHEMATHESIS_HOOKS: 'schemathesis_hooks', PYTHONPATH: path.join(SERVICE_DIR, 'chaos') },
  );
  const after = await servedByStatus(ctx.server.url);
  const served = [...after].map(([status, n]) => [status, n - (before.get(status) ?? 0)] as const).filter(([, n]) => n > 0);
  const total = served.reduce((sum, [, n]) => sum + n, 0);
  for (const [status, n] of served) tally.statuses.set(`schemathesis ${status}`, n);
  tally.requests += total;
  checks.push(check(`schemathesis from /openapi.json: ${total} requests, no failure of its checks nor of the contract's headers`, st === 0, served.map(([k, v]) => `${k}:${v}`).join(' ') + (st === 0 ? '' : ` (exit ${st}: its report is in the log above)`)));
  // Nothing the fuzzers did may hold on to the account's in-flight slots (leases in Redis): a call is answered.
  await sleep(500);
  const after2 = await systemOne(ctx.server.url, key, { state: STATE, questions: noul(1) });
  tally.record(after2, 'after the fuzzers');
  checks.push(check("afterwards the fuzzers' account is answered (no in-flight slot left held)", after2.status === 200, `${after2.status} ${after2.text?.slice(0, 120) ?? after2.error}`));
  return { name: 'outside fuzzers (radamsa raw requests, schemathesis)', tally, seconds: (performance.now() - started) / 1000, checks };
}

export const SCENARIOS: Record<string, (ctx: ChaosContext) => Promise<ScenarioResult>> = {
  fuzz,
  slow: slowClients,
  flood: cpuFlood,
  bodies,
  queue,
  postgres: postgresOutage,
  redis: redisOutage,
  ack: ackLost,
  sigkill,
  sigterm,
  outside,
  balancer,
  soak,
};

/** Scenarios run only when named in --only. */
export const OPT_IN = ['soak'];
