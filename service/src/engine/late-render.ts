/**
 * The text a late-interaction checkpoint (Decima, `decima-ai` 2.4.0) reads for a request: byte for byte
 * what the package's own System One mapping builds (decima/systemone.py `to_question`, decima/model.py
 * `state_text` / `choice_text`, decima/render.py `choice_texts`, decima/normalize.py), lang "en" as its
 * server uses. Values that are not strings are `json.dumps(v, ensure_ascii=False)` (render.ts's
 * pythonJson, client key order and Python number forms included).
 *
 *   state row   <prefix_s> normalize("<question>\n<state>")     (question_in_state; else the state alone)
 *   option row  <prefix_c> normalize("<question> <option>")     (question_in_choices; else the option alone)
 *
 * Options: choice "label: description" (the label alone when the description is blank); score the level
 * descriptions; noul ["no", "yes"] (Decima's ["yes", "no"] in the engine's [false, true] key order; its
 * scores are per option, so the order changes nothing), the question followed by "True if: …" /
 * "False if: …" when criteria give them. A question without instructions reads its own name.
 */
import { listOptions, type Label } from './labels.js';
import type { LateInteraction } from './manifest.js';
import { orderedKeys, pythonJson, type Content, type Question } from './render.js';
import { sourceShape } from './source-json.js';
import type { TextTokenizer } from './tokenizer.js';

// Python's str.isspace() characters: what str.strip() and str.split() cut (JavaScript's trim differs:
// it also cuts U+FEFF and keeps U+001C–U+001F and U+0085).
const PY_SPACE = '\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const PY_STRIP = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, 'g');
const PY_SPLIT = new RegExp(`[${PY_SPACE}]+`);

/** Python's `str.strip()`. */
export function pyStrip(text: string): string {
  return text.replace(PY_STRIP, '');
}

/** Python's `str.split()` (no argument): runs of whitespace, no empty ends. */
export function pySplit(text: string): string[] {
  const s = pyStrip(text);
  return s === '' ? [] : s.split(PY_SPLIT);
}

/** decima.normalize.normalize(text, "en"): NFC, then strip. */
export function normalizeEn(text: string): string {
  return pyStrip(text.normalize('NFC'));
}

/** systemone._text: None → "", strings as they are, anything else json.dumps. */
function pyText(value: unknown, source?: string): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : pythonJson(value, source);
}

/** One question as Decima's System One mapping makes it. */
export interface LateQuestion {
  /** The question text (instructions, or the name when there are none; noul criteria appended). */
  text: string;
  /** Option texts in the engine's key order. */
  options: string[];
  /** Decima's head: 0 choose, 1 score (ordinal), 2 verify. */
  qtype: number;
}

/** to_question(name, spec): the text and options Decima builds; `undefined` where two options render alike (Decima refuses those). */
export function lateQuestion(name: string, q: Question): LateQuestion | undefined {
  const text = q.instructions === undefined || q.instructions === null ? name : pyText(q.instructions);
  switch (q.type) {
    case 'choice': {
      const c = q.criteria as Record<string, Content>;
      const numbers = sourceShape(c)?.numbers;
      // laya's list form: Decima reads each label as str(label), without a description
      const options = Array.isArray(c)
        ? listOptions(c as Label[]).texts
        : orderedKeys(c).map((k) => {
            const d = pyText(c[k], numbers?.get(k));
            return pyStrip(d) ? `${k}: ${d}` : k;
          });
      return new Set(options).size < options.length ? undefined : { text, options, qtype: 0 };
    }
    case 'score': {
      const levels = q.criteria as Content[];
      const numbers = sourceShape(levels)?.numbers;
      return { text, options: levels.map((v, i) => pyText(v, numbers?.get(String(i)))), qtype: 1 };
    }
    case 'noul': {
      let full = text;
      const c = q.criteria;
      if (c && typeof c === 'object' && !Array.isArray(c)) {
        const o = c as Record<string, Content>;
        const numbers = sourceShape(o)?.numbers;
        const tr = pyStrip(pyText(o['true'], numbers?.get('true')));
        const fa = pyStrip(pyText(o['false'], numbers?.get('false')));
        if (tr || fa) full = `${text}\nTrue if: ${tr || '—'}\nFalse if: ${fa || '—'}`;
      }
      return { text: full, options: ['no', 'yes'], qtype: 2 };
    }
  }
}

/** DecimaConfig.state_of: the state side's text. */
export function lateStateText(cfg: LateInteraction, state: string, question: string): string {
  return cfg.state_prefix + normalizeEn(cfg.question_in_state ? `${question}\n${state}` : state);
}

/** Token count as Decima's tokenizer call reports it (`<s>` and `</s>` included). */
async function counts(tokenizer: TextTokenizer, texts: string[]): Promise<number[]> {
  return (await tokenizer.encode(texts)).map((ids) => ids.length + 2);
}

/**
 * decima/render.py choice_texts: each option as "<prefix><question> <option>"; with `choice_fit` (or when the
 * right-hand cut would make two options identical) an option that does not fit keeps the longest head of the
 * question, at a word boundary, that does: "<prefix><words…> … <option>".
 */
export async function lateChoiceTexts(tokenizer: TextTokenizer, cfg: LateInteraction, question: string, choices: string[]): Promise<string[]> {
  const q = cfg.question_in_choices ? question : '';
  const prefix = cfg.choice_prefix;
  const max = cfg.max_choice_tokens;
  const full = choices.map((c) => prefix + normalizeEn(pyStrip(`${q} ${c}`)));
  if (!cfg.choice_fit) {
    const rows = new Set((await tokenizer.encode(full)).map((ids) => JSON.stringify(ids.slice(0, max - 2))));
    if (rows.size === full.length) return full;
  }
  const sizes = await counts(tokenizer, full);
  const out: string[] = [];
  for (let i = 0; i < choices.length; i++) {
    if (sizes[i]! <= max) {
      out.push(full[i]!);
      continue;
    }
    const opt = normalizeEn(choices[i]!);
    const words = pySplit(normalizeEn(q));
    let lo = 0;
    let hi = words.length;
    while (lo < hi) {
      const mid = Math.floor((lo + hi + 1) / 2);
      const [n] = await counts(tokenizer, [`${prefix}${words.slice(0, mid).join(' ')} … ${opt}`]);
      if (n! <= max) lo = mid;
      else hi = mid - 1;
    }
    out.push(lo ? `${prefix}${words.slice(0, lo).join(' ')} … ${opt}` : prefix + opt);
  }
  return out;
}
