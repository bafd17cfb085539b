/**
 * Chooses the limiter: in-process by default; Redis when REDIS_URL is set, wrapped so that an
 * unreachable Redis (connection refused, or a command slower than redisTimeoutMs; after a failure Redis is not tried for 1 s) follows
 * `redisFailureMode`:
 *   'open'   (default) the call is limited by this process's in-memory limiter instead (limits then hold
 *            per replica, not across replicas) and a warning is logged at most every 30 s;
 *   'closed' the call is refused with 529 overloaded and a Retry-After, so no replica can exceed
 *            the shared limits while Redis is down.
 */
import { ServiceError, retryHeaders } from '../errors.js';
import { MemoryLimiter } from './memory.js';
import { RedisLimiter } from './redis.js';
import type { Limiter, RateDecision, RateLimits, SlotDecision } from './types.js';

export type { Limiter, RateDecision, RateLimits, SlotDecision } from './types.js';
export { MemoryLimiter } from './memory.js';
export { RedisLimiter } from './redis.js';

export interface LimitsLog {
  warn(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
}

export class LimitsUnavailable extends ServiceError {
  constructor(retryAfterMs: number) {
    super(529, 'overloaded', 'The limits store is unreachable; retry after a short delay.', {}, retryHeaders(retryAfterMs));
  }
}

export class ResilientLimiter implements Limiter {
  readonly kind = 'redis';
  private lastWarn = 0;
  private degraded = false;
  /** After a failure, Redis is not tried again for a second (no per-call timeout while it is down). */
  private skipUntil = 0;

  constructor(
    readonly redis: RedisLimiter,
    readonly fallback: MemoryLimiter,
    private readonly mode: 'open' | 'closed',
    private readonly log: LimitsLog,
    private readonly closedRetryMs = 1000,
  ) {}

  /** True while the last Redis command failed. */
  get usingFallback(): boolean {
    return this.degraded;
  }

  private skipping(): boolean {
    if (Date.now() >= this.skipUntil) return false;
    if (this.mode === 'closed') throw new LimitsUnavailable(this.closedRetryMs);
    return true;
  }

  private failed(err: unknown): void {
    this.degraded = true;
    const now = Date.now();
    this.skipUntil = now + 1000;
    if (now - this.lastWarn > 30_000) {
      this.lastWarn = now;
      this.log.warn(
        { err: (err as Error)?.message ?? String(err), redisFailureMode: this.mode },
        this.mode === 'open'
          ? 'Redis unreachable: limiting with this process\'s in-memory limits (they do not span replicas)'
          : 'Redis unreachable: refusing calls with 529 until it is back (redisFailureMode=closed)',
      );
    }
    if (this.mode === 'closed') throw new LimitsUnavailable(this.closedRetryMs);
  }

  private recovered(): void {
    if (this.degraded) {
      this.degraded = false;
      this.log.info({}, 'Redis reachable again: shared limits restored');
    }
  }

  async consumeRate(accountId: string, limits: RateLimits, cost: number, requests = 1): Promise<RateDecision> {
    if (this.skipping()) return this.fallback.consumeRate(accountId, limits, cost, requests);
    try {
      const d = await this.redis.consumeRate(accountId, limits, cost, requests);
      this.recovered();
      return d;
    } catch (err) {
      this.failed(err);
      return this.fallback.consumeRate(accountId, limits, cost, requests);
    }
  }

  async acquireSlot(accountId: string, limit: number, ttlMs: number): Promise<SlotDecision> {
    if (this.skipping()) return this.fallback.acquireSlot(accountId, limit, ttlMs);
    try {
      const d = await this.redis.acquireSlot(accountId, limit, ttlMs);
      this.recovered();
      if (!d.ok) return d;
      return {
        ok: true,
        release: async () => {
          // A slot that cannot be released expires after ttlMs.
          await d.release().catch(() => undefined);
        },
        // A renewal that fails leaves the lease to expire: the slot is given back early, never held long.
        renew: async () => {
          await d.renew().catch(() => undefined);
        },
      };
    } catch (err) {
      this.failed(err);
      return this.fallback.acquireSlot(accountId, limit, ttlMs);
    }
  }

  async close(): Promise<void> {
    await this.redis.close();
    await this.fallback.close();
  }
}
