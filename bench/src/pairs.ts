/**
 * Contrastive noul pairs: two cases of one task whose states are nearly the same text (word-3-gram
 * Jaccard ≥ threshold) and whose expected answers differ — the same text with one detail changed.
 * The share of pairs where the `true` case gets the higher p measures whether a model reads the
 * detail rather than the topic (0.5: it does not). The hand-written set is written in such pairs.
 */
import type { EvalCase } from '../../service/src/quality/cases.js';
import { groupBy } from '../../service/src/quality/metrics.js';

export const PAIR_JACCARD = 0.6;

function shingles(state: unknown): Set<string> {
  const text = typeof state === 'string' ? state : JSON.stringify(state);
  const w = text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  const out = new Set<string>();
  for (let i = 0; i + 3 <= w.length; i++) out.add(`${w[i]} ${w[i + 1]} ${w[i + 2]}`);
  if (w.length < 3 && w.length) out.add(w.join(' '));
  return out;
}

function jaccard(a: Set<string>, b: Set<string>): number {
  let inter = 0;
  for (const x of a) if (b.has(x)) inter++;
  const union = a.size + b.size - inter;
  return union ? inter / union : 0;
}

/** [id of the case expected true, id of its near-twin expected false], every such pair once. */
export function contrastivePairs(cases: readonly EvalCase[], threshold = PAIR_JACCARD): [string, string][] {
  const out: [string, string][] = [];
  const nouls = cases.filter((c) => c.question.type === 'noul');
  for (const members of groupBy(nouls, (c) => c.task).values()) {
    const sh = members.map((c) => shingles(c.state));
    members.forEach((t, i) => {
      if (t.expected !== true) return;
      members.forEach((f, j) => {
        if (f.expected === false && jaccard(sh[i]!, sh[j]!) >= threshold) out.push([t.id, f.id]);
      });
    });
  }
  return out;
}
