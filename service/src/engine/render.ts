/**
 * Turning request values into the text the checkpoints were trained on (checkpoints.md, "marker" layout).
 * Objects and arrays become Python-style JSON (`json.dumps(v, ensure_ascii=False)`: ", " and ": "
 * separators) because that is what the upstream Laya format feeds its models.
 */
import type { QuestionType } from './manifest.js';

export type Content = string | number | boolean | null | Content[] | { [key: string]: Content };

export interface Question {
  type: QuestionType;
  instructions?: Content;
  criteria?: Content;
}

/** `json.dumps(value, ensure_ascii=False)` with Python's default separators. */
export function pythonJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${pythonJson(v)}`).join(', ')}}`;
  }
  return JSON.stringify(String(value));
}

/** A state, instruction or description as text: strings pass through, anything else is JSON. */
export function renderContent(value: unknown): string {
  return typeof value === 'string' ? value : pythonJson(value);
}

function isBlank(value: unknown): boolean {
  return value === null || value === undefined || value === '';
}

/** Option texts in marker order. Noul is always [false, true]. */
export function renderOptions(question: Question): string[] {
  const criteria = question.criteria;
  switch (question.type) {
    case 'choice':
      return Object.entries(criteria as Record<string, Content>).map(([key, description]) =>
        isBlank(description) ? key : `${key}: ${renderContent(description)}`,
      );
    case 'score':
      return (criteria as Content[]).map((description, level) =>
        isBlank(description) ? `level ${level}` : `level ${level}: ${renderContent(description)}`,
      );
    case 'noul': {
      const c = (criteria ?? {}) as Record<string, Content>;
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

/** Answer keys in marker order: choice option names, score levels "0".."n-1", noul [false, true]. */
export function optionKeys(question: Question): string[] {
  switch (question.type) {
    case 'choice':
      return Object.keys(question.criteria as Record<string, unknown>);
    case 'score':
      return (question.criteria as unknown[]).map((_, i) => String(i));
    case 'noul':
      return ['false', 'true'];
  }
}
