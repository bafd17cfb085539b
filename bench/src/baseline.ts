/**
 * `npm run eval -- --baseline OLD/results.json`: a run compared with an earlier one, case by case.
 * Cases are paired by id (both answered, same type and expected answer); every metric's difference
 * (new − old) overall, per type and per task comes with a paired bootstrap interval (the same resampled
 * cases on both sides), and `--fail-on` gates turn a drop beyond its interval into a failing exit status.
 *
 * Gate syntax: `[SCOPE.]METRIC[:AMOUNT]`, SCOPE `all` (default), `noul` | `choice` | `score`, `types`
 * (each type) or `tasks` (each task of MIN_TASK_CASES paired cases or more); METRIC accuracy | auc | ece | brier | log_loss; AMOUNT ≥ 0 in the
 * metric's own units (default 0). It trips when the whole interval lies on the worse side of −AMOUNT
 * (accuracy, auc: higher is better) or +AMOUNT (ece, brier, log_loss: lower is better): a drop larger
 * than AMOUNT that the resampling cannot explain away.
 */
import { Prng } from '../../service/src/fixtures/prng.js';
import { QUESTION_TYPES, type QuestionType } from '../../service/src/quality/cases.js';
import { brierCase, ece, groupBy, logLossCase, mean, rocAuc } from '../../service/src/quality/metrics.js';
import type { CaseResult } from './eval.js';

export const METRICS = ['accuracy', 'auc', 'ece', 'brier', 'log_loss'] as const;
/** A task needs this many paired cases for an interval (with one or two, every resample is the same). */
export const MIN_TASK_CASES = 10;
/** Task rows printed (worst first); every one is in comparison.json. */
const TASK_LINES = 20;
export type Metric = (typeof METRICS)[number];
const HIGHER_IS_BETTER: Record<Metric, boolean> = { accuracy: true, auc: true, ece: false, brier: false, log_loss: false };

/** The per-case numbers every metric is computed from, one side of a pair. */
interface Side {
  correct: boolean;
  confidence: number;
  brier: number;
  logLoss: number;
  /** noul: p(true). */
  noul?: number;
}

export interface Pair {
  id: string;
  task: string;
  type: QuestionType;
  /** noul: the expected answer (for AUC). */
  truth?: boolean;
  old: Side;
  new: Side;
}

export interface Pairing {
  pairs: Pair[];
  /** Answered in one run only (or in neither), so left out. */
  onlyOld: number;
  onlyNew: number;
  unanswered: number;
}

type Answered = CaseResult & { correct: boolean; confidence: number; probabilities: Record<string, number> };
const answered = (r: CaseResult): r is Answered => r.error === undefined && r.correct !== undefined && r.probabilities !== undefined;

function side(r: Answered): Side {
  const expected = String(r.expected);
  return {
    correct: r.correct,
    confidence: r.confidence,
    brier: brierCase(r.probabilities, expected),
    logLoss: logLossCase(r.probabilities, expected),
    ...(r.noul !== undefined ? { noul: r.noul } : {}),
  };
}

/** Pairs the two runs' cases by id; a case whose type or expected answer differs means the suites differ. */
export function pairCases(oldCases: readonly CaseResult[], newCases: readonly CaseResult[]): Pairing {
  const old = new Map(oldCases.map((r) => [r.id, r]));
  const pairs: Pair[] = [];
  let onlyNew = 0;
  let unanswered = 0;
  const seen = new Set<string>();
  for (const n of newCases) {
    const o = old.get(n.id);
    if (!o) {
      onlyNew++;
      continue;
    }
    seen.add(n.id);
    if (o.type !== n.type || String(o.expected) !== String(n.expected)) {
      throw new Error(`case ${n.id} is a ${o.type} expecting ${JSON.stringify(o.expected)} in the baseline and a ${n.type} expecting ${JSON.stringify(n.expected)} now: not the same suite`);
    }
    if (!answered(o) || !answered(n)) {
      unanswered++;
      continue;
    }
    pairs.push({ id: n.id, task: n.task, type: n.type, ...(n.type === 'noul' ? { truth: n.expected === true } : {}), old: side(o), new: side(n) });
  }
  const onlyOld = oldCases.filter((r) => !seen.has(r.id)).length;
  return { pairs, onlyOld, onlyNew, unanswered };
}

/** A metric over one side of some pairs (NaN where it is undefined: AUC without nouls of both answers). */
function metric(m: Metric, pairs: readonly Pair[], which: 'old' | 'new', bins: number): number {
  const s = pairs.map((p) => p[which]);
  switch (m) {
    case 'accuracy':
      return mean(s.map((x) => (x.correct ? 1 : 0)));
    case 'ece':
      return ece(s.map((x) => x.confidence), s.map((x) => x.correct), bins);
    case 'brier':
      return mean(s.map((x) => x.brier));
    case 'log_loss':
      return mean(s.map((x) => x.logLoss));
    case 'auc': {
      const nouls = pairs.filter((p) => p.type === 'noul');
      return nouls.length ? rocAuc(nouls.map((p) => p[which].noul!), nouls.map((p) => p.truth!)) : NaN;
    }
  }
}

export interface Difference {
  /** "all", a type, or a task id. */
  scope: string;
  kind: 'all' | 'type' | 'task';
  metric: Metric;
  cases: number;
  old: number;
  new: number;
  /** new − old. */
  diff: number;
  /** Bootstrap percentile interval of the difference (NaN when the metric is undefined). */
  lo: number;
  hi: number;
}

export interface CompareOptions {
  resamples: number;
  seed: number;
  /** Confidence level of the intervals. */
  level: number;
  eceBins: number;
}

function quantile(sorted: readonly number[], q: number): number {
  if (!sorted.length) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))));
  return sorted[i]!;
}

/** Every metric's difference on `pairs`, with one set of resamples shared by the metrics. */
function differences(scope: string, kind: Difference['kind'], pairs: readonly Pair[], o: CompareOptions): Difference[] {
  const metrics = METRICS.filter((m) => m !== 'auc' || pairs.some((p) => p.type === 'noul'));
  const draws = new Map<Metric, number[]>(metrics.map((m) => [m, []]));
  const rng = new Prng(o.seed);
  const sample = new Array<Pair>(pairs.length);
  for (let b = 0; b < o.resamples; b++) {
    for (let i = 0; i < pairs.length; i++) sample[i] = pairs[rng.int(pairs.length)]!;
    for (const m of metrics) {
      const d = metric(m, sample, 'new', o.eceBins) - metric(m, sample, 'old', o.eceBins);
      if (Number.isFinite(d)) draws.get(m)!.push(d);
    }
  }
  const tail = (1 - o.level) / 2;
  return metrics.map((m) => {
    const before = metric(m, pairs, 'old', o.eceBins);
    const after = metric(m, pairs, 'new', o.eceBins);
    const sorted = draws.get(m)!.sort((a, b) => a - b);
    return { scope, kind, metric: m, cases: pairs.length, old: before, new: after, diff: after - before, lo: quantile(sorted, tail), hi: quantile(sorted, 1 - tail) };
  });
}

/** Overall, per type and per task (tasks of at least MIN_TASK_CASES paired cases). */
export function compareRuns(pairs: readonly Pair[], o: CompareOptions): Difference[] {
  const out = differences('all', 'all', pairs, o);
  for (const type of QUESTION_TYPES) {
    const of = pairs.filter((p) => p.type === type);
    if (of.length) out.push(...differences(type, 'type', of, o));
  }
  for (const [task, of] of [...groupBy(pairs, (p) => p.task).entries()].sort(([a], [b]) => a.localeCompare(b))) {
    if (of.length >= MIN_TASK_CASES) out.push(...differences(task, 'task', of, o));
  }
  return out;
}

/** How much worse `d` got (positive: worse), whichever way its metric points. */
const worsening = (d: Difference) => (HIGHER_IS_BETTER[d.metric] ? -d.diff : d.diff);

// ---------------------------------------------------------------- gates

export interface Gate {
  spec: string;
  scope: 'all' | QuestionType | 'types' | 'tasks';
  metric: Metric;
  amount: number;
}

/** Parses `[SCOPE.]METRIC[:AMOUNT]`; throws with a one-line message on anything else. */
export function parseGate(spec: string): Gate {
  const m = /^(?:(all|noul|choice|score|types|tasks)\.)?([a-z_]+)(?::(.+))?$/.exec(spec);
  const metric = m?.[2] as Metric | undefined;
  if (!m || !metric || !(METRICS as readonly string[]).includes(metric)) {
    throw new Error(`--fail-on ${JSON.stringify(spec)}: expected [SCOPE.]METRIC[:AMOUNT], SCOPE all|noul|choice|score|types|tasks, METRIC ${METRICS.join('|')}`);
  }
  const amount = m[3] === undefined ? 0 : Number(m[3]);
  if (!Number.isFinite(amount) || amount < 0 || (m[3] !== undefined && m[3].trim() === '')) {
    throw new Error(`--fail-on ${JSON.stringify(spec)}: the amount must be a number ≥ 0 in the metric's units (0.02 = 2 points of accuracy)`);
  }
  return { spec, scope: (m[1] ?? 'all') as Gate['scope'], metric, amount };
}

/** The differences a gate looks at. */
function gated(g: Gate, diffs: readonly Difference[]): Difference[] {
  return diffs.filter((d) => {
    if (d.metric !== g.metric) return false;
    if (g.scope === 'types') return d.kind === 'type';
    if (g.scope === 'tasks') return d.kind === 'task';
    return d.scope === g.scope && d.kind !== 'task';
  });
}

/** True when `d` dropped by more than `amount` beyond its interval. */
export function dropped(d: Difference, amount: number): boolean {
  return HIGHER_IS_BETTER[d.metric] ? d.hi < -amount : d.lo > amount;
}

export interface GateResult {
  gate: Gate;
  /** The differences that tripped it. */
  tripped: Difference[];
  /** How many differences it looked at (a scope the runs do not have trips nothing). */
  checked: number;
}

export function checkGates(gates: readonly Gate[], diffs: readonly Difference[]): GateResult[] {
  return gates.map((gate) => {
    const looked = gated(gate, diffs);
    return { gate, tripped: looked.filter((d) => dropped(d, gate.amount)), checked: looked.length };
  });
}

// ---------------------------------------------------------------- the text

const f = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : '-');
const signed = (x: number) => (Number.isFinite(x) ? `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(3)}` : '-');

export function formatComparison(pairing: Pairing, diffs: readonly Difference[], gates: readonly GateResult[], o: CompareOptions, header: string): string {
  const lines = [header, ''];
  lines.push(
    `paired cases ${pairing.pairs.length}   only in the baseline ${pairing.onlyOld}   only in this run ${pairing.onlyNew}   unanswered in either ${pairing.unanswered}`,
  );
  lines.push(`differences new − old, ${Math.round(o.level * 100)} % paired bootstrap intervals (${o.resamples} resamples, seed ${o.seed}); * = the interval excludes 0`);
  lines.push('');
  lines.push('scope     metric     cases     old     new      diff   interval');
  const row = (d: Difference) =>
    `${d.scope.padEnd(9)} ${d.metric.padEnd(9)} ${String(d.cases).padStart(6)}  ${f(d.old).padStart(6)}  ${f(d.new).padStart(6)}  ${signed(d.diff).padStart(8)}   [${signed(d.lo)}, ${signed(d.hi)}]${d.lo > 0 || d.hi < 0 ? ' *' : ''}`;
  for (const d of diffs.filter((x) => x.kind !== 'task')) lines.push(row(d));
  const tasks = diffs.filter((d) => d.kind === 'task');
  const moved = tasks.filter((d) => d.lo > 0 || d.hi < 0).sort((a, b) => worsening(b) - worsening(a));
  const all = new Set(pairing.pairs.map((p) => p.task)).size;
  lines.push('');
  lines.push(
    `tasks: ${all}, ${new Set(tasks.map((d) => d.scope)).size} with at least ${MIN_TASK_CASES} paired cases; ` +
      `${moved.length} task metrics whose interval excludes 0${moved.length ? ', the worst first:' : ''}`,
  );
  for (const d of moved.slice(0, TASK_LINES)) lines.push(`  ${d.metric.padEnd(9)} ${signed(d.diff).padStart(8)}   [${signed(d.lo)}, ${signed(d.hi)}]  ${d.cases} cases  ${d.scope}`);
  if (moved.length > TASK_LINES) lines.push(`  … ${moved.length - TASK_LINES} more in comparison.json`);
  if (gates.length) {
    lines.push('');
    for (const g of gates) {
      const verdict = g.tripped.length ? `FAILED (${g.tripped.map((d) => `${d.scope} ${signed(d.diff)} [${signed(d.lo)}, ${signed(d.hi)}]`).join('; ')})` : g.checked ? 'passed' : 'passed (nothing to check in these runs)';
      lines.push(`--fail-on ${g.gate.spec}: ${verdict}`);
    }
  }
  return lines.join('\n');
}
