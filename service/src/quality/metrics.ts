/**
 * Answer-quality metrics for `npm run eval`: pure functions, no I/O (unit-tested in
 * test/metrics.test.ts). Definitions are repeated in docs/quality.md.
 */

/** Fraction of `true` in `xs`; NaN for an empty list. */
export function accuracy(correct: readonly boolean[]): number {
  if (correct.length === 0) return NaN;
  return correct.filter(Boolean).length / correct.length;
}

/** Micro accuracy: every case weighs the same. */
export function microAccuracy(items: readonly { correct: boolean }[]): number {
  return accuracy(items.map((i) => i.correct));
}

/** Macro accuracy: accuracy of each group (task), then the unweighted mean over groups. */
export function macroAccuracy(items: readonly { group: string; correct: boolean }[]): number {
  const groups = groupBy(items, (i) => i.group);
  if (groups.size === 0) return NaN;
  let sum = 0;
  for (const members of groups.values()) sum += accuracy(members.map((m) => m.correct));
  return sum / groups.size;
}

export function groupBy<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}

/**
 * ROC AUC of `scores` for binary `labels` (true = positive): the probability that a random positive
 * scores above a random negative, ties counting one half (Mann–Whitney U with mid-ranks).
 * NaN when either class is absent.
 */
export function rocAuc(scores: readonly number[], labels: readonly boolean[]): number {
  if (scores.length !== labels.length) throw new Error('rocAuc: scores and labels differ in length');
  const n = scores.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => scores[a]! - scores[b]!);
  const rank = new Array<number>(n);
  for (let i = 0; i < n; ) {
    let j = i;
    while (j + 1 < n && scores[order[j + 1]!] === scores[order[i]!]) j++;
    const mid = (i + j) / 2 + 1; // 1-based mid-rank of the tie block
    for (let k = i; k <= j; k++) rank[order[k]!] = mid;
    i = j + 1;
  }
  let positives = 0;
  let rankSum = 0;
  for (let i = 0; i < n; i++) {
    if (labels[i]) {
      positives++;
      rankSum += rank[i]!;
    }
  }
  const negatives = n - positives;
  if (positives === 0 || negatives === 0) return NaN;
  return (rankSum - (positives * (positives + 1)) / 2) / (positives * negatives);
}

export interface ReliabilityBin {
  /** Bin covers [lo, hi); the last bin also includes 1. */
  lo: number;
  hi: number;
  count: number;
  /** Mean confidence of the cases in the bin (NaN when empty). */
  confidence: number;
  /** Fraction correct in the bin (NaN when empty). */
  accuracy: number;
}

/**
 * Equal-width reliability bins over [0, 1]: case i goes to bin min(floor(c·B), B−1).
 */
export function reliabilityBins(confidences: readonly number[], correct: readonly boolean[], bins = 15): ReliabilityBin[] {
  if (confidences.length !== correct.length) throw new Error('reliabilityBins: lengths differ');
  const count = new Array<number>(bins).fill(0);
  const confSum = new Array<number>(bins).fill(0);
  const hits = new Array<number>(bins).fill(0);
  confidences.forEach((c, i) => {
    const b = Math.min(bins - 1, Math.max(0, Math.floor(c * bins)));
    count[b]!++;
    confSum[b]! += c;
    if (correct[i]) hits[b]!++;
  });
  return count.map((n, b) => ({
    lo: b / bins,
    hi: (b + 1) / bins,
    count: n,
    confidence: n ? confSum[b]! / n : NaN,
    accuracy: n ? hits[b]! / n : NaN,
  }));
}

/**
 * Expected calibration error: Σ_b (n_b / N) · |accuracy_b − mean confidence_b| over equal-width bins
 * (15 by default), where the confidence is that of the predicted answer. NaN for no cases.
 */
export function ece(confidences: readonly number[], correct: readonly boolean[], bins = 15): number {
  const n = confidences.length;
  if (n === 0) return NaN;
  let sum = 0;
  for (const b of reliabilityBins(confidences, correct, bins)) {
    if (b.count) sum += (b.count / n) * Math.abs(b.accuracy - b.confidence);
  }
  return sum;
}

/**
 * Multi-class Brier score of one case: Σ_k (p_k − y_k)² over all options, y one-hot on `expected`
 * (range 0..2). An option missing from `probabilities` counts as p = 0.
 */
export function brierCase(probabilities: Readonly<Record<string, number>>, expected: string): number {
  let sum = 0;
  for (const [k, p] of Object.entries(probabilities)) sum += (p - (k === expected ? 1 : 0)) ** 2;
  if (!(expected in probabilities)) sum += 1;
  return sum;
}

/** A probability the server rounded to 0 counts as this in log-loss (so one case cannot make it infinite). */
export const LOG_LOSS_FLOOR = 1e-15;

/** −ln p(expected) of one case, p floored at LOG_LOSS_FLOOR; an option missing from `probabilities` has p = 0. */
export function logLossCase(probabilities: Readonly<Record<string, number>>, expected: string): number {
  return -Math.log(Math.max(LOG_LOSS_FLOOR, probabilities[expected] ?? 0));
}

/** Mean multi-class Brier score over cases. */
export function brier(cases: readonly { probabilities: Readonly<Record<string, number>>; expected: string }[]): number {
  if (cases.length === 0) return NaN;
  return mean(cases.map((c) => brierCase(c.probabilities, c.expected)));
}

export function mean(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** Nearest-rank percentile (p in 0..100) of xs; NaN for an empty list. */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * s.length);
  return s[Math.min(s.length - 1, Math.max(0, rank - 1))]!;
}

/** Key with the largest value (first one on ties, in insertion order). */
export function argmax(probabilities: Readonly<Record<string, number>>): string {
  let best: string | undefined;
  let bestP = -Infinity;
  for (const [k, p] of Object.entries(probabilities)) {
    if (p > bestP) {
      best = k;
      bestP = p;
    }
  }
  if (best === undefined) throw new Error('argmax of no options');
  return best;
}
