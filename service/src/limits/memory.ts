/** In-process limits: the embedded default, and the fallback when Redis is unreachable in 'open' mode. */
import crypto from 'node:crypto';
import type { BucketState, Limiter, RateDecision, RateLimits, SlotDecision } from './types.js';
import { refill, waitMs } from './types.js';

export class MemoryLimiter implements Limiter {
  readonly kind = 'memory';
  private readonly buckets = new Map<string, { req: BucketState; tok: BucketState; touched: number }>();
  private readonly slots = new Map<string, Map<string, number>>();
  private sweeps = 0;

  constructor(private readonly clock: () => number = Date.now) {}

  async consumeRate(accountId: string, limits: RateLimits, cost: number, requests = 1): Promise<RateDecision> {
    const now = this.clock();
    const b = this.buckets.get(accountId);
    const req = refill(b?.req, limits.requestsPerSecond, now);
    const tok = refill(b?.tok, limits.processedTokensPerSecond, now);
    const wait = Math.max(waitMs(req.level, limits.requestsPerSecond, requests), waitMs(tok.level, limits.processedTokensPerSecond, cost));
    if (wait > 0) {
      this.buckets.set(accountId, { req, tok, touched: now });
      return { ok: false, retryAfterMs: wait };
    }
    req.level -= requests;
    tok.level -= cost;
    this.buckets.set(accountId, { req, tok, touched: now });
    if (++this.sweeps % 1000 === 0) this.sweep(now);
    return { ok: true };
  }

  /** Forget buckets idle long enough to be full again (keeps memory bounded). */
  private sweep(now: number): void {
    for (const [k, v] of this.buckets) if (now - v.touched > 60_000) this.buckets.delete(k);
  }

  async acquireSlot(accountId: string, limit: number, ttlMs: number): Promise<SlotDecision> {
    const now = this.clock();
    let held = this.slots.get(accountId);
    if (!held) {
      held = new Map();
      this.slots.set(accountId, held);
    }
    for (const [id, expires] of held) if (expires <= now) held.delete(id);
    if (held.size >= limit) return { ok: false };
    const id = crypto.randomUUID();
    held.set(id, now + ttlMs);
    return {
      ok: true,
      release: async () => {
        const h = this.slots.get(accountId);
        if (!h) return;
        h.delete(id);
        if (h.size === 0) this.slots.delete(accountId);
      },
      renew: async () => {
        const h = this.slots.get(accountId);
        if (h?.has(id)) h.set(id, this.clock() + ttlMs);
      },
    };
  }

  /** Slots currently held (tests, metrics). */
  inFlight(accountId: string): number {
    return this.slots.get(accountId)?.size ?? 0;
  }

  async close(): Promise<void> {
    this.buckets.clear();
    this.slots.clear();
  }
}
