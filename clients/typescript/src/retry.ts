/**
 * Retry and deadline rules as small pure functions. Time and randomness are always arguments
 * (`now`, `random`), so every rule can be tested with a fake clock.
 *
 * - What is retried: HTTP 408, 429, 5xx (incl. 529), connection errors, per-attempt timeouts.
 *   Never 402 or any other 4xx, never a caller abort, never past `maxRetries` (default 2).
 * - How long to wait: `retry-after-ms`, else `Retry-After` (seconds or an HTTP date); a server delay
 *   above `maxRetryAfterMs` (60 s) is ignored in favour of backoff. Backoff = min(500 ms · 2^attempt,
 *   5 s) minus up to 25 % jitter.
 * - Deadline: an absolute time (ms since epoch). No attempt runs past it (its timeout is clipped to the
 *   time left) and no wait is started that would end at or after it.
 */

import type { HeaderLike } from './errors.js';

export interface RetryPolicy {
  /** Retries after the first attempt; 0 disables retries. Default 2. */
  readonly maxRetries: number;
  /** First backoff delay (ms), doubled per retry up to `backoffMaxMs`. Default 500. */
  readonly backoffInitialMs: number;
  /** Backoff cap (ms). Default 5000. */
  readonly backoffMaxMs: number;
  /** Fraction of a backoff delay randomly subtracted, 0..1. Default 0.25. */
  readonly backoffJitter: number;
  /** HTTP statuses retried. Default 408, 429, 500–599. */
  readonly httpStatuses: ReadonlySet<number>;
  /** Honour `retry-after-ms` / `Retry-After`. Default true. */
  readonly respectRetryAfter: boolean;
  /** Server delays above this (ms) are ignored in favour of backoff. Default 60000. */
  readonly maxRetryAfterMs: number;
  /** Retry connection errors. Default true. */
  readonly retryConnectionErrors: boolean;
  /** Retry per-attempt timeouts. Default true. */
  readonly retryTimeouts: boolean;
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);

export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  maxRetries: 2,
  backoffInitialMs: 500,
  backoffMaxMs: 5000,
  backoffJitter: 0.25,
  httpStatuses: new Set([408, 429, ...range(500, 600)]),
  respectRetryAfter: true,
  maxRetryAfterMs: 60_000,
  retryConnectionErrors: true,
  retryTimeouts: true,
});

/** A policy with some fields overridden; the status set is copied. */
export function resolvePolicy(base: RetryPolicy, overrides?: Partial<RetryPolicy>): RetryPolicy {
  const p = { ...base, ...(overrides ?? {}) };
  if (!Number.isInteger(p.maxRetries) || p.maxRetries < 0) {
    throw new RangeError(`maxRetries must be a non-negative integer, got ${String(p.maxRetries)}`);
  }
  if (!(p.backoffJitter >= 0 && p.backoffJitter <= 1)) {
    throw new RangeError(`backoffJitter must be within 0..1, got ${String(p.backoffJitter)}`);
  }
  return { ...p, httpStatuses: new Set(p.httpStatuses) };
}

/** How an attempt failed. */
export type FailureKind =
  | { kind: 'status'; status: number }
  | { kind: 'connection' }
  | { kind: 'timeout' }
  | { kind: 'abort' };

/** Whether this kind of failure is retryable at all under the policy (ignores attempt count). */
export function isRetryable(failure: FailureKind, policy: RetryPolicy = DEFAULT_RETRY_POLICY): boolean {
  switch (failure.kind) {
    case 'status':
      return policy.httpStatuses.has(failure.status);
    case 'connection':
      return policy.retryConnectionErrors;
    case 'timeout':
      return policy.retryTimeouts;
    case 'abort':
      return false;
  }
}

/**
 * Whether to retry after the failure of attempt `attempt` (0 = the first attempt).
 * `attempt < maxRetries` means a retry is left.
 */
export function shouldRetry(
  failure: FailureKind | number,
  attempt: number,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
): boolean {
  const f: FailureKind = typeof failure === 'number' ? { kind: 'status', status: failure } : failure;
  return attempt < policy.maxRetries && isRetryable(f, policy);
}

/** `Headers`, a plain object, or nothing. Names are matched case-insensitively. */
export type HeaderSource = HeaderLike | Record<string, string | undefined> | undefined;

function header(headers: HeaderSource, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as HeaderLike).get === 'function') return (headers as HeaderLike).get(name) ?? undefined;
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(headers as Record<string, string | undefined>)) {
    if (k.toLowerCase() === lower && v !== undefined) return v;
  }
  return undefined;
}

/**
 * The delay (ms) the server asked for: `retry-after-ms` (non-negative number), else `Retry-After`
 * as seconds or an HTTP date (relative to `now`, floored at 0). Undefined when neither is usable.
 */
export function serverRetryDelayMs(headers: HeaderSource, now: number): number | undefined {
  const msRaw = header(headers, 'retry-after-ms');
  if (msRaw !== undefined && msRaw.trim() !== '') {
    const ms = Number(msRaw);
    if (Number.isFinite(ms) && ms >= 0) return ms;
  }
  const raw = header(headers, 'retry-after');
  if (raw === undefined || raw.trim() === '') return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(raw);
  if (!Number.isNaN(date)) return Math.max(0, date - now);
  return undefined;
}

/** Capped exponential backoff for retry number `attempt` (0-based), minus up to `jitter` of it. */
export function backoffMs(attempt: number, policy: RetryPolicy = DEFAULT_RETRY_POLICY, random: () => number = Math.random): number {
  const exponential = Math.min(policy.backoffInitialMs * 2 ** attempt, policy.backoffMaxMs);
  return Math.round(exponential * (1 - random() * policy.backoffJitter));
}

/**
 * How long to wait before retrying after the failure of attempt `attempt` (0-based): the server's
 * delay when allowed and ≤ `maxRetryAfterMs`, else backoff.
 */
export function retryDelayMs(
  headers: HeaderSource,
  attempt: number,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  random: () => number = Math.random,
  now: number = Date.now(),
): number {
  if (policy.respectRetryAfter) {
    const server = serverRetryDelayMs(headers, now);
    if (server !== undefined && server <= policy.maxRetryAfterMs) return server;
  }
  return backoffMs(attempt, policy, random);
}

/** Milliseconds left before `deadline` (absolute, ms since epoch); Infinity without one; never negative. */
export function remainingBudget(deadline: number | undefined, now: number): number {
  if (deadline === undefined) return Infinity;
  return Math.max(0, deadline - now);
}

/** An absolute deadline from a relative budget, or the explicit absolute one, whichever is earlier. */
export function resolveDeadline(now: number, budgetMs?: number, deadlineAt?: number): number | undefined {
  const candidates: number[] = [];
  if (budgetMs !== undefined) candidates.push(now + budgetMs);
  if (deadlineAt !== undefined) candidates.push(deadlineAt);
  return candidates.length > 0 ? Math.min(...candidates) : undefined;
}

/**
 * The timeout for the next attempt: the per-attempt timeout clipped to the time left.
 * `clipped` says the deadline, not the per-attempt timeout, is what limits it.
 * Undefined `timeoutMs` when no time is left (do not start the attempt).
 */
export function attemptTimeout(
  perAttemptMs: number,
  deadline: number | undefined,
  now: number,
): { timeoutMs: number | undefined; clipped: boolean } {
  const left = remainingBudget(deadline, now);
  if (left <= 0) return { timeoutMs: undefined, clipped: true };
  return left < perAttemptMs ? { timeoutMs: left, clipped: true } : { timeoutMs: perAttemptMs, clipped: false };
}

export type RetryDecision =
  | { retry: true; delayMs: number }
  | { retry: false; reason: 'not_retryable' | 'retries_exhausted' | 'deadline' };

/**
 * The whole rule after a failed attempt: retry or not, and after how long. A wait that would end at or
 * after the deadline is refused with reason `deadline`.
 */
export function decideRetry(args: {
  failure: FailureKind;
  attempt: number;
  headers?: HeaderSource;
  policy?: RetryPolicy;
  deadline?: number;
  now: number;
  random?: () => number;
}): RetryDecision {
  const policy = args.policy ?? DEFAULT_RETRY_POLICY;
  if (!isRetryable(args.failure, policy)) return { retry: false, reason: 'not_retryable' };
  if (args.attempt >= policy.maxRetries) return { retry: false, reason: 'retries_exhausted' };
  const delayMs = retryDelayMs(args.headers, args.attempt, policy, args.random ?? Math.random, args.now);
  if (args.deadline !== undefined && args.now + delayMs >= args.deadline) return { retry: false, reason: 'deadline' };
  return { retry: true, delayMs };
}
