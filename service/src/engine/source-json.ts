/**
 * JSON as the client wrote it, kept beside the parsed value for rendering (render.ts).
 *
 * The checkpoints read objects and numbers as Python's `json.dumps` writes what Python's `json.loads`
 * read (Laya's runtime and our training code are Python). JavaScript's `JSON.parse` loses two things
 * that text depends on: the order of integer-like keys (`{"10": …, "2": …}` iterates "2" first) and
 * the written form of numbers (`1.0` becomes 1, `12345678901234567890` loses digits). So, when a body
 * holds either, its text is parsed once more with an order-preserving parser (jsonc-parser's
 * `parseTree`, offsets into the text) and each parsed object or array gets, in a WeakMap, its keys in
 * the client's order and the raw text of its number members. Nothing else reads this; validation and
 * everything else keep using the `JSON.parse` value.
 */
import { parseTree, type Node } from 'jsonc-parser';

export interface SourceShape {
  /** Object keys in the client's order (first occurrence; the value is the last one, as with JSON.parse). */
  keys?: string[];
  /** Raw text of number members, by key (objects) or index (arrays). */
  numbers: Map<string, string>;
}

const shapes = new WeakMap<object, SourceShape>();

/** The client's key order and number texts of a parsed object or array, when its body had any that matter. */
export function sourceShape(value: object): SourceShape | undefined {
  return shapes.get(value);
}

// Integer-like keys (which JavaScript reorders) or numbers whose JavaScript form can differ from Python's
// (a fraction, an exponent, 16+ digits). Without any, JSON.parse order and String(n) are already exact.
const NEEDS_SOURCE = /"(?:0|[1-9]\d*)"\s*:|\d[.eE]|\d{16}/;

/** `JSON.parse(text)`, remembering the client's key order and number texts where JavaScript loses them. */
export function parseSourceJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  rememberSource(value, text);
  return value;
}

/** Remember, for `value` parsed from `text` by any JSON parser, the key order and number texts it lost. */
export function rememberSource(value: unknown, text: string): void {
  if (value !== null && typeof value === 'object' && NEEDS_SOURCE.test(text)) {
    const tree = parseTree(text);
    if (tree) record(tree, value, text);
  }
}

function record(node: Node, value: object, text: string): void {
  const numbers = new Map<string, string>();
  if (node.type === 'object' && !Array.isArray(value)) {
    const keys: string[] = [];
    const seen = new Set<string>();
    const last = new Map<string, Node>();
    for (const prop of node.children ?? []) {
      const [keyNode, valueNode] = prop.children ?? [];
      if (!keyNode || !valueNode) continue;
      const key = String(keyNode.value);
      if (!seen.has(key)) {
        seen.add(key);
        keys.push(key);
      }
      last.set(key, valueNode);
    }
    for (const [key, valueNode] of last) visit(valueNode, (value as Record<string, unknown>)[key], key, numbers, text);
    shapes.set(value, { keys, numbers });
  } else if (node.type === 'array' && Array.isArray(value)) {
    (node.children ?? []).forEach((child, i) => visit(child, value[i], String(i), numbers, text));
    shapes.set(value, { numbers });
  }
}

function visit(node: Node, value: unknown, key: string, numbers: Map<string, string>, text: string): void {
  if (node.type === 'number') numbers.set(key, text.slice(node.offset, node.offset + node.length));
  else if ((node.type === 'object' || node.type === 'array') && value !== null && typeof value === 'object') record(node, value, text);
}
