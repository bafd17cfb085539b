/**
 * Limits shared by every replica, in Redis: one atomic Lua script per decision (via ioredis), using
 * Redis's own clock (TIME) so replicas with skewed clocks agree.
 *
 *   {prefix}{acct}:rate      hash: request and processed-token buckets (level, timestamp); expires
 *                            once both buckets would be full again (a missing key = full buckets)
 *   {prefix}{acct}:inflight  sorted set: slot id → lease expiry (ms), renewed while the call runs; the
 *                            slots of a crashed replica lapse within one lease and are dropped on the next acquire
 *
 * Why not rate-limiter-flexible: its limiters are fixed-window counters (up to twice the limit across a
 * window edge), cannot check two limits (requests and tokens) in one atomic step, and a refused
 * call there still consumes points. Two short scripts give exact token buckets and honest waits.
 */
import crypto from 'node:crypto';
import { Redis } from 'ioredis';
import type { Limiter, RateDecision, RateLimits, SlotDecision } from './types.js';

const RATE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rps = tonumber(ARGV[1])
local tps = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local h = redis.call('HMGET', KEYS[1], 'rl', 'rt', 'tl', 'tt')
local function refill(level, ts, rate)
  if not level then return rate, now end
  level = tonumber(level)
  ts = tonumber(ts)
  local el = now - ts
  if el < 0 then el = 0 end
  level = math.min(rate, level + el * rate / 1000)
  if now > ts then ts = now end
  return level, ts
end
local function wait(level, rate, c)
  local need = math.min(c, rate)
  if level + 1e-9 >= need then return 0 end
  return math.ceil((need - level) * 1000 / rate)
end
local rl, rts = refill(h[1], h[2], rps)
local tl, tts = refill(h[3], h[4], tps)
local req = tonumber(ARGV[4])
local w = math.max(wait(rl, rps, req), wait(tl, tps, cost))
if w == 0 then
  rl = rl - req
  tl = tl - cost
end
redis.call('HSET', KEYS[1], 'rl', string.format('%.17g', rl), 'rt', string.format('%d', rts), 'tl', string.format('%.17g', tl), 'tt', string.format('%d', tts))
local full = math.max((rps - rl) * 1000 / rps, (tps - tl) * 1000 / tps)
redis.call('PEXPIRE', KEYS[1], math.ceil(full) + 1000)
return w
`;

const ACQUIRE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) + 1000)
return 1
`;

// A lease renewal: only a slot still held is extended (an expired one was dropped and stays dropped).
const RENEW_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if not redis.call('ZSCORE', KEYS[1], ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[1]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]) + 1000)
return 1
`;

type LimitRedis = Redis & {
  sqaRate(key: string, rps: number, tps: number, cost: number, requests: number): Promise<number>;
  sqaRenew(key: string, ttlMs: number, id: string): Promise<number>;
  sqaAcquire(key: string, limit: number, ttlMs: number, id: string): Promise<number>;
};

export interface RedisLimiterOptions {
  url: string;
  prefix: string;
  /** Per-command timeout, ms: a slower Redis counts as unreachable. */
  timeoutMs: number;
}

export class RedisLimiter implements Limiter {
  readonly kind = 'redis';
  readonly redis: LimitRedis;

  constructor(private readonly opts: RedisLimiterOptions) {
    const redis = new Redis(opts.url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // Only a backstop: the timeout that counts is timed() below, which tells a slow Redis from a
      // blocked event loop.
      commandTimeout: Math.max(10 * opts.timeoutMs, 2000),
      connectTimeout: Math.max(1000, opts.timeoutMs),
      retryStrategy: (times) => Math.min(100 * times, 2000),
      lazyConnect: false,
    });
    redis.on('error', () => {
      /* reported by the failing command; reconnects in the background */
    });
    redis.defineCommand('sqaRate', { numberOfKeys: 1, lua: RATE_SCRIPT });
    redis.defineCommand('sqaAcquire', { numberOfKeys: 1, lua: ACQUIRE_SCRIPT });
    redis.defineCommand('sqaRenew', { numberOfKeys: 1, lua: RENEW_SCRIPT });
    this.redis = redis as LimitRedis;
  }

  /** Resolves when connected, or rejects after `ms`. */
  ready(ms: number): Promise<void> {
    if (this.redis.status === 'ready') return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.redis.off('ready', onReady);
        reject(new Error(`Redis not reachable within ${ms} ms`));
      }, ms);
      const onReady = () => {
        clearTimeout(timer);
        resolve();
      };
      this.redis.once('ready', onReady);
    });
  }

  /**
   * The command's result, or a rejection when no reply came within timeoutMs. A timer that fires late
   * means this process's event loop was blocked (a synchronous ONNX Runtime run blocks it for a whole
   * batch), not that Redis was slow: the reply may already be waiting in the socket. So the verdict
   * waits one poll phase (setImmediate runs after it) and a reply read there still counts. Without
   * this, every event-loop stall longer than timeoutMs looked like a Redis outage (529s in `closed`
   * mode, per-replica limits in `open` mode).
   */
  private timed<T>(command: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let done = false;
      const timer = setTimeout(() => {
        setImmediate(() => {
          if (done) return;
          done = true;
          reject(new Error(`Redis command timed out after ${this.opts.timeoutMs} ms`));
        });
      }, this.opts.timeoutMs);
      command.then(
        (value) => {
          clearTimeout(timer);
          if (done) return;
          done = true;
          resolve(value);
        },
        (err: unknown) => {
          clearTimeout(timer);
          if (done) return;
          done = true;
          reject(err);
        },
      );
    });
  }

  private key(accountId: string, what: string): string {
    return `${this.opts.prefix}{${accountId}}:${what}`;
  }

  async consumeRate(accountId: string, limits: RateLimits, cost: number, requests = 1): Promise<RateDecision> {
    const wait = Number(
      await this.timed(this.redis.sqaRate(this.key(accountId, 'rate'), limits.requestsPerSecond, limits.processedTokensPerSecond, cost, requests)),
    );
    return wait > 0 ? { ok: false, retryAfterMs: wait } : { ok: true };
  }

  async acquireSlot(accountId: string, limit: number, ttlMs: number): Promise<SlotDecision> {
    const key = this.key(accountId, 'inflight');
    const id = crypto.randomUUID();
    let got: number;
    try {
      got = Number(await this.timed(this.redis.sqaAcquire(key, limit, ttlMs, id)));
    } catch (err) {
      // The script may have run (only its reply was late): take the slot back, or it would hold one of
      // the account's in-flight places until ttlMs. Sent on the same connection, so Redis runs it after
      // the script; when the connection is down neither ran.
      this.redis.zrem(key, id).catch(() => undefined);
      throw err;
    }
    if (!got) return { ok: false };
    return {
      ok: true,
      release: async () => {
        await this.timed(this.redis.zrem(key, id));
      },
      renew: async () => {
        await this.timed(this.redis.sqaRenew(key, ttlMs, id));
      },
    };
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
