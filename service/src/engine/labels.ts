/**
 * A choice's criteria in laya's list form (`"criteria": ["approve", "escalate", 3, true]`: options
 * without descriptions), read exactly as laya 0.4.15 reads it after Python's `json.loads`
 * (laya/agent.py `_check_question`, `_to_internal`, `_decode_answers`; laya/common.py `render_options`;
 * its server writes the answer with `json.dumps`):
 *
 *   option text  `str(label)`                     3 → "3", 3.0 → "3.0", 1e16 → "1e+16", true → "True"
 *   answer key   the label as a JSON object key   3 → "3", 3.0 → "3.0", 1e16 → "1e+16", true → "true"
 *   `choice`     the label itself                  3 → 3, 3.0 → 3.0, true → true, "a" → "a"
 *
 * Labels are strings, numbers or booleans (laya refuses null and nested values). Two labels that Python
 * holds equal (1, 1.0 and true; 0, -0.0 and false) are refused, as laya refuses them; two distinct
 * labels that would share an answer key ("1" and 1, "true" and true) are refused too, where laya would
 * answer with one JSON key twice (docs/conformance.md).
 */
import { randomUUID } from 'node:crypto';
import { pythonNumber } from './python-number.js';
import { sourceShape } from './source-json.js';

export type Label = string | number | boolean;

// `source`: a number label's JSON text when the body kept it (engine/source-json.ts).

/** Python's `str(label)`: the option text laya shows the model. */
export function labelText(label: Label, source?: string): string {
  if (typeof label === 'boolean') return label ? 'True' : 'False';
  return typeof label === 'string' ? label : pythonNumber(label, source);
}

/** The label as `json.dumps` writes a dict key: the answer's key for this option ("true", not "True"). */
export function labelKey(label: Label, source?: string): string {
  return typeof label === 'boolean' ? String(label) : labelText(label, source);
}

/**
 * What Python's `==` compares (labels are hashed as dict keys): strings by their text; numbers and
 * booleans by their exact value, an int's from its digits and a float's from its double, so 1, 1.0 and
 * true are one value and 2^53 + 1 is not the float 2^53.
 */
function pythonValue(label: Label, source?: string): string {
  if (typeof label === 'string') return `s${label}`;
  if (typeof label === 'boolean') return `n${label ? 1 : 0}`;
  const text = pythonNumber(label, source);
  if (/^-?\d+$/.test(text)) return `n${BigInt(text)}`;
  return Number.isInteger(label) ? `n${BigInt(label)}` : `f${label}`;
}

export interface LabelClash {
  /** Index of the later label. */
  index: number;
  /** Index of the earlier one it clashes with. */
  first: number;
  /** `equal`: Python holds them equal (laya refuses); `key`: distinct values with one answer key. */
  reason: 'equal' | 'key';
  /** The later label's answer key. */
  key: string;
}

/** The first label that repeats an earlier one as Python compares them, or shares its answer key. */
export function labelClash(labels: readonly unknown[]): LabelClash | undefined {
  const numbers = sourceShape(labels)?.numbers;
  const values = new Map<string, number>();
  const keys = new Map<string, number>();
  for (let i = 0; i < labels.length; i++) {
    const label = labels[i] as Label;
    const source = numbers?.get(String(i));
    const value = pythonValue(label, source);
    const key = labelKey(label, source);
    const same = values.get(value);
    if (same !== undefined) return { index: i, first: same, reason: 'equal', key };
    const shared = keys.get(key);
    if (shared !== undefined) return { index: i, first: shared, reason: 'key', key };
    values.set(value, i);
    keys.set(key, i);
  }
  return undefined;
}

/** A list-form choice's option texts, answer keys and `choice` values, in the client's order. */
export function listOptions(labels: readonly Label[]): { texts: string[]; keys: string[]; values: ChoiceValue[] } {
  const numbers = sourceShape(labels)?.numbers;
  const texts: string[] = [];
  const keys: string[] = [];
  const values: ChoiceValue[] = [];
  labels.forEach((label, i) => {
    const source = numbers?.get(String(i));
    texts.push(labelText(label, source));
    keys.push(labelKey(label, source));
    values.push(choiceValue(label, source));
  });
  return { texts, keys, values };
}

/**
 * A number written as Python writes it where JavaScript would write it otherwise (3.0, 1e+16, -0.0, an
 * integer past 2^53): `stringifyExact` writes its text; any other serializer writes its value.
 */
export class PythonNumber {
  constructor(readonly text: string) {}
  toJSON(): number {
    return Number(this.text);
  }
}

export type ChoiceValue = string | number | boolean | PythonNumber;

/** The label as laya's answer carries it in `choice`: the value itself, in Python's number form. */
function choiceValue(label: Label, source: string | undefined): ChoiceValue {
  if (typeof label !== 'number') return label;
  const text = pythonNumber(label, source);
  return text === JSON.stringify(label) ? label : new PythonNumber(text);
}

/**
 * An answered call as JSON, every PythonNumber in a `choice` written as its text. Only a call that holds
 * one pays for the replacer; its placeholders carry a per-call nonce, so no request text matches them.
 */
export function answeredJson(call: { answers: Record<string, object> }): string {
  if (!Object.values(call.answers).some((a) => 'choice' in a && a.choice instanceof PythonNumber)) return JSON.stringify(call);
  const nonce = `\u0000py-${randomUUID()}:`;
  const texts: string[] = [];
  const json = JSON.stringify(call, function (this: Record<string, unknown>, key: string, value: unknown) {
    const own = this[key];
    if (!(own instanceof PythonNumber)) return value;
    texts.push(own.text);
    return `${nonce}${texts.length - 1}`;
  });
  // the nonce as JSON.stringify wrote it inside a string ("\u0000" escaped), then the index
  const written = JSON.stringify(nonce).slice(1, -1).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return json.replace(new RegExp(`"${written}(\\d+)"`, 'g'), (_, i: string) => texts[Number(i)]!);
}
