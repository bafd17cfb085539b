/**
 * Memory of one checkpoint in the engine against its graph's size, and its 1-question latency (issue 22).
 *
 *   npx tsx bench/src/checkpoint-memory.ts DIR [--lanes N] [--lane-threads N] [--wide-session on|off] [--inline-max-tokens N] [--single-session-above-mb N]
 *     [--shared-weights DIR|off] [--arena on|off] [--prepack on|off] [--int8] [--calls 20]
 *
 * Loads DIR as the only checkpoint with the engine's defaults (or the given lanes / inline budget, shared-weights
 * folder, ONNX Runtime arena and pre-packing), warms
 * it, answers `--calls` one-question calls one after the other, and prints the graph's bytes on disk, the
 * process's RSS after loading and its peak (VmHWM), RSS and PSS at the end (PSS counts a page mapped by n
 * sessions 1/n in each: the physical memory), and the median model-inclusive latency. One process
 * per configuration: peak RSS never goes down.
 */
import fs from 'node:fs';
import path from 'node:path';
import { commandLine, numberOption, usageError } from '../../service/src/cli/args.js';
import { loadConfig, usableCores } from '../../service/src/config.js';
import { graphBytes } from '../../service/src/engine/checkpoint.js';
import { Engine } from '../../service/src/engine/engine.js';
import { readManifest } from '../../service/src/engine/manifest.js';
import type { Question } from '../../service/src/engine/render.js';

const USAGE = `usage: npx tsx bench/src/checkpoint-memory.ts DIR [--lanes N] [--lane-threads N] [--wide-session on|off] [--inline-max-tokens N]
         [--single-session-above-mb N] [--shared-weights DIR|off] [--arena on|off] [--prepack on|off] [--int8] [--calls 20]

Memory of one checkpoint (DIR) in the engine against its graph's size, and its 1-question latency:
RSS after loading, peak (VmHWM), RSS and PSS at the end, the median latency of --calls calls.
-h, --help: this text.`;
const { values: args, positionals } = commandLine(
  { 'shared-weights': { type: 'string' }, arena: { type: 'string' }, prepack: { type: 'string' }, lanes: { type: 'string' }, 'lane-threads': { type: 'string' }, 'wide-session': { type: 'string' }, 'inline-max-tokens': { type: 'string' }, 'single-session-above-mb': { type: 'string' }, int8: { type: 'boolean' }, calls: { type: 'string', default: '20' } },
  USAGE,
  { allowPositionals: true },
);
if (positionals.length !== 1) usageError('name one checkpoint folder', USAGE);
numberOption('calls', args.calls, USAGE, { min: 1 });
for (const name of ['lanes', 'lane-threads', 'inline-max-tokens', 'single-session-above-mb'] as const) if (args[name] !== undefined) numberOption(name, args[name], USAGE, { min: 0 });
for (const name of ['wide-session', 'arena', 'prepack'] as const) if (args[name] !== undefined && !['on', 'off'].includes(args[name]!)) usageError(`--${name} is on or off, got ${JSON.stringify(args[name])}`, USAGE);
const dir = path.resolve(positionals[0] ?? '');
const onOff = (v: string | undefined, fallback: boolean): boolean => (v === undefined ? fallback : v === 'on');
const manifest = readManifest(dir);
const defaults = loadConfig(process.env).engine;
const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(0);
const status = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) * 1024;

// Proportional set size: a page mapped by n sessions counts 1/n in each, so shared weights count once.
const pss = (): number => Number(/^Pss:\s+(\d+)/m.exec(fs.readFileSync('/proc/self/smaps_rollup', 'utf8'))?.[1] ?? 0) * 1024;
const graph = graphBytes(dir, args.int8 ? manifest.files.model_int8! : manifest.files.model);
const before = process.memoryUsage().rss;
const lanes = args.lanes ? Number(args.lanes) : defaults.lanes;
const inlineMaxTokens = args['inline-max-tokens'] ? Number(args['inline-max-tokens']) : defaults.inlineMaxTokens;
const engine = new Engine({
  checkpoints: { [manifest.name]: { dir, int8: args.int8 ?? false } },
  threads: usableCores(),
  lanes,
  laneThreads: args['lane-threads'] ? Number(args['lane-threads']) : args.lanes ? undefined : defaults.laneThreads,
  wideSession: onOff(args['wide-session'], defaults.wideSession),
  singleSessionAboveMiB: args['single-session-above-mb'] ? Number(args['single-session-above-mb']) : defaults.singleSessionAboveMiB,
  sharedWeightsDir: args['shared-weights'] === undefined ? defaults.sharedWeightsDir : args['shared-weights'] === 'off' ? undefined : path.resolve(args['shared-weights']),
  memory: { arena: onOff(args.arena, defaults.ortArena), prepack: onOff(args.prepack, defaults.ortPrepack) },
  batcher: { tokenBudget: defaults.batchTokenBudget, attentionBudget: defaults.batchAttentionBudget, maxRows: defaults.batchMaxRows, maxQueuedRows: 1024, overloadedRetryMs: 1000, inlineMaxTokens },
  startingRetryMs: 1000,
});
await engine.start();
const loaded = process.memoryUsage().rss;
const q: Record<string, Question> = { refund: { type: 'noul', instructions: 'Does the customer ask for a refund?' } };
const times: number[] = [];
for (let i = 0; i < Number(args.calls); i++) {
  const state = `The customer wrote that order ${i} arrived late and damaged, and they want their money back.`;
  const t0 = performance.now();
  await engine.answer(await engine.prepare(manifest.name, q, state));
  times.push(performance.now() - t0);
}
times.sort((a, b) => a - b);
console.log(
  JSON.stringify({
    checkpoint: manifest.name,
    precision: args.int8 ? 'int8' : 'fp32',
    lanes,
    lane_threads: (engine.checkpoints.get(manifest.name)!.backend as { laneThreads?: number }).laneThreads,
    wide_session: onOff(args['wide-session'], defaults.wideSession),
    inline_max_tokens: inlineMaxTokens,
    shared_weights: args['shared-weights'] ?? defaults.sharedWeightsDir ?? 'off',
    arena: onOff(args.arena, defaults.ortArena),
    prepack: onOff(args.prepack, defaults.ortPrepack),
    sessions: (engine.status.checkpoints[manifest.name] as { sessions: number }).sessions,
    cores: usableCores(),
    graph_mib: Number(mib(graph)),
    rss_before_mib: Number(mib(before)),
    rss_loaded_mib: Number(mib(loaded)),
    peak_rss_mib: Number(mib(status('VmHWM'))),
    peak_over_graph_mib: Number(mib(status('VmHWM') - graph)),
    rss_end_mib: Number(mib(status('VmRSS'))),
    pss_end_mib: Number(mib(pss())),
    one_question_ms_p50: Number(times[Math.floor(times.length / 2)]!.toFixed(1)),
  }),
);
await engine.close();
