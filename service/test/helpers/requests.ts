/**
 * Varied System One requests for the import exactness tests (Laya and Decima): seeded, so every run sends
 * the same ones. All three question types, text and JSON states, 2–40 options, English and eight other
 * scripts, and bodies whose text JSON.parse would lose (integer-like keys, Python number forms).
 */
import type { Question } from '../../src/engine/render.js';

/** sfc32: a small seeded generator, so every run sends the same requests. */
export function rng(seed: number): () => number {
  let a = seed, b = seed ^ 0x9e3779b9, c = seed ^ 0x85ebca6b, d = 1;
  return () => {
    a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
}

export const ENGLISH = ['refund', 'order', 'late', 'angry', 'happy', 'billing', 'the', 'customer', 'asks', 'for', 'a', 'delivery', 'invoice', 'payment', 'failed', 'support', 'slow', 'price'];
export const SCRIPTS: Record<string, string[]> = {
  cyrillic: ['заказ', 'доставка', 'возврат', 'клиент', 'недоволен', 'оплата'],
  greek: ['παράδοση', 'πελάτης', 'επιστροφή', 'χρημάτων', 'παραγγελία'],
  arabic: ['الطلب', 'العميل', 'استرداد', 'المبلغ', 'تأخر'],
  devanagari: ['ग्राहक', 'ऑर्डर', 'देरी', 'पैसे', 'वापस'],
  han: ['顾客', '订单', '延迟', '退款', '邮件'],
  kana: ['お客様', '注文', '返金', 'すぐに', '返信'],
  hangul: ['고객이', '주문', '지연', '환불을', '요청'],
  thai: ['ลูกค้า', 'การจัดส่ง', 'ล่าช้า', 'เงินคืน'],
};
const ODD = ['"quoted"', 'back\\slash', 'tab\there', 'line\nbreak', '😀', 'naïve café', '{not json}', '  spaced  '];

export interface Request {
  state: unknown;
  questions: Record<string, Question>;
}

/** Varied System One requests: all three types, text and JSON states, 2–40 options. */
export function requests(count: number, seed: number, scripts: string[], mask: string, sizes: { state?: number; instructions?: number } = {}): Request[] {
  const r = rng(seed);
  const pick = <T,>(xs: T[]): T => xs[Math.floor(r() * xs.length)]!;
  const int = (lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
  const words = (): string[] => (scripts.length === 0 || r() < 0.4 ? ENGLISH : SCRIPTS[pick(scripts)]!);
  const text = (n: number): string => {
    const w = words();
    const parts = Array.from({ length: int(1, n) }, () => pick(w));
    if (r() < 0.15) parts.push(pick(ODD));
    if (r() < 0.05) parts.push(mask);
    return parts.join(' ');
  };
  const number = (): number => pick([0.25, -3.75, 12.5, 7, 0, 42, 1234567, 0.001, 2.5e-3]);
  const json = (depth: number): unknown => {
    const kind = int(0, depth > 1 ? 2 : 4);
    if (kind === 0) return text(3);
    if (kind === 1) return number();
    if (kind === 2) return pick([true, false, null]);
    if (kind === 3) return Array.from({ length: int(0, 3) }, () => json(depth + 1));
    const o: Record<string, unknown> = {};
    for (let i = int(1, 3); i > 0; i--) o[`${pick(ENGLISH)}_${i}`] = json(depth + 1);
    return o;
  };
  const description = (): unknown => {
    const x = r();
    if (x < 0.55) return text(4);
    if (x < 0.7) return null;
    if (x < 0.8) return '';
    if (x < 0.9) return { detail: text(1), weight: number() };
    return [text(1), number()];
  };
  const out: Request[] = [];
  for (let i = 0; i < count; i++) {
    const questions: Record<string, Question> = {};
    for (let q = int(1, 3); q > 0; q--) {
      const type = (['choice', 'score', 'noul'] as const)[(i + q) % 3]!;
      const instructions = r() < 0.8 ? text(sizes.instructions ?? 10) : { task: text(4), strict: r() < 0.5, level: number() };
      if (type === 'choice') {
        const n = r() < 0.25 ? int(11, 40) : int(2, 10);
        const criteria: Record<string, unknown> = {};
        // many options: short names alone and short instructions, so the question stays inside laya's
        // 192-token head budget (laya cuts beyond it; the engine does not)
        for (let k = 0; k < n; k++) criteria[n > 10 ? `${'abcdefghij'[k % 10]}${'xyzw'[Math.floor(k / 10)]}` : `${pick(words())} ${k}`] = n > 10 ? null : description();
        questions[`q${q}`] = { type, instructions: n > 10 ? pick(ENGLISH) : instructions, criteria } as Question;
      } else if (type === 'score') {
        const criteria = Array.from({ length: int(2, 10) }, () => (r() < 0.85 ? text(3) : { level: text(2) }));
        questions[`q${q}`] = { type, instructions, criteria } as Question;
      } else {
        const x = r();
        const criteria = x < 0.3 ? undefined : x < 0.4 ? null : { true: description(), false: description() };
        questions[`q${q}`] = { type, instructions, ...(criteria === undefined ? {} : { criteria }) } as Question;
      }
    }
    const state = r() < 0.6 ? text(sizes.state ?? 60) : json(0);
    out.push({ state, questions });
  }
  return out;
}

/**
 * Request bodies as a client may write them, where JavaScript's JSON.parse loses what the text depends
 * on: integer-like keys out of numeric order, `1.0`, `-0.0`, `1e-7`, `1E5`, `2.50`, `1e16`, 20-digit
 * integers, noul criteria keys in capitals, empty and null score levels.
 */
export function sourceBodies(count: number, seed: number): string[] {
  const r = rng(seed);
  const pick = <T,>(xs: T[]): T => xs[Math.floor(r() * xs.length)]!;
  const NUMBERS = ['1.0', '-0.0', '1e-7', '1E5', '2.50', '1e16', '12345678901234567890', '0.1', '100', '-0', '3.14159265358979323846', '0.0001', '1.5e300', '123456789.125'];
  const KEYS = ['10', '2', '0', '007', 'b', 'a', '1', '3', 'z9', '42'];
  const str = (s: string): string => JSON.stringify(s);
  const value = (depth: number): string => {
    const k = Math.floor(r() * (depth > 1 ? 3 : 5));
    if (k === 0) return pick(NUMBERS);
    if (k === 1) return str(pick(ENGLISH));
    if (k === 2) return pick(['true', 'null', '"x\\ty"']);
    if (k === 3) return `[${Array.from({ length: 1 + Math.floor(r() * 3) }, () => value(depth + 1)).join(',')}]`;
    return object(depth + 1);
  };
  const object = (depth: number): string => {
    const keys = [...new Set(Array.from({ length: 1 + Math.floor(r() * 4) }, () => pick(KEYS)))];
    return `{${keys.map((key) => `${str(key)}: ${value(depth)}`).join(', ')}}`;
  };
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const choiceKeys = [...new Set(Array.from({ length: 2 + Math.floor(r() * 5) }, () => pick(KEYS)))];
    if (choiceKeys.length < 2) choiceKeys.push('other');
    const choice = `{"type": "choice", "instructions": ${r() < 0.5 ? object(1) : str(pick(ENGLISH))}, "criteria": {${choiceKeys.map((key) => `${str(key)}: ${pick(['null', '""', str(pick(ENGLISH)), object(2)])}`).join(', ')}}}`;
    const score = `{"type": "score", "instructions": "rate it", "criteria": [${Array.from({ length: 2 + Math.floor(r() * 3) }, () => pick(['null', '""', str(pick(ENGLISH)), object(2), `[${pick(NUMBERS)}]`])).join(', ')}]}`;
    const noul = `{"type": "noul", "instructions": ${object(1)}, "criteria": {${pick(['"True"', '"true"', '"TRUE"'])}: ${str(pick(ENGLISH))}, ${pick(['"False"', '"false"'])}: ${object(2)}}}`;
    const state = r() < 0.7 ? object(0) : `[${value(1)}, ${value(1)}]`;
    out.push(`{"state": ${state}, "questions": {"c": ${choice}, "s": ${score}, "n": ${noul}}}`);
  }
  return out;
}

/**
 * Request bodies in laya's own forms, mixed with ordinary ones: choice criteria as a list of labels
 * (words in the given scripts, numbers in Python's forms — 3.0, -0.0, 1e16, 1E5, 2.50, a 20-digit
 * integer — and booleans) and score levels given as bare numbers or booleans among text levels. No two
 * labels of one question are equal as Python compares them or share an answer key (laya refuses the
 * first, the service both); `LAYA_FORM_EDGES` covers those.
 */
export function layaFormBodies(count: number, seed: number, scripts: string[], mask: string): string[] {
  const r = rng(seed);
  const pick = <T,>(xs: T[]): T => xs[Math.floor(r() * xs.length)]!;
  const int = (lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
  const str = (s: string): string => JSON.stringify(s);
  // pairwise unequal in Python (no 0/1, which equal false/true, and one of -0.0 and false)
  const NUMBERS = ['3', '3.5', '1e16', '12345678901234567890', '2.50', '1E5', '-7', '42', '0.001', '7.0', '-0.0', '1.5e-7'];
  const words = (): string[] => (scripts.length === 0 || r() < 0.4 ? ENGLISH : SCRIPTS[pick(scripts)]!);
  const word = (): string => {
    const w = pick(words());
    return r() < 0.05 ? `${w} ${mask}` : r() < 0.1 ? pick(ODD) : w;
  };
  // ordinary requests with the states the service accepts (a string, object or array)
  const ordinary = requests(count, seed + 1000, scripts, mask).filter((q) => q.state !== null && typeof q.state !== 'number' && typeof q.state !== 'boolean').map((q) => JSON.stringify(q));
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    if (r() < 0.25 && i < ordinary.length) {
      out.push(ordinary[i]!); // an ordinary request between the laya forms
      continue;
    }
    const questions: string[] = [];
    for (let q = int(1, 3); q > 0; q--) {
      const type = (['choice', 'score', 'noul'] as const)[(i + q) % 3]!;
      const instructions = str(Array.from({ length: int(1, 8) }, word).join(' '));
      if (type === 'choice') {
        const n = r() < 0.2 ? int(11, 30) : int(2, 8);
        const labels = new Set<string>(); // dedup by JSON text: the pools never collide otherwise
        let usedFalse = false;
        while (labels.size < n) {
          const x = r();
          let label: string;
          if (n > 10) label = r() < 0.3 ? pick(NUMBERS) : str(`${'abcdefghij'[labels.size % 10]}${'xyzw'[Math.floor(labels.size / 10)]}`);
          else if (x < 0.55) label = str(word());
          else if (x < 0.85) label = pick(NUMBERS);
          else if (x < 0.93) label = 'true';
          else if (x < 0.97) label = 'false';
          else label = '""';
          if (label === 'false' || label === '-0.0') {
            if (usedFalse) continue;
            usedFalse = true;
          }
          labels.add(label);
        }
        if (r() < 0.3) {
          // a list as plain names, no numbers: the form a Laya user sends most
          questions.push(`${str(`q${q}`)}: {"type": "choice", "instructions": ${instructions}, "criteria": [${[...new Set(Array.from({ length: n }, () => str(pick(words()))))].concat(['"other"']).join(', ')}]}`);
        } else {
          questions.push(`${str(`q${q}`)}: {"type": "choice", "instructions": ${n > 10 ? str(pick(ENGLISH)) : instructions}, "criteria": [${[...labels].join(', ')}]}`);
        }
      } else if (type === 'score') {
        const levels = Array.from({ length: int(2, 10) }, () => {
          const x = r();
          return x < 0.45 ? str(word()) : x < 0.85 ? pick(NUMBERS.concat(['0', '1', '0.0'])) : x < 0.95 ? pick(['true', 'false']) : `{"level": ${pick(NUMBERS)}}`;
        });
        questions.push(`${str(`q${q}`)}: {"type": "score", "instructions": ${instructions}, "criteria": [${levels.join(', ')}]}`);
      } else {
        questions.push(`${str(`q${q}`)}: {"type": "noul", "instructions": ${instructions}${r() < 0.5 ? `, "criteria": {"true": ${str(word())}}` : ''}}`);
      }
    }
    const state = r() < 0.7 ? str(Array.from({ length: int(3, 40) }, word).join(' ')) : `{"ticket": ${str(word())}, "amount": ${pick(NUMBERS)}, "tags": [${pick(NUMBERS)}, true]}`;
    out.push(`{"state": ${state}, "questions": {${questions.join(', ')}}}`);
  }
  return out;
}

/**
 * Choice and score criteria at the edges of laya's forms, each with laya 0.4.15's own verdict (its
 * `Agent.system_one`) and the service's: `laya` true where laya answers; `service` the status the
 * service gives. Where they differ the contract decides (docs/conformance.md): 2–255 options, 2–10
 * levels, null levels answered as the earlier clients may send them, one answer key per option.
 */
export const LAYA_FORM_EDGES: { name: string; criteria: string; type: 'choice' | 'score'; laya: boolean; service: 200 | 422 }[] = [
  { name: 'names', type: 'choice', criteria: '["approve", "escalate", "reject"]', laya: true, service: 200 },
  { name: 'numbers and booleans', type: 'choice', criteria: '[3, 3.5, true, "x"]', laya: true, service: 200 },
  { name: 'an empty and a blank name', type: 'choice', criteria: '["", " ", "a"]', laya: true, service: 200 },
  { name: 'Python number forms', type: 'choice', criteria: '[1e16, 12345678901234567890, 2.50, 1E5, -0.0, 7.0]', laya: true, service: 200 },
  { name: 'an integer past 2^53 and its nearest float', type: 'choice', criteria: '[12345678901234567890, 12345678901234567890.0]', laya: true, service: 200 },
  { name: '"True" and true (keys "True", "true")', type: 'choice', criteria: '["True", true]', laya: true, service: 200 },
  { name: 'a repeated name', type: 'choice', criteria: '["a", "b", "a"]', laya: false, service: 422 },
  { name: '1 and 1.0', type: 'choice', criteria: '[1, 1.0]', laya: false, service: 422 },
  { name: '1 and true', type: 'choice', criteria: '["x", 1, true]', laya: false, service: 422 },
  { name: '0, -0.0 and false', type: 'choice', criteria: '[-0.0, false]', laya: false, service: 422 },
  { name: '3 and 3e0', type: 'choice', criteria: '[3, 3e0]', laya: false, service: 422 },
  { name: 'a null label', type: 'choice', criteria: '["a", null]', laya: false, service: 422 },
  { name: 'a list label', type: 'choice', criteria: '["a", ["b"]]', laya: false, service: 422 },
  { name: 'an object label', type: 'choice', criteria: '["a", {"b": 1}]', laya: false, service: 422 },
  { name: 'an empty list', type: 'choice', criteria: '[]', laya: false, service: 422 },
  // laya answers these; the service follows the contract
  { name: '"1" and 1 (one answer key)', type: 'choice', criteria: '["1", 1]', laya: true, service: 422 },
  { name: '"true" and true (one answer key)', type: 'choice', criteria: '["true", true]', laya: true, service: 422 },
  { name: '"1.0" and 1.0 (one answer key)', type: 'choice', criteria: '["1.0", 1.0]', laya: true, service: 422 },
  { name: 'one label', type: 'choice', criteria: '["only"]', laya: true, service: 422 },
  // laya refuses it only because 256 markers do not fit its 512-token window (its server caps choices at 100)
  { name: '256 labels', type: 'choice', criteria: `[${Array.from({ length: 256 }, (_, i) => i + 2).join(', ')}]`, laya: false, service: 422 },
  { name: 'number levels', type: 'score', criteria: '["low", "medium", 3]', laya: true, service: 200 },
  { name: 'levels in number forms and booleans', type: 'score', criteria: '[0, 1.0, 2.50, 1e16, 12345678901234567890, true, false, -0.0]', laya: true, service: 200 },
  { name: 'repeated levels', type: 'score', criteria: '[1, 1, 1.0, true]', laya: true, service: 200 },
  { name: 'nested levels', type: 'score', criteria: '[{"at": 1.0}, [2, "x"], 3]', laya: true, service: 200 },
  { name: 'an empty list', type: 'score', criteria: '[]', laya: false, service: 422 },
  { name: 'a null level', type: 'score', criteria: '["calm", null]', laya: false, service: 200 },
  { name: 'one level', type: 'score', criteria: '[5]', laya: true, service: 422 },
  { name: '11 levels', type: 'score', criteria: `[${Array.from({ length: 11 }, (_, i) => i).join(', ')}]`, laya: true, service: 422 },
];
