/**
 * The one reader of request bodies, whatever their declared content type (earlier clients send JSON
 * with any type, or none): the same bytes give the same value, so the same call gets the same answer.
 *
 * - JSON.parse keeps every name as data: `{"__proto__": …}` becomes an own property called
 *   "__proto__" (it never touches a prototype), so a question or option may be named anything.
 *   Code that turns request names into keys of new objects builds entries and Object.fromEntries (or a
 *   Map): plain `{}[name] = …` with name "__proto__" would set the prototype instead.
 * - Nesting is bounded (`maxNestingDepth`, documented in docs/configuration.md): a deeper value is a
 *   422 `invalid_request` whose `loc` points at the first value past the limit. The check is
 *   iterative, so no depth of input can overflow the stack here, and nothing deeper ever reaches the
 *   renderer or the other recursive code after validation.
 * - The body's SHA-256 is kept on the request: an Idempotency-Key is bound to the body it came with.
 */
import crypto from 'node:crypto';
import { InvalidRequest } from '../errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** SHA-256 (hex) of the raw request body, set by the body parser. */
    bodyHash?: string;
    /** Characters of the raw request body, set by the body parser. */
    bodyChars?: number;
  }
}

/**
 * The path (below the body) of the first array or object nested deeper than `limit` levels, or
 * undefined when the value is within the limit. The body itself is level 1. Iterative (explicit stack).
 */
export function tooDeep(value: unknown, limit: number): (string | number)[] | undefined {
  // Each entry links to its parent, so the path is only built for the one value that is too deep.
  interface Entry {
    value: unknown;
    depth: number;
    key?: string | number;
    parent?: Entry;
  }
  const stack: Entry[] = [{ value, depth: 1 }];
  while (stack.length > 0) {
    const entry = stack.pop()!;
    const v = entry.value;
    if (v === null || typeof v !== 'object') continue;
    if (entry.depth > limit) {
      const path: (string | number)[] = [];
      for (let e: Entry | undefined = entry; e?.parent; e = e.parent) path.unshift(e.key!);
      return path;
    }
    const depth = entry.depth + 1;
    if (Array.isArray(v)) v.forEach((child, i) => stack.push({ value: child, depth, key: i, parent: entry }));
    else for (const key of Object.keys(v)) stack.push({ value: (v as Record<string, unknown>)[key], depth, key, parent: entry });
  }
  return undefined;
}

/** Parse a request body as JSON and check its nesting; a syntax error carries statusCode 400 (invalid_json). */
export function parseBody(text: string, maxNestingDepth: number): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    (error as { statusCode?: number }).statusCode = 400;
    throw error;
  }
  const at = tooDeep(value, maxNestingDepth);
  if (at) {
    throw new InvalidRequest([
      { loc: ['body', ...at], msg: `Value nested deeper than ${maxNestingDepth} levels of arrays and objects`, type: 'too_deep' },
    ]);
  }
  return value;
}

/**
 * Text work is metered before it is done. Tokenizing costs time in proportion to the text, and a call
 * whose state cannot fit is refused only after tokenizing it; so a body beyond FREE_TEXT_CHARS (far
 * more than any call that fits a window sends) takes ⌈(chars − FREE_TEXT_CHARS) / 4⌉ tokens from the
 * account's processed-token *rate* (never its allowance) before any text work: one account's flood of
 * oversized states runs at its token rate, not at the machine's.
 */
export const FREE_TEXT_CHARS = 16_384;
export const CHARS_PER_METERED_TOKEN = 4;

export function textWorkTokens(bodyChars: number): number {
  return Math.ceil(Math.max(0, bodyChars - FREE_TEXT_CHARS) / CHARS_PER_METERED_TOKEN);
}

export function sha256(text: string): string {
  return crypto.createHash('sha256').update(text, 'utf8').digest('hex');
}
