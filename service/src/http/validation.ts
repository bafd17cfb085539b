/**
 * Ajv errors → FastAPI-style `detail[]` items (`loc` starting with "body"), the shape the earlier
 * clients render for 422s (reference §4.1).
 */
import type { ValidationIssue } from '../errors.js';
import { DISTINCT_LABELS } from '../schemas/systemone.js';

export interface AjvError {
  instancePath: string;
  schemaPath?: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
  /** Set on the inner errors of a `propertyNames` failure (the name itself failed). */
  propertyName?: string;
}

function location(instancePath: string): (string | number)[] {
  if (!instancePath) return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^(0|[1-9]\d*)$/.test(part) ? Number(part) : part));
}

const ARTICLE: Record<string, string> = { string: 'a string', object: 'an object', array: 'an array', number: 'a number', integer: 'an integer', boolean: 'a boolean', null: 'null' };

/** "a string, an object or an array": the JSON types a union's branches take. */
function alternatives(types: string[]): string {
  const words = types.map((t) => ARTICLE[t] ?? t);
  return words.length <= 1 ? (words[0] ?? 'valid') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}

function describe(error: AjvError, branchTypes: string[]): { type: string; msg: string; extra: (string | number)[] } {
  const p = error.params;
  switch (error.keyword) {
    case 'required':
      return { type: 'missing', msg: 'Field required', extra: [String(p['missingProperty'])] };
    case 'type':
      return { type: `${String(p['type'])}_type`, msg: `Input should be a valid ${String(p['type'])}`, extra: [] };
    case 'anyOf':
      return { type: 'union_type', msg: `Input should be ${alternatives(branchTypes)}`, extra: [] };
    case 'discriminator': {
      const tag = p['tagValue'];
      return {
        type: 'union_tag_invalid',
        msg:
          tag === undefined
            ? "Unable to extract tag using discriminator 'type'"
            : `Input tag ${JSON.stringify(tag)} found using 'type' does not match any of the expected tags: 'noul', 'choice', 'score'`,
        extra: [],
      };
    }
    case 'minProperties':
    case 'minItems':
      return { type: 'too_short', msg: `Should have at least ${String(p['limit'])} item(s)`, extra: [] };
    case 'maxProperties':
    case 'maxItems':
      return { type: 'too_long', msg: `Should have at most ${String(p['limit'])} item(s)`, extra: [] };
    case 'minLength':
      return { type: 'string_too_short', msg: `String should have at least ${String(p['limit'])} character(s)`, extra: [] };
    case 'propertyNames':
      // The only propertyNames rule: choice option names are non-empty (an option "" has no text).
      return { type: 'string_too_short', msg: 'Option names should have at least 1 character', extra: [String(p['propertyName'])] };
    case DISTINCT_LABELS:
      return { type: 'value_error', msg: error.message ?? 'Labels should be distinct', extra: [] };
    case 'const':
      return { type: 'literal_error', msg: `Input should be ${JSON.stringify(p['allowedValue'])}`, extra: [] };
    default:
      return { type: error.keyword, msg: error.message ?? 'Invalid value', extra: [] };
  }
}

const QUESTION_TYPES = new Set(['noul', 'choice', 'score']);

/**
 * FastAPI validates a question as a tagged union, so a problem inside a question whose `type` is known
 * is reported under that tag: ["body","questions","q","score","criteria"], as the earlier clients
 * render it (reference §4.1; Bud's conformance test). Ajv's path has no tag: insert it from the body.
 */
function withQuestionTag(loc: (string | number)[], body: unknown): (string | number)[] {
  if (loc[0] !== 'body' || loc[1] !== 'questions' || loc.length < 4) return loc;
  const questions = (body as { questions?: unknown } | null)?.questions;
  if (!questions || typeof questions !== 'object') return loc;
  const question = Object.hasOwn(questions, loc[2]!) ? (questions as Record<string, unknown>)[loc[2]!] : undefined;
  const type = (question as { type?: unknown } | null)?.type;
  if (typeof type !== 'string' || !QUESTION_TYPES.has(type)) return loc;
  return [...loc.slice(0, 3), type, ...loc.slice(3)];
}

/**
 * An anyOf failure comes with each branch's own errors. When exactly one branch takes the value's JSON
 * type (a map for a choice's criteria given as a map), its errors are the ones to report ("at least 2
 * items"); otherwise the union's own error, which names the types it takes. Outermost unions first.
 */
function resolveUnions(errors: AjvError[]): Set<AjvError> {
  const dropped = new Set<AjvError>();
  const unions = errors.filter((e) => e.keyword === 'anyOf' && e.schemaPath).sort((a, b) => a.schemaPath!.length - b.schemaPath!.length);
  for (const union of unions) {
    if (dropped.has(union)) continue;
    const branches = new Map<string, AjvError[]>();
    for (const e of errors) {
      const rest = e.schemaPath?.startsWith(`${union.schemaPath}/`) ? e.schemaPath.slice(union.schemaPath!.length + 1) : undefined;
      const branch = rest?.split('/')[0];
      if (branch !== undefined) branches.set(branch, [...(branches.get(branch) ?? []), e]);
    }
    const typed = [...branches.values()].filter((es) => !es.some((e) => e.keyword === 'type' && e.instancePath === union.instancePath));
    const keep = typed.length === 1 ? typed[0]! : [];
    if (keep.length > 0) dropped.add(union);
    for (const es of branches.values()) for (const e of es) if (!keep.includes(e)) dropped.add(e);
  }
  return dropped;
}

export function toIssues(errors: AjvError[], body?: unknown): ValidationIssue[] {
  const dropped = resolveUnions(errors);
  // A propertyNames failure also reports the name's own failure: keep only the propertyNames one.
  const kept = errors.filter((e) => !dropped.has(e) && e.propertyName === undefined);
  const issues = kept.map((error) => {
    // a union's message names the types of its branches (their `type` errors at the same path)
    const branchTypes = error.keyword === 'anyOf'
      ? errors.filter((e) => e.keyword === 'type' && e.instancePath === error.instancePath).map((e) => String(e.params['type']))
      : [];
    const { type, msg, extra } = describe(error, branchTypes);
    return { loc: withQuestionTag(['body', ...location(error.instancePath), ...extra], body), msg, type };
  });
  return issues.length > 0 ? issues : [{ loc: ['body'], msg: 'Invalid request', type: 'value_error' }];
}
