/**
 * Accounts, keys, allowance counters, reservations and usage records in SQL (both dialects).
 *
 * Allowance accounting: one `account_periods` row per account and UTC month holds
 *   used     = Σ processed tokens of committed usage records of that month
 *   reserved = Σ tokens of open reservations of that month
 * Admission is one conditional UPDATE (`… SET reserved = reserved + t WHERE used + reserved + t <= allowance`)
 * inside a transaction, so racing admissions serialise on the row and never pass together past the
 * allowance. Commit deletes the reservation and inserts the usage record and moves the tokens from
 * `reserved` to `used`, all in one transaction; release deletes the reservation and gives its tokens
 * back. Reservations carry `expires_at`; expired ones (a crashed process) are dropped by a periodic
 * sweep, and by an admission of their account that would otherwise be refused, giving their tokens back.
 */
import type { Db, Queryer } from '../storage/db.js';
import type { AccountLimits } from './types.js';
import { dayOf, periodOf } from './period.js';
import { displayPrefix, generateKey, hashKey, KEY_PREFIX, randomBase62 } from './keys.js';

export interface LimitOverrides {
  monthlyAllowance?: number | null;
  requestsPerSecond?: number | null;
  processedTokensPerSecond?: number | null;
  inFlight?: number | null;
}

export interface AccountRecord {
  id: string;
  name: string;
  createdAt: string;
  /** Effective limits (overrides or the configured defaults). */
  limits: AccountLimits;
  /** Only the limits set on this account (null = configured default). */
  overrides: Required<LimitOverrides>;
}

export interface KeyRecord {
  id: string;
  accountId: string;
  accountName: string;
  /** `sqa_live_` + first 8 characters: enough to recognise and revoke it, useless to authenticate. */
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
}

export type ReserveResult =
  | { kind: 'reserved'; reservationId: string; period: string }
  | { kind: 'exhausted'; used: number; reserved: number }
  | { kind: 'replay'; status: number; body: string }
  | { kind: 'in_progress'; expiresAt: number }
  /** The key was used with another request body (Stripe's rule: refused, never replayed). */
  | { kind: 'key_reused' };

/** Whether a stored request hash allows a call with `hash` (rows from before hashes were kept match any). */
export function sameRequest(stored: unknown, hash: string | undefined): boolean {
  return stored === null || stored === undefined || hash === undefined || stored === hash;
}

export interface CommitInput {
  reservationId: string;
  accountId: string;
  period: string;
  admittedAt: number;
  idempotencyKey?: string;
  /** SHA-256 of the request body, kept with the idempotency key. */
  requestHash?: string;
  requestId: string;
  model: string;
  processedTokens: number;
  inputTokens: number;
  outputTokens: number;
  responseBody: string;
  now: number;
}

export interface UsageBreakdown {
  period: string;
  used: number;
  reserved: number;
  requests: number;
  byDay: { day: string; model: string; processedTokens: number; requests: number }[];
}

type AccountRow = {
  id: string;
  name: string;
  monthly_allowance: unknown;
  requests_per_second: unknown;
  processed_tokens_per_second: unknown;
  in_flight: unknown;
  created_at: unknown;
};

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
const optNum = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const iso = (v: unknown): string => new Date(Number(v)).toISOString();

export class AccountError extends Error {}

export class AccountStore {
  constructor(
    readonly db: Db,
    private readonly defaults: AccountLimits,
  ) {}

  private toAccount(r: AccountRow): AccountRecord {
    const overrides = {
      monthlyAllowance: optNum(r.monthly_allowance),
      requestsPerSecond: optNum(r.requests_per_second),
      processedTokensPerSecond: optNum(r.processed_tokens_per_second),
      inFlight: optNum(r.in_flight),
    };
    return {
      id: r.id,
      name: r.name,
      createdAt: iso(r.created_at),
      overrides,
      limits: {
        monthlyAllowance: overrides.monthlyAllowance ?? this.defaults.monthlyAllowance,
        requestsPerSecond: overrides.requestsPerSecond ?? this.defaults.requestsPerSecond,
        processedTokensPerSecond: overrides.processedTokensPerSecond ?? this.defaults.processedTokensPerSecond,
        inFlight: overrides.inFlight ?? this.defaults.inFlight,
      },
    };
  }

  // ---------------------------------------------------------------- accounts

  async countAccounts(q: Queryer = this.db): Promise<number> {
    const rows = await q.query<{ n: unknown }>('SELECT COUNT(*) AS n FROM accounts');
    return num(rows[0]?.n);
  }

  async createAccount(name: string, limits: LimitOverrides = {}, now = Date.now(), q: Queryer = this.db): Promise<AccountRecord> {
    if (!/^[A-Za-z0-9][A-Za-z0-9._@-]{0,99}$/.test(name)) {
      throw new AccountError('Account names are 1–100 characters: letters, digits, ".", "_", "@", "-".');
    }
    // Ids are `acct_…`: a name of that shape could be read as another account's id.
    if (/^acct_/i.test(name)) throw new AccountError('Account names may not start with "acct_" (the form of account ids).');
    validateLimits(limits);
    const id = 'acct_' + randomBase62(16);
    const rows = await q.query<AccountRow>(
      `INSERT INTO accounts (id, name, monthly_allowance, requests_per_second, processed_tokens_per_second, in_flight, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING RETURNING *`,
      [id, name, limits.monthlyAllowance ?? null, limits.requestsPerSecond ?? null, limits.processedTokensPerSecond ?? null, limits.inFlight ?? null, now],
    );
    if (!rows[0]) throw new AccountError(`An account named ${JSON.stringify(name)} already exists.`);
    return this.toAccount(rows[0]);
  }

  async updateLimits(id: string, limits: LimitOverrides): Promise<AccountRecord> {
    validateLimits(limits);
    const sets: string[] = [];
    const params: unknown[] = [id];
    const cols: [keyof LimitOverrides, string][] = [
      ['monthlyAllowance', 'monthly_allowance'],
      ['requestsPerSecond', 'requests_per_second'],
      ['processedTokensPerSecond', 'processed_tokens_per_second'],
      ['inFlight', 'in_flight'],
    ];
    for (const [k, col] of cols) {
      if (limits[k] === undefined) continue;
      params.push(limits[k]);
      sets.push(`${col} = $${params.length}`);
    }
    if (sets.length) await this.db.query(`UPDATE accounts SET ${sets.join(', ')} WHERE id = $1`, params);
    const acct = await this.getAccount(id);
    if (!acct) throw new AccountError(`No account ${id}.`);
    return acct;
  }

  async getAccount(idOrName: string, q: Queryer = this.db): Promise<AccountRecord | undefined> {
    // `acct_…` is an id, anything else a name (names may not take the id form): never ambiguous.
    const rows = await q.query<AccountRow>(`SELECT * FROM accounts WHERE ${idOrName.startsWith('acct_') ? 'id' : 'name'} = $1`, [idOrName]);
    return rows[0] ? this.toAccount(rows[0]) : undefined;
  }

  async listAccounts(): Promise<AccountRecord[]> {
    const rows = await this.db.query<AccountRow>('SELECT * FROM accounts ORDER BY created_at, name');
    return rows.map((r) => this.toAccount(r));
  }

  // ---------------------------------------------------------------- keys

  async createKey(accountId: string, now = Date.now(), q: Queryer = this.db): Promise<{ key: string; record: KeyRecord }> {
    const key = generateKey();
    const id = 'key_' + randomBase62(16);
    await q.query('INSERT INTO api_keys (id, account_id, prefix, hash, created_at) VALUES ($1, $2, $3, $4, $5)', [
      id,
      accountId,
      displayPrefix(key),
      hashKey(key),
      now,
    ]);
    const record = (await this.listKeys({ id }, q))[0];
    if (!record) throw new Error('key vanished');
    return { key, record };
  }

  async listKeys(filter: { accountId?: string; id?: string } = {}, q: Queryer = this.db): Promise<KeyRecord[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.accountId) {
      params.push(filter.accountId);
      where.push(`k.account_id = $${params.length}`);
    }
    if (filter.id) {
      params.push(filter.id);
      where.push(`k.id = $${params.length}`);
    }
    const rows = await q.query<{ id: string; account_id: string; name: string; prefix: string; created_at: unknown; revoked_at: unknown }>(
      `SELECT k.id, k.account_id, a.name, k.prefix, k.created_at, k.revoked_at
       FROM api_keys k JOIN accounts a ON a.id = k.account_id
       ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY k.created_at, k.id`,
      params,
    );
    return rows.map((r) => ({
      id: r.id,
      accountId: r.account_id,
      accountName: r.name,
      prefix: r.prefix,
      createdAt: iso(r.created_at),
      revokedAt: r.revoked_at === null || r.revoked_at === undefined ? null : iso(r.revoked_at),
    }));
  }

  /**
   * Revokes one key named by its id (`key_…`), its visible prefix (`sqa_live_XXXXXXXX`, or any longer
   * start of it) or the whole key. Refuses when the prefix matches more than one live key.
   */
  async revokeKey(ref: string, now = Date.now()): Promise<KeyRecord> {
    return this.db.tx(async (q) => {
      let rows: { id: string }[];
      if (ref.startsWith('key_')) {
        rows = await q.query('SELECT id FROM api_keys WHERE id = $1', [ref]);
      } else if (ref.startsWith(KEY_PREFIX) && ref.length > displayPrefix(ref).length) {
        rows = await q.query('SELECT id FROM api_keys WHERE hash = $1', [hashKey(ref)]);
      } else if (ref.startsWith(KEY_PREFIX) && ref.length > KEY_PREFIX.length + 3) {
        rows = await q.query('SELECT id FROM api_keys WHERE revoked_at IS NULL AND substr(prefix, 1, $2) = $1', [ref, ref.length]);
      } else {
        throw new AccountError('Name a key by its id (key_…) or its visible prefix (sqa_live_ and at least 4 more characters).');
      }
      if (rows.length === 0) throw new AccountError(`No key matches ${JSON.stringify(ref)}.`);
      if (rows.length > 1) throw new AccountError(`${rows.length} keys match ${JSON.stringify(ref)}; give the key id instead.`);
      const id = rows[0]!.id;
      await q.query('UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL', [id, now]);
      const rec = (await this.listKeys({ id }, q))[0];
      if (!rec) throw new AccountError('key vanished');
      return rec;
    });
  }

  /** The live key with this hash and its account, or undefined. */
  async findByKeyHash(hash: string): Promise<{ keyHash: string; account: AccountRecord } | undefined> {
    const rows = await this.db.query<AccountRow & { key_hash: string }>(
      `SELECT a.*, k.hash AS key_hash FROM api_keys k JOIN accounts a ON a.id = k.account_id
       WHERE k.hash = $1 AND k.revoked_at IS NULL`,
      [hash],
    );
    const r = rows[0];
    return r ? { keyHash: r.key_hash, account: this.toAccount(r) } : undefined;
  }

  /**
   * On an empty store: creates the default account and its first key, once, even when several
   * replicas start together. Returns the key when this call created it.
   */
  async bootstrap(name: string, now = Date.now()): Promise<{ account: AccountRecord; key: string } | undefined> {
    return this.db.tx(async (q) => {
      if (q.dialect === 'postgres') await q.query('SELECT pg_advisory_xact_lock(7346002)');
      if ((await this.countAccounts(q)) > 0) return undefined;
      const account = await this.createAccount(name, {}, now, q);
      const { key } = await this.createKey(account.id, now, q);
      return { account, key };
    });
  }

  // ---------------------------------------------------------------- allowance

  private async expireFor(q: Queryer, accountId: string | undefined, now: number): Promise<number> {
    const rows = accountId
      ? await q.query<{ account_id: string; period: string; tokens: unknown }>(
          'DELETE FROM reservations WHERE account_id = $1 AND expires_at <= $2 RETURNING account_id, period, tokens',
          [accountId, now],
        )
      : await q.query<{ account_id: string; period: string; tokens: unknown }>(
          'DELETE FROM reservations WHERE expires_at <= $1 RETURNING account_id, period, tokens',
          [now],
        );
    const sums = new Map<string, { accountId: string; period: string; tokens: number }>();
    for (const r of rows) {
      const k = `${r.account_id}\u0000${r.period}`;
      const s = sums.get(k) ?? { accountId: r.account_id, period: r.period, tokens: 0 };
      s.tokens += num(r.tokens);
      sums.set(k, s);
    }
    for (const s of sums.values()) {
      await q.query('UPDATE account_periods SET reserved = reserved - $3 WHERE account_id = $1 AND period = $2', [s.accountId, s.period, s.tokens]);
    }
    return rows.length;
  }

  /** Drops every expired reservation (all accounts); returns how many. */
  async expireStale(now = Date.now()): Promise<number> {
    return this.db.tx((q) => this.expireFor(q, undefined, now));
  }

  async reserve(input: {
    accountId: string;
    allowance: number;
    tokens: number;
    idempotencyKey?: string;
    requestHash?: string;
    now: number;
    ttlMs: number;
  }): Promise<ReserveResult> {
    const { accountId, allowance, tokens, idempotencyKey, requestHash, now, ttlMs } = input;
    const period = periodOf(now);
    const id = 'rsv_' + randomBase62(20);
    return this.db.tx(async (q): Promise<ReserveResult> => {
      const insertReservation = () =>
        q.query<{ id: string }>(
          `INSERT INTO reservations (id, account_id, period, tokens, idempotency_key, created_at, expires_at, request_hash)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING RETURNING id`,
          [id, accountId, period, tokens, idempotencyKey ?? null, now, now + ttlMs, idempotencyKey !== undefined ? (requestHash ?? null) : null],
        );
      const takeAllowance = () =>
        q.query<{ used: unknown }>(
          `UPDATE account_periods SET reserved = reserved + $3
           WHERE account_id = $1 AND period = $2 AND used + reserved + $3 <= $4 RETURNING used`,
          [accountId, period, tokens, allowance],
        );
      // Expired reservations (of a crashed process) and the month's missing counter row only matter
      // when a step fails: they are dealt with then, and the step is tried once more. This keeps an
      // ordinary admission at two statements.
      let tidied = false;
      const tidy = async () => {
        if (tidied) return;
        tidied = true;
        await this.expireFor(q, accountId, now);
        await q.query('INSERT INTO account_periods (account_id, period, used, reserved) VALUES ($1, $2, 0, 0) ON CONFLICT DO NOTHING', [accountId, period]);
      };
      const orAfterTidying = async <T>(step: () => Promise<T[]>): Promise<T[]> => {
        const rows = await step();
        if (rows[0] || tidied) return rows;
        await tidy();
        return step();
      };

      if (idempotencyKey !== undefined) {
        // Reservation first: it blocks (PostgreSQL: waits on) a concurrent call with the same key; then
        // the usage check sees any call with this key that committed before us.
        const inserted = await orAfterTidying(insertReservation);
        if (!inserted[0]) {
          const other = await q.query<{ expires_at: unknown; request_hash: unknown }>(
            'SELECT expires_at, request_hash FROM reservations WHERE account_id = $1 AND idempotency_key = $2',
            [accountId, idempotencyKey],
          );
          if (other[0] && !sameRequest(other[0].request_hash, requestHash)) return { kind: 'key_reused' };
          if (other[0]) return { kind: 'in_progress', expiresAt: num(other[0].expires_at) };
        }
        const done = await q.query<{ response_status: unknown; response_body: string | null; request_hash: unknown }>(
          'SELECT response_status, response_body, request_hash FROM usage_records WHERE account_id = $1 AND idempotency_key = $2',
          [accountId, idempotencyKey],
        );
        if (done[0]) {
          await q.query('DELETE FROM reservations WHERE id = $1', [id]);
          if (!sameRequest(done[0].request_hash, requestHash)) return { kind: 'key_reused' };
          return { kind: 'replay', status: num(done[0].response_status) || 200, body: done[0].response_body ?? '' };
        }
        if (!inserted[0]) return { kind: 'in_progress', expiresAt: now + 1000 };
      }
      const ok = await orAfterTidying(takeAllowance);
      if (!ok[0]) {
        if (idempotencyKey !== undefined) await q.query('DELETE FROM reservations WHERE id = $1', [id]);
        const c = await q.query<{ used: unknown; reserved: unknown }>('SELECT used, reserved FROM account_periods WHERE account_id = $1 AND period = $2', [
          accountId,
          period,
        ]);
        return { kind: 'exhausted', used: num(c[0]?.used), reserved: num(c[0]?.reserved) };
      }
      if (idempotencyKey === undefined) await insertReservation();
      return { kind: 'reserved', reservationId: id, period };
    });
  }

  /**
   * Turns a reservation into one usage record in one transaction. When the reservation already
   * expired (the call outlived the reservation TTL), the answered call is still charged: a charge is
   * never lost. A second usage record with the same idempotency key is never written.
   * Returns whether a usage record was written.
   */
  async commit(c: CommitInput): Promise<boolean> {
    return this.db.tx(async (q) => {
      const gone = await q.query<{ period: string; tokens: unknown }>('DELETE FROM reservations WHERE id = $1 RETURNING period, tokens', [c.reservationId]);
      const reserved = gone[0] ? num(gone[0].tokens) : 0;
      const period = gone[0]?.period ?? c.period;
      const inserted = await q.query<{ id: string }>(
        `INSERT INTO usage_records (id, request_id, account_id, period, day, created_at, model, processed_tokens, input_tokens,
                                    output_tokens, idempotency_key, response_status, response_body, request_hash)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) ON CONFLICT DO NOTHING RETURNING id`,
        [
          'use_' + randomBase62(20),
          c.requestId,
          c.accountId,
          period,
          dayOf(c.admittedAt),
          c.now,
          c.model,
          c.processedTokens,
          c.inputTokens,
          c.outputTokens,
          c.idempotencyKey ?? null,
          c.idempotencyKey !== undefined ? 200 : null,
          c.idempotencyKey !== undefined ? c.responseBody : null,
          c.idempotencyKey !== undefined ? (c.requestHash ?? null) : null,
        ],
      );
      const charged = inserted[0] ? c.processedTokens : 0;
      if (charged || reserved) {
        // reserve() created the period's row; only a call whose reservation expired may need it again.
        if (!gone[0]) {
          await q.query('INSERT INTO account_periods (account_id, period, used, reserved) VALUES ($1, $2, 0, 0) ON CONFLICT DO NOTHING', [c.accountId, period]);
        }
        await q.query('UPDATE account_periods SET used = used + $3, reserved = reserved - $4 WHERE account_id = $1 AND period = $2', [
          c.accountId,
          period,
          charged,
          reserved,
        ]);
      }
      return Boolean(inserted[0]);
    });
  }

  /** Whether the usage record of the call with this request id was written. */
  async recorded(requestId: string): Promise<boolean> {
    const rows = await this.db.query('SELECT 1 AS one FROM usage_records WHERE request_id = $1', [requestId]);
    return rows.length > 0;
  }

  /**
   * Removes the usage record of a call that was answered 503 although its commit landed (its
   * acknowledgement was lost and its fate could not be learned in time), with its tokens: no charge
   * without its answer. Returns whether there was one.
   */
  async voidRecord(requestId: string): Promise<boolean> {
    return this.db.tx(async (q) => {
      const gone = await q.query<{ account_id: string; period: string; processed_tokens: unknown }>(
        'DELETE FROM usage_records WHERE request_id = $1 RETURNING account_id, period, processed_tokens',
        [requestId],
      );
      if (!gone[0]) return false;
      await q.query('UPDATE account_periods SET used = used - $3 WHERE account_id = $1 AND period = $2', [
        gone[0].account_id,
        gone[0].period,
        num(gone[0].processed_tokens),
      ]);
      return true;
    });
  }

  /** Extends a reservation's lease (a running call); an expired and swept one stays gone. */
  async renew(reservationId: string, expiresAt: number): Promise<void> {
    await this.db.query('UPDATE reservations SET expires_at = $2 WHERE id = $1', [reservationId, expiresAt]);
  }

  async release(reservationId: string): Promise<void> {
    await this.db.tx(async (q) => {
      const gone = await q.query<{ account_id: string; period: string; tokens: unknown }>(
        'DELETE FROM reservations WHERE id = $1 RETURNING account_id, period, tokens',
        [reservationId],
      );
      if (gone[0]) {
        await q.query('UPDATE account_periods SET reserved = reserved - $3 WHERE account_id = $1 AND period = $2', [
          gone[0].account_id,
          gone[0].period,
          num(gone[0].tokens),
        ]);
      }
    });
  }

  async usage(accountId: string, period: string): Promise<UsageBreakdown> {
    const c = await this.db.query<{ used: unknown; reserved: unknown }>('SELECT used, reserved FROM account_periods WHERE account_id = $1 AND period = $2', [
      accountId,
      period,
    ]);
    const rows = await this.db.query<{ day: string; model: string; t: unknown; n: unknown }>(
      `SELECT day, model, SUM(processed_tokens) AS t, COUNT(*) AS n FROM usage_records
       WHERE account_id = $1 AND period = $2 GROUP BY day, model ORDER BY day, model`,
      [accountId, period],
    );
    const byDay = rows.map((r) => ({ day: r.day, model: r.model, processedTokens: num(r.t), requests: num(r.n) }));
    return {
      period,
      used: num(c[0]?.used),
      reserved: num(c[0]?.reserved),
      requests: byDay.reduce((s, r) => s + r.requests, 0),
      byDay,
    };
  }
}

function validateLimits(l: LimitOverrides): void {
  for (const [k, v] of Object.entries(l)) {
    if (v === undefined || v === null) continue;
    if (!Number.isSafeInteger(v) || v < 0 || (k !== 'monthlyAllowance' && v < 1)) {
      throw new AccountError(`${k} must be a ${k === 'monthlyAllowance' ? 'non-negative' : 'positive'} integer, got ${v}.`);
    }
  }
}

export interface UsageTotals {
  /** Usage records (the authoritative ledger). */
  records: number;
  /** Σ processed tokens of usage records. */
  processedTokens: number;
  /** Σ `used` of the allowance counters (must equal processedTokens). */
  counterUsed: number;
  /** Σ `reserved` of the counters (must equal Σ tokens of open reservations). */
  counterReserved: number;
  openReservations: number;
  openReservedTokens: number;
}

/**
 * The authoritative usage totals straight from the database, for tests and audits (e.g. a crash or
 * scale-out test checking that nothing was lost or counted twice). Optional account and period filters.
 */
export async function usageTotals(db: Queryer, filter: { accountId?: string; period?: string } = {}): Promise<UsageTotals> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.accountId) {
    params.push(filter.accountId);
    where.push(`account_id = $${params.length}`);
  }
  if (filter.period) {
    params.push(filter.period);
    where.push(`period = $${params.length}`);
  }
  const w = where.length ? 'WHERE ' + where.join(' AND ') : '';
  const u = await db.query<{ n: unknown; t: unknown }>(`SELECT COUNT(*) AS n, COALESCE(SUM(processed_tokens), 0) AS t FROM usage_records ${w}`, params);
  const c = await db.query<{ u: unknown; r: unknown }>(`SELECT COALESCE(SUM(used), 0) AS u, COALESCE(SUM(reserved), 0) AS r FROM account_periods ${w}`, params);
  const r = await db.query<{ n: unknown; t: unknown }>(`SELECT COUNT(*) AS n, COALESCE(SUM(tokens), 0) AS t FROM reservations ${w}`, params);
  return {
    records: num(u[0]?.n),
    processedTokens: num(u[0]?.t),
    counterUsed: num(c[0]?.u),
    counterReserved: num(c[0]?.r),
    openReservations: num(r[0]?.n),
    openReservedTokens: num(r[0]?.t),
  };
}
