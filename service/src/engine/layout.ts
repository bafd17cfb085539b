/**
 * The marker layout and its exact token accounting (checkpoints.md; contract §5). Nothing is cut:
 *
 *   [CLS] "<type> question: <instructions>" [SEP] [MASK] opt₀ [MASK] opt₁ … [SEP] <state> [SEP]
 *   └──────────────────────── head (head-and-options) ───────────────────┘
 *
 *   room      = window − 1 − len(head)          (the final [SEP] is the 1)
 *   sequence  = len(head) + len(state) + 1
 *   overflow  = max(0, sequence − window)
 *   processed = questions × longest sequence    (must stay within the checkpoint's cap)
 */
import { ProcessedTokenCap, StateTooLong, type QuestionRoom } from '../errors.js';
import type { QuestionType } from './manifest.js';
import { optionKeys, renderContent, renderHead, renderOptions, type Question } from './render.js';
import type { TextTokenizer } from './tokenizer.js';

export const QTYPE_ID: Record<QuestionType, number> = { choice: 0, score: 1, noul: 2 };

/** One question's head-and-options part, independent of the state (so it can be cached). */
export interface QuestionHead {
  type: QuestionType;
  ids: number[];
  /** Index of each option's mask token within `ids`. */
  markers: number[];
  /** Answer keys in marker order. */
  keys: string[];
}

/** One model row: a question's head, the state and the closing separator. */
export interface Row {
  ids: Int32Array;
  markers: number[];
  qtype: number;
}

export interface LaidOutCall {
  rows: Row[];
  heads: QuestionHead[];
  stateTokens: number;
  /** Σ sequence lengths: what the model reads. */
  inputTokens: number;
  /** questions × longest sequence: what is charged. */
  processedTokens: number;
}

function scrub(text: string, maskText: string): string {
  return maskText ? text.split(maskText).join(' ') : text;
}

/** Tokenize the head and options of several questions in one batch call. */
export async function buildHeads(tokenizer: TextTokenizer, questions: Question[]): Promise<QuestionHead[]> {
  const m = tokenizer.maskText;
  const texts: string[] = [];
  const options = questions.map((q) => renderOptions(q));
  questions.forEach((q, i) => {
    texts.push(scrub(renderHead(q), m));
    for (const option of options[i]!) texts.push(scrub(' ' + option, m));
  });
  const encoded = await tokenizer.encode(texts);
  const { cls, sep, mask } = tokenizer.special;
  let cursor = 0;
  return questions.map((q, i) => {
    const ids = [cls, ...encoded[cursor++]!, sep];
    const markers: number[] = [];
    for (let k = 0; k < options[i]!.length; k++) {
      markers.push(ids.length);
      ids.push(mask, ...encoded[cursor++]!);
    }
    ids.push(sep);
    return { type: q.type, ids, markers, keys: optionKeys(q) };
  });
}

export async function tokenizeState(tokenizer: TextTokenizer, state: unknown): Promise<number[]> {
  const [ids] = await tokenizer.encode([scrub(renderContent(state), tokenizer.maskText)]);
  return ids!;
}

export interface Limits {
  model: string;
  window: number;
  processedTokenCap: number;
}

/**
 * Check the call against the window and the cap, then build its rows.
 * Throws StateTooLong (with room and overflow for every question) or ProcessedTokenCap.
 */
export function layOut(names: string[], heads: QuestionHead[], stateIds: number[], sep: number, limits: Limits): LaidOutCall {
  // Question names are data ("__proto__" too): entries, then Object.fromEntries (own properties, never a prototype).
  const rooms: [string, QuestionRoom][] = [];
  let tooLong = false;
  let longest = 0;
  let inputTokens = 0;
  heads.forEach((head, i) => {
    const sequence = head.ids.length + stateIds.length + 1;
    const room = Math.max(0, limits.window - 1 - head.ids.length);
    const overflow = Math.max(0, sequence - limits.window);
    rooms.push([names[i]!, { room, overflow }]);
    if (overflow > 0) tooLong = true;
    longest = Math.max(longest, sequence);
    inputTokens += sequence;
  });
  if (tooLong) throw new StateTooLong(limits.model, stateIds.length, Object.fromEntries(rooms));
  const processedTokens = heads.length * longest;
  if (processedTokens > limits.processedTokenCap) {
    throw new ProcessedTokenCap(limits.model, processedTokens, limits.processedTokenCap);
  }
  const rows = heads.map((head) => {
    const ids = new Int32Array(head.ids.length + stateIds.length + 1);
    ids.set(head.ids, 0);
    ids.set(stateIds, head.ids.length);
    ids[ids.length - 1] = sep;
    return { ids, markers: head.markers, qtype: QTYPE_ID[head.type] };
  });
  return { rows, heads, stateTokens: stateIds.length, inputTokens, processedTokens };
}
