/**
 * API key format, hashing and checks.
 *
 *   sqa_live_<40 base62 characters>        e.g. sqa_live_4fQ9…   (≈238 bits from crypto.randomBytes)
 *
 * Only SHA-256(key) is stored (hex). A slow password hash (bcrypt/scrypt/argon2) protects guessable,
 * low-entropy secrets; these keys are random with ~238 bits, so a fast hash is already infeasible to
 * invert and keeps authentication cheap on every request. Lookup is by the hash (unique index) and the
 * stored hash is compared again with crypto.timingSafeEqual.
 *
 * The visible prefix `sqa_live_` marks a key as this service's. Anything else (the earlier service's
 * `ts_…`, `tsk_…`, `sk-…`, …) is refused with a message saying the two services' keys are separate.
 */
import crypto from 'node:crypto';

export const KEY_PREFIX = 'sqa_live_';
export const KEY_SECRET_LENGTH = 40;
/** Characters of the secret shown after KEY_PREFIX in listings (the "visible prefix"). */
export const DISPLAY_CHARS = 8;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PATTERN = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${KEY_SECRET_LENGTH}}$`);

/** Uniform random base62 string (rejection sampling: no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of crypto.randomBytes(length * 2)) {
      if (byte < 248) out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export function generateKey(): string {
  return KEY_PREFIX + randomBase62(KEY_SECRET_LENGTH);
}

export function hashKey(key: string): string {
  return crypto.createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The part of a key that is safe to show and to revoke by: `sqa_live_` + 8 characters. */
export function displayPrefix(key: string): string {
  return key.slice(0, KEY_PREFIX.length + DISPLAY_CHARS);
}

export function constantTimeEqualHex(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && crypto.timingSafeEqual(x, y);
}

/** Compare two secrets of any length in constant time (hashes them first). */
export function constantTimeEqualSecret(a: string, b: string): boolean {
  const x = crypto.createHash('sha256').update(a).digest();
  const y = crypto.createHash('sha256').update(b).digest();
  return crypto.timingSafeEqual(x, y);
}

export type KeyShape = 'ours' | 'ours_malformed' | 'foreign';

export function classifyKey(token: string): KeyShape {
  if (KEY_PATTERN.test(token)) return 'ours';
  if (token.startsWith('sqa_')) return 'ours_malformed';
  return 'foreign';
}

export const FOREIGN_KEY_MESSAGE =
  'This API key was not issued by this service (its keys start with "sqa_live_"). ' +
  'Keys of the earlier System One service are not accepted here: the two services\' keys are separate. ' +
  'Use a key issued by this service, or point your client back at the earlier service to keep using that key.';

export const MALFORMED_KEY_MESSAGE = 'The API key is malformed. Keys of this service look like "sqa_live_" followed by 40 letters and digits.';
export const UNKNOWN_KEY_MESSAGE = 'The API key is unknown or has been revoked. Please check your API key and try again.';

/**
 * Extracts the bearer token. Returns undefined when the header is absent or empty; throws a string
 * reason when present but not of the form `Bearer <token>`.
 */
export function parseBearer(header: string | undefined): { token?: string; malformed?: string } {
  if (header === undefined) return {};
  const trimmed = header.trim();
  if (trimmed === '') return {};
  const m = /^(\S+)(?:\s+(.*))?$/.exec(trimmed);
  if (!m || m[1]!.toLowerCase() !== 'bearer') {
    return { malformed: 'The Authorization header must be "Bearer <key>".' };
  }
  const token = (m[2] ?? '').trim();
  if (token === '') return {};
  if (/\s/.test(token)) return { malformed: 'The Authorization header must be "Bearer <key>" with a single key.' };
  return { token };
}
