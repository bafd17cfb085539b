/**
 * Asking about a state that is too long for one call.
 *
 * The service never cuts a state: when it does not fit a question's room it answers 413
 * `state_too_long` with, per question, the room for state (in the checkpoint's tokens) and the state's
 * length `state_tokens`. `askInChunks` turns that into chunks that fit:
 *
 * 1. Send the call as is. If it is answered, that is the only chunk.
 * 2. On `state_too_long` (string state only): the chunk budget is the smallest room over all questions
 *    (every chunk is asked every question). Characters per token are estimated from the error as
 *    `state.length / state_tokens`; a chunk may hold `floor(room × chars/token × safety)` characters
 *    (`safety` default 0.9).
 * 3. Split on paragraph boundaries (blank lines); a paragraph still too long splits on sentences, a
 *    sentence on words, and a single over-long word on characters as the last resort. Pieces are
 *    packed greedily, so each chunk is a contiguous, trimmed substring of the state.
 * 4. Ask each chunk. A chunk that still gets `state_too_long` is re-split with its own error's numbers
 *    (at most `maxResplits` levels deep).
 * 5. Combine the answers (see `combineResponses`).
 *
 * Combination, per question, over the chunks' answers (each chunk weighs the same):
 * - noul: `max` (default): the statement holds if it holds in any chunk → the largest P(true).
 *   `mean`: the average P(true). `min`: it must hold in every chunk.
 * - choice: the average of each option's probability over chunks, renormalised to sum to 1; `choice` is
 *   the most probable option, `confidence` the reference formula (m − 1/n) / (1 − 1/n).
 * - score: the average of each level's probability over chunks, renormalised; `score` = Σ i·pᵢ of that
 *   average; `legend` from the first chunk; `confidence` the reference formula
 *   max(0, 1 − Σ pᵢ·|i − k| / D), k the modal level, D = (1/n)·Σ|i − (n−1)/2|.
 * - usage: summed over chunks; `model` is the first chunk's checkpoint, `models` all distinct ones.
 */

import type { CallOptions, Client } from './client.js';
import { StateTooLongError, StructqaError } from './errors.js';
import type {
  Answer,
  AnswerFor,
  ChoiceAnswer,
  NoulAnswer,
  Questions,
  ScoreAnswer,
  SystemOneRequest,
  SystemOneResponse,
  Usage,
} from './types.js';

export type NoulCombination = 'max' | 'mean' | 'min';

export interface CombineOptions {
  /** How noul answers combine over chunks. Default `max` (holds if any chunk holds). */
  noul?: NoulCombination;
}

export interface ChunkOptions extends CallOptions, CombineOptions {
  /** Fraction of the estimated room a chunk may fill (tokens do not add up exactly). Default 0.9. */
  safety?: number;
  /** How many times a chunk that still does not fit may be split again. Default 4. */
  maxResplits?: number;
  /** Chunks asked at once. Default 1 (one after another). */
  concurrency?: number;
}

export interface Chunk<Q extends Questions> {
  /** The chunk of state (a trimmed substring of the original). */
  text: string;
  response: SystemOneResponse<Q>;
}

export interface CombinedResponse<Q extends Questions> {
  /** The first chunk's checkpoint. */
  model: string;
  /** Every distinct checkpoint used. */
  models: string[];
  answers: { [K in keyof Q]: AnswerFor<Q[K]> };
  /** Summed over chunks. */
  usage: Usage;
}

export interface ChunkedResult<Q extends Questions> {
  chunks: Chunk<Q>[];
  combined: CombinedResponse<Q>;
}

// ---------------------------------------------------------------------------------------------------
// Splitting (pure)

/** Splitters from coarse to fine; each returns pieces whose concatenation is its input. */
const LEVELS: ((s: string) => string[])[] = [
  // paragraphs: split after a blank line (the separator stays with the paragraph before it)
  (s) => s.split(/(?<=\n[ \t]*\n\s*)(?!\s)/),
  // sentences: after . ! ? … (with closing quotes/brackets) and whitespace, or after CJK full stops
  (s) => s.split(/(?<=[.!?…]['"’”)\]]*\s+)(?!\s)|(?<=[。！？])/),
  // words
  (s) => s.split(/(?<=\s)(?!\s)/),
];

function splitAtLevel(text: string, maxChars: number, level: number): string[] {
  if (level >= LEVELS.length) {
    const out: string[] = [];
    const chars = Array.from(text.trim()); // code points, so no surrogate pair is cut
    for (let i = 0; i < chars.length; i += maxChars) out.push(chars.slice(i, i + maxChars).join(''));
    return out;
  }
  const out: string[] = [];
  let cur = '';
  const flush = () => {
    const t = cur.trim();
    if (t) out.push(t);
    cur = '';
  };
  for (const piece of LEVELS[level]!(text)) {
    if (piece.trim().length > maxChars) {
      flush();
      out.push(...splitAtLevel(piece, maxChars, level + 1));
      continue;
    }
    if ((cur + piece).trim().length > maxChars) flush();
    cur += piece;
  }
  flush();
  return out;
}

/**
 * Split `text` into trimmed chunks of at most `maxChars` characters: paragraphs first, then sentences,
 * then words, then characters. Chunks keep the original text between their ends.
 */
export function splitText(text: string, maxChars: number): string[] {
  if (!Number.isFinite(maxChars) || maxChars < 1) throw new RangeError(`maxChars must be ≥ 1, got ${maxChars}`);
  if (text.trim().length === 0) return [];
  if (text.trim().length <= maxChars) return [text.trim()];
  return splitAtLevel(text, Math.floor(maxChars), 0);
}

/**
 * Characters a chunk may hold: `room` tokens at the observed `chars / tokens` ratio, times `safety`;
 * always below `chars` so a split makes progress, and at least 1.
 */
export function chunkCharBudget(room: number, stateTokens: number, stateChars: number, safety = 0.9): number {
  if (!(stateTokens > 0) || !(stateChars > 0)) return Math.max(1, Math.floor(stateChars / 2));
  const estimate = Math.floor(room * (stateChars / stateTokens) * safety);
  return Math.max(1, Math.min(estimate, stateChars - 1));
}

// ---------------------------------------------------------------------------------------------------
// Combining (pure)

/** Reference choice confidence: (m − 1/n) / (1 − 1/n), 1 for a single option. */
export function choiceConfidence(probabilities: number[]): number {
  const n = probabilities.length;
  if (n <= 1) return 1;
  const m = Math.max(...probabilities);
  return Math.min(1, Math.max(0, (m - 1 / n) / (1 - 1 / n)));
}

/** Reference score confidence: max(0, 1 − Σ pᵢ·|i − k| / D), k = modal level, D = (1/n)·Σ|i − (n−1)/2|. */
export function scoreConfidence(probabilities: number[]): number {
  const n = probabilities.length;
  if (n <= 1) return 1;
  let k = 0;
  probabilities.forEach((p, i) => {
    if (p > probabilities[k]!) k = i;
  });
  const mid = (n - 1) / 2;
  let d = 0;
  for (let i = 0; i < n; i++) d += Math.abs(i - mid);
  d /= n;
  let spread = 0;
  probabilities.forEach((p, i) => (spread += p * Math.abs(i - k)));
  return Math.min(1, Math.max(0, 1 - spread / d));
}

function averageDistribution(maps: Readonly<Record<string, number>>[]): Record<string, number> {
  const keys: string[] = [];
  for (const m of maps) for (const k of Object.keys(m)) if (!keys.includes(k)) keys.push(k);
  const avg: Record<string, number> = {};
  for (const k of keys) avg[k] = maps.reduce((s, m) => s + (m[k] ?? 0), 0) / maps.length;
  const total = Object.values(avg).reduce((s, p) => s + p, 0);
  if (total > 0) for (const k of keys) avg[k] = avg[k]! / total;
  return avg;
}

/** Combine one question's answers over chunks (rules in the module comment). */
export function combineAnswers(answers: Answer[], options: CombineOptions = {}): Answer {
  const first = answers[0];
  if (!first) throw new StructqaError('No answers to combine.');
  if (answers.some((a) => a.type !== first.type)) throw new StructqaError('Answers of different types cannot be combined.');
  if (answers.length === 1) return first;
  switch (first.type) {
    case 'noul': {
      const ps = (answers as NoulAnswer[]).map((a) => a.noul);
      const how = options.noul ?? 'max';
      const p = how === 'max' ? Math.max(...ps) : how === 'min' ? Math.min(...ps) : ps.reduce((s, x) => s + x, 0) / ps.length;
      return { type: 'noul', noul: p };
    }
    case 'choice': {
      const probabilities = averageDistribution((answers as ChoiceAnswer[]).map((a) => a.probabilities));
      let best = Object.keys(probabilities)[0]!;
      for (const [k, p] of Object.entries(probabilities)) if (p > probabilities[best]!) best = k;
      return { type: 'choice', choice: best, probabilities, confidence: choiceConfidence(Object.values(probabilities)) };
    }
    case 'score': {
      const avg = averageDistribution((answers as ScoreAnswer[]).map((a) => a.probabilities));
      const levels = Object.keys(avg).map(Number).sort((a, b) => a - b);
      const probabilities: Record<string, number> = {};
      for (const l of levels) probabilities[String(l)] = avg[String(l)]!;
      const ps = levels.map((l) => probabilities[String(l)]!);
      const expected = levels.reduce((s, l, i) => s + l * ps[i]!, 0);
      return {
        type: 'score',
        score: expected,
        legend: (first as ScoreAnswer).legend,
        probabilities,
        confidence: scoreConfidence(ps),
      };
    }
  }
}

/** Combine whole responses over chunks: every question by `combineAnswers`, usage summed. */
export function combineResponses<Q extends Questions>(
  responses: SystemOneResponse<Q>[],
  options: CombineOptions = {},
): CombinedResponse<Q> {
  const first = responses[0];
  if (!first) throw new StructqaError('No responses to combine.');
  const answers = {} as Record<string, Answer>;
  for (const name of Object.keys(first.answers)) {
    answers[name] = combineAnswers(
      responses.map((r) => (r.answers as Record<string, Answer>)[name]!),
      options,
    );
  }
  const usage = { input_tokens: 0, output_tokens: 0, processed_tokens: 0 };
  for (const r of responses) {
    usage.input_tokens += r.usage?.input_tokens ?? 0;
    usage.output_tokens += r.usage?.output_tokens ?? 0;
    usage.processed_tokens += r.usage?.processed_tokens ?? 0;
  }
  return {
    model: first.model,
    models: [...new Set(responses.map((r) => r.model))],
    answers: answers as CombinedResponse<Q>['answers'],
    usage,
  };
}

// ---------------------------------------------------------------------------------------------------
// The helper

/** Chunks of `text` that should fit, from the numbers in a `state_too_long` error about `text`. */
export function planChunks(text: string, error: StateTooLongError, safety = 0.9): string[] {
  const room = error.minRoom;
  if (room === undefined || room <= 0) throw error; // a question leaves no room for any state
  const budget = chunkCharBudget(room, error.stateTokens ?? 0, text.length, safety);
  return splitText(text, budget);
}

async function mapPool<T, R>(items: T[], concurrency: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  return out;
}

/**
 * Ask the questions about `request.state`; when the state is too long, ask them about chunks of it
 * that fit and combine the answers. Returns every chunk with its response and the combination.
 * Non-string states and every other error are passed through. `deadlineMs` covers the whole helper.
 * A caller-given `idempotencyKey` is suffixed per chunk (`key:1`, `key:2.1`, …).
 */
export async function askInChunks<const Q extends Questions>(
  client: Client,
  request: SystemOneRequest<Q>,
  options: ChunkOptions = {},
): Promise<ChunkedResult<Q>> {
  const { noul, safety = 0.9, maxResplits = 4, concurrency = 1, deadlineMs, idempotencyKey, ...call } = options;
  const deadlineAt =
    deadlineMs !== undefined || call.deadlineAt !== undefined
      ? Math.min(deadlineMs !== undefined ? Date.now() + deadlineMs : Infinity, call.deadlineAt ?? Infinity)
      : undefined;
  const callOpts = (path: string): CallOptions => ({
    ...call,
    ...(deadlineAt !== undefined ? { deadlineAt } : {}),
    ...(idempotencyKey !== undefined ? { idempotencyKey: path ? `${idempotencyKey}:${path}` : idempotencyKey } : {}),
  });

  let firstError: StateTooLongError;
  try {
    const response = await client.systemOne(request, callOpts(''));
    return { chunks: [{ text: request.state as string, response }], combined: combineResponses([response], { noul }) };
  } catch (err) {
    if (!(err instanceof StateTooLongError) || typeof request.state !== 'string') throw err;
    firstError = err;
  }

  const ask = async (text: string, path: string, depth: number): Promise<Chunk<Q>[]> => {
    try {
      const response = await client.systemOne({ ...request, state: text }, callOpts(path));
      return [{ text, response }];
    } catch (err) {
      if (!(err instanceof StateTooLongError) || depth >= maxResplits) throw err;
      const parts = planChunks(text, err, safety);
      const nested = await mapPool(parts, 1, (part, i) => ask(part, `${path}.${i + 1}`, depth + 1));
      return nested.flat();
    }
  };

  const parts = planChunks(request.state, firstError, safety);
  const nested = await mapPool(parts, concurrency, (part, i) => ask(part, String(i + 1), 0));
  const chunks = nested.flat();
  return { chunks, combined: combineResponses(chunks.map((c) => c.response), { noul }) };
}
