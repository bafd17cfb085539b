/**
 * `npm run bench`: raw ONNX Runtime throughput on the fixture checkpoint against end-to-end HTTP
 * throughput of the real service (separate process, real SQLite metering) at 1, 8 and 32 concurrent
 * clients, measured side by side in one run; p50/p99 latency of 1- and 32-question calls and the
 * model's own time for the same rows; peak memory of the server. Absolute numbers drift on shared
 * machines — read the ratios.
 *
 *   npm run bench -- [--checkpoint fixture-en|fixture-tiny|DIR] [--seconds 8] [--state-words 90]
 *                    [--compare STRUCTQA_NAME=VALUE,… | none] [--int8] [--sweep 1,2,4,8,16,32,64]
 *
 * DIR is any checkpoint folder (a trained one, for example); it is served as the English checkpoint.
 * `--int8` serves and runs raw its int8 graph (one row per run, as the engine runs int8). `--sweep`: the
 * raw batch sizes (a large graph takes seconds per 64-row run); `--many-samples 0` skips the 32-question
 * call and the processed-token cap (minutes per call for a large graph on two cores). A call refused with 529 (the queue
 * bound, STRUCTQA_QUEUE_MAX_WAIT_MS) is retried after its Retry-After, as a client would, and counted.
 * The client is a keep-alive `node:http` agent, the leanest HTTP client Node has, so that what the
 * latency table adds over the model is the service's time, not the client's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { commandLine, numberOption } from '../../service/src/cli/args.js';
import { loadConfig, usableCores } from '../../service/src/config.js';
import ort from 'onnxruntime-node';
import { pack, sessionOptions } from '../../service/src/engine/backend.js';
import { Checkpoint } from '../../service/src/engine/checkpoint.js';
import { sessionGraph } from '../../service/src/engine/session-graph.js';
import { layOut, tokenizeState, type Row } from '../../service/src/engine/layout.js';
import { parseServerTiming } from '../../service/src/engine/timing.js';
import { detectLanguage } from '../../service/src/routing/language.js';
import type { Question } from '../../service/src/engine/render.js';
import { buildFixture, ensureFixtures } from '../../service/src/fixtures/index.js';
import { rowCycle } from './call-rows.js';
import { compareSettings } from './compare.js';
import { retryDelay } from './retry.js';
import { firstKey, freePort, NO_LIMITS, waitReady } from './child-server.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const USAGE = `usage: npm run bench -- [--checkpoint fixture-en|fixture-tiny|DIR] [--seconds 8] [--state-words 90]
         [--latency-samples 100] [--many-samples N] [--compare STRUCTQA_NAME=VALUE,…|none] [--int8] [--sweep 1,2,4,…]

Raw ONNX Runtime throughput over a sweep of batch sizes against end-to-end HTTP throughput of the real
service at 1, 8 and 32 clients, side by side in one run; p50/p99 latency of 1- and 32-question calls;
the server's peak memory (docs/performance.md). Read the ratios: absolute figures drift on a shared host.

  --checkpoint NAME|DIR   a fixture (fixture-en, fixture-tiny) or any checkpoint folder, served as English
  --seconds N             seconds per throughput phase (default 8)
  --state-words N         words of each call's state (default 90)
  --latency-samples N     calls per latency row (default 100)
  --many-samples N        32-question calls (default latency-samples / 4; 0 skips them and the cap row)
  --compare SETTINGS|none the second server's settings (default: the lanes and inline comparison)
  --int8                  serve and run the checkpoint's int8 graph
  --sweep LIST            raw batch sizes (default 1,2,4,8,16,32,64)
  -h, --help              this text`;
const { values: args } = commandLine(
  {
    checkpoint: { type: 'string', default: 'fixture-en' },
    seconds: { type: 'string', default: '8' },
    'state-words': { type: 'string', default: '90' },
    'latency-samples': { type: 'string', default: '100' },
    compare: { type: 'string' },
    int8: { type: 'boolean', default: false },
    sweep: { type: 'string', default: '1,2,4,8,16,32,64' },
    'many-samples': { type: 'string' },
  },
  USAGE,
);
const SECONDS = numberOption('seconds', args.seconds, USAGE, { min: 0.1, real: true });
for (const name of ['state-words', 'latency-samples'] as const) numberOption(name, args[name], USAGE, { min: 1 });
if (args['many-samples'] !== undefined) numberOption('many-samples', args['many-samples'], USAGE, { min: 0 });
const MODELS = path.resolve(here, '../../service/.cache/fixtures');
const BIN = path.resolve(here, '../../service/bin/structqa.js');
const threads = usableCores();
// The server below inherits this environment, so its batcher settings are these.
const batching = loadConfig(process.env).engine;
// The servers and the raw sessions share one cache of the shared-weights copies (made once per graph).
const sharedWeightsDir = batching.sharedWeightsDir === undefined ? undefined : (process.env.STRUCTQA_SHARED_WEIGHTS_DIR ?? path.resolve(here, '../../service/.cache/ort-cache'));
const memory = { arena: batching.ortArena, prepack: batching.ortPrepack };
const int8 = args.int8!;

const WORDS = 'the customer wrote that their order arrived late and the package was damaged so they want a refund or a replacement as soon as possible because the item was a gift'.split(' ');
function state(words: number, salt: number): string {
  return Array.from({ length: words }, (_, i) => WORDS[(i * 7 + salt) % WORDS.length]).join(' ') + `. Ticket ${salt}.`;
}
const noul: Question = { type: 'noul', instructions: 'Does the customer ask for a refund?' };
const manyQuestions = Object.fromEntries(
  Array.from({ length: 32 }, (_, i) => [`q${i}`, { type: 'noul', instructions: `Statement ${i}: the customer is unhappy about item ${i}?` } as Question]),
);

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}
const ms = (x: number) => `${x.toFixed(1)} ms`;

async function main(): Promise<void> {
  await ensureFixtures(MODELS, { en: 'core-0.3.20', multilingual: 'core-multilingual-0.3.20' });
  const isFolder = fs.existsSync(path.join(args.checkpoint!, 'manifest.json'));
  const dir = isFolder ? path.resolve(args.checkpoint!) : path.join(MODELS, args.checkpoint!);
  const stateWords = Number(args['state-words']);

  // ---- raw ONNX Runtime on the same rows the HTTP calls produce
  const { lanes } = batching;
  const probe = await Checkpoint.load(dir, {
    int8,
    threads,
    lanes,
    singleSessionAboveMiB: batching.singleSessionAboveMiB,
    sharedWeightsDir,
    memory,
    batcher: { tokenBudget: batching.batchTokenBudget, attentionBudget: batching.batchAttentionBudget, maxRows: batching.batchMaxRows, maxQueuedRows: 4096, overloadedRetryMs: 1000 },
  });
  const m = probe.manifest;
  // The layout the service gives this graph (one lane when it is above STRUCTQA_SINGLE_SESSION_ABOVE_MB).
  const serviceLanes = probe.backend.lanes;
  const limits = { model: m.name, window: m.window, processedTokenCap: Number.MAX_SAFE_INTEGER };
  const rowFor = async (s: string, qs: Record<string, Question>): Promise<Row[]> => {
    const heads = await probe.questionHeads(Object.values(qs));
    return layOut(Object.keys(qs), heads, await tokenizeState(probe.tokenizer, s), probe.tokenizer.special.sep, limits).rows;
  };
  /** The state of client c's i-th 1-question call: the HTTP phases send it, and raw runs its row. */
  const callState = (c: number, i: number) => state(stateWords, c * 1000 + i);
  const noulRow = async (s: string) => (await rowFor(s, { q: noul }))[0]!;
  const oneRow = await noulRow(callState(0, 0));
  // Raw runs the rows the HTTP phases' calls produce: the first 8 calls of each of 32 clients.
  const callRows: Row[] = [];
  for (let i = 0; i < 8; i++) for (let c = 0; c < 32; c++) callRows.push(await noulRow(callState(c, i)));
  const longestCallRow = Math.max(...callRows.map((r) => r.ids.length));
  const tokensPerRow = callRows.reduce((sum, r) => sum + r.ids.length, 0) / callRows.length;
  const callBatch = rowCycle(callRows);
  // raw: a plain ONNX Runtime session in this process, same graph and thread settings as the service
  const graphFile = path.join(dir, int8 ? m.files.model_int8! : m.files.model);
  const session = await ort.InferenceSession.create(sharedWeightsDir ? await sessionGraph(graphFile, sharedWeightsDir) : graphFile, sessionOptions(threads, memory));
  const runRaw = (rows: Row[]) => session.run(pack(rows, probe.tokenizer.special.pad).feeds, ['logits']);
  // The service's batch for these rows (its padded-token budget and row limit), beside a sweep of
  // batch sizes on the one session: the best of them is the raw throughput the service is held against.
  const maxRows = int8 ? 1 : batching.batchMaxRows; // the engine runs int8 one row per run
  const batchRows = Math.max(1, Math.min(maxRows, Math.floor(batching.batchTokenBudget / longestCallRow)));
  const rawSizes = [...new Set([...args.sweep!.split(',').map(Number), batchRows])].filter((n) => n >= 1 && (!int8 || n === 1)).sort((a, b) => a - b);
  /**
   * Rows/s of `size`-row batches of call rows for half of SECONDS: on the one session over all
   * threads, or (`onLanes`) as the service runs them under load, one batch on each of its lanes at
   * once (the probe's backend, loaded with the service's lanes: each lane a worker with its share of
   * threads).
   */
  const rawThroughput = async (size: number, onLanes = false, batchOf: (size: number) => Row[] = callBatch) => {
    const runOnce = (): Promise<unknown> => (onLanes ? probe.backend.run(batchOf(size)) : runRaw(batchOf(size)));
    const streams = onLanes ? serviceLanes : 1;
    await Promise.all(Array.from({ length: streams }, runOnce));
    let rows = 0;
    const start = performance.now();
    const until = start + (SECONDS * 1000) / 2;
    await Promise.all(
      Array.from({ length: streams }, async () => {
        while (performance.now() < until) {
          await runOnce();
          rows += size;
        }
      }),
    );
    return rows / ((performance.now() - start) / 1000);
  };
  // One run of the largest batch first: ONNX Runtime's memory arena then has its full size, so the
  // sweep's first (smallest) sizes are not charged for its growth.
  await runRaw(callBatch(rawSizes.at(-1)!));
  // Each size on the one session and, when the service has lanes, on every lane at once.
  const raw: { rows: number; session: number; lanes?: number }[] = [];
  for (const rows of rawSizes) {
    raw.push({ rows, session: await rawThroughput(rows), lanes: serviceLanes > 1 ? await rawThroughput(rows, true) : undefined });
  }
  const inServiceLayout = (r: (typeof raw)[number]) => r.lanes ?? r.session;
  const rawRowsPerSec = Math.max(...raw.flatMap((r) => [r.session, r.lanes ?? 0]));
  /** Raw in the service's own layout on the service's own batch. */
  const rawServiceBatch = inServiceLayout(raw.find((r) => r.rows === batchRows)!);
  // What the calls' own rows cost against one row repeated (how raw was run before): the same batch
  // size and layout, back to back.
  const repeatedRow = (size: number) => Array.from({ length: size }, () => oneRow);
  /** Raw on the service's own batch in the service's layout. */
  const rawAsServiceRuns = (batchOf?: (size: number) => Row[]) => rawThroughput(batchRows, serviceLanes > 1, batchOf);
  const rowsVsRepeated = [await rawAsServiceRuns(), await rawAsServiceRuns(repeatedRow)] as const;

  // The service's own steps run on cold caches: a model run (or any idle spell) leaves the cores'
  // caches holding other data, so a call's route and tokenize steps cost a multiple of what they
  // cost back to back. Timed here in this process, on the same state, both ways.
  const routeAndTokenize = async (salt: number) => {
    const s = state(stateWords, salt);
    const t0 = performance.now();
    detectLanguage(s);
    const t1 = performance.now();
    await rowFor(s, { q: noul });
    return [t1 - t0, performance.now() - t1] as const;
  };
  for (let i = 0; i < 1000; i++) await routeAndTokenize(i);
  const backToBack: (readonly [number, number])[] = [];
  const afterRun: (readonly [number, number])[] = [];
  // as many samples as the latency table takes, at most 300 (each is a model run: seconds on a large graph)
  const coldSamples = Math.min(300, 3 * Number(args['latency-samples']));
  for (let i = 0; i < coldSamples; i++) backToBack.push(await routeAndTokenize(2000 + i));
  for (let i = 0; i < coldSamples; i++) {
    await runRaw([oneRow]);
    afterRun.push(await routeAndTokenize(3000 + i));
  }

  // The 32-question call sits at the processed-token cap: the longest state whose 32 rows still fit it.
  const cap = m.processed_token_cap;
  const costOf = (rows: Row[]) => rows.length * Math.max(...rows.map((r) => r.ids.length));
  let capWords = 1;
  while (costOf(await rowFor(state(capWords + 1, 0), manyQuestions)) <= cap) capWords++;
  const state32 = state(capWords, 0);
  const rows32 = await rowFor(state32, manyQuestions);
  const cost32 = costOf(rows32);

  // ---- the real service in its own process
  // fixture-tiny is served under the English checkpoint's name from a folder of its own
  const envDirs: Record<string, string> = { STRUCTQA_ENGLISH_DIR: dir, STRUCTQA_MULTILINGUAL_DIR: 'fixture-multilingual' };
  if (args.checkpoint === 'fixture-tiny') {
    const tinyDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'structqa-bench-')), 'tiny-as-english');
    await buildFixture('tiny', tinyDir, { name: 'core-0.3.20' });
    envDirs.STRUCTQA_ENGLISH_DIR = tinyDir;
  }
  const model = 'core-0.3.20';
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const launched: ChildProcess[] = [];
  /** `structqa serve` with no limits in the way, ready, with its first key and a call function. */
  const launch = async (env: Record<string, string> = {}) => {
    const port = await freePort();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'structqa-bench-'));
    const child = spawn(process.execPath, [BIN, 'serve'], {
      env: {
        ...process.env, PORT: String(port), HOST: '127.0.0.1', STRUCTQA_DATA_DIR: dataDir, STRUCTQA_MODELS_DIR: MODELS,
        STRUCTQA_BUILD_FIXTURES: '0', LOG_LEVEL: 'warn', ...NO_LIMITS, STRUCTQA_MONTHLY_ALLOWANCE: '1000000000000',
        ...(sharedWeightsDir ? { STRUCTQA_SHARED_WEIGHTS_DIR: sharedWeightsDir } : {}), ...(int8 ? { STRUCTQA_INT8: model } : {}),
        ...envDirs, ...env,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    launched.push(child);
    const url = `http://127.0.0.1:${port}`;
    await waitReady(url, 600);
    const key = firstKey(dataDir);
    let refused = 0;
    /** One call, retried after its Retry-After while the server answers 529 (each refusal counted). */
    const call = async (s: string, qs: Record<string, Question>): Promise<{ ms: number; phases: Record<string, number> }> => {
      for (let attempt = 0; ; attempt++) {
        const r = await attemptCall(s, qs).catch((e: Error & { code?: string; reused?: boolean }) => {
          // A keep-alive socket the server closed while this client was idle (the raw sweep of a large graph
          // takes longer than the server's keep-alive timeout): the request never reached it, so send it again.
          if (e.code === 'ECONNRESET' && e.reused && attempt < 3) return undefined;
          throw e;
        });
        if (r === undefined) continue;
        if (r.status === 200) return r;
        if (r.status !== 529 || attempt >= 20) throw new Error(`HTTP ${r.status}`);
        refused++;
        await new Promise((wake) => setTimeout(wake, retryDelay(r.header, attempt)));
      }
    };
    const attemptCall = (s: string, qs: Record<string, Question>) =>
      new Promise<{ status: number; header: (name: string) => string | undefined; ms: number; phases: Record<string, number> }>((resolve, reject) => {
        const body = JSON.stringify({ model, state: s, questions: qs });
        const t0 = performance.now();
        const req = http.request(
          `${url}/v1/systemone`,
          { method: 'POST', agent, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
          (res) => {
            res.resume();
            res.on('end', () => {
              const took = performance.now() - t0;
              const header = (name: string) => [res.headers[name]].flat()[0];
              resolve({ status: res.statusCode ?? 0, header, ms: took, phases: parseServerTiming(String(res.headers['server-timing'] ?? '')) });
            });
          },
        );
        req.on('error', (e: Error & { reused?: boolean }) => reject(Object.assign(e, { reused: req.reusedSocket })));
        req.end(body);
      });
    return { child, url, call, refusals: () => refused };
  };
  try {
    const { child: server, url, call, refusals } = await launch();
    for (let i = 0; i < 5; i++) await call(state(stateWords, i), { q: noul });

    const timeGet = (target: string) =>
      new Promise<number>((resolve, reject) => {
        const t0 = performance.now();
        http.get(target, { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(performance.now() - t0));
        }).on('error', reject);
      });

    /** Calls per second from `clients` concurrent sequential clients for SECONDS. */
    const callsPerSec = async (clients: number, send: (c: number, i: number) => Promise<unknown>) => {
      let done = 0;
      const until = performance.now() + SECONDS * 1000;
      const start = performance.now();
      await Promise.all(
        Array.from({ length: clients }, async (_, c) => {
          let i = 0;
          while (performance.now() < until) {
            await send(c, i++);
            done++;
          }
        }),
      );
      return done / ((performance.now() - start) / 1000);
    };
    /** Client c's i-th 1-question call, each on a state of its own. */
    const oneQuestionCalls = (send: typeof call) => (c: number, i: number) => send(callState(c, i), { q: noul });
    // Beside the service as configured, the same service with the --compare settings (by default, while
    // inline runs are on: with them off), given the same calls, each of its phases right before the
    // first's, so that both are as warm, their databases as full, and drift moves both alike.
    const compareEnv = compareSettings(args.compare, batching.inlineMaxTokens > 0);
    const compareLabel = Object.entries(compareEnv ?? {}).map(([k, v]) => `${k}=${v}`).join(' ');
    const other = compareEnv ? await launch(compareEnv) : undefined;
    // Raw on the service's own batch is timed again right before and after each HTTP phase, and each
    // phase is held against the mean of the two: on a shared machine the speed drifts over minutes,
    // and the sweep above ran well before these phases.
    const throughput: { clients: number; rowsPerSec: number; rawBeside: number; other?: number; refused: number }[] = [];
    for (const clients of [1, 8, 32]) {
      const otherRowsPerSec = other ? await callsPerSec(clients, oneQuestionCalls(other.call)) : undefined;
      const rawBefore = await rawAsServiceRuns();
      const refusedBefore = refusals();
      const rowsPerSec = await callsPerSec(clients, oneQuestionCalls(call));
      const rawAfter = await rawAsServiceRuns();
      throughput.push({ clients, rowsPerSec, rawBeside: (rawBefore + rawAfter) / 2, other: otherRowsPerSec, refused: refusals() - refusedBefore });
    }
    const manySamples = args['many-samples'] === undefined ? Math.max(5, Number(args['latency-samples']) / 4) : Number(args['many-samples']);
    if (other && manySamples > 0) await callsPerSec(4, () => other.call(state32, manyQuestions));
    const capCallsPerSec = manySamples > 0 ? await callsPerSec(4, () => call(state32, manyQuestions)) : NaN;

    // Latency last, on a warm server: thousands of calls above have let V8 optimise the request path,
    // as in a service that has been up for a while (the raw session is just as warm).
    // The model's own time is sampled in the same loop, alternating with the HTTP calls, so that drift
    // on a shared machine moves both columns alike.
    const timeRaw = async (rows: Row[]) => {
      const t0 = performance.now();
      await runRaw(rows);
      return performance.now() - t0;
    };
    const model1: number[] = [], http1: number[] = [], http1Other: number[] = [], model32: number[] = [], http32: number[] = [];
    const phases1: Record<string, number>[] = [];
    // each sample's model time is that of the very row its call sends
    const samples = Number(args['latency-samples']);
    const latencyStates = Array.from({ length: samples }, (_, i) => state(stateWords, i));
    const latencyRows = await Promise.all(latencyStates.map(noulRow));
    for (let i = 0; i < samples; i++) {
      const s = latencyStates[i]!;
      model1.push(await timeRaw([latencyRows[i]!]));
      if (other && i % 2 === 1) http1Other.push((await other.call(s, { q: noul })).ms);
      const { ms: took, phases } = await call(s, { q: noul });
      http1.push(took);
      phases1.push({ ...phases, outside: took - (phases.total ?? 0) });
      if (other && i % 2 === 0) http1Other.push((await other.call(s, { q: noul })).ms);
    }
    for (let i = 0; i < manySamples; i++) {
      model32.push(await timeRaw(rows32));
      http32.push((await call(state32, manyQuestions)).ms);
    }
    // The floor under `outside`: a GET /livez (no auth, no body, no model) right after a model run,
    // when both processes' caches hold the model's data rather than the HTTP path's.
    const floor: number[] = [];
    for (let i = 0; i < Math.min(Math.max(20, samples / 2), 2 * samples); i++) {
      await timeRaw([oneRow]);
      floor.push(await timeGet(`${url}/livez`));
    }
    const peakMiB = (child: ChildProcess) => Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

    const best = Math.max(...throughput.map((t) => t.rowsPerSec));
    console.log(`\nstructqa bench — ${m.name} from ${args.checkpoint} (${m.fixture ? 'FIXTURE: random weights' : 'trained'}, ${int8 ? 'int8' : 'fp32'}), ${threads} ORT threads, ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} at the end`);
    console.log(`row: 1 noul question + ${stateWords}-word state = ${Math.min(...callRows.map((r) => r.ids.length))}–${longestCallRow} tokens (mean ${tokensPerRow.toFixed(1)}; raw runs the calls' own rows); service batch: ${batching.batchTokenBudget} padded tokens, ≤ ${batching.batchMaxRows} rows = ${batchRows} such rows, on ${serviceLanes} ${serviceLanes === 1 ? 'lane' : `lanes of ${Math.max(1, Math.floor(threads / serviceLanes))} thread(s)`}${batching.inlineMaxTokens > 0 ? `; a lone ${lanes === 1 ? 'batch' : 'row'} of ≤ ${batching.inlineMaxTokens} padded tokens runs inline` : ''}; 32-question call: ${rows32.length} rows of ≤ ${Math.max(...rows32.map((r) => r.ids.length))} tokens\n`);
    const laneHeader = serviceLanes > 1 ? ` ${serviceLanes} lanes at once, rows/s |` : '';
    console.log(`| raw ONNX Runtime, rows per run | one session of ${threads} threads, rows/s |${laneHeader} tokens/s (service's layout) | ratio to best raw |`);
    console.log(`|---|---|${serviceLanes > 1 ? '---|' : ''}---|---|`);
    for (const r of raw) {
      const label = `${r.rows}${r.rows === batchRows ? " (the service's batch)" : ''}`;
      const laneCell = r.lanes !== undefined ? ` ${r.lanes.toFixed(1)} |` : '';
      console.log(`| ${label} | ${r.session.toFixed(1)} |${laneCell} ${(inServiceLayout(r) * tokensPerRow).toFixed(0)} | ${(inServiceLayout(r) / rawRowsPerSec).toFixed(2)} |`);
    }
    const layout = serviceLanes > 1 ? `, one on each of its ${serviceLanes} lanes at once` : '';
    console.log(
      `\nthe service's batch (${batchRows} rows${layout}), back to back: the calls' own rows ${rowsVsRepeated[0].toFixed(1)} rows/s, ` +
        `one ${oneRow.ids.length}-token row repeated ${rowsVsRepeated[1].toFixed(1)} rows/s (×${(rowsVsRepeated[1] / rowsVsRepeated[0]).toFixed(3)})`,
    );
    const otherHeader = other ? ` rows/s with ${compareLabel} (just before) | ratio of the two |` : '';
    console.log(`\n| HTTP end to end, clients | rows/s | tokens/s | ratio to best raw | 529s retried |${otherHeader}`);
    console.log(`|---|---|---|---|---|${other ? '---|---|' : ''}`);
    for (const t of throughput) {
      const otherCells = t.other !== undefined ? ` ${t.other.toFixed(1)} | ${(t.rowsPerSec / t.other).toFixed(2)} |` : '';
      console.log(`| ${t.clients} | ${t.rowsPerSec.toFixed(1)} | ${(t.rowsPerSec * tokensPerRow).toFixed(0)} | ${(t.rowsPerSec / rawRowsPerSec).toFixed(2)} | ${t.refused} |${otherCells}`);
    }
    console.log(`\nside by side: each HTTP phase against raw on the service's own batch (${batchRows} rows${layout}), timed right before and after it\n`);
    console.log('| clients | HTTP rows/s | raw rows/s beside it | ratio |');
    console.log('|---|---|---|---|');
    for (const t of throughput) console.log(`| ${t.clients} | ${t.rowsPerSec.toFixed(1)} | ${t.rawBeside.toFixed(1)} | ${(t.rowsPerSec / t.rawBeside).toFixed(2)} |`);
    const saturation = Math.max(...throughput.map((t) => t.rowsPerSec / t.rawBeside));
    console.log(`\nsaturation ratio, best HTTP phase / raw on the service's own batch beside it: ${saturation.toFixed(2)}`);
    console.log(`saturation ratio, best HTTP / raw on the service's own batch${layout} in the sweep: ${(best / rawServiceBatch).toFixed(2)}`);
    console.log(`saturation ratio, best HTTP / fastest raw of the sweep (any batch size or layout): ${(best / rawRowsPerSec).toFixed(2)}\n`);
    console.log('| call | model p50 | HTTP p50 | HTTP p99 | added at p50 |');
    console.log('|---|---|---|---|---|');
    console.log(`| 1 question | ${ms(percentile(model1, 50))} | ${ms(percentile(http1, 50))} | ${ms(percentile(http1, 99))} | ${ms(percentile(http1, 50) - percentile(model1, 50))} |`);
    if (other) {
      console.log(`| 1 question, ${compareLabel} (beside it) | ${ms(percentile(model1, 50))} | ${ms(percentile(http1Other, 50))} | ${ms(percentile(http1Other, 99))} | ${ms(percentile(http1Other, 50) - percentile(model1, 50))} |`);
    }
    if (manySamples > 0) console.log(`| 32 questions | ${ms(percentile(model32, 50))} | ${ms(percentile(http32, 50))} | ${ms(percentile(http32, 99))} | ${ms(percentile(http32, 50) - percentile(model32, 50))} |`);
    printPhases(phases1, http1);
    console.log(`HTTP floor: GET /livez right after a model run, p50 ${ms(percentile(floor, 50))} (part of every call's \`outside\`)`);
    const step = (xs: (readonly [number, number])[], k: 0 | 1) => percentile(xs.map((x) => x[k]), 50);
    const [route, tokenize, routeCold, tokenizeCold] = [step(backToBack, 0), step(backToBack, 1), step(afterRun, 0), step(afterRun, 1)];
    console.log(
      `cold caches: route + tokenize of one call back to back ${route.toFixed(2)} + ${tokenize.toFixed(2)} ms, ` +
        `right after a model run ${routeCold.toFixed(2)} + ${tokenizeCold.toFixed(2)} ms ` +
        `(×${((routeCold + tokenizeCold) / (route + tokenize)).toFixed(1)}; p50, in the bench process)`,
    );
    const rawCapCallsPerSec = 1000 / percentile(model32, 50);
    if (manySamples > 0) console.log(
      `\nat the processed-token cap (${cap}): 32-question calls costing ${cost32} processed tokens, 4 clients: ` +
        `${capCallsPerSec.toFixed(2)} calls/s = ${(capCallsPerSec * cost32).toFixed(0)} processed tokens/s ` +
        `(raw, one call after another: ${rawCapCallsPerSec.toFixed(2)} calls/s; ratio ${(capCallsPerSec / rawCapCallsPerSec).toFixed(2)})`,
    );
    console.log(`\npeak server memory (VmHWM): ${peakMiB(server).toFixed(0)} MiB${other ? `; the server with ${compareLabel}: ${peakMiB(other.child).toFixed(0)} MiB` : ''}`);
  } finally {
    for (const child of launched) child.kill('SIGTERM');
    await session.release();
    await probe.close();
  }
}

/**
 * Where a 1-question call's time goes, from the service's Server-Timing header: the p50 of each
 * phase, and `outside` = what the client measured beyond the server's own total (the client, the
 * kernel's loopback and HTTP parsing before the route runs).
 */
function printPhases(samples: Record<string, number>[], httpMs: number[]): void {
  if (samples.length === 0 || samples[0]!.model === undefined) return;
  const names = Object.keys(samples[0]!);
  const p50 = (name: string) => percentile(samples.map((s) => s[name] ?? 0), 50);
  console.log('\n1-question call, ms per phase (p50 over the latency samples; Server-Timing header):\n');
  console.log(`| ${names.join(' | ')} |`);
  console.log(`|${names.map(() => '---').join('|')}|`);
  console.log(`| ${names.map((n) => p50(n).toFixed(2)).join(' | ')} |`);
  const inService = percentile(samples.map((s, i) => httpMs[i]! - s.model!), 50);
  console.log(`\nadded over the model's run inside the service (HTTP − model, p50 per call): ${ms(inService)}`);
}

await main();
