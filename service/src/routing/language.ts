/**
 * Language routing (contract §4, interface §1 and §2.4): English state goes to the English
 * checkpoint, detected non-English state goes to the multilingual checkpoint.
 *
 * Detector: `eld` (Efficient Language Detector) with its medium database, chosen by measurement; see
 * docs/language-detection.md and `npx tsx bench/src/language-detect.ts`. The database is held
 * compactly (eld-medium.ts: the same answers, about 170 MiB less memory).
 *
 * Costs: the multilingual checkpoint handles English too, only worse; the English checkpoint
 * handles other languages badly. So sending non-English to English is the costly mistake, and
 * "English" is only the answer when the state is English or carries no language at all.
 *
 * Rule (in order):
 *  1. Text: `stateText` (string values only, capped at MAX_TEXT_CHARS), then `linguisticText`
 *     drops ASCII tokens with digits or @ / \ _ = # or a dot inside a word (numbers, ids,
 *     UUIDs, emails, URLs, order codes).
 *  2. Script first: if at least MIN_NON_LATIN_LETTERS letters and NON_LATIN_SHARE of all letters
 *     are non-Latin, the state is non-English, whatever a statistical detector says (script is
 *     reliable even on one word). The script names the language where it can (Hangul -> ko,
 *     kana -> ja, Han -> zh, Thai, Hebrew, Greek, Devanagari -> hi, Arabic -> ar); for Cyrillic
 *     and other shared scripts the detector picks among its languages.
 *  3. Fewer than MIN_LETTERS Latin letters: nothing to detect -> 'und', English checkpoint
 *     (numbers, ids, emails, emoji, punctuation, empty). Both checkpoints can do this; the
 *     English one is the default and the better one on English-like tokens.
 *  4. Latin text: eld. English -> English. Another language -> multilingual, if the text has at
 *     least MIN_LATIN_LETTERS letters or eld calls its result reliable. A short text (< 12
 *     letters) with an unreliable non-English guess -> English ('short-latin'): on one or two
 *     words the guess is noise (eld calls "ok" Polish and "no" Portuguese), while short phrases
 *     that really are another language ("Danke schön", "Merci beaucoup") come back reliable.
 *
 * detectLanguage never throws: any internal failure yields { language: 'und', english: true }.
 */
import { createMediumDetector } from './eld-medium.js';

const eld = await createMediumDetector();

/** Characters of text a detector sees. Detection on the first few KB is as good as on all. */
export const MAX_TEXT_CHARS = 2048;
/** Latin-script text with fewer letters than this has nothing to detect ("ok" has 2). */
export const MIN_LETTERS = 2;
/** Non-Latin letters needed for the script rule (one Han or Hangul sign can be a word, two make it deliberate). */
export const MIN_NON_LATIN_LETTERS = 2;
/**
 * Share of non-Latin letters from which the state is non-English by script. In the sample,
 * English quoting a non-Latin name or label stays below it (11% and 19%), code-switched text
 * (Hindi, Chinese, Korean... with English terms) is above it (30% and up).
 */
export const NON_LATIN_SHARE = 0.25;
/** Latin-script text with fewer letters than this is only routed away from English if the detector says it is reliable. */
export const MIN_LATIN_LETTERS = 12;
/** How much of a JSON-looking string is scanned for string literals. */
const MAX_JSON_SCAN_CHARS = 65536;
/** Nodes visited in an object/array state, so a huge or deep state cannot stall the call. */
const MAX_NODES = 10000;

export interface LanguageDecision {
  /** ISO 639-1 code, or 'und' when there is nothing to detect. */
  language: string;
  /** true: route to the English checkpoint; false: multilingual checkpoint. */
  english: boolean;
  /** Short machine-readable reason, for logs. */
  reason: string;
}

/** Drop a lone high surrogate left at the end by slicing in the middle of a pair. */
function capText(s: string, max: number): string {
  if (s.length <= max) return s;
  let out = s.slice(0, max);
  const last = out.charCodeAt(out.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) out = out.slice(0, -1);
  return out;
}

const JSON_STRING_LITERAL = /"((?:[^"\\\n]|\\.)*)"(\s*:)?/g;

/** String values (not keys) of a JSON text, scanned lexically so a huge text costs little. */
function jsonLiteralValues(text: string, max: number): string | null {
  const window = text.length > MAX_JSON_SCAN_CHARS ? text.slice(0, MAX_JSON_SCAN_CHARS) : text;
  const parts: string[] = [];
  let total = 0;
  let sawAny = false;
  JSON_STRING_LITERAL.lastIndex = 0;
  for (let m = JSON_STRING_LITERAL.exec(window); m !== null; m = JSON_STRING_LITERAL.exec(window)) {
    sawAny = true;
    if (m[2] !== undefined) continue; // a key
    let value: string;
    try {
      value = JSON.parse(`"${m[1] ?? ''}"`) as string;
    } catch {
      value = m[1] ?? '';
    }
    if (value.length === 0) continue;
    parts.push(value);
    total += value.length + 1;
    if (total >= max) break;
  }
  return sawAny ? capText(parts.join('\n'), max) : null;
}

/**
 * The text a language detector should see: a string as is (a string holding a JSON object or
 * array is read like that object or array); for objects and arrays the string values, not the
 * keys, not numbers/booleans/null, joined with newlines, depth-first in order. Capped at
 * `max` characters. Never throws; cycles and deep nesting are fine (no recursion).
 */
export function stateText(state: unknown, max: number = MAX_TEXT_CHARS): string {
  try {
    if (typeof state === 'string') {
      const t = state.trimStart();
      if (t.startsWith('{') || t.startsWith('[')) {
        const values = jsonLiteralValues(t, max);
        if (values !== null) return values;
      }
      return capText(state, max);
    }
    if (state === null || typeof state !== 'object') return '';
    const parts: string[] = [];
    let total = 0;
    let nodes = 0;
    const seen = new WeakSet<object>();
    // Explicit stack, reversed pushes so values come out in document order.
    const stack: unknown[] = [state];
    while (stack.length > 0 && total < max && nodes < MAX_NODES) {
      const node = stack.pop();
      nodes++;
      if (typeof node === 'string') {
        if (node.length > 0) {
          parts.push(node);
          total += node.length + 1;
        }
      } else if (node !== null && typeof node === 'object') {
        if (seen.has(node)) continue;
        seen.add(node);
        const children: unknown[] = Array.isArray(node) ? node : Object.values(node);
        for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
      }
    }
    return capText(parts.join('\n'), max);
  } catch {
    return '';
  }
}

type Script = 'latin' | 'cyrillic' | 'greek' | 'arabic' | 'hebrew' | 'devanagari' | 'thai' | 'hangul' | 'kana' | 'han' | 'other';

/** Languages a script names by itself (when it is the state's main non-Latin script). */
const SCRIPT_LANGUAGE: Partial<Record<Script, string>> = {
  greek: 'el',
  arabic: 'ar',
  hebrew: 'he',
  devanagari: 'hi',
  thai: 'th',
  hangul: 'ko',
  kana: 'ja',
  han: 'zh',
};

const OTHER_LETTER = /[\p{L}\p{M}]/u;

/** Script of a code point if it is a letter (or a combining mark of a script), else null. Range tests: fast. */
function scriptOf(cp: number): Script | null {
  if (cp < 0x80) return (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a) ? 'latin' : null;
  if (cp >= 0xc0 && cp <= 0x24f) return cp === 0xd7 || cp === 0xf7 ? null : 'latin';
  if (cp >= 0x1e00 && cp <= 0x1eff) return 'latin'; // Vietnamese and other Latin Extended Additional
  if ((cp >= 0xff21 && cp <= 0xff3a) || (cp >= 0xff41 && cp <= 0xff5a)) return 'latin'; // fullwidth
  if (cp >= 0x370 && cp <= 0x3ff) return cp === 0x37e || cp === 0x387 ? null : 'greek';
  if (cp >= 0x1f00 && cp <= 0x1fff) return 'greek';
  if (cp >= 0x400 && cp <= 0x52f) return cp >= 0x482 && cp <= 0x489 ? null : 'cyrillic';
  if (cp >= 0x5d0 && cp <= 0x5f2) return 'hebrew';
  if (cp >= 0x591 && cp <= 0x5c7) return 'hebrew'; // points
  if ((cp >= 0x620 && cp <= 0x64a) || (cp >= 0x66e && cp <= 0x6d3) || (cp >= 0x750 && cp <= 0x77f) || (cp >= 0xfb50 && cp <= 0xfdff) || (cp >= 0xfe70 && cp <= 0xfefc)) return 'arabic';
  if (cp >= 0x64b && cp <= 0x65f) return 'arabic'; // harakat
  if (cp >= 0x900 && cp <= 0x97f) return (cp >= 0x964 && cp <= 0x970) ? null : 'devanagari';
  if (cp >= 0xe01 && cp <= 0xe4e) return cp === 0xe3f ? null : 'thai';
  if ((cp >= 0xac00 && cp <= 0xd7af) || (cp >= 0x1100 && cp <= 0x11ff) || (cp >= 0x3131 && cp <= 0x318e)) return 'hangul';
  if ((cp >= 0x3041 && cp <= 0x309f) || (cp >= 0x30a1 && cp <= 0x30ff) || (cp >= 0x31f0 && cp <= 0x31ff) || (cp >= 0xff66 && cp <= 0xff9d)) return 'kana';
  if ((cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0x3400 && cp <= 0x4dbf) || (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0x20000 && cp <= 0x3134f)) return 'han';
  if (cp >= 0xd800 && cp <= 0xdfff) return null; // lone surrogate
  return OTHER_LETTER.test(String.fromCodePoint(cp)) ? 'other' : null;
}

interface ScriptCounts {
  letters: number;
  latin: number;
  counts: Map<Script, number>;
}

function countScripts(text: string): ScriptCounts {
  const counts = new Map<Script, number>();
  let letters = 0;
  let latin = 0;
  for (let i = 0; i < text.length; i++) {
    let cp = text.charCodeAt(i);
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < text.length) {
      const lo = text.charCodeAt(i + 1);
      if (lo >= 0xdc00 && lo <= 0xdfff) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        i++;
      }
    }
    const script = scriptOf(cp);
    if (script === null) continue;
    letters++;
    if (script === 'latin') latin++;
    counts.set(script, (counts.get(script) ?? 0) + 1);
  }
  return { letters, latin, counts };
}

function mainNonLatin(c: ScriptCounts): Script {
  let best: Script = 'other';
  let bestN = -1;
  for (const [s, n] of c.counts) {
    if (s === 'latin') continue;
    if (n > bestN) {
      best = s;
      bestN = n;
    }
  }
  // Japanese mixes kana with Han; any real share of kana means Japanese.
  const kana = c.counts.get('kana') ?? 0;
  if ((best === 'han' || best === 'kana') && kana > 0 && kana * 10 >= (c.counts.get('han') ?? 0)) return 'kana';
  return best;
}

/**
 * Tokens that carry no language: ASCII tokens holding a digit or @ / \\ _ = # or a dot inside a
 * word (numbers, ids, UUIDs, emails, URLs, file names, order codes). Only ASCII tokens are
 * dropped, so unspaced scripts (Chinese, Japanese, Thai) keep their text.
 */
const ASCII_TOKEN = /^[\x21-\x7e]+$/;
const NON_LINGUISTIC_MARK = /[\d@/\\_=#]|[A-Za-z]\.[A-Za-z]/;

/** The state's text without tokens that carry no language. Linear: split on whitespace. */
export function linguisticText(text: string): string {
  const parts = text.split(/(\s+)/);
  for (let i = 0; i < parts.length; i += 2) {
    const tok = parts[i] as string;
    if (tok.length > 0 && ASCII_TOKEN.test(tok) && NON_LINGUISTIC_MARK.test(tok)) parts[i] = '';
  }
  return parts.join('');
}

function eldDetect(text: string): { language: string; reliable: boolean } {
  const r = eld.detect(text);
  return { language: r.language || 'und', reliable: r.language !== '' && r.isReliable() };
}

const ENGLISH_DEFAULT: LanguageDecision = { language: 'und', english: true, reason: 'error' };

/**
 * Detect the language of a state and decide the route. See the module comment for the rule.
 * Never throws.
 */
export function detectLanguage(state: unknown): LanguageDecision {
  try {
    const text = linguisticText(stateText(state));
    const c = countScripts(text);
    const nonLatin = c.letters - c.latin;
    if (nonLatin >= MIN_NON_LATIN_LETTERS && nonLatin >= NON_LATIN_SHARE * c.letters) {
      const script = mainNonLatin(c);
      const byScript = SCRIPT_LANGUAGE[script];
      if (byScript !== undefined) return { language: byScript, english: false, reason: `script:${script}` };
      // Cyrillic and other scripts shared by several languages: the detector picks among them.
      let language = 'und';
      try {
        const d = eldDetect(text);
        if (d.language !== 'en') language = d.language;
      } catch {
        /* keep 'und' */
      }
      return { language, english: false, reason: `script:${script}` };
    }
    if (c.latin < MIN_LETTERS) return { language: 'und', english: true, reason: 'no-text' };

    const d = eldDetect(text);
    if (d.language === 'en') return { language: 'en', english: true, reason: 'detector' };
    if (d.language === 'und') return { language: 'und', english: true, reason: 'undetected' };
    if (c.latin >= MIN_LATIN_LETTERS || d.reliable) return { language: d.language, english: false, reason: 'detector' };
    return { language: 'en', english: true, reason: `short-latin:${d.language}` };
  } catch {
    return { ...ENGLISH_DEFAULT };
  }
}
