/**
 * Turning request values into the text the checkpoints were trained on (checkpoints.md, "marker" layout),
 * byte for byte what Laya's Python runtime builds from the same request (laya/common.py, laya/agent.py):
 * objects and arrays are `json.dumps(v, ensure_ascii=False)` with ", " and ": " separators, keys in the
 * client's order and numbers as Python writes them (source-json.ts keeps what JSON.parse loses).
 */
import type { QuestionType } from './manifest.js';
import { listOptions, type Label } from './labels.js';
import { pythonNumber } from './python-number.js';
import { sourceShape } from './source-json.js';

export { pythonFloat, pythonNumber } from './python-number.js';

export type Content = string | number | boolean | null | Content[] | { [key: string]: Content };

export interface Question {
  type: QuestionType;
  instructions?: Content;
  criteria?: Content;
}

/** An object's keys in the client's order (integer-like keys included), else JavaScript's. */
export function orderedKeys(value: object): string[] {
  return sourceShape(value)?.keys ?? Object.keys(value);
}

/** `json.dumps(value, ensure_ascii=False)` with Python's default separators. */
export function pythonJson(value: unknown, source?: string): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return pythonNumber(value, source);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'object') {
    const numbers = sourceShape(value)?.numbers;
    if (Array.isArray(value)) return `[${value.map((v, i) => pythonJson(v, numbers?.get(String(i)))).join(', ')}]`;
    const o = value as Record<string, unknown>;
    return `{${orderedKeys(o).map((k) => `${JSON.stringify(k)}: ${pythonJson(o[k], numbers?.get(k))}`).join(', ')}}`;
  }
  return JSON.stringify(String(value));
}

/** A state, instruction or description as text: strings pass through, anything else is JSON. */
export function renderContent(value: unknown, source?: string): string {
  return typeof value === 'string' ? value : pythonJson(value, source);
}

/** Noul criteria with their keys lower-cased, a later key winning, as laya reads them ("True" → "true"). */
function noulCriteria(criteria: Content | undefined): Record<string, Content> {
  if (!criteria || typeof criteria !== 'object' || Array.isArray(criteria)) return {};
  const out: Record<string, Content> = {};
  for (const key of orderedKeys(criteria)) out[key.toLowerCase()] = criteria[key]!;
  return out;
}

function isBlank(value: unknown): boolean {
  return value === null || value === undefined || value === '';
}

/** Option texts in marker order. Noul is always [false, true]. */
export function renderOptions(question: Question): string[] {
  const criteria = question.criteria;
  switch (question.type) {
    case 'choice': {
      if (Array.isArray(criteria)) return listOptions(criteria as Label[]).texts; // laya's list form: str(label)
      const c = criteria as Record<string, Content>;
      const numbers = sourceShape(c)?.numbers;
      return orderedKeys(c).map((key) => (isBlank(c[key]) ? key : `${key}: ${renderContent(c[key], numbers?.get(key))}`));
    }
    case 'score': {
      // laya writes every level as "level i: <description>", an empty or null one included ("level 0: null")
      const numbers = sourceShape(criteria as object)?.numbers;
      return (criteria as Content[]).map((description, level) => `level ${level}: ${renderContent(description ?? null, numbers?.get(String(level)))}`);
    }
    case 'noul': {
      const c = noulCriteria(criteria);
      const falseText = isBlank(c['false']) ? 'no, the statement does not hold' : renderContent(c['false']);
      const trueText = isBlank(c['true']) ? 'yes, the statement holds' : renderContent(c['true']);
      return [`false: ${falseText}`, `true: ${trueText}`];
    }
  }
}

/** The head text: `<type> question: <instructions>` (absent instructions read as empty). */
export function renderHead(question: Question): string {
  const instructions = isBlank(question.instructions) ? '' : renderContent(question.instructions);
  return `${question.type} question: ${instructions}`;
}

/** Answer keys in marker order: choice option names (list form: as laya keys them), score levels "0".."n-1", noul [false, true]. */
export function optionKeys(question: Question): string[] {
  switch (question.type) {
    case 'choice':
      if (Array.isArray(question.criteria)) return listOptions(question.criteria as Label[]).keys;
      return orderedKeys(question.criteria as Record<string, unknown>);
    case 'score':
      return (question.criteria as unknown[]).map((_, i) => String(i));
    case 'noul':
      return ['false', 'true'];
  }
}
