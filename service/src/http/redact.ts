/**
 * API keys never reach a log line. Keys are referred to by id (`key_…`) or visible prefix
 * (`sqa_live_` + 8 characters); anything that looks like a whole key anywhere in a line (a URL, a
 * message, an error) is cut to that prefix as the line is written, whichever code logged it.
 */
import type { LoggerOptions } from 'pino';
import { DISPLAY_CHARS, KEY_PREFIX } from '../accounts/keys.js';

const WHOLE_KEY = new RegExp(`(${KEY_PREFIX}[0-9A-Za-z]{${DISPLAY_CHARS}})[0-9A-Za-z]+`, 'g');

/** The text with every key-like token cut to its visible prefix. */
export function redactKeys(text: string): string {
  return text.replace(WHOLE_KEY, '$1…');
}

/** pino options for every logger of the service: the written line is redacted (pino's streamWrite hook). */
export function loggerOptions(level: string): LoggerOptions {
  return { level, hooks: { streamWrite: redactKeys } };
}
