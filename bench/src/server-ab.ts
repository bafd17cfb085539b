/**
 * Several configurations of the real service side by side, in many short interleaved rounds: on a shared
 * host whose load comes in bursts, one long phase per configuration (what `npm run bench -- --compare`
 * runs) can land a burst on one side only; many short phases in rotating order let every configuration
 * see the same host. Prints, per client count, each configuration's median rows/s over the rounds and
 * the median (and range) of its per-round ratio to the first configuration; then 1-question latency from
 * calls alternating between the servers, and each server's peak memory.
 *
 *   npx tsx bench/src/server-ab.ts [--checkpoint DIR] [--rounds 8] [--seconds 1.5] [--state-words 90]
 *     [--clients 1,8,32] [--latency-samples 60] default STRUCTQA_NAME=VALUE[,STRUCTQA_NAME=VALUE…] …
 *
 * Each positional argument is one server: `default` (the defaults) or its settings (NODE_OPTIONS too: Node's
 * and V8's flags, one at a time, since a comma separates settings). DIR (default: the
 * bundled English checkpoint) is served as the English checkpoint beside the multilingual fixture, as
 * `npm run bench` serves it. Calls: one noul question over a `--state-words` state (90 words: 131–134
 * tokens on the English checkpoint), a different state per call.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { commandLine, numberOption, usageError } from '../../service/src/cli/args.js';
import { BUNDLED_CHECKPOINTS_DIR, ENGLISH_CHECKPOINT } from '../../service/src/config.js';
import { ensureFixtures } from '../../service/src/fixtures/index.js';
import { firstKey, freePort, NO_LIMITS, setting, waitReady } from './child-server.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.resolve(here, '../../service/bin/structqa.js');
const MODELS = path.resolve(here, '../../service/.cache/fixtures');
const USAGE = `usage: npx tsx bench/src/server-ab.ts [--checkpoint DIR] [--rounds 8] [--seconds 1.5] [--state-words 90]
         [--clients 1,8,32] [--latency-samples 60] [default | STRUCTQA_NAME=VALUE[,STRUCTQA_NAME=VALUE…]] …

Several configurations of the real service side by side in many short interleaved rounds: per client
count, each one's median rows/s and its per-round ratio to the first; 1-question latency from calls
alternating between the servers; each server's peak memory. Each positional argument is one server:
\`default\` or its settings (NODE_OPTIONS=FLAGS too, one flag at a time).

  --checkpoint DIR      served as the English checkpoint (default: the bundled one)
  --rounds N            rounds (default 8)          --seconds N   seconds per phase (default 1.5)
  --state-words N       words per state (default 90) --clients LIST  client counts (default 1,8,32)
  --latency-samples N   latency calls (default 60)
  -h, --help            this text`;
const { values: args, positionals } = commandLine(
  {
    checkpoint: { type: 'string', default: path.join(BUNDLED_CHECKPOINTS_DIR, ENGLISH_CHECKPOINT) },
    rounds: { type: 'string', default: '8' },
    seconds: { type: 'string', default: '1.5' },
    'state-words': { type: 'string', default: '90' },
    clients: { type: 'string', default: '1,8,32' },
    'latency-samples': { type: 'string', default: '60' },
  },
  USAGE,
  { allowPositionals: true },
);
for (const name of ['rounds', 'state-words', 'latency-samples'] as const) numberOption(name, args[name], USAGE, { min: 1 });
numberOption('seconds', args.seconds, USAGE, { min: 0.1, real: true });
for (const p of positionals) if (p !== 'default' && !p.includes('=')) usageError(`a server is \`default\` or STRUCTQA_NAME=VALUE settings, got ${JSON.stringify(p)}`, USAGE);
const configs = (positionals.length > 0 ? positionals : ['default']).map((p) => ({
  label: p,
  env: p === 'default' ? {} : Object.fromEntries(p.split(',').map(setting)),
}));
for (const c of configs) for (const k of Object.keys(c.env)) if (!k.startsWith('STRUCTQA_') && k !== 'NODE_OPTIONS') throw new Error(`settings are STRUCTQA_NAME=VALUE or NODE_OPTIONS=FLAGS, got ${k}`);
const ROUNDS = Number(args.rounds);
const SECONDS = Number(args.seconds);
const WORDS = 'the customer wrote that their order arrived late and the package was damaged so they want a refund or a replacement as soon as possible because the item was a gift'.split(' ');
const state = (salt: number) => Array.from({ length: Number(args['state-words']) - 2 }, (_, i) => WORDS[(i * 7 + salt) % WORDS.length]).join(' ') + ` ticket ${salt}`;
const question = { q: { type: 'noul', instructions: 'Does the customer ask for a refund?' } };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });

interface Server { label: string; child: ChildProcess; call: (salt: number) => Promise<number>; dataDir: string }

async function launch(label: string, env: Record<string, string>): Promise<Server> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'structqa-ab-'));
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: {
      ...process.env, PORT: String(port), HOST: '127.0.0.1', STRUCTQA_DATA_DIR: dataDir, STRUCTQA_MODELS_DIR: MODELS,
      STRUCTQA_BUILD_FIXTURES: '0', LOG_LEVEL: 'warn', ...NO_LIMITS, STRUCTQA_MONTHLY_ALLOWANCE: '1000000000000',
      STRUCTQA_SHARED_WEIGHTS_DIR: path.resolve(here, '../../service/.cache/ort-cache'), STRUCTQA_QUEUE_MAX_WAIT_MS: '0',
      STRUCTQA_ENGLISH_DIR: path.resolve(args.checkpoint!), STRUCTQA_MULTILINGUAL_DIR: 'fixture-multilingual', ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitReady(url, 1500);
  const key = firstKey(dataDir);
  const call = (salt: number) =>
    new Promise<number>((resolve, reject) => {
      const body = JSON.stringify({ model: ENGLISH_CHECKPOINT, state: state(salt), questions: question });
      const t0 = performance.now();
      const req = http.request(`${url}/v1/systemone`, { method: 'POST', agent, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - t0) : reject(new Error(`${label}: HTTP ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end(body);
    });
  return { label, child, call, dataDir };
}

/** Rows per second from `clients` sequential clients for SECONDS (every call is one row). */
async function phase(server: Server, clients: number, salt: { n: number }): Promise<number> {
  let done = 0;
  const start = performance.now();
  const until = start + SECONDS * 1000;
  await Promise.all(Array.from({ length: clients }, async () => {
    while (performance.now() < until) {
      await server.call(salt.n++);
      done++;
    }
  }));
  return done / ((performance.now() - start) / 1000);
}

const peakMiB = (pid: number) => Math.round(Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);

await ensureFixtures(MODELS, { en: 'core-0.3.20', multilingual: 'core-multilingual-0.3.20' });
const servers: Server[] = [];
try {
  for (const c of configs) servers.push(await launch(c.label, c.env));
  const loadStart = os.loadavg()[0]!;
  const salt = { n: 0 };
  for (const s of servers) await phase(s, 32, salt); // warm: V8, arenas, the database
  const clientCounts = args.clients!.split(',').map(Number);
  const rates = new Map<string, number[][]>(); // `${clients}` → per round, per server
  for (let r = 0; r < ROUNDS; r++) {
    for (const clients of clientCounts) {
      const row: number[] = new Array(servers.length);
      for (let k = 0; k < servers.length; k++) {
        const i = (k + r) % servers.length; // rotate which server goes first
        row[i] = await phase(servers[i]!, clients, salt);
      }
      rates.set(String(clients), [...(rates.get(String(clients)) ?? []), row]);
    }
  }
  const latencies: number[][] = servers.map(() => []);
  for (let i = 0; i < Number(args['latency-samples']); i++) {
    for (let k = 0; k < servers.length; k++) {
      const j = (k + i) % servers.length;
      latencies[j]!.push(await servers[j]!.call(salt.n++));
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  console.log(`server-ab: ${path.basename(args.checkpoint!)}, ${ROUNDS} rounds × ${SECONDS} s per phase, ${args['state-words']}-word states; load average ${loadStart.toFixed(1)} at the start, ${os.loadavg()[0]!.toFixed(1)} at the end`);
  console.log(`\n| clients | ${servers.map((s) => `${s.label}: rows/s (median)`).join(' | ')} | ${servers.slice(1).map((s) => `${s.label} / ${servers[0]!.label}: median ratio (range)`).join(' | ')} |`);
  console.log(`|---|${servers.map(() => '---|').join('')}${servers.slice(1).map(() => '---|').join('')}`);
  for (const clients of clientCounts) {
    const rounds = rates.get(String(clients))!;
    const med = servers.map((_, i) => median(rounds.map((row) => row[i]!)).toFixed(1));
    const ratios = servers.slice(1).map((_, i) => {
      const rs = rounds.map((row) => row[i + 1]! / row[0]!);
      return `${median(rs).toFixed(2)} (${Math.min(...rs).toFixed(2)}–${Math.max(...rs).toFixed(2)})`;
    });
    console.log(`| ${clients} | ${med.join(' | ')} | ${ratios.join(' | ')} |`);
  }
  console.log(`\n| server | 1-question p50 | p90 | peak RSS (VmHWM) |\n|---|---|---|---|`);
  servers.forEach((s, i) => {
    const l = [...latencies[i]!].sort((a, b) => a - b);
    console.log(`| ${s.label} | ${median(l).toFixed(1)} ms | ${l[Math.floor(l.length * 0.9)]!.toFixed(1)} ms | ${peakMiB(s.child.pid!)} MiB |`);
  });
} finally {
  for (const s of servers) {
    s.child.kill('SIGTERM');
    fs.rmSync(s.dataDir, { recursive: true, force: true });
  }
}
