/**
 * Peak memory of a real `structqa serve` with the bundled checkpoints (or the folders given), under load
 * on each checkpoint (issue 22: "peak RSS per checkpoint against its graph size").
 *
 *   npx tsx bench/src/server-memory.ts [--english DIR|tiny] [--multilingual DIR|tiny] [--calls 200] [--clients 8] [--breakdown] [STRUCTQA_NAME=VALUE ...]
 *
 * Starts the server (its own data dir; the settings given as arguments on top of the defaults), sends each
 * checkpoint `--calls` 1-question calls from `--clients` clients and 8 calls of 32 questions (the largest
 * batches, so every session's arena reaches its size), then prints the server's peak RSS (VmHWM), RSS and
 * PSS at the end (PSS counts a page mapped by n sessions 1/n in each: physical memory), and the graphs' sizes.
 * `tiny` serves the tiny fixture (1 layer × 32, 1 MiB) in that slot: a server with one real checkpoint, or,
 * in both slots, what the server itself holds. `--breakdown` adds the RSS at the end by what is mapped
 * (anonymous memory, each shared library, each mapped weights file), from /proc/PID/smaps.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { commandLine, numberOption, usageError } from '../../service/src/cli/args.js';
import { BUNDLED_CHECKPOINTS_DIR, ENGLISH_CHECKPOINT, MULTILINGUAL_CHECKPOINT } from '../../service/src/config.js';
import { graphBytes } from '../../service/src/engine/checkpoint.js';
import { readManifest } from '../../service/src/engine/manifest.js';
import { buildFixture } from '../../service/src/fixtures/index.js';
import { firstKey, freePort, NO_LIMITS, setting, waitReady } from './child-server.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.resolve(here, '../../service/bin/structqa.js');
const USAGE = `usage: npx tsx bench/src/server-memory.ts [--english DIR|tiny] [--multilingual DIR|tiny] [--calls 200] [--clients 8] [--breakdown] [STRUCTQA_NAME=VALUE …]

Peak memory of a real \`structqa serve\` under load on each checkpoint: peak RSS (VmHWM), RSS and PSS at
the end, the graphs' sizes; --breakdown adds the RSS by mapping, the threads and V8's heap.

  --english DIR|tiny       the English slot (default: the bundled checkpoint; tiny: the tiny fixture)
  --multilingual DIR|tiny  the multilingual slot (likewise)
  --calls N                1-question calls per checkpoint (default 200)
  --clients N              concurrent clients (default 8)
  --breakdown              RSS by mapping, threads, V8 heap
  -h, --help               this text`;
const { values: args, positionals } = commandLine(
  { english: { type: 'string' }, multilingual: { type: 'string' }, calls: { type: 'string', default: '200' }, clients: { type: 'string', default: '8' }, breakdown: { type: 'boolean' } },
  USAGE,
  { allowPositionals: true },
);
for (const name of ['calls', 'clients'] as const) numberOption(name, args[name], USAGE, { min: 1 });
for (const p of positionals) if (!p.includes('=')) usageError(`settings are STRUCTQA_NAME=VALUE, got ${JSON.stringify(p)}`, USAGE);
const settings = Object.fromEntries(positionals.map(setting));
/** The tiny fixture under a checkpoint's name (its processed-token cap raised so the 32-question calls fit). */
async function tiny(name: string): Promise<string> {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'structqa-memory-tiny-')), name);
  await buildFixture('tiny', dir, { name });
  const manifestPath = path.join(dir, 'manifest.json');
  fs.writeFileSync(manifestPath, JSON.stringify({ ...JSON.parse(fs.readFileSync(manifestPath, 'utf8')), processed_token_cap: 6000 }, null, 2));
  return dir;
}
const slot = async (arg: string | undefined, name: string) => (arg === 'tiny' ? tiny(name) : path.resolve(arg ?? path.join(BUNDLED_CHECKPOINTS_DIR, name)));
const dirs = {
  [ENGLISH_CHECKPOINT]: await slot(args.english, ENGLISH_CHECKPOINT),
  [MULTILINGUAL_CHECKPOINT]: await slot(args.multilingual, MULTILINGUAL_CHECKPOINT),
};
const mib = (kb: number) => Math.round(kb / 1024);
/** RSS (MiB) by mapping: a file's base name, or `anonymous` (heaps, arenas, stacks, V8). */
function rssByMapping(pid: number): Record<string, number> {
  const kb = new Map<string, number>();
  let name = 'anonymous';
  for (const line of fs.readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const mapping = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (mapping) name = mapping[1]!.startsWith('/') ? path.basename(mapping[1]!) : 'anonymous';
    const rss = /^Rss:\s+(\d+)/.exec(line);
    if (rss) kb.set(name, (kb.get(name) ?? 0) + Number(rss[1]));
  }
  return Object.fromEntries([...kb].filter(([, v]) => v >= 1024).sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, mib(v)]));
}
/** `--breakdown`: RSS by mapping, the threads, and V8's heap (main thread) from the server's /metrics. */
async function breakdown(pid: number) {
  const metrics = await (await fetch(`${url}/metrics`)).text();
  const gauge = (name: string) => Number(new RegExp(`^structqa_${name} (\\S+)`, 'm').exec(metrics)?.[1] ?? NaN);
  return {
    rss_end_by_mapping_mib: rssByMapping(pid),
    threads: Number(/^Threads:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]),
    v8_heap_used_mib: Math.round(gauge('nodejs_heap_size_used_bytes') / 2 ** 20),
    v8_heap_total_mib: Math.round(gauge('nodejs_heap_size_total_bytes') / 2 ** 20),
  };
}
const port = await freePort();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'structqa-memory-'));
const child = spawn(process.execPath, [BIN, 'serve'], {
  env: {
    ...process.env, PORT: String(port), HOST: '127.0.0.1', STRUCTQA_DATA_DIR: dataDir, LOG_LEVEL: 'warn',
    STRUCTQA_SHARED_WEIGHTS_DIR: path.resolve(here, '../../service/.cache/ort-cache'),
    STRUCTQA_ENGLISH_DIR: dirs[ENGLISH_CHECKPOINT], STRUCTQA_MULTILINGUAL_DIR: dirs[MULTILINGUAL_CHECKPOINT],
    ...NO_LIMITS,
    STRUCTQA_QUEUE_MAX_WAIT_MS: '0', ...settings,
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const url = `http://127.0.0.1:${port}`;
try {
  await waitReady(url, 3000);
  const proc = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(fs.readFileSync(`/proc/${child.pid}/${field === 'Pss' ? 'smaps_rollup' : 'status'}`, 'utf8'))?.[1] ?? 0);
  const ready = proc('VmRSS');
  const key = firstKey(dataDir);
  const call = async (model: string, state: string, n: number) => {
    const questions = Object.fromEntries(Array.from({ length: n }, (_, i) => [`q${i}`, { type: 'noul', instructions: `Does the customer ask about item ${i}?` }]));
    const res = await fetch(`${url}/v1/systemone`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model, state, questions }) });
    if (res.status !== 200) throw new Error(`${model}: HTTP ${res.status} ${await res.text()}`);
  };
  const words = 'the customer wrote that the order arrived late and damaged and asks for the money back'.split(' ');
  const state = (salt: number, n: number) => Array.from({ length: n }, (_, i) => words[(i * 7 + salt) % words.length]).join(' ') + ` ticket ${salt}`;
  for (const model of [ENGLISH_CHECKPOINT, MULTILINGUAL_CHECKPOINT]) {
    let next = 0;
    const calls = Number(args.calls);
    await Promise.all(Array.from({ length: Number(args.clients) }, async () => {
      while (next < calls) await call(model, state(next++, 90), 1);
    }));
    for (let i = 0; i < 8; i++) await call(model, state(i, 60), 32);
  }
  const graphs = Object.fromEntries(Object.entries(dirs).map(([name, dir]) => [name, Math.round(graphBytes(dir, readManifest(dir).files.model) / 2 ** 20)]));
  console.log(JSON.stringify({ settings, graphs_mib: graphs, rss_ready_mib: mib(ready), peak_rss_mib: mib(proc('VmHWM')), rss_end_mib: mib(proc('VmRSS')), pss_end_mib: mib(proc('Pss')), load: os.loadavg()[0]!.toFixed(1), ...(args.breakdown ? await breakdown(child.pid!) : {}) }));
} finally {
  child.kill('SIGTERM');
  fs.rmSync(dataDir, { recursive: true, force: true });
}
