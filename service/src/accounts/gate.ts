/**
 * The Gate (see types.ts): authentication, limits and the monthly allowance in front of every
 * answered call, plus the admin operations the CLI and admin routes use.
 *
 * arrive(): in-flight slot (a renewed lease) → request rate — from the key alone, before the body is read;
 * enter(): [idempotent replay?] → (the arrival's, or a new) slot and request rate → an oversized body's
 *          metered text work from the token rate — before any text work;
 * entry.admit(cost): processed-token rate → allowance reservation — once the call is tokenized.
 * admit() is both at once. A refusal at any step undoes the earlier steps (the slot is freed; the
 * rate tokens of a refused call stay spent, as usual for rate limits).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import { AllowanceExhausted, IdempotencyKeyReused, InFlightLimit, InvalidApiKey, MissingApiKey, RateLimited } from '../errors.js';
import { MemoryLimiter, RedisLimiter, ResilientLimiter, type Limiter } from '../limits/index.js';
import { isStorageUnavailable, openDb, type Db } from '../storage/db.js';
import {
  classifyKey,
  displayPrefix,
  constantTimeEqualHex,
  FOREIGN_KEY_MESSAGE,
  hashKey,
  MALFORMED_KEY_MESSAGE,
  parseBearer,
  UNKNOWN_KEY_MESSAGE,
} from './keys.js';
import { dayOf, periodEnd, periodOf } from './period.js';
import { AccountError, AccountStore, sameRequest, usageTotals, type AccountRecord, type CommitInput, type KeyRecord, type LimitOverrides, type UsageTotals } from './store.js';
import type { Account, Admission, Arrival, Charge, Entry, Gate } from './types.js';

export const USAGE_VIEW = '/app/usage';

export interface GateLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface GateOptions {
  /** Milliseconds since the epoch; injectable for tests (allowance periods, reservation expiry, memory limits). */
  clock?: () => number;
  /** Create the default account and print its key on an empty store (default true; the CLI passes false). */
  bootstrap?: boolean;
  /** Use this limiter instead of the configured one (tests). */
  limiter?: Limiter;
}

export interface UsageReport {
  account: { id: string; name: string };
  period: string;
  period_start: string;
  resets_at: string;
  allowance: number;
  used: number;
  /** Tokens of calls admitted and still running. */
  reserved: number;
  remaining: number;
  requests: number;
  by_day: { date: string; processed_tokens: number; requests: number; by_model: Record<string, number> }[];
  by_model: { model: string; processed_tokens: number; requests: number }[];
  limits: { monthly_allowance: number; requests_per_second: number; processed_tokens_per_second: number; in_flight: number };
  usage_view: string;
  generated_at: string;
}

export interface AccountsGate extends Gate {
  readonly db: Db;
  readonly store: AccountStore;
  readonly limiter: Limiter;
  /** Usage of the account for the month holding now, or for `period` ('YYYY-MM'). */
  usage(account: Account, period?: string): Promise<UsageReport>;
  createAccount(name: string, limits?: LimitOverrides): Promise<AccountRecord>;
  updateLimits(account: string, limits: LimitOverrides): Promise<AccountRecord>;
  getAccount(idOrName: string): Promise<AccountRecord | undefined>;
  listAccounts(): Promise<AccountRecord[]>;
  /** Issues a key for the account (id or name), creating the account when `create` is set and it is missing. */
  createKey(account: string, opts?: { create?: boolean; limits?: LimitOverrides }): Promise<{ key: string; record: KeyRecord; account: AccountRecord; created: boolean }>;
  listKeys(account?: string): Promise<KeyRecord[]>;
  revokeKey(ref: string): Promise<KeyRecord>;
  /** Drops expired reservations now (also done periodically, and by an admission they would refuse). */
  expireStale(): Promise<number>;
  /** Authoritative totals from the database (see usageTotals). */
  totals(filter?: { accountId?: string; period?: string }): Promise<UsageTotals>;
}

export { AccountError };

export async function createGate(config: Config, log: GateLog, opts: GateOptions = {}): Promise<AccountsGate> {
  const c = config.accounts;
  const clock = opts.clock ?? Date.now;
  const db = await openDb({ databaseUrl: c.databaseUrl, databaseSchema: c.databaseSchema, sqlitePath: c.sqlitePath });
  const store = new AccountStore(db, {
    monthlyAllowance: c.defaultMonthlyAllowance,
    requestsPerSecond: c.defaultRequestsPerSecond,
    processedTokensPerSecond: c.defaultProcessedTokensPerSecond,
    inFlight: c.defaultInFlight,
  });

  let limiter: Limiter;
  if (opts.limiter) limiter = opts.limiter;
  else if (c.redisUrl) {
    const redis = new RedisLimiter({ url: c.redisUrl, prefix: c.redisKeyPrefix, timeoutMs: c.redisTimeoutMs });
    limiter = new ResilientLimiter(redis, new MemoryLimiter(clock), c.redisFailureMode, log);
    await redis.ready(2000).catch((err: Error) => log.warn({ err: err.message, redisFailureMode: c.redisFailureMode }, 'Redis not reachable at start'));
  } else limiter = new MemoryLimiter(clock);

  log.info({ storage: db.description, limits: limiter.kind }, 'accounts storage ready');

  if (opts.bootstrap ?? true) {
    const first = await store.bootstrap(c.defaultAccountName, clock());
    if (first) announceFirstKey(c.firstKeyFile, first.account, first.key, log);
  }

  // Expired reservations of crashed processes are also dropped by an admission of their account that
  // they would make fail.
  const sweepEvery = Math.max(1000, Math.min(30_000, Math.floor(c.reservationTtlMs / 2)));
  const sweeper = setInterval(() => {
    store.expireStale(clock()).catch((err: Error) => log.warn({ err: err.message }, 'reservation sweep failed'));
  }, sweepEvery);
  sweeper.unref();

  // How long calls take, for an honest in-flight Retry-After: a slot frees when a running call ends,
  // and a client told less than most calls take comes back to a full account again. The 90th
  // percentile of the last 100 calls of this process (a mean understated calls of 0.5–1.5 s).
  const durations: number[] = [];
  const noteDuration = (ms: number) => {
    durations.push(ms);
    if (durations.length > 100) durations.shift();
  };
  const typicalCallMs = (): number => {
    if (durations.length === 0) return 1000;
    const sorted = [...durations].sort((a, b) => a - b);
    return Math.min(10_000, Math.max(50, sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.9))]!));
  };

  // Repairs the database could not take while it was unreachable, retried every 0.5 s until it answers
  // (bounded; past that the TTL sweep gives reservations back): a reservation to give back, and the usage
  // record of a call answered 503 whose commit may have landed (accounts/store.ts, voidRecord).
  const pendingRepairs = new Map<string, () => Promise<unknown>>();
  let repairTimer: NodeJS.Timeout | undefined;
  const retryRepairs = () => {
    if (repairTimer || pendingRepairs.size === 0) return;
    repairTimer = setTimeout(async () => {
      for (const [id, repair] of [...pendingRepairs]) {
        try {
          await repair();
          pendingRepairs.delete(id);
        } catch {
          break; // still down: try again later
        }
      }
      repairTimer = undefined;
      retryRepairs();
    }, 500);
    repairTimer.unref();
  };
  const repairLater = (id: string, repair: () => Promise<unknown>) => {
    if (pendingRepairs.size < 10_000) pendingRepairs.set(id, repair);
    retryRepairs();
  };
  const releaseLater = (reservationId: string) => repairLater(`release ${reservationId}`, () => store.release(reservationId));

  /**
   * Commits a call's usage record. When the database stops answering during the commit, the
   * transaction may have committed with only its acknowledgement lost, so the call's fate is learned
   * by its request id once the database answers again: written → done (the call is answered);
   * not written → written now (the unique request id makes a second record impossible). Until
   * `deadline`; then the call is refused 503 (StorageUnavailable), and a record that did land without
   * an Idempotency-Key (no retry could ever be given its answer) is voided as soon as the database lets it.
   */
  const recordUsage = async (input: CommitInput, deadline: number): Promise<void> => {
    let failure: unknown;
    try {
      await store.commit(input);
      return;
    } catch (err) {
      if (!isStorageUnavailable(err)) throw err;
      failure = err;
    }
    for (let wait = 100; clock() + wait < deadline; wait = Math.min(1000, wait * 2)) {
      await new Promise((r) => setTimeout(r, wait));
      try {
        if (!(await store.recorded(input.requestId))) await store.commit(input);
        log.info({ requestId: input.requestId }, 'usage record settled after its acknowledgement was lost');
        return;
      } catch (err) {
        if (!isStorageUnavailable(err)) throw err;
        failure = err;
      }
    }
    log.warn({ requestId: input.requestId }, 'the fate of a usage record could not be learned within the call budget: answered 503');
    if (input.idempotencyKey === undefined) {
      repairLater(`void ${input.requestId}`, async () => {
        if (await store.voidRecord(input.requestId)) log.info({ requestId: input.requestId }, 'usage record of a call answered 503 voided');
      });
    }
    throw failure;
  };

  const toAccount = (r: AccountRecord): Account => ({ id: r.id, name: r.name, limits: r.limits });

  const resolveAccount = async (ref: string): Promise<AccountRecord> => {
    const a = await store.getAccount(ref);
    if (!a) throw new AccountError(`No account named or with id ${JSON.stringify(ref)}.`);
    return a;
  };

  /** An in-flight slot and a request counted: what a call holds from its arrival until it is settled. */
  interface Held {
    started: number;
    freeSlot(): Promise<void>;
  }
  const arrivals = new WeakMap<Arrival, Held & { taken: boolean }>();

  /**
   * The in-flight slot (a renewed lease) and one request of the request rate, with `textWorkTokens` of
   * the token rate: before any text work (tokenizing is the expensive part of a refusal).
   */
  const hold = async (account: Account, textWorkTokens: number): Promise<Held> => {
    const limits = account.limits;
    // The slot is a lease renewed while the call runs (a third of the lease apart): the slots of a
    // replica that died are free again within one lease.
    const slot = await limiter.acquireSlot(account.id, limits.inFlight, c.slotLeaseMs);
    if (!slot.ok) throw new InFlightLimit(Math.ceil(typicalCallMs()), limits.inFlight);
    const started = clock();
    let holding = true;
    const renewal = setInterval(() => void slot.renew().catch(() => undefined), Math.max(100, Math.floor(c.slotLeaseMs / 3)));
    renewal.unref();
    const freeSlot = async () => {
      if (!holding) return;
      holding = false;
      clearInterval(renewal);
      await slot.release().catch((err: Error) => log.warn({ err: err.message }, 'in-flight slot release failed (it expires)'));
    };
    try {
      const rate = await limiter.consumeRate(account.id, limits, textWorkTokens, 1);
      if (!rate.ok) throw new RateLimited(rate.retryAfterMs);
    } catch (err) {
      await freeSlot();
      throw err;
    }
    return { started, freeSlot };
  };

  const arrive = async (account: Account, textWorkTokens: number): Promise<Arrival> => {
    const held = { ...(await hold(account, textWorkTokens)), taken: false };
    const arrival: Arrival = { leave: async () => (held.taken ? undefined : held.freeSlot()) };
    arrivals.set(arrival, held);
    return arrival;
  };

  /** The slot of an arrival, now the entry's to free. */
  const takeOver = (arrival: Arrival): Held => {
    const held = arrivals.get(arrival);
    if (!held) throw new Error('an arrival of another gate');
    held.taken = true;
    return held;
  };

  const gate: AccountsGate = {
    db,
    store,
    limiter,

    async authenticate(authorization) {
      const { token, malformed } = parseBearer(authorization);
      if (malformed) throw new InvalidApiKey(malformed);
      if (token === undefined) throw new MissingApiKey();
      const shape = classifyKey(token);
      if (shape === 'foreign') throw new InvalidApiKey(FOREIGN_KEY_MESSAGE);
      if (shape === 'ours_malformed') throw new InvalidApiKey(MALFORMED_KEY_MESSAGE);
      const hash = hashKey(token);
      const found = await store.findByKeyHash(hash);
      if (!found || !constantTimeEqualHex(found.keyHash, hash)) throw new InvalidApiKey(UNKNOWN_KEY_MESSAGE);
      return toAccount(found.account);
    },

    async admit(account, call): Promise<Admission> {
      const entry = await gate.enter(account, call);
      if (entry.replay) return replayAdmission(entry.replay.status, entry.replay.body);
      return entry.admit(call.processedTokens);
    },

    arrive: (account) => arrive(account, 0),

    async enter(account, call): Promise<Entry> {
      const key = call.idempotencyKey;
      const limits = account.limits;

      if (key !== undefined) {
        const done = await db.query<{ response_status: unknown; response_body: string | null; request_hash: unknown }>(
          'SELECT response_status, response_body, request_hash FROM usage_records WHERE account_id = $1 AND idempotency_key = $2',
          [account.id, key],
        ).catch(async (err: unknown) => {
          await call.arrival?.leave();
          throw err;
        });
        if (done[0] && !sameRequest(done[0].request_hash, call.requestHash)) {
          await call.arrival?.leave();
          throw new IdempotencyKeyReused();
        }
        if (done[0]) {
          await call.arrival?.leave();
          const replay = { status: Number(done[0].response_status) || 200, body: done[0].response_body ?? '' };
          return { replay, admit: async () => replayAdmission(replay.status, replay.body), leave: async () => undefined };
        }
      }

      let held: Held;
      if (call.arrival) {
        held = takeOver(call.arrival);
        // The request was counted on arrival; an oversized body's text work is metered now that its size is known.
        if ((call.textWorkTokens ?? 0) > 0) {
          try {
            const rate = await limiter.consumeRate(account.id, limits, call.textWorkTokens!, 0);
            if (!rate.ok) throw new RateLimited(rate.retryAfterMs);
          } catch (err) {
            await held.freeSlot();
            throw err;
          }
        }
      } else held = await hold(account, call.textWorkTokens ?? 0);
      const { started, freeSlot } = held;
      const admitStep = async (cost: number): Promise<Admission> => {
        if (!Number.isSafeInteger(cost) || cost < 0) throw new Error(`processedTokens must be a non-negative integer, got ${cost}`);
        try {
          const rate = await limiter.consumeRate(account.id, limits, cost, 0);
          if (!rate.ok) throw new RateLimited(rate.retryAfterMs);

          const now = clock();
          const r = await store.reserve({
            accountId: account.id,
            allowance: limits.monthlyAllowance,
            tokens: cost,
            idempotencyKey: key,
            requestHash: call.requestHash,
            now,
            ttlMs: c.reservationTtlMs,
          });
          if (r.kind === 'key_reused') throw new IdempotencyKeyReused();
          if (r.kind === 'replay') {
            await freeSlot();
            return replayAdmission(r.status, r.body);
          }
          if (r.kind === 'in_progress') {
            throw new RateLimited(
              Math.min(typicalCallMs(), Math.max(50, r.expiresAt - now)),
              'A request with the same Idempotency-Key is still being answered; retry after the delay to receive its response.',
            );
          }
          if (r.kind === 'exhausted') {
            throw new AllowanceExhausted({
              allowance: limits.monthlyAllowance,
              used: Math.min(limits.monthlyAllowance, r.used + r.reserved),
              resets_at: periodEnd(now).toISOString(),
              usage_view: USAGE_VIEW,
            });
          }

          let settled = false;
          const { reservationId, period } = r;
          // The reservation is a lease too, renewed while the call runs: a process that died leaves its
          // reservation (and the Idempotency-Key it holds) for at most one TTL, not for a long fixed one.
          const lease = setInterval(
            () => void store.renew(reservationId, clock() + c.reservationTtlMs).catch(() => undefined),
            Math.max(100, Math.floor(c.reservationTtlMs / 3)),
          );
          lease.unref();
          return {
            async commit(charge: Charge) {
              if (settled) return;
              settled = true;
              clearInterval(lease);
              try {
                await recordUsage({
                  reservationId,
                  accountId: account.id,
                  period,
                  admittedAt: now,
                  idempotencyKey: key,
                  requestHash: call.requestHash,
                  requestId: charge.requestId,
                  model: charge.model,
                  processedTokens: charge.processedTokens,
                  inputTokens: charge.inputTokens,
                  outputTokens: charge.outputTokens,
                  responseBody: charge.responseBody,
                  now: clock(),
                }, started + c.callBudgetMs);
              } catch (err) {
                settled = false; // nothing was written (or it is voided later): release() may still give the reservation back
                throw err;
              }
              noteDuration(clock() - started);
              await freeSlot();
            },
            async release() {
              if (settled) return;
              settled = true;
              clearInterval(lease);
              try {
                await store.release(reservationId);
              } catch (err) {
                // The database is down: give the reservation back as soon as it is up again, so that a
                // retry with the same Idempotency-Key is not told "still being answered" until the TTL.
                if (!isStorageUnavailable(err)) throw err;
                releaseLater(reservationId);
              } finally {
                await freeSlot();
              }
            },
          };
        } catch (err) {
          await freeSlot();
          throw err;
        }
      };
      return { admit: admitStep, leave: freeSlot };
    },

    async usage(account, period) {
      const now = clock();
      const p = period ?? periodOf(now);
      const record = (await store.getAccount(account.id)) ?? { id: account.id, name: account.name, limits: account.limits };
      const limits = record.limits;
      const u = await store.usage(account.id, p);
      const [y, m] = p.split('-').map(Number) as [number, number];
      const start = Date.UTC(y, m - 1, 1);
      const end = periodEnd(start).getTime();
      const days: string[] = [];
      const lastDay = p === periodOf(now) ? dayOf(now) : dayOf(end - 1);
      for (let t = start; t < end && dayOf(t) <= lastDay; t += 86_400_000) days.push(dayOf(t));
      const byDay = new Map(days.map((d) => [d, { date: d, processed_tokens: 0, requests: 0, by_model: {} as Record<string, number> }]));
      const byModel = new Map<string, { model: string; processed_tokens: number; requests: number }>();
      for (const row of u.byDay) {
        let d = byDay.get(row.day);
        if (!d) {
          d = { date: row.day, processed_tokens: 0, requests: 0, by_model: {} };
          byDay.set(row.day, d);
        }
        d.processed_tokens += row.processedTokens;
        d.requests += row.requests;
        d.by_model[row.model] = (d.by_model[row.model] ?? 0) + row.processedTokens;
        const mm = byModel.get(row.model) ?? { model: row.model, processed_tokens: 0, requests: 0 };
        mm.processed_tokens += row.processedTokens;
        mm.requests += row.requests;
        byModel.set(row.model, mm);
      }
      return {
        account: { id: record.id, name: record.name },
        period: p,
        period_start: new Date(start).toISOString(),
        resets_at: new Date(end).toISOString(),
        allowance: limits.monthlyAllowance,
        used: u.used,
        reserved: u.reserved,
        remaining: Math.max(0, limits.monthlyAllowance - u.used),
        requests: u.requests,
        by_day: [...byDay.values()].sort((a, b) => a.date.localeCompare(b.date)),
        by_model: [...byModel.values()].sort((a, b) => b.processed_tokens - a.processed_tokens),
        limits: {
          monthly_allowance: limits.monthlyAllowance,
          requests_per_second: limits.requestsPerSecond,
          processed_tokens_per_second: limits.processedTokensPerSecond,
          in_flight: limits.inFlight,
        },
        usage_view: USAGE_VIEW,
        generated_at: new Date(now).toISOString(),
      };
    },

    createAccount: (name, limits) => store.createAccount(name, limits, clock()),
    updateLimits: async (ref, limits) => store.updateLimits((await resolveAccount(ref)).id, limits),
    getAccount: (ref) => store.getAccount(ref),
    listAccounts: () => store.listAccounts(),
    async createKey(ref, o = {}) {
      let account = await store.getAccount(ref);
      let created = false;
      if (!account) {
        if (!o.create) throw new AccountError(`No account named or with id ${JSON.stringify(ref)}.`);
        account = await store.createAccount(ref, o.limits ?? {}, clock());
        created = true;
      } else if (o.limits && Object.values(o.limits).some((v) => v !== undefined)) {
        account = await store.updateLimits(account.id, o.limits);
      }
      const { key, record } = await store.createKey(account.id, clock());
      return { key, record, account, created };
    },
    listKeys: async (ref) => store.listKeys(ref ? { accountId: (await resolveAccount(ref)).id } : {}),
    revokeKey: (ref) => store.revokeKey(ref, clock()),
    expireStale: () => store.expireStale(clock()),
    totals: (filter) => usageTotals(db, filter),

    async ready() {
      try {
        await db.ping(1000);
        return true;
      } catch {
        return false;
      }
    },

    async close() {
      clearInterval(sweeper);
      clearTimeout(repairTimer);
      for (const repair of pendingRepairs.values()) await repair().catch(() => undefined);
      await limiter.close();
      await db.close();
    },
  };
  return gate;
}

function replayAdmission(status: number, body: string): Admission {
  return {
    replay: { status, body },
    commit: async () => undefined,
    release: async () => undefined,
  };
}

/**
 * First start: keep the default account's key in a 0600 file and say where. The key itself is never
 * a log line (logs are shipped and kept); only when the file cannot be written is it shown, once, on
 * stderr as a plain notice outside the log stream.
 */
function announceFirstKey(file: string, account: AccountRecord, key: string, log: GateLog): void {
  let kept = false;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, key + '\n', { mode: 0o600, flag: 'w' });
    fs.chmodSync(file, 0o600);
    kept = true;
  } catch (err) {
    log.error({ err: (err as Error).message, file }, 'could not write the first API key file');
  }
  if (!kept) process.stderr.write(`\nFirst start: the API key of account "${account.name}" is ${key} — shown only this once.\n\n`);
  log.warn(
    { account: account.name, account_id: account.id, key_prefix: displayPrefix(key), key_file: kept ? file : undefined },
    `First start: created account "${account.name}" with API key ${displayPrefix(key)}…` +
      (kept ? `; the whole key is in ${file} (mode 0600): move it somewhere safe and delete the file.` : ' (shown once on stderr).'),
  );
}
