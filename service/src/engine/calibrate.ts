/**
 * From marker logits to answers: temperature per question type and option-count bucket (clamped to
 * [0.5, 5], per-language overrides), softmax, and the confidence formulas of the reference (§3.2).
 */
import { listOptions, type ChoiceValue, type Label } from './labels.js';
import type { Manifest, OptionBucket, QuestionType } from './manifest.js';
import { renderContent, type Content } from './render.js';
import { sourceShape } from './source-json.js';

export const TEMPERATURE_MIN = 0.5;
export const TEMPERATURE_MAX = 5;

export function optionBucket(options: number): OptionBucket {
  if (options <= 2) return '2';
  if (options <= 5) return '3-5';
  if (options <= 10) return '6-10';
  return '11+';
}

export function clampTemperature(t: unknown): number {
  if (typeof t !== 'number' || !Number.isFinite(t)) return 1;
  return Math.min(TEMPERATURE_MAX, Math.max(TEMPERATURE_MIN, t));
}

export function temperatureFor(
  calibration: Manifest['calibration'],
  type: QuestionType,
  options: number,
  language?: string,
): number {
  return bucketTemperature(calibration, type, optionBucket(options), language);
}

/** The temperature of one cell of the table: the language's override, else the default, else 1; clamped. */
export function bucketTemperature(calibration: Manifest['calibration'], type: QuestionType, bucket: OptionBucket, language?: string): number {
  const override = language ? calibration.by_language?.[language]?.[type]?.[bucket] : undefined;
  return clampTemperature(override ?? calibration.temperature[type]?.[bucket] ?? 1);
}

/** Numerically stable softmax of logits / t. */
export function softmax(logits: ArrayLike<number>, t = 1): number[] {
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) max = Math.max(max, logits[i]! / t);
  const exps = Array.from(logits, (l) => Math.exp(l / t - max));
  const sum = exps.reduce((a, b) => a + b, 0);
  return exps.map((e) => e / sum);
}

/** Choice: (m − 1/n) / (1 − 1/n) for top probability m over n options. */
export function choiceConfidence(p: number[]): number {
  const n = p.length;
  if (n <= 1) return 1;
  const m = Math.max(...p);
  return clamp01((m - 1 / n) / (1 - 1 / n));
}

/** Score: max(0, 1 − Σ pᵢ·|i − k| / D), k = mode, D = (1/n)·Σ|i − (n−1)/2|. */
export function scoreConfidence(p: number[]): number {
  const n = p.length;
  if (n <= 1) return 1;
  const k = argmax(p);
  let spread = 0;
  let d = 0;
  for (let i = 0; i < n; i++) {
    spread += p[i]! * Math.abs(i - k);
    d += Math.abs(i - (n - 1) / 2);
  }
  d /= n;
  return clamp01(1 - spread / d);
}

export function argmax(p: ArrayLike<number>): number {
  let best = 0;
  for (let i = 1; i < p.length; i++) if (p[i]! > p[best]!) best = i;
  return best;
}

function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}

export type Answer =
  | { type: 'noul'; noul: number }
  | { type: 'choice'; choice: ChoiceValue; probabilities: Record<string, number>; confidence: number }
  | { type: 'score'; score: number; legend: Record<string, Content>; probabilities: Record<string, number>; confidence: number };

/** Shape one question's probabilities (in marker order) as its answer. */
export function toAnswer(type: QuestionType, keys: string[], p: number[], criteria: unknown): Answer {
  // Option names are data ("__proto__" included): Object.fromEntries makes own properties, where
  // `probabilities[key] = …` would set the prototype for "__proto__".
  const probabilities: Record<string, number> = Object.fromEntries(keys.map((key, i) => [key, p[i]!]));
  switch (type) {
    case 'noul':
      return { type: 'noul', noul: p[1]! };
    case 'choice': {
      // laya's list form answers with the label itself (3, true, "a"), as laya does (engine/labels.ts)
      const choice = Array.isArray(criteria) ? listOptions(criteria as Label[]).values[argmax(p)]! : keys[argmax(p)]!;
      return { type: 'choice', choice, probabilities, confidence: choiceConfidence(p) };
    }
    case 'score': {
      const legend: Record<string, Content> = {}; // keys are "0".."n-1", never a request name
      const numbers = sourceShape(criteria as object)?.numbers;
      // Never null: the official Python SDK rejects a null legend value (a level given as null has no
      // description, so its legend is the empty string; docs/conformance.md). A number or boolean level
      // (laya's form) reads as laya's legend writes it: its text ("3", "3.0", "true").
      (criteria as Content[]).forEach((level, i) => {
        legend[String(i)] = typeof level === 'number' || typeof level === 'boolean' ? renderContent(level, numbers?.get(String(i))) : level ?? '';
      });
      const score = p.reduce((sum, pi, i) => sum + i * pi, 0);
      return { type: 'score', score, legend, probabilities, confidence: scoreConfidence(p) };
    }
  }
}
