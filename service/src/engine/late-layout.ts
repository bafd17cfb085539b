/**
 * The late-interaction row layout (Decima checkpoints imported by `structqa models import`): the same five
 * graph inputs as the marker layout, another row. One row per question:
 *
 *   <s> state text </s>  <s> option₀ text </s>  <s> option₁ text </s> …
 *   markers = where each option's segment starts; the graph encodes the state and each option apart
 *   (training/decima/convert.py), as Decima does.
 *
 * Texts are Decima's own (late-render.ts). Nothing is cut: a state row over `max_state_tokens` is
 * StateTooLong (413) with every question's room, an option Decima would cut at `max_choice_tokens`, or two
 * options that render alike (which Decima itself refuses), are 422. Accounting as the marker layout:
 * input = Σ row lengths, processed = rows × longest row, capped by the manifest's cap.
 */
import { InvalidRequest, ProcessedTokenCap, StateTooLong, type QuestionRoom } from '../errors.js';
import type { Checkpoint } from './checkpoint.js';
import { QTYPE_ID, type LaidOutCall, type QuestionHead, type Row } from './layout.js';
import type { LateInteraction } from './manifest.js';
import { lateChoiceTexts, lateQuestion, lateStateText } from './late-render.js';
import { optionKeys, renderContent, type Question } from './render.js';

/** One question's option segments (ids with `<s>` … `</s>`), independent of the state. */
interface LateHead {
  head: QuestionHead;
  text: string;
  segments: number[][];
}

const CACHE_SIZE = 2048;
const caches = new WeakMap<Checkpoint, Map<string, LateHead>>();

async function lateHead(checkpoint: Checkpoint, cfg: LateInteraction, name: string, q: Question): Promise<LateHead> {
  let cache = caches.get(checkpoint);
  if (!cache) caches.set(checkpoint, (cache = new Map()));
  const late = lateQuestion(name, q);
  const loc = ['body', 'questions', name, q.type, 'criteria'];
  if (!late) throw new InvalidRequest([{ loc, msg: `two options render to the same text for ${checkpoint.name}`, type: 'value_error' }]);
  const keys = optionKeys(q);
  // the answer keys too: two questions may read alike and be keyed apart ({"a: b": null} and {"a": "b"})
  const key = JSON.stringify([late.text, late.options, q.type, keys]);
  const hit = cache.get(key);
  if (hit) return hit;
  const { cls, sep } = checkpoint.tokenizer.special;
  const texts = await lateChoiceTexts(checkpoint.tokenizer, cfg, late.text, late.options);
  const segments = (await checkpoint.tokenizer.encode(texts)).map((ids) => [cls, ...ids, sep]);
  const long = segments.findIndex((s) => s.length > cfg.max_choice_tokens);
  if (long >= 0) {
    throw new InvalidRequest([{
      loc, type: 'option_too_long',
      msg: `option ${long} reads ${segments[long]!.length} tokens with its question; ${checkpoint.name} reads at most ${cfg.max_choice_tokens} per option and nothing is cut`,
    }]);
  }
  const built: LateHead = { head: { type: q.type, ids: [], markers: [], keys }, text: late.text, segments };
  cache.set(key, built);
  while (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return built;
}

/** Check a call against the state budget and the cap, then build one row per question. */
export async function layOutLate(checkpoint: Checkpoint, names: string[], questions: Question[], state: unknown): Promise<LaidOutCall> {
  const cfg = checkpoint.manifest.late_interaction!;
  const { cls, sep } = checkpoint.tokenizer.special;
  const heads = await Promise.all(questions.map((q, i) => lateHead(checkpoint, cfg, names[i]!, q)));
  const stateText = renderContent(state);
  const stateRows = await checkpoint.tokenizer.encode(
    cfg.question_in_state ? heads.map((h) => lateStateText(cfg, stateText, h.text)) : [lateStateText(cfg, stateText, '')],
  );
  const [bare] = await checkpoint.tokenizer.encode([stateText]);
  const rooms: [string, QuestionRoom][] = [];
  let tooLong = false;
  const rows: Row[] = heads.map((h, i) => {
    const stateIds = stateRows[cfg.question_in_state ? i : 0]!;
    // what the question and prefix add to the state's own tokens; the room is the rest of the budget
    const overflow = Math.max(0, stateIds.length + 2 - cfg.max_state_tokens);
    rooms.push([names[i]!, { room: Math.max(0, bare!.length - (stateIds.length + 2 - cfg.max_state_tokens)), overflow }]);
    if (overflow > 0) tooLong = true;
    const parts = [cls, ...stateIds, sep];
    const markers: number[] = [];
    for (const segment of h.segments) {
      markers.push(parts.length);
      parts.push(...segment);
    }
    return { ids: Int32Array.from(parts), markers, qtype: QTYPE_ID[questions[i]!.type] };
  });
  if (tooLong) throw new StateTooLong(checkpoint.name, bare!.length, Object.fromEntries(rooms));
  const longest = Math.max(0, ...rows.map((r) => r.ids.length));
  const processedTokens = rows.length * longest;
  if (processedTokens > checkpoint.manifest.processed_token_cap) {
    throw new ProcessedTokenCap(checkpoint.name, processedTokens, checkpoint.manifest.processed_token_cap);
  }
  return {
    rows,
    rowsPerQuestion: rows.map(() => 1),
    heads: heads.map((h) => h.head),
    stateTokens: bare!.length,
    inputTokens: rows.reduce((n, r) => n + r.ids.length, 0),
    processedTokens,
  };
}
