/**
 * The held-out split of `structqa models calibrate`: a fixed, seeded share of the cases of each question
 * type, never used for fitting, on which a fit is judged.
 *
 * A case's place is decided by a hash of the seed and its id, not by its position: the same cases give
 * the same split however they are listed, and two checkpoints calibrated on the same cases are judged on
 * the same held-out cases.
 */
import { createHash } from 'node:crypto';
import type { QuestionType } from './cases.js';

export const DEFAULT_HOLDOUT = 0.3;
export const DEFAULT_SEED = 29;

export interface Split<T> {
  fit: T[];
  holdout: T[];
}

function rank(seed: number, id: string): string {
  return createHash('sha256').update(`${seed}\0${id}`).digest('hex');
}

/** Per type, the round(fraction · n) cases of lowest hash are held out; both halves keep the input order. */
export function holdoutSplit<T extends { id: string; question: { type: QuestionType } }>(cases: readonly T[], fraction: number, seed: number): Split<T> {
  if (!(fraction > 0 && fraction < 1)) throw new Error(`the held-out share must be between 0 and 1, got ${fraction}`);
  const held = new Set<T>();
  const byType = new Map<QuestionType, T[]>();
  for (const c of cases) {
    const list = byType.get(c.question.type) ?? [];
    list.push(c);
    byType.set(c.question.type, list);
  }
  for (const list of byType.values()) {
    const ranked = list.map((c) => ({ c, r: rank(seed, c.id) })).sort((a, b) => (a.r < b.r ? -1 : a.r > b.r ? 1 : 0));
    ranked.slice(0, Math.round(fraction * list.length)).forEach(({ c }) => held.add(c));
  }
  return { fit: cases.filter((c) => !held.has(c)), holdout: cases.filter((c) => held.has(c)) };
}
