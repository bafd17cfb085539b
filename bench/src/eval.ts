/**
 * `npm run eval`: answer quality of a running structqa (or any System One compatible) server.
 * Sends every case of one or more suites — jabr-style TOML or JSONL (see cases.ts) — as one question
 * per `POST /v1/systemone` call with bounded concurrency, retrying 408/429/5xx (529 included) and
 * connection errors while honouring `retry-after-ms`, then prints accuracy (micro, macro over tasks,
 * per type), noul ROC AUC, ECE, Brier, latency percentiles and the worst tasks, the same figures per
 * domain, per language and English vs. the rest, and writes OUT/results.json (every case's prediction)
 * and OUT/reliability.png. With --baseline it compares the run with an earlier results.json case by
 * case (baseline.ts), and --fail-on turns a drop beyond its interval into exit status 3.
 *
 *   npm run eval -- [--suite FILE|DIR …] --url URL [--key KEY] [--model legacy-latest]
 *                   [--out DIR] [--concurrency 4] [--timeout-ms 30000] [--retries 8] [--worst 5]
 *                   [--baseline OLD/results.json [--fail-on SPEC …] [--bootstrap 2000] [--seed 1]]
 *   npm run eval -- --results NEW/results.json --baseline OLD/results.json [--fail-on SPEC …]
 *
 * Without --suite it evaluates the hand-written set (every .jsonl under eval/handwritten).
 * The key defaults to $SERVICE_API_KEY. Relative paths are taken from the directory npm was started
 * in ($INIT_CWD), so `npm run eval` from the repository root and from bench/ read the same files.
 * Exit status: 0 when every case was answered, 1 when some failed (outputs are still written), 2 on
 * bad arguments, 3 when a --fail-on gate tripped. --help prints the usage (USAGE below).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadSuite, QUESTION_TYPES, type EvalCase, type QuestionType } from '../../service/src/quality/cases.js';
import {
  accuracy,
  argmax,
  brier,
  ece,
  groupBy,
  logLossCase,
  macroAccuracy,
  mean,
  microAccuracy,
  percentile,
  rocAuc,
} from '../../service/src/quality/metrics.js';
import { contrastivePairs, PAIR_JACCARD } from './pairs.js';
import { reliabilityPng, TYPE_COLOURS } from '../../service/src/quality/reliability.js';
import { retryDelay } from './retry.js';
import { checkGates, compareRuns, formatComparison, pairCases, parseGate, type Gate } from './baseline.js';

const BINS = 15;
const here = path.dirname(fileURLToPath(import.meta.url));
/** The hand-written evaluation set (issue 19), the default suite: never used for training. */
export const HANDWRITTEN_DIR = path.resolve(here, '../../eval/handwritten');

// ---------------------------------------------------------------- one case against the server

export interface CaseResult {
  id: string;
  task: string;
  type: QuestionType;
  lang?: string;
  domain?: string;
  expected: boolean | string | number;
  /** noul: p ≥ 0.5; choice: the answer's `choice`; score: level with the highest probability. */
  predicted?: boolean | string | number;
  correct?: boolean;
  /** Probability of the predicted answer: noul max(p, 1−p); choice/score the top probability. */
  confidence?: number;
  /** Option → probability (noul: {"true": p, "false": 1−p}). */
  probabilities?: Record<string, number>;
  noul?: number;
  /** score: Σ i·pᵢ as returned, and whether round(score) equals the expected level. */
  expectation?: number;
  exact_rounded_expectation?: boolean;
  model?: string;
  /** Wall time of the successful attempt. */
  latency_ms?: number;
  attempts: number;
  error?: string;
}

export interface ClientOptions {
  url: string;
  key: string;
  model: string;
  timeoutMs: number;
  retries: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const retryable = (status: number) => status === 408 || status === 429 || status >= 500;

interface Answer {
  type?: string;
  noul?: number;
  choice?: string;
  score?: number;
  probabilities?: Record<string, number>;
}

/** Turns the server's answer into a prediction; throws on an answer that does not fit the question. */
export function judge(c: EvalCase, a: Answer): Pick<CaseResult, 'predicted' | 'correct' | 'confidence' | 'probabilities' | 'noul' | 'expectation' | 'exact_rounded_expectation'> {
  if (a.type !== c.question.type) throw new Error(`answer type ${String(a.type)} for a ${c.question.type} question`);
  if (c.question.type === 'noul') {
    const p = a.noul;
    if (typeof p !== 'number' || !Number.isFinite(p)) throw new Error('noul answer without a number');
    const predicted = p >= 0.5;
    return { predicted, correct: predicted === c.expected, confidence: Math.max(p, 1 - p), probabilities: { true: p, false: 1 - p }, noul: p };
  }
  const probs = a.probabilities;
  if (!probs || Object.keys(probs).length === 0) throw new Error('answer without probabilities');
  const confidence = Math.max(...Object.values(probs));
  if (c.question.type === 'choice') {
    if (typeof a.choice !== 'string') throw new Error('choice answer without a choice');
    return { predicted: a.choice, correct: a.choice === c.expected, confidence, probabilities: probs };
  }
  const predicted = Number(argmax(probs));
  const expectation = typeof a.score === 'number' ? a.score : Object.entries(probs).reduce((s, [k, p]) => s + Number(k) * p, 0);
  return {
    predicted,
    correct: predicted === c.expected,
    confidence,
    probabilities: probs,
    expectation,
    exact_rounded_expectation: Math.round(expectation) === c.expected,
  };
}

export async function runCase(c: EvalCase, o: ClientOptions): Promise<CaseResult> {
  const base: CaseResult = { id: c.id, task: c.task, type: c.question.type, expected: c.expected, attempts: 0 };
  if (c.lang !== undefined) base.lang = c.lang;
  if (c.domain !== undefined) base.domain = c.domain;
  const body = JSON.stringify({ model: o.model, state: c.state, questions: { q: c.question } });
  let lastError = '';
  for (let attempt = 0; attempt <= o.retries; attempt++) {
    base.attempts = attempt + 1;
    const t0 = performance.now();
    let res: Response | undefined;
    try {
      res = await fetch(`${o.url}/v1/systemone`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${o.key}` },
        body,
        signal: AbortSignal.timeout(o.timeoutMs),
      });
      const text = await res.text();
      const latency = performance.now() - t0;
      if (res.ok) {
        const env = JSON.parse(text) as { model?: string; answers?: Record<string, Answer> };
        const answer = env.answers?.q;
        if (!answer) throw new Error('response without answers.q');
        return { ...base, ...judge(c, answer), ...(env.model ? { model: env.model } : {}), latency_ms: latency };
      }
      const code = res.headers.get('x-service-error-code') ?? '';
      lastError = `HTTP ${res.status}${code ? ` ${code}` : ''}: ${text.slice(0, 300)}`;
      if (!retryable(res.status)) break;
    } catch (e) {
      if (res?.ok) return { ...base, error: `bad answer: ${(e as Error).message}` };
      lastError = `${(e as Error).name}: ${(e as Error).message}`;
    }
    if (attempt < o.retries) await sleep(retryDelay((name) => res?.headers.get(name), attempt));
  }
  return { ...base, error: lastError };
}

/** Runs `work` over `items` with at most `limit` in flight, keeping the input order. */
export async function pool<T, R>(items: readonly T[], limit: number, work: (t: T, i: number) => Promise<R>, onDone?: (done: number) => void): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]!, i);
      onDone?.(++done);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}

// ---------------------------------------------------------------- the report

type Answered = CaseResult & { correct: boolean; confidence: number; probabilities: Record<string, number> };

export interface TypeReport {
  cases: number;
  accuracy: number;
  ece: number;
  brier: number;
  log_loss: number;
  /** noul only. */
  roc_auc?: number;
  /** score only. */
  exact_rounded_expectation?: number;
  mean_abs_error_expectation?: number;
}

/** The headline figures of one slice of the cases (a domain, a language, English or not). */
export interface GroupReport {
  cases: number;
  accuracy: number;
  /** Accuracy within each question type present in the slice. */
  noul?: number;
  choice?: number;
  score?: number;
  /** noul ROC AUC within the slice (NaN when only one class occurs). */
  noul_auc?: number;
  ece: number;
}

export interface Report {
  cases: number;
  answered: number;
  failed: number;
  tasks: number;
  micro_accuracy: number;
  macro_accuracy: number;
  ece: number;
  brier: number;
  log_loss: number;
  by_type: Partial<Record<QuestionType, TypeReport>>;
  /** Contrastive noul pairs (pairs.ts) with both cases answered: how often the true case's p is higher (ties ½). */
  noul_pairs?: { pairs: number; accuracy: number };
  by_domain?: Record<string, GroupReport>;
  by_lang?: Record<string, GroupReport>;
  /** `en` against every other language, over the cases that carry a language. */
  english_vs_other?: { english?: GroupReport; non_english?: GroupReport };
  latency_ms: { p50: number; p95: number; p99: number; mean: number };
  worst_tasks: { task: string; type: QuestionType; cases: number; accuracy: number }[];
  models: Record<string, number>;
}

const expectedKey = (r: CaseResult) => String(r.expected);
const logLoss = (rs: readonly Answered[]) => mean(rs.map((r) => logLossCase(r.probabilities, expectedKey(r))));

export function groupReport(rs: readonly Answered[]): GroupReport {
  const g: GroupReport = { cases: rs.length, accuracy: microAccuracy(rs), ece: ece(rs.map((r) => r.confidence), rs.map((r) => r.correct), BINS) };
  for (const type of QUESTION_TYPES) {
    const t = rs.filter((r) => r.type === type);
    if (t.length) g[type] = microAccuracy(t);
    if (type === 'noul' && t.length) g.noul_auc = rocAuc(t.map((r) => r.noul!), t.map((r) => r.expected === true));
  }
  return g;
}

/** groupReport per value of `key` (cases without one left out), largest group first; undefined when none has one. */
function groupsBy(rs: readonly Answered[], key: (r: Answered) => string | undefined): Record<string, GroupReport> | undefined {
  const keyed = rs.filter((r) => key(r) !== undefined);
  if (!keyed.length) return undefined;
  return Object.fromEntries(
    [...groupBy(keyed, (r) => key(r)!).entries()]
      .sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]))
      .map(([k, members]) => [k, groupReport(members)]),
  );
}

export function buildReport(results: readonly CaseResult[], worst = 5, pairs: readonly [string, string][] = []): Report {
  const ok = results.filter((r): r is Answered => r.error === undefined && r.correct !== undefined);
  const byType: Report['by_type'] = {};
  for (const type of QUESTION_TYPES) {
    const rs = ok.filter((r) => r.type === type);
    if (!rs.length) continue;
    const t: TypeReport = {
      cases: rs.length,
      accuracy: microAccuracy(rs),
      ece: ece(rs.map((r) => r.confidence), rs.map((r) => r.correct), BINS),
      brier: brier(rs.map((r) => ({ probabilities: r.probabilities, expected: expectedKey(r) }))),
      log_loss: logLoss(rs),
    };
    if (type === 'noul') t.roc_auc = rocAuc(rs.map((r) => r.noul!), rs.map((r) => r.expected === true));
    if (type === 'score') {
      t.exact_rounded_expectation = accuracy(rs.map((r) => r.exact_rounded_expectation === true));
      t.mean_abs_error_expectation = mean(rs.map((r) => Math.abs(r.expectation! - Number(r.expected))));
    }
    byType[type] = t;
  }
  const tasks = [...groupBy(ok, (r) => r.task).entries()].map(([task, rs]) => ({
    task,
    type: rs[0]!.type,
    cases: rs.length,
    accuracy: microAccuracy(rs),
  }));
  tasks.sort((a, b) => a.accuracy - b.accuracy || b.cases - a.cases || a.task.localeCompare(b.task));
  const report: Report = {
    cases: results.length,
    answered: ok.length,
    failed: results.length - ok.length,
    tasks: tasks.length,
    micro_accuracy: microAccuracy(ok),
    macro_accuracy: macroAccuracy(ok.map((r) => ({ group: r.task, correct: r.correct }))),
    ece: ece(ok.map((r) => r.confidence), ok.map((r) => r.correct), BINS),
    brier: brier(ok.map((r) => ({ probabilities: r.probabilities, expected: expectedKey(r) }))),
    log_loss: logLoss(ok),
    by_type: byType,
    latency_ms: (() => {
      const l = ok.map((r) => r.latency_ms!);
      return { p50: percentile(l, 50), p95: percentile(l, 95), p99: percentile(l, 99), mean: mean(l) };
    })(),
    worst_tasks: tasks.slice(0, worst),
    models: Object.fromEntries([...groupBy(ok, (r) => r.model ?? '?').entries()].map(([m, rs]) => [m, rs.length])),
  };
  const p = new Map(ok.filter((r) => r.noul !== undefined).map((r) => [r.id, r.noul!]));
  const scored = pairs.filter(([t, f]) => p.has(t) && p.has(f));
  if (scored.length) {
    const wins = scored.reduce((s, [t, f]) => s + (p.get(t)! > p.get(f)! ? 1 : p.get(t) === p.get(f) ? 0.5 : 0), 0);
    report.noul_pairs = { pairs: scored.length, accuracy: wins / scored.length };
  }
  const byDomain = groupsBy(ok, (r) => r.domain);
  if (byDomain) report.by_domain = byDomain;
  const byLang = groupsBy(ok, (r) => r.lang);
  if (byLang) report.by_lang = byLang;
  const split = groupsBy(ok, (r) => (r.lang === undefined ? undefined : r.lang === 'en' ? 'english' : 'non_english'));
  if (split) report.english_vs_other = split;
  return report;
}

export const DEFINITIONS = [
  'micro accuracy: correct / answered cases. macro accuracy: mean over tasks of each task\'s accuracy.',
  'prediction: noul p >= 0.5; choice the answer\'s `choice`; score the level with the highest probability.',
  'confidence: probability of the predicted answer (noul max(p, 1-p); choice/score the top probability).',
  `ECE: sum over ${BINS} equal-width confidence bins [k/${BINS}, (k+1)/${BINS}) of (n_bin/N) * |accuracy_bin - mean confidence_bin|.`,
  'Brier: multi-class, mean over cases of sum over options of (p_k - y_k)^2, y one-hot (0..2; noul = 2*(p-y)^2).',
  'log-loss: mean over cases of -ln p(expected answer), p floored at 1e-15.',
  'ROC AUC (noul): P(p of a random true case > p of a random false case), ties count 1/2.',
  `noul pairs: nouls of one task with states of word-3-gram Jaccard >= ${PAIR_JACCARD} and opposite answers; share where the true case has the higher p (ties 1/2).`,
  'score "exact (rounded E)": round(sum i*p_i) == expected level; MAE(E) = mean |sum i*p_i - expected|.',
  'latency: wall time of the successful attempt, client side, nearest-rank percentiles.',
];

const pct = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? '   -  ' : `${(100 * x).toFixed(1).padStart(5)}%`);
const num = (x: number | undefined, d = 3) => (x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(d));

export function formatReport(r: Report, header: string): string {
  const lines: string[] = [header, ''];
  lines.push(`cases ${r.cases}   answered ${r.answered}   failed ${r.failed}   tasks ${r.tasks}   served by ${Object.entries(r.models).map(([m, n]) => `${m} (${n})`).join(', ') || '-'}`);
  lines.push('');
  lines.push(`micro accuracy   ${pct(r.micro_accuracy)}`);
  lines.push(`macro accuracy   ${pct(r.macro_accuracy)}   (mean over ${r.tasks} tasks)`);
  lines.push(`ECE (${BINS} bins)    ${num(r.ece)}`);
  lines.push(`Brier            ${num(r.brier)}`);
  lines.push(`log-loss         ${num(r.log_loss)}`);
  lines.push('');
  lines.push('type     cases  accuracy    ECE   Brier  log-loss  other');
  for (const type of QUESTION_TYPES) {
    const t = r.by_type[type];
    if (!t) continue;
    const other =
      type === 'noul'
        ? `ROC AUC ${num(t.roc_auc)}`
        : type === 'score'
          ? `exact (rounded E) ${pct(t.exact_rounded_expectation).trim()}, MAE(E) ${num(t.mean_abs_error_expectation)}`
          : '';
    lines.push(`${type.padEnd(8)} ${String(t.cases).padStart(5)}   ${pct(t.accuracy)}  ${num(t.ece).padStart(5)}  ${num(t.brier).padStart(5)}  ${num(t.log_loss).padStart(8)}  ${other}`);
  }
  if (r.noul_pairs) lines.push(`noul pairs ${String(r.noul_pairs.pairs).padStart(5)}   ${pct(r.noul_pairs.accuracy)}  true case ranked above its near-twin false case`);
  lines.push('');
  lines.push(`latency ms       p50 ${num(r.latency_ms.p50, 1)}   p95 ${num(r.latency_ms.p95, 1)}   p99 ${num(r.latency_ms.p99, 1)}   mean ${num(r.latency_ms.mean, 1)}`);
  const groupTable = (title: string, groups: Record<string, GroupReport> | undefined) => {
    if (!groups) return;
    const width = Math.max(title.length, ...Object.keys(groups).map((k) => k.length));
    lines.push('');
    lines.push(`${title.padEnd(width)}  cases  accuracy    noul  choice   score  noul AUC    ECE`);
    for (const [k, g] of Object.entries(groups)) {
      lines.push(
        `${k.padEnd(width)}  ${String(g.cases).padStart(5)}   ${pct(g.accuracy)}  ${pct(g.noul)}  ${pct(g.choice)}  ${pct(g.score)}  ${num(g.noul_auc).padStart(8)}  ${num(g.ece).padStart(5)}`,
      );
    }
  };
  groupTable('domain', r.by_domain);
  groupTable('lang', r.by_lang);
  if (r.english_vs_other) groupTable('languages', r.english_vs_other as Record<string, GroupReport>);
  lines.push('');
  lines.push(`worst ${r.worst_tasks.length} tasks`);
  for (const t of r.worst_tasks) lines.push(`  ${pct(t.accuracy)}  ${String(t.cases).padStart(4)} cases  ${t.type.padEnd(6)}  ${t.task}`);
  lines.push('');
  lines.push('definitions');
  for (const d of DEFINITIONS) lines.push(`  ${d}`);
  return lines.join('\n');
}

// ---------------------------------------------------------------- command line

export const USAGE = `usage: npm run eval -- [--suite FILE|DIR …] --url URL [options]      score a running server
       npm run eval -- --results NEW/results.json --baseline OLD/results.json [--fail-on …]   compare two runs

  --suite FILE|DIR      cases: .toml (jabr style), JSONL, or a folder of them; repeatable (default eval/handwritten)
  --url URL             the server's base address (POST URL/v1/systemone)
  --key KEY             API key (default $SERVICE_API_KEY)
  --model NAME          model in every request (default legacy-latest)
  --out DIR             where results.json, report.txt, reliability.png (and comparison.*) go (default bench/out/eval-<time>)
  --concurrency N       requests in flight (default 4)
  --timeout-ms N        per attempt (default 30000)
  --retries N           retries of 408, 429, 5xx and connection errors (default 8)
  --worst N             weakest tasks listed (default 5)
  --baseline FILE       an earlier run's results.json: compare case by case (accuracy, noul AUC, ECE, Brier,
                        log-loss; overall, per type, per task) with paired bootstrap intervals
  --results FILE        take this run from a results.json instead of a server (with --baseline)
  --fail-on SPEC        with --baseline: exit 3 when a metric drops beyond its interval; repeatable.
                        SPEC [SCOPE.]METRIC[:AMOUNT]: SCOPE all (default), noul, choice, score, types (each type)
                        or tasks (each task of 10+ paired cases); METRIC accuracy, auc, ece, brier, log_loss; AMOUNT in the metric's
                        units (default 0): e.g. accuracy:0.01, types.ece:0.02, noul.auc
  --bootstrap N         resamples of the intervals (default 2000)
  --seed N              seed of the resampling (default 1)
  --help                this text

exit status: 0 every case answered (and every gate passed); 1 some cases failed; 2 bad arguments or an
unreadable suite or results file; 3 a --fail-on gate tripped`;

/** Bad arguments: one line on stderr, exit 2. */
function usage(msg: string): never {
  process.stderr.write(`npm run eval: ${msg} (--help for usage)\n`);
  process.exit(2);
}

const OPTIONS = {
  suite: { type: 'string', multiple: true },
  url: { type: 'string' },
  key: { type: 'string' },
  model: { type: 'string', default: 'legacy-latest' },
  out: { type: 'string' },
  concurrency: { type: 'string', default: '4' },
  'timeout-ms': { type: 'string', default: '30000' },
  retries: { type: 'string', default: '8' },
  worst: { type: 'string', default: '5' },
  baseline: { type: 'string' },
  results: { type: 'string' },
  'fail-on': { type: 'string', multiple: true },
  bootstrap: { type: 'string', default: '2000' },
  seed: { type: 'string', default: '1' },
  help: { type: 'boolean', short: 'h' },
} as const;

const int = (name: string, v: string, min: number) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) usage(`--${name} must be an integer >= ${min}`);
  return n;
};

function readResults(file: string, what: string): { meta?: Record<string, unknown>; cases: CaseResult[] } {
  let doc: unknown;
  try {
    doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    usage(`cannot read ${what} ${file}: ${(e as Error).message}`);
  }
  const cases = (doc as { cases?: unknown })?.cases;
  if (!Array.isArray(cases)) usage(`${what} ${file} is not an eval results.json (no "cases" list)`);
  return doc as { meta?: Record<string, unknown>; cases: CaseResult[] };
}

/** Compares `current` with the baseline, prints and writes the comparison; returns whether a gate tripped. */
function compareWithBaseline(current: readonly CaseResult[], baselineFile: string, gateSpecs: readonly string[], a: { bootstrap: string; seed: string }, outDir: string | undefined, label: string): boolean {
  let gates: Gate[];
  try {
    gates = gateSpecs.map(parseGate);
  } catch (e) {
    usage((e as Error).message);
  }
  const baseline = readResults(baselineFile, 'baseline');
  let pairing;
  try {
    pairing = pairCases(baseline.cases, current);
  } catch (e) {
    usage((e as Error).message);
  }
  if (!pairing.pairs.length) usage(`no case is answered in both ${baselineFile} and this run: not the same suite`);
  const options = { resamples: int('bootstrap', a.bootstrap, 100), seed: int('seed', a.seed, 0), level: 0.95, eceBins: BINS };
  const diffs = compareRuns(pairing.pairs, options);
  const results = checkGates(gates, diffs);
  const text = formatComparison(pairing, diffs, results, options, `structqa eval comparison — ${label} against the baseline ${baselineFile}`);
  process.stdout.write(`\n${text}\n`);
  if (outDir) {
    fs.mkdirSync(outDir, { recursive: true });
    const meta = { baseline: baselineFile, ...options, paired: pairing.pairs.length, only_baseline: pairing.onlyOld, only_current: pairing.onlyNew, unanswered: pairing.unanswered };
    fs.writeFileSync(path.join(outDir, 'comparison.json'), JSON.stringify({ meta, differences: diffs, gates: results }, null, 2) + '\n');
    fs.writeFileSync(path.join(outDir, 'comparison.txt'), text + '\n');
    process.stdout.write(`wrote ${path.join(outDir, 'comparison.json')}, comparison.txt\n`);
  }
  return results.some((r) => r.tripped.length > 0);
}

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({ options: OPTIONS });
  } catch (e) {
    usage((e as Error).message.split('\n')[0]!);
  }
  const a = parsed.values;
  if (a.help) {
    process.stdout.write(`npm run eval: answer quality of a running server, and a comparison with an earlier run\n${USAGE}\n`);
    return;
  }
  // npm -w runs scripts in bench/; resolve the caller's relative paths against where npm started.
  const cwd = process.env.INIT_CWD ?? process.cwd();
  const at = (p: string) => path.resolve(cwd, p);
  if (a['fail-on']?.length && !a.baseline) usage('--fail-on needs --baseline');
  if (a.results) {
    if (!a.baseline) usage('--results needs --baseline (it compares two stored runs)');
    if (a.url || a.suite?.length) usage('--results takes the run from a file: no --url or --suite');
    const current = readResults(at(a.results), 'results');
    const tripped = compareWithBaseline(current.cases, at(a.baseline), a['fail-on'] ?? [], a as { bootstrap: string; seed: string }, a.out ? at(a.out) : undefined, at(a.results));
    process.exitCode = tripped ? 3 : 0;
    return;
  }
  if (!a.url) usage('--url is required');
  const key = a.key ?? process.env.SERVICE_API_KEY;
  if (!key) usage('no API key: pass --key or set SERVICE_API_KEY');
  const concurrency = int('concurrency', a.concurrency!, 1);
  const opts: ClientOptions = {
    url: a.url.replace(/\/+$/, ''),
    key,
    model: a.model!,
    timeoutMs: int('timeout-ms', a['timeout-ms']!, 1),
    retries: int('retries', a.retries!, 0),
  };
  const suites = a.suite?.length ? a.suite.map(at) : [HANDWRITTEN_DIR];
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const outDir = a.out ? at(a.out) : path.resolve(here, '../out', `eval-${stamp}`);
  if (a.baseline && !fs.existsSync(at(a.baseline))) usage(`cannot read baseline ${at(a.baseline)}: no such file`);

  const cases: EvalCase[] = [];
  for (const file of suites) {
    let loaded: EvalCase[];
    try {
      loaded = loadSuite(file);
    } catch (e) {
      usage(`cannot read suite: ${(e as Error).message}`);
    }
    const prefix = suites.length > 1 ? `${path.basename(file)}:` : '';
    for (const c of loaded) cases.push({ ...c, id: prefix + c.id, task: prefix + c.task });
  }
  if (!cases.length) usage('the suites hold no cases');

  process.stderr.write(`eval: ${cases.length} cases from ${suites.map((s) => path.basename(s)).join(', ')} → ${opts.url} (model ${opts.model}, concurrency ${concurrency})\n`);
  const t0 = performance.now();
  const step = Math.max(1, Math.ceil(cases.length / 10));
  const results = await pool(cases, concurrency, (c) => runCase(c, opts), (done) => {
    if (done % step === 0 || done === cases.length) process.stderr.write(`  ${done}/${cases.length}\n`);
  });
  const wallS = (performance.now() - t0) / 1000;

  // ids may be prefixed per suite above, so pairs are found on the cases as sent
  const report = buildReport(results, int('worst', a.worst!, 0), contrastivePairs(cases));
  const header = `structqa eval — ${suites.map((s) => path.basename(s)).join(', ')} — ${opts.url} model ${opts.model} — ${new Date().toISOString()} — ${wallS.toFixed(1)} s`;
  const text = formatReport(report, header);
  process.stdout.write(text + '\n');

  const failed = results.filter((r) => r.error !== undefined);
  if (failed.length) {
    process.stdout.write(`\n${failed.length} cases failed, first: ${failed[0]!.id}: ${failed[0]!.error}\n`);
  }

  fs.mkdirSync(outDir, { recursive: true });
  const meta = { suites, url: opts.url, model: opts.model, concurrency, date: new Date().toISOString(), wall_seconds: wallS, ece_bins: BINS, definitions: DEFINITIONS };
  fs.writeFileSync(path.join(outDir, 'results.json'), JSON.stringify({ meta, report, cases: results }, null, 2) + '\n');
  fs.writeFileSync(path.join(outDir, 'report.txt'), text + '\n');
  const answered = results.filter((r): r is Answered => r.error === undefined && r.correct !== undefined);
  const series = [...QUESTION_TYPES, 'all' as const]
    .map((type) => {
      const rs = type === 'all' ? answered : answered.filter((r) => r.type === type);
      return { name: type.toUpperCase(), colour: TYPE_COLOURS[type]!, confidences: rs.map((r) => r.confidence), correct: rs.map((r) => r.correct) };
    })
    .filter((s) => s.confidences.length > 0);
  const caption = `${suites.map((s) => path.basename(s)).join(', ')}  MODEL ${opts.model} -> ${Object.keys(report.models).join(', ')}`;
  fs.writeFileSync(path.join(outDir, 'reliability.png'), reliabilityPng(series, BINS, caption));
  process.stdout.write(`\nwrote ${path.join(outDir, 'results.json')}, report.txt, reliability.png\n`);
  const tripped = a.baseline ? compareWithBaseline(results, at(a.baseline), a['fail-on'] ?? [], a as { bootstrap: string; seed: string }, outDir, 'this run') : false;
  process.exitCode = tripped ? 3 : failed.length ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main();
}
