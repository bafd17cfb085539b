/**
 * Temperatures by maximum likelihood, the way the engine applies them (engine/calibrate.ts): one T per
 * question type × option-count bucket, optionally per language, p = softmax(logits / T), clamped to
 * [TEMPERATURE_MIN, TEMPERATURE_MAX]. Used by `structqa models calibrate` (docs/quality.md).
 *
 * Thin cells never get their own temperature: a bucket with fewer than `minCases` fitting cases takes
 * its type's pooled fit, and a type (or a language's type) with fewer keeps what the checkpoint has. A
 * language gets its own row of a type only where its fitting cases show that it differs from the
 * default row (a likelihood-ratio test at 5 %): thirty binary answers cannot tell 2 from 5 reliably,
 * and an override fitted on noise does worse on new cases than the default it replaces.
 */
import { bucketTemperature, clampTemperature, optionBucket, TEMPERATURE_MAX, TEMPERATURE_MIN } from '../engine/calibrate.js';
import type { Manifest, OptionBucket, QuestionType, TemperatureTable } from '../engine/manifest.js';

export type Calibration = Manifest['calibration'];

/** One answered case: the question's raw logits in marker order and the index of the expected option. */
export interface LabelledLogits {
  logits: ArrayLike<number>;
  label: number;
}

export interface FitCase extends LabelledLogits {
  type: QuestionType;
  /** The detected language of the state (what the engine looks overrides up by). */
  language: string;
}

/** The unclamped search range: a fit at either end means "at least/at most this". */
export const FIT_T_MIN = 0.01;
export const FIT_T_MAX = 100;
/** Temperatures are written with this many decimals (and judged as written). */
const DECIMALS = 4;

export const BUCKETS: Record<QuestionType, readonly OptionBucket[]> = {
  noul: ['2'],
  choice: ['2', '3-5', '6-10', '11+'],
  score: ['2', '3-5', '6-10', '11+'],
};

/** −log softmax(logits / t)[label], computed without forming probabilities (no underflow). */
export function caseLogLoss(logits: ArrayLike<number>, label: number, t: number): number {
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) max = Math.max(max, logits[i]! / t);
  let sum = 0;
  for (let i = 0; i < logits.length; i++) sum += Math.exp(logits[i]! / t - max);
  return max + Math.log(sum) - logits[label]! / t;
}

/** Mean negative log-likelihood of the labels at temperature `t`. */
export function meanLogLoss(rows: readonly LabelledLogits[], t: number): number {
  if (!rows.length) return NaN;
  return rows.reduce((s, r) => s + caseLogLoss(r.logits, r.label, t), 0) / rows.length;
}

/**
 * d/dβ of the summed log-loss at inverse temperature β: Σ (E_p[z] − z_label), p = softmax(β·z).
 * The log-loss is convex in β, so this is increasing in β and its root is the maximum-likelihood fit.
 */
function slope(rows: readonly LabelledLogits[], beta: number): number {
  let total = 0;
  for (const { logits, label } of rows) {
    let max = -Infinity;
    for (let i = 0; i < logits.length; i++) max = Math.max(max, beta * logits[i]!);
    let z = 0;
    let weighted = 0;
    for (let i = 0; i < logits.length; i++) {
      const e = Math.exp(beta * logits[i]! - max);
      z += e;
      weighted += e * logits[i]!;
    }
    total += weighted / z - logits[label]!;
  }
  return total;
}

/**
 * The maximum-likelihood temperature of `rows`, unclamped, within [FIT_T_MIN, FIT_T_MAX]: bisection on
 * log β for the root of the (increasing) slope. Logits that carry no signal about the labels, or
 * signal against them, fit at FIT_T_MAX (a flat answer); perfectly separated labels at FIT_T_MIN.
 */
export function fitTemperature(rows: readonly LabelledLogits[]): number {
  if (!rows.length) throw new Error('fitTemperature: no cases');
  let lo = Math.log(1 / FIT_T_MAX);
  let hi = Math.log(1 / FIT_T_MIN);
  if (slope(rows, Math.exp(lo)) >= 0) return FIT_T_MAX;
  if (slope(rows, Math.exp(hi)) <= 0) return FIT_T_MIN;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (slope(rows, Math.exp(mid)) < 0) lo = mid;
    else hi = mid;
  }
  return 1 / Math.exp((lo + hi) / 2);
}

/** One fitted temperature: where it applies, from how many cases, and what became of it. */
export interface FittedCell {
  type: QuestionType;
  bucket: OptionBucket;
  /** Set for a per-language override; absent for the checkpoint's default table. */
  language?: string;
  /** Fitting cases in this cell. */
  cases: number;
  /**
   * 'own': fitted on this cell's cases; 'type': too few, so the type's pooled fit (the language's
   * type within a language).
   */
  source: 'own' | 'type';
  /** The maximum-likelihood value before clamping (of the cell, or of the type it fell back to). */
  fitted: number;
  /** What is written: `fitted` clamped as the engine clamps, rounded. */
  value: number;
  /** The clamp moved the fit. */
  clamped: boolean;
  /** The temperature this cell had (the checkpoint's table, override or default, as the engine reads it). */
  previous: number;
}

/** A type (or a language's type) that was not fitted: fewer fitting cases than the minimum. */
export interface KeptType {
  type: QuestionType;
  language?: string;
  cases: number;
}

/**
 * A language's type with enough cases whose own row is no better than the default row on them: it gets
 * no override (an earlier one is removed), and the default applies.
 */
export interface DefaultLanguage {
  type: QuestionType;
  language: string;
  cases: number;
  /** 2 · (log-likelihood under the language's own row − under the default row). */
  lr: number;
  /** What the LR had to reach: χ² at 5 % with one degree per temperature the own row fits. */
  critical: number;
}

export interface FitOptions {
  /** Fewest fitting cases for a type, a language's type or a bucket to get its own temperature. */
  minCases: number;
  /** Also fit per-language overrides where a language has `minCases` cases of a type. */
  byLanguage: boolean;
  /** Only these types (default all). */
  types?: readonly QuestionType[];
}

export interface FitResult {
  calibration: Calibration;
  cells: FittedCell[];
  kept: KeptType[];
  /** By-language only: language × type rows that the test sent back to the default. */
  defaulted: DefaultLanguage[];
}

/** χ² critical values at 5 %, by degrees of freedom (a row fits at most 1 + 4 temperatures). */
const CHI2_95 = [NaN, 3.841, 5.991, 7.815, 9.488, 11.07];

/** The summed log-likelihood of `rows` under the temperatures `t(bucket)`. */
function logLikelihood(rows: readonly FitCase[], t: (bucket: OptionBucket) => number): number {
  return -rows.reduce((s, r) => s + caseLogLoss(r.logits, r.label, t(optionBucket(r.logits.length))), 0);
}

const round = (t: number) => Number(t.toFixed(DECIMALS));

function clone(c: Calibration): Calibration {
  return structuredClone(c);
}

/** Fits one type's row of a table from its cases; undefined when there are too few. */
function fitRow(
  rows: readonly FitCase[],
  type: QuestionType,
  minCases: number,
  previous: (bucket: OptionBucket) => number,
  language?: string,
): FittedCell[] | undefined {
  if (rows.length < minCases) return undefined;
  const pooled = fitTemperature(rows);
  return BUCKETS[type].map((bucket) => {
    const own = rows.filter((r) => optionBucket(r.logits.length) === bucket);
    const fitted = own.length >= minCases ? fitTemperature(own) : pooled;
    const value = round(clampTemperature(fitted));
    return {
      type,
      bucket,
      ...(language !== undefined ? { language } : {}),
      cases: own.length,
      source: own.length >= minCases ? 'own' : 'type',
      fitted,
      value,
      clamped: fitted < TEMPERATURE_MIN || fitted > TEMPERATURE_MAX,
      previous: previous(bucket),
    } satisfies FittedCell;
  });
}

/**
 * A new calibration fitted on `cases`: the checkpoint's own, with the default row of every type that
 * has enough cases replaced, and (byLanguage) the override row of every language × type that has enough
 * cases. Everything else stays as the checkpoint has it — including overrides of languages or types
 * the cases cannot judge. Language 'und' (nothing to detect) never gets an override.
 */
export function fitCalibration(current: Calibration, cases: readonly FitCase[], opts: FitOptions): FitResult {
  const next = clone(current);
  const cells: FittedCell[] = [];
  const kept: KeptType[] = [];
  const defaulted: DefaultLanguage[] = [];
  const types = opts.types ?? (['noul', 'choice', 'score'] as const);
  for (const type of types) {
    const rows = cases.filter((c) => c.type === type);
    if (!rows.length) continue;
    const row = fitRow(rows, type, opts.minCases, (bucket) => bucketTemperature(current, type, bucket));
    if (!row) {
      kept.push({ type, cases: rows.length });
      continue;
    }
    next.temperature[type] = Object.fromEntries(row.map((c) => [c.bucket, c.value]));
    cells.push(...row);
  }
  if (opts.byLanguage) {
    const languages = [...new Set(cases.map((c) => c.language))].filter((l) => l !== 'und').sort();
    for (const language of languages) {
      for (const type of types) {
        const rows = cases.filter((c) => c.type === type && c.language === language);
        if (!rows.length) continue;
        const row = fitRow(rows, type, opts.minCases, (bucket) => bucketTemperature(current, type, bucket, language), language);
        if (!row) {
          kept.push({ type, language, cases: rows.length });
          continue;
        }
        const own = Object.fromEntries(row.map((c) => [c.bucket, c.value])) as Record<OptionBucket, number>;
        const lr = 2 * (logLikelihood(rows, (b) => own[b]) - logLikelihood(rows, (b) => bucketTemperature(next, type, b)));
        // one degree of freedom per temperature the row fits: each own bucket, and the pooled one if a bucket took it
        const critical = CHI2_95[row.filter((c) => c.source === 'own').length + (row.some((c) => c.source === 'type') ? 1 : 0)]!;
        const table: TemperatureTable = (next.by_language ??= {})[language] ?? {};
        if (lr >= critical) {
          table[type] = own;
          cells.push(...row);
        } else {
          delete table[type];
          defaulted.push({ type, language, cases: rows.length, lr, critical });
        }
        if (Object.keys(table).length) next.by_language[language] = table;
        else delete next.by_language[language];
      }
    }
    if (next.by_language && !Object.keys(next.by_language).length) delete next.by_language;
  }
  return { calibration: next, cells, kept, defaulted };
}

