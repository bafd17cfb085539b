/**
 * Per-account request-rate, processed-token-rate and in-flight limits.
 *
 * Rates are token buckets holding one second's worth (burst = the per-second rate). A call needs
 * 1 request token and `cost` processed tokens, taken from both buckets or from neither. A call costing
 * more than a full bucket is let through when the bucket is full and leaves it in debt, so a large
 * call is slowed, never refused forever. The Retry-After of a refusal is the exact time until both
 * buckets hold what the call needs (rounded up), so a client that waits that long gets through
 * unless other calls of the same account take the tokens first.
 */
export interface RateLimits {
  requestsPerSecond: number;
  processedTokensPerSecond: number;
}

export type RateDecision = { ok: true } | { ok: false; retryAfterMs: number };

/**
 * An in-flight slot is a lease: it expires `ttlMs` after it was taken or last renewed, so the slots of
 * a replica that died are free again within one lease (the holder renews while its call runs).
 */
export type SlotDecision = { ok: true; release(): Promise<void>; renew(): Promise<void> } | { ok: false };

export interface Limiter {
  readonly kind: string;
  /**
   * Take `requests` requests (default 1) and `cost` processed tokens from the account's buckets (both or
   * neither). Admission takes the request before any text work (cost 0) and the tokens once counted (requests 0).
   */
  consumeRate(accountId: string, limits: RateLimits, cost: number, requests?: number): Promise<RateDecision>;
  /** Hold one of the account's `limit` in-flight slots; a slot neither released nor renewed expires after `ttlMs`. */
  acquireSlot(accountId: string, limit: number, ttlMs: number): Promise<SlotDecision>;
  close(): Promise<void>;
}

export interface BucketState {
  level: number;
  ts: number;
}

const EPS = 1e-9;

/**
 * One token bucket step (the same arithmetic as the Redis Lua script). Returns the refilled state and
 * either ok (caller then subtracts `cost`) or the wait in ms until the bucket holds min(cost, capacity).
 */
export function refill(state: BucketState | undefined, ratePerSecond: number, now: number): BucketState {
  const capacity = ratePerSecond;
  if (!state) return { level: capacity, ts: now };
  const elapsed = Math.max(0, now - state.ts);
  return { level: Math.min(capacity, state.level + (elapsed * ratePerSecond) / 1000), ts: Math.max(now, state.ts) };
}

export function waitMs(level: number, ratePerSecond: number, cost: number): number {
  const need = Math.min(cost, ratePerSecond);
  if (level + EPS >= need) return 0;
  return Math.ceil(((need - level) * 1000) / ratePerSecond);
}
