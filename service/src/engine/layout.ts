/**
 * The marker layout and its exact token accounting (checkpoints.md; contract §5). Nothing is cut:
 *
 *   [CLS] "<type> question: <instructions>" [SEP] [MASK] opt₀ [MASK] opt₁ … [SEP] <state> [SEP]
 *   └──────────────────────── head (head-and-options) ───────────────────┘
 *
 *   room      = window − 1 − len(head)          (the final [SEP] is the 1)
 *   sequence  = len(head) + len(state) + 1
 *   overflow  = max(0, sequence − window)
 *   processed = rows × longest sequence         (must stay within the checkpoint's cap)
 *
 * A choice question whose head and options do not fit one sequence beside the state is split: each
 * row holds the prefix ([CLS] head [SEP]), one contiguous group of options, [SEP], the state, [SEP];
 * the engine scores every option in its row and normalises over all of them together. Its room is
 * its tightest row's (window − 2 − len(prefix) − the widest group's option tokens); when even one
 * option per row cannot hold the state, the room reported is that of the longest option alone.
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

/** One model row: a question's head (or its prefix and one group of its options), the state and the closing separator. */
export interface Row {
  ids: Int32Array;
  markers: number[];
  qtype: number;
}

export interface LaidOutCall {
  rows: Row[];
  /** Rows of each question, in question order (a choice question split over groups has several). */
  rowsPerQuestion: number[];
  heads: QuestionHead[];
  stateTokens: number;
  /** Σ sequence lengths: what the model reads. */
  inputTokens: number;
  /** rows × longest sequence: what is charged (one row per question unless its options were split). */
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

/** The pieces of a cached head: the prefix up to the first marker, each option's segment, the closing [SEP]. */
function segments(head: QuestionHead): { prefix: number[]; options: number[][] } {
  const first = head.markers[0] ?? head.ids.length - 1;
  const options = head.markers.map((m, k) => head.ids.slice(m, head.markers[k + 1] ?? head.ids.length - 1));
  return { prefix: head.ids.slice(0, first), options };
}

/** Contiguous groups, each filled in order up to `capacity` option tokens (every option fits alone). */
function fill(lengths: number[], capacity: number): number[][] {
  const groups: number[][] = [];
  let current: number[] = [];
  let used = 0;
  lengths.forEach((length, k) => {
    if (current.length > 0 && used + length > capacity) {
      groups.push(current);
      current = [];
      used = 0;
    }
    current.push(k);
    used += length;
  });
  if (current.length > 0) groups.push(current);
  return groups;
}

/**
 * Split a question's options into contiguous groups that fit beside the state: as few rows as the
 * state allows, then the options spread evenly over them (the smallest per-row budget that still needs
 * no more rows), so the longest row — which sets the processed cost — is as short as it can be.
 */
export function groupOptions(lengths: number[], capacity: number): number[][] {
  const rows = fill(lengths, capacity).length;
  let low = Math.max(...lengths);
  let high = capacity;
  while (low < high) {
    const mid = Math.floor((low + high) / 2);
    if (fill(lengths, mid).length <= rows) high = mid;
    else low = mid + 1;
  }
  return fill(lengths, low);
}

/** One question's option groups (one row each) for a state of `stateLength` tokens, and its room. */
interface QuestionLayout {
  /** Option indices per row; undefined when the state cannot fit even with every option alone. */
  groups: number[][] | undefined;
  /** State tokens its tightest row holds (when it cannot fit: the most any grouping would hold); may be negative. */
  room: number;
}

function planQuestion(head: QuestionHead, stateLength: number, window: number): QuestionLayout {
  const single = { groups: [head.markers.map((_, k) => k)], room: window - 1 - head.ids.length };
  if (head.ids.length + stateLength + 1 <= window) return single;
  // Only choice questions are split (contract §5): noul has two options and score at most ten.
  if (head.type !== 'choice') return { groups: undefined, room: single.room };
  const { prefix, options } = segments(head);
  const lengths = options.map((o) => o.length);
  const longest = Math.max(...lengths);
  const capacity = window - 1 - stateLength - prefix.length - 1;
  if (longest > capacity) return { groups: undefined, room: window - 2 - prefix.length - longest };
  const groups = groupOptions(lengths, capacity);
  return { groups, room: groupRoom(head, groups, window) };
}

/** The room beside a question's tightest row when its options are grouped so. */
function groupRoom(head: QuestionHead, groups: number[][], window: number): number {
  const { prefix, options } = segments(head);
  const widest = Math.max(...groups.map((g) => g.reduce((sum, k) => sum + options[k]!.length, 0)));
  return window - 2 - prefix.length - widest;
}

function buildRow(head: QuestionHead, group: number[], stateIds: number[], sep: number): Row {
  const { prefix, options } = segments(head);
  const parts: number[] = [...prefix];
  const markers: number[] = [];
  for (const k of group) {
    markers.push(parts.length);
    parts.push(...options[k]!);
  }
  parts.push(sep);
  const ids = new Int32Array(parts.length + stateIds.length + 1);
  ids.set(parts, 0);
  ids.set(stateIds, parts.length);
  ids[ids.length - 1] = sep;
  return { ids, markers, qtype: QTYPE_ID[head.type] };
}

/**
 * Check the call against the window and the cap, then build its rows: one per question, or, for a
 * choice question whose options do not fit one sequence beside the state, one per group of options
 * (contract §5). Throws StateTooLong (room and overflow for every question) or ProcessedTokenCap.
 * `groupsOf` may impose a grouping per question (tests and the grouping tolerance measurement).
 */
export function layOut(
  names: string[],
  heads: QuestionHead[],
  stateIds: number[],
  sep: number,
  limits: Limits,
  groupsOf?: (index: number) => number[][] | undefined,
): LaidOutCall {
  // Question names are data ("__proto__" too): entries, then Object.fromEntries (own properties, never a prototype).
  const rooms: [string, QuestionRoom][] = [];
  let tooLong = false;
  const plans = heads.map((head, i) => {
    const imposed = groupsOf?.(i);
    const plan = imposed ? { groups: imposed, room: groupRoom(head, imposed, limits.window) } : planQuestion(head, stateIds.length, limits.window);
    // A room below zero (a head longer than the window) is reported as 0, its overflow in full.
    const overflow = Math.max(0, stateIds.length - plan.room);
    rooms.push([names[i]!, { room: Math.max(0, plan.room), overflow }]);
    if (!plan.groups || overflow > 0) tooLong = true;
    return plan;
  });
  if (tooLong) throw new StateTooLong(limits.model, stateIds.length, Object.fromEntries(rooms));
  const rows: Row[] = [];
  const rowsPerQuestion = plans.map((plan, i) => {
    for (const group of plan.groups!) rows.push(buildRow(heads[i]!, group, stateIds, sep));
    return plan.groups!.length;
  });
  const longest = Math.max(0, ...rows.map((r) => r.ids.length));
  const inputTokens = rows.reduce((sum, r) => sum + r.ids.length, 0);
  const processedTokens = rows.length * longest;
  if (processedTokens > limits.processedTokenCap) {
    throw new ProcessedTokenCap(limits.model, processedTokens, limits.processedTokenCap);
  }
  return { rows, rowsPerQuestion, heads, stateTokens: stateIds.length, inputTokens, processedTokens };
}

