/**
 * Labelled cases through the engine itself (no server): each case is one question, laid out and run
 * exactly as a call naming the checkpoint would be, and comes back with its raw logits (before any
 * temperature), the index of its expected option and the state's language as the router detects it
 * (the key of per-language temperatures).
 */
import { Value, ValueErrorType, type ValueError } from '@sinclair/typebox/value';
import { ServiceError } from '../errors.js';
import type { Engine } from '../engine/engine.js';
import type { Question } from '../engine/render.js';
import { detectLanguage } from '../routing/language.js';
import { ChoiceQuestion, NoulQuestion, ScoreQuestion } from '../schemas/systemone.js';
import type { EvalCase, QuestionType } from './cases.js';

/** Input the command must refuse (exit 2): the cases, not the checkpoint, are wrong. */
export class CaseInputError extends Error {}

export interface ScoredCase {
  case: EvalCase;
  type: QuestionType;
  /** Option keys in marker order (noul: false, true). */
  keys: string[];
  logits: number[];
  label: number;
  language: string;
}

export interface Skipped {
  id: string;
  /** The service's error code: state_too_long or processed_token_cap. */
  reason: string;
}

const SCHEMAS = { noul: NoulQuestion, choice: ChoiceQuestion, score: ScoreQuestion } as const;

const TYPE_ERRORS = new Set([ValueErrorType.Object, ValueErrorType.Array, ValueErrorType.String, ValueErrorType.Number, ValueErrorType.Boolean, ValueErrorType.Null]);

/**
 * A union's error carries each branch's errors: when exactly one branch takes the value's JSON type (a
 * choice's criteria given as a map, not laya's list), its first error says what is wrong, as the API's 422 does.
 */
function specific(error: ValueError): ValueError {
  if (error.type !== ValueErrorType.Union) return error;
  const typed = error.errors.map((branch) => [...branch]).filter((es) => !es.some((e) => e.path === error.path && TYPE_ERRORS.has(e.type)));
  return typed.length === 1 && typed[0]!.length > 0 ? specific(typed[0]![0]!) : error;
}

/** Throws a CaseInputError for the first case whose question the API would refuse (its schema). */
export function checkQuestions(cases: readonly EvalCase[]): void {
  for (const c of cases) {
    const error = Value.Errors(SCHEMAS[c.question.type], c.question).First();
    const first = error && specific(error);
    if (first) throw new CaseInputError(`${c.id}: the service would refuse this question (question${first.path.replace(/\//g, '.')}: ${first.message})`);
  }
}

/** What a case would send: its question, as a request's `questions.q`. */
function questionOf(c: EvalCase): Question {
  return c.question as Question;
}

/**
 * Runs every case through `engine`'s checkpoint `checkpoint`, `concurrency` in flight (so the batcher
 * batches them as it would a server's calls). A state that does not fit the checkpoint's window, or a
 * call over its processed-token cap, is skipped and listed, as a server would refuse it with 413; a
 * question the checkpoint refuses (422) or whose label is not among its options is a CaseInputError.
 */
export async function scoreCases(
  engine: Engine,
  checkpoint: string,
  cases: readonly EvalCase[],
  opts: { concurrency?: number; onProgress?: (done: number) => void } = {},
): Promise<{ scored: ScoredCase[]; skipped: Skipped[] }> {
  checkQuestions(cases);
  const results = new Array<ScoredCase | Skipped>(cases.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < cases.length) {
      const i = next++;
      results[i] = await scoreOne(engine, checkpoint, cases[i]!);
      opts.onProgress?.(++done);
    }
  };
  const limit = Math.max(1, Math.min(opts.concurrency ?? 32, cases.length));
  await Promise.all(Array.from({ length: limit }, worker));
  const scored: ScoredCase[] = [];
  const skipped: Skipped[] = [];
  for (const r of results) {
    if ('logits' in r) scored.push(r);
    else skipped.push(r);
  }
  return { scored, skipped };
}

async function scoreOne(engine: Engine, checkpoint: string, c: EvalCase): Promise<ScoredCase | Skipped> {
  let prepared;
  try {
    prepared = await engine.prepare(checkpoint, { q: questionOf(c) }, c.state);
  } catch (e) {
    if (e instanceof ServiceError && (e.code === 'state_too_long' || e.code === 'processed_token_cap')) return { id: c.id, reason: e.code };
    if (e instanceof ServiceError && e.status < 500) throw new CaseInputError(`${c.id}: ${checkpoint} cannot answer this question (${e.message})`);
    throw e;
  }
  const head = prepared.laidOut.heads[0]!;
  const label = head.keys.indexOf(String(c.expected));
  if (label < 0) throw new CaseInputError(`${c.id}: the expected answer ${JSON.stringify(c.expected)} is not among the options (${head.keys.join(', ')})`);
  const [logits] = await engine.logits(prepared);
  return { case: c, type: head.type, keys: head.keys, logits: Array.from(logits!), label, language: detectLanguage(c.state).language };
}
