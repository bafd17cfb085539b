/**
 * How a fitted calibration does on the held-out cases, before (the checkpoint's table) and after (the
 * fit), with the metrics `npm run eval` reports: ECE (top-label confidence, 15 equal-width bins),
 * multi-class Brier, log-loss and accuracy, overall, per type, per type × option-count bucket and per
 * language; the fitted temperatures with their counts, fallbacks and clamps; and the reliability
 * diagrams before and after.
 */
import { argmax, optionBucket, softmax, temperatureFor } from '../engine/calibrate.js';
import type { OptionBucket } from '../engine/manifest.js';
import { Prng } from '../fixtures/prng.js';
import { QUESTION_TYPES, type QuestionType } from './cases.js';
import type { ScoredCase } from './engine-cases.js';
import { brierCase, ece, groupBy, mean } from './metrics.js';
import { reliabilityPng, TYPE_COLOURS } from './reliability.js';
import { caseLogLoss, type Calibration, type FitResult } from './temperature-fit.js';

export const ECE_BINS = 15;

/** One held-out case under one calibration. */
interface Judged {
  confidence: number;
  correct: boolean;
  brier: number;
  logLoss: number;
  predicted: number;
}

function judge(c: ScoredCase, calibration: Calibration): Judged {
  const t = temperatureFor(calibration, c.type, c.logits.length, c.language);
  const p = softmax(c.logits, t);
  const predicted = argmax(p);
  const probabilities = Object.fromEntries(c.keys.map((k, i) => [k, p[i]!]));
  return {
    confidence: p[predicted]!,
    correct: predicted === c.label,
    brier: brierCase(probabilities, c.keys[c.label]!),
    logLoss: caseLogLoss(c.logits, c.label, t),
    predicted,
  };
}

export interface SliceMetrics {
  cases: number;
  accuracy: number;
  ece: number;
  /**
   * The ECE a perfectly calibrated model with these confidences would show on this many cases (each
   * case right with probability its confidence; mean over FLOOR_DRAWS draws): ECE near it is sampling noise.
   */
  ece_floor: number;
  brier: number;
  log_loss: number;
}

export interface Slice {
  /** "all", a type, "type bucket", or "type @lang". */
  name: string;
  type?: QuestionType;
  bucket?: OptionBucket;
  language?: string;
  before: SliceMetrics;
  after: SliceMetrics;
}

const FLOOR_DRAWS = 200;

function eceFloor(confidences: readonly number[]): number {
  const rng = new Prng(FLOOR_DRAWS);
  let sum = 0;
  for (let d = 0; d < FLOOR_DRAWS; d++) sum += ece(confidences, confidences.map((c) => rng.uniform() < c), ECE_BINS);
  return sum / FLOOR_DRAWS;
}

function metrics(js: readonly Judged[]): SliceMetrics {
  const confidences = js.map((j) => j.confidence);
  return {
    cases: js.length,
    accuracy: mean(js.map((j) => (j.correct ? 1 : 0))),
    ece: ece(confidences, js.map((j) => j.correct), ECE_BINS),
    ece_floor: eceFloor(confidences),
    brier: mean(js.map((j) => j.brier)),
    log_loss: mean(js.map((j) => j.logLoss)),
  };
}

export interface HeldOutReport {
  slices: Slice[];
  /** Held-out cases whose predicted option is the same before and after (a temperature moves no argmax). */
  argmax_unchanged: number;
  /** Types (and "all") whose held-out log-loss is worse after: a fit with any is refused. */
  worse: string[];
  series: { before: Series[]; after: Series[] };
}

interface Series {
  name: string;
  colour: readonly [number, number, number];
  confidences: number[];
  correct: boolean[];
}

/** Judges `holdout` under the checkpoint's calibration and the fitted one. */
export function heldOutReport(holdout: readonly ScoredCase[], before: Calibration, after: Calibration, byLanguage: boolean): HeldOutReport {
  const rows = holdout.map((c) => ({ c, before: judge(c, before), after: judge(c, after) }));
  type Row = (typeof rows)[number];
  const slice = (name: string, rs: readonly Row[], where: Partial<Pick<Slice, 'type' | 'bucket' | 'language'>> = {}): Slice => ({
    name,
    ...where,
    before: metrics(rs.map((r) => r.before)),
    after: metrics(rs.map((r) => r.after)),
  });
  const slices: Slice[] = [slice('all', rows)];
  for (const type of QUESTION_TYPES) {
    const ofType = rows.filter((r) => r.c.type === type);
    if (!ofType.length) continue;
    slices.push(slice(type, ofType, { type }));
    const buckets = groupBy(ofType, (r) => optionBucket(r.c.logits.length));
    for (const [bucket, rs] of [...buckets.entries()].sort(([a], [b]) => bucketOrder(a) - bucketOrder(b))) {
      slices.push(slice(`${type} ${bucket}`, rs, { type, bucket: bucket as OptionBucket }));
    }
  }
  if (byLanguage) {
    const languages = [...groupBy(rows, (r) => r.c.language).entries()].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]));
    for (const [language, rs] of languages) {
      for (const type of QUESTION_TYPES) {
        const ofType = rs.filter((r) => r.c.type === type);
        if (ofType.length) slices.push(slice(`${type} @${language}`, ofType, { type, language }));
      }
    }
  }
  const worse = slices
    .filter((s) => s.language === undefined && s.bucket === undefined && s.after.log_loss > s.before.log_loss + 1e-12)
    .map((s) => s.name);
  const series = (which: 'before' | 'after'): Series[] =>
    [...QUESTION_TYPES, 'all' as const]
      .map((type) => {
        const rs = type === 'all' ? rows : rows.filter((r) => r.c.type === type);
        return { name: type.toUpperCase(), colour: TYPE_COLOURS[type]!, confidences: rs.map((r) => r[which].confidence), correct: rs.map((r) => r[which].correct) };
      })
      .filter((s) => s.confidences.length > 0);
  return {
    slices,
    argmax_unchanged: rows.filter((r) => r.before.predicted === r.after.predicted).length,
    worse,
    series: { before: series('before'), after: series('after') },
  };
}

function bucketOrder(b: string): number {
  return ['2', '3-5', '6-10', '11+'].indexOf(b);
}

/** The two reliability diagrams of the held-out cases (the panels `npm run eval` draws). */
export function reliabilityDiagrams(report: HeldOutReport, caption: string): { before: Buffer; after: Buffer } {
  return {
    before: reliabilityPng(report.series.before, ECE_BINS, `${caption}  HELD OUT, TEMPERATURES BEFORE`),
    after: reliabilityPng(report.series.after, ECE_BINS, `${caption}  HELD OUT, FITTED TEMPERATURES`),
  };
}

const f3 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : '-');
const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(1)} %` : '-');
const t = (x: number) => (x >= 100 ? '≥100' : x <= 0.01 ? '≤0.01' : x < 10 ? x.toFixed(3) : x.toFixed(1));

/** The fitted temperatures as a table: cell, fitting cases, before, the fit, what is written, and why. */
export function formatFit(fit: FitResult, minCases: number): string[] {
  const lines = ['temperatures (fitting split)', 'type    bucket  language  fit cases  T before  ML fit   T after  note'];
  for (const c of fit.cells) {
    const notes: string[] = [];
    if (c.source === 'type') notes.push(`thin (< ${minCases}): ${c.language ? `the ${c.language} ` : "the type's "}${c.type} T`);
    if (c.clamped) notes.push(`clamped: the fit ${t(c.fitted)} is outside [0.5, 5]`);
    lines.push(
      `${c.type.padEnd(7)} ${c.bucket.padEnd(7)} ${(c.language ?? '(all)').padEnd(9)} ${String(c.cases).padStart(9)}  ${t(c.previous).padStart(8)}  ${t(c.fitted).padStart(6)}  ${t(c.value).padStart(7)}  ${notes.join('; ')}`,
    );
  }
  for (const d of fit.defaulted) {
    lines.push(`default ${d.type} @${d.language}: ${d.cases} fitting cases do not tell its own temperatures from the default row (LR ${d.lr.toFixed(2)} < ${d.critical}); no override`);
  }
  if (fit.kept.length) {
    const byLanguage = groupBy(fit.kept, (k) => k.language ?? '(all)');
    const listed = [...byLanguage.entries()].map(([language, ks]) => `${language} ${ks.map((k) => `${k.type} ${k.cases}`).join(', ')}`);
    lines.push(`kept as they are (fewer than ${minCases} fitting cases): ${listed.join('; ')}`);
  }
  return lines;
}

/** The held-out table: every slice, before → after. */
export function formatHeldOut(report: HeldOutReport): string[] {
  const lines = [
    'held-out split: the checkpoint\'s temperatures → the fitted ones',
    'slice            cases  accuracy   ECE before → after (floor)   Brier before → after   log-loss before → after',
  ];
  for (const s of report.slices) {
    const b = s.before;
    const a = s.after;
    lines.push(
      `${s.name.padEnd(16)} ${String(b.cases).padStart(5)}  ${pct(b.accuracy).padStart(8)}   ${f3(b.ece).padStart(6)} → ${f3(a.ece)} (${f3(a.ece_floor)})      ${f3(b.brier).padStart(6)} → ${f3(a.brier).padEnd(6)}       ${f3(b.log_loss).padStart(6)} → ${f3(a.log_loss)}`,
    );
  }
  return lines;
}
