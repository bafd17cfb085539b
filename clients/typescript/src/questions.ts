/** Question builders and the client-side checks made before sending. */

import { StructqaError } from './errors.js';
import type { ChoiceCriteria, ChoiceQuestion, Content, NoulQuestion, Questions, ScoreCriteria, ScoreQuestion } from './types.js';

/** A yes/no question; the answer's `noul` is P(true). */
export function noul(instructions: Content = null, criteria?: { true?: Content; false?: Content }): NoulQuestion {
  return criteria === undefined ? { type: 'noul', instructions } : { type: 'noul', instructions, criteria };
}

/** Pick one of the named options (option name → description, or null). */
export function choice<const C extends ChoiceCriteria>(instructions: Content, criteria: C): ChoiceQuestion<C> {
  if (Array.isArray(criteria) || typeof criteria !== 'object' || criteria === null) {
    throw new StructqaError('Choice criteria must be a map of option names to descriptions, not a list.');
  }
  return { type: 'choice', instructions, criteria };
}

/** Rate on ordered levels (index = level, low → high; 2..10 levels). */
export function score<const S extends ScoreCriteria>(instructions: Content, criteria: S): ScoreQuestion<S> {
  if (!Array.isArray(criteria)) {
    throw new StructqaError('Score criteria must be a list of level descriptions, low to high, not a map.');
  }
  return { type: 'score', instructions, criteria };
}

/** Checks that need no server: at least one question; score criteria a list of at least two. */
export function validateQuestions(questions: Questions): void {
  if (typeof questions !== 'object' || questions === null || Object.keys(questions).length === 0) {
    throw new StructqaError('At least one question is required.');
  }
  for (const [name, q] of Object.entries(questions)) {
    if (q.type === 'score' && (!Array.isArray(q.criteria) || q.criteria.length < 2)) {
      throw new StructqaError(`Score question "${name}" needs a list of at least two levels.`);
    }
  }
}
