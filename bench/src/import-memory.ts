/**
 * Wall time and peak memory of `structqa models import` on a Laya checkpoint of a real shape (issue 31).
 *
 *   npx tsx bench/src/import-memory.ts [--shape modernbert-large] [--family modernbert] [--int8] [--check-rows N]
 *     [--work DIR] [--python PY] [--keep]
 *
 * Builds the random-weight checkpoint once with laya's own classes (training/laya/fixture.py, not measured;
 * kept in --work, default .cache/bench-import), then runs the import as an operator does (`node
 * service/bin/structqa.js models import SRC --out … --python PY [--int8]`, a child process) and samples
 * /proc every 100 ms: the RSS of the import's whole process tree (node, the Python converter and anything
 * either starts), summed at each sample. Prints one JSON line: wall seconds, the peak of that sum, the fp32
 * graph's size on disk (model.onnx and its external data), their ratio (the bound is 2), the int8
 * graph's size, the import's own step lines with their elapsed times, and the load average before and after.
 * Run it under `flock -x /tmp/structqa-cpu.lock` for figures that go into docs.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(here, '../..');
const BIN = path.join(ROOT, 'service', 'bin', 'structqa.js');
const { values: args } = parseArgs({
  options: {
    shape: { type: 'string', default: 'modernbert-large' },
    family: { type: 'string', default: 'modernbert' },
    int8: { type: 'boolean', default: false },
    'check-rows': { type: 'string' },
    work: { type: 'string', default: path.join(ROOT, '.cache', 'bench-import') },
    python: { type: 'string', default: path.join(ROOT, '.cache', 'venv-import', 'bin', 'python') },
    keep: { type: 'boolean', default: false },
  },
});
const work = path.resolve(args.work);
const python = path.resolve(args.python);
if (!fs.existsSync(python)) {
  console.error(`${python}: no such Python; create it with: python3 -m venv .cache/venv-import && .cache/venv-import/bin/pip install -r training/requirements-import.txt`);
  process.exit(2);
}

// 1. The checkpoint (built once; not part of the measurement).
const src = path.join(work, `laya-${args.family}-${args.shape}`);
if (!fs.existsSync(path.join(src, 'rl_agent_config.json'))) {
  fs.mkdirSync(work, { recursive: true });
  const tmp = `${src}.tmp-${process.pid}`;
  const built = spawnSync(python, [path.join(ROOT, 'training', 'laya', 'fixture.py'), '--out', tmp, '--family', args.family, '--shape', args.shape], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (built.status !== 0) process.exit(1);
  fs.renameSync(tmp, src);
}

// 2. The import, sampled.
const models = path.join(work, 'models');
const name = `bench-${args.family}-${args.shape}${args.int8 ? '-int8' : ''}`;
const cli = ['models', 'import', src, '--out', models, '--name', name, '--force', '--python', python];
if (args.int8) cli.push('--int8');
if (args['check-rows']) cli.push('--check-rows', args['check-rows']);

/** Every process below `root` (by /proc/PID/stat's parent field), `root` included. */
function tree(root: number): number[] {
  const parent = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone between the listing and the read
    }
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const [pid, ppid] of parent) if (ppid === out[i]) out.push(pid);
  return out;
}

function rssKb(pid: number): number {
  try {
    return Number(/^VmRSS:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

const loadBefore = os.loadavg();
const t0 = performance.now();
const child = spawn(process.execPath, [BIN, ...cli], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LOG_LEVEL: 'warn' } });
const steps: string[] = [];
let stderr = '';
child.stderr.setEncoding('utf8');
child.stderr.on('data', (d: string) => {
  stderr += d;
  for (const line of d.split('\n')) if (line.trim()) steps.push(`${((performance.now() - t0) / 1000).toFixed(0)}s ${line.trim()}`);
});
child.stdout.resume();
let peakKb = 0;
let peakProcesses = 0;
const sampler = setInterval(() => {
  const pids = tree(child.pid!);
  const kb = pids.reduce((sum, pid) => sum + rssKb(pid), 0);
  if (kb > peakKb) {
    peakKb = kb;
    peakProcesses = pids.length;
  }
}, 100);
const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? 1)));
clearInterval(sampler);
const wall = (performance.now() - t0) / 1000;
if (code !== 0) {
  console.error(stderr);
  console.error(`the import failed (exit ${code})`);
  process.exit(1);
}

const dir = path.join(models, name);
const size = (...files: string[]): number => files.reduce((sum, f) => sum + (fs.existsSync(path.join(dir, f)) ? fs.statSync(path.join(dir, f)).size : 0), 0);
const graph = size('model.onnx', 'model.onnx.data');
const int8 = size('model.int8.onnx', 'model.int8.onnx.data');
const mib = (bytes: number): number => Math.round(bytes / 2 ** 20);
const provenance = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')).provenance as { check?: unknown; int8?: unknown };
console.log(
  JSON.stringify({
    shape: args.shape,
    family: args.family,
    int8: args.int8,
    cores: os.availableParallelism(),
    wall_s: Math.round(wall),
    peak_tree_rss_mib: mib(peakKb * 1024),
    processes_at_peak: peakProcesses,
    graph_mib: mib(graph),
    peak_over_graph: Number((peakKb * 1024 / graph).toFixed(2)),
    ...(args.int8 ? { int8_graph_mib: mib(int8) } : {}),
    check: provenance.check,
    ...(args.int8 ? { int8_check: provenance.int8 } : {}),
    load_before: loadBefore.map((l) => Number(l.toFixed(2))),
    load_after: os.loadavg().map((l) => Number(l.toFixed(2))),
    steps,
  }),
);
if (!args.keep) fs.rmSync(dir, { recursive: true, force: true });
