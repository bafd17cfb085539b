/**
 * One small database seam for both dialects: SQLite (better-sqlite3, the embedded default) and
 * PostgreSQL (pg, when DATABASE_URL is set).
 *
 * SQL is written once with PostgreSQL-style numbered placeholders ($1, $2, …) and only the features
 * both dialects share (INSERT … ON CONFLICT DO NOTHING, RETURNING, BIGINT epoch-millisecond times).
 * For SQLite the placeholders are rewritten to `?` in order of appearance.
 *
 * Transactions:
 *  - SQLite: one connection per process, so every statement and transaction runs behind an in-process
 *    async mutex; transactions are `BEGIN IMMEDIATE` (take the write lock at once, so two processes
 *    sharing a file serialise instead of failing on lock upgrade), with a busy timeout.
 *  - PostgreSQL: a pooled client per transaction, READ COMMITTED; deadlocks and serialisation
 *    failures are retried a few times.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { StorageUnavailable } from '../errors.js';
import { MIGRATIONS } from './migrations.js';

/**
 * Errors that mean "the database cannot be reached or cannot take writes now", not "this statement
 * is wrong": connection refused/reset/timed out, PostgreSQL's connection (08…) and shutdown (57P0…)
 * classes and too-many-connections, SQLite's busy, locked, I/O, full and read-only.
 */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN',
  '57P01', '57P02', '57P03', '53300', 'SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_FULL', 'SQLITE_CANTOPEN', 'SQLITE_READONLY',
]);
const UNAVAILABLE_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Query read timeout|connection error|Client was closed|not queryable/i;

export function isStorageUnavailable(err: unknown): boolean {
  if (err instanceof StorageUnavailable) return true;
  const e = (err ?? {}) as { code?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  return UNAVAILABLE_CODES.has(code) || code.startsWith('08') || code.startsWith('SQLITE_IOERR') || UNAVAILABLE_MESSAGES.test(String(e.message ?? ''));
}

/** A storage outage becomes the retryable 503 storage_unavailable; anything else is rethrown as is. */
function asServiceError(err: unknown): unknown {
  return isStorageUnavailable(err) && !(err instanceof StorageUnavailable) ? new StorageUnavailable() : err;
}

export type Dialect = 'sqlite' | 'postgres';
export type Row = Record<string, unknown>;

export interface Queryer {
  readonly dialect: Dialect;
  /** Run one statement; returns its rows (RETURNING rows for writes). */
  query<T extends Row = Row>(sql: string, params?: unknown[]): Promise<T[]>;
}

export interface Db extends Queryer {
  /** Resolves when the database answers a trivial query within `timeoutMs`; rejects otherwise (readiness). */
  ping(timeoutMs: number): Promise<void>;
  /** Run `fn` in one transaction; committed when it resolves, rolled back when it throws. */
  tx<T>(fn: (q: Queryer) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** Human description for logs (never includes a password). */
  readonly description: string;
}

export interface DbOptions {
  databaseUrl?: string;
  /** PostgreSQL schema to use (created when missing); default `public`. */
  databaseSchema?: string;
  sqlitePath: string;
}

/** Opens the configured database and applies pending migrations. */
export async function openDb(opts: DbOptions): Promise<Db> {
  const db = opts.databaseUrl ? await PgDb.open(opts.databaseUrl, opts.databaseSchema) : SqliteDb.open(opts.sqlitePath);
  try {
    await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}

/** A simple FIFO async mutex. */
class Mutex {
  private tail: Promise<void> = Promise.resolve();
  run<T>(fn: () => Promise<T> | T): Promise<T> {
    const result = this.tail.then(fn);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

/** `$n` placeholders → `?`, and which parameter each `?` takes (a `$n` may repeat). */
function toSqlite(sql: string): { text: string; order: number[] } {
  const order: number[] = [];
  const text = sql.replace(/\$(\d+)/g, (_m, n: string) => {
    order.push(Number(n) - 1);
    return '?';
  });
  return { text, order };
}

function sqliteValue(p: unknown): unknown {
  return typeof p === 'boolean' ? (p ? 1 : 0) : p === undefined ? null : p;
}

/** One mutex per SQLite file per process: connections of one process never wait on each other's locks. */
const fileMutexes = new Map<string, Mutex>();

export class SqliteDb implements Db {
  readonly dialect = 'sqlite' as const;
  private readonly mutex: Mutex;
  /** Prepared statements by their SQL as written ($n placeholders), with the order of their parameters. */
  private readonly statements = new Map<string, { stmt: Database.Statement; order: number[] }>();
  private readonly control: Record<'begin' | 'commit' | 'rollback', Database.Statement>;
  private inTx = false;

  private constructor(
    private readonly db: Database.Database,
    readonly description: string,
    file: string,
  ) {
    const key = file === ':memory:' ? `:memory:${Math.random()}` : path.resolve(file);
    let m = fileMutexes.get(key);
    if (!m) {
      m = new Mutex();
      fileMutexes.set(key, m);
    }
    this.mutex = m;
    this.control = { begin: db.prepare('BEGIN IMMEDIATE'), commit: db.prepare('COMMIT'), rollback: db.prepare('ROLLBACK') };
  }

  static open(file: string): SqliteDb {
    if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
    const db = new Database(file);
    db.pragma('busy_timeout = 10000');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    return new SqliteDb(db, `sqlite:${file}`, file);
  }

  private runNow<T extends Row>(sql: string, params: unknown[]): T[] {
    let compiled = this.statements.get(sql);
    if (!compiled) {
      const { text, order } = toSqlite(sql);
      compiled = { stmt: this.db.prepare(text), order };
      this.statements.set(sql, compiled);
    }
    const args = compiled.order.map((i) => sqliteValue(params[i]));
    if (compiled.stmt.reader) return compiled.stmt.all(...args) as T[];
    compiled.stmt.run(...args);
    return [];
  }

  query<T extends Row = Row>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.mutex.run(() => this.runNow<T>(sql, params)).catch((err: unknown) => {
      throw asServiceError(err);
    });
  }

  async ping(): Promise<void> {
    await this.query('SELECT 1');
  }

  tx<T>(fn: (q: Queryer) => Promise<T>): Promise<T> {
    return this.txNow(fn).catch((err: unknown) => {
      throw asServiceError(err);
    });
  }

  private txNow<T>(fn: (q: Queryer) => Promise<T>): Promise<T> {
    return this.mutex.run(async () => {
      if (this.inTx) throw new Error('nested transaction');
      this.control.begin.run();
      this.inTx = true;
      const q: Queryer = { dialect: 'sqlite', query: async <R extends Row>(s: string, p: unknown[] = []) => this.runNow<R>(s, p) };
      try {
        const out = await fn(q);
        this.control.commit.run();
        return out;
      } catch (err) {
        if (this.db.inTransaction) this.control.rollback.run();
        throw err;
      } finally {
        this.inTx = false;
      }
    });
  }

  /** Runs raw multi-statement SQL (migrations). */
  execScript(sql: string): void {
    this.db.exec(sql);
  }

  async close(): Promise<void> {
    await this.mutex.run(() => {
      if (this.db.open) this.db.close();
    });
  }
}

const RETRYABLE_PG = new Set(['40P01', '40001']);

export class PgDb implements Db {
  readonly dialect = 'postgres' as const;

  private constructor(
    readonly pool: pg.Pool,
    readonly schema: string,
    readonly description: string,
  ) {}

  static async open(url: string, schema = 'public'): Promise<PgDb> {
    if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name ${JSON.stringify(schema)}`);
    const pool = new pg.Pool({
      connectionString: url,
      max: 10,
      options: `-c search_path=${schema}`,
      // An unreachable server must fail a call fast (503 storage_unavailable), not hang it.
      connectionTimeoutMillis: 3000,
      query_timeout: 15_000,
    });
    pool.on('error', () => {
      /* idle client errors are reported on the next query */
    });
    let host = 'postgres';
    try {
      const u = new URL(url);
      host = `postgres://${u.host}${u.pathname}`;
    } catch {
      /* keep generic */
    }
    const db = new PgDb(pool, schema, `${host} (schema ${schema})`);
    if (schema !== 'public') {
      // Replicas starting together may race to create it: "already exists" is success.
      await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`).catch((err: { code?: string }) => {
        if (err.code !== '23505' && err.code !== '42P06') throw err;
      });
    }
    return db;
  }

  async query<T extends Row = Row>(sql: string, params: unknown[] = []): Promise<T[]> {
    try {
      const res = await this.pool.query(sql, params);
      return res.rows as T[];
    } catch (err) {
      throw asServiceError(err);
    }
  }

  async ping(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.query('SELECT 1'),
        new Promise((_r, reject) => (timer = setTimeout(() => reject(new StorageUnavailable()), timeoutMs))),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  async tx<T>(fn: (q: Queryer) => Promise<T>): Promise<T> {
    try {
      return await this.txNow(fn);
    } catch (err) {
      throw asServiceError(err);
    }
  }

  private async txNow<T>(fn: (q: Queryer) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const client = await this.pool.connect();
      // A checked-out client whose connection drops emits 'error'; the pool only listens to idle ones,
      // and an unheard 'error' would end the process. The failing query rejects as well: that is the report.
      const ignore = () => undefined;
      client.on('error', ignore);
      const release = (err?: Error) => {
        client.off('error', ignore);
        client.release(err);
      };
      const q: Queryer = {
        dialect: 'postgres',
        query: async <R extends Row>(s: string, p: unknown[] = []) => (await client.query(s, p)).rows as R[],
      };
      try {
        await client.query('BEGIN');
        const out = await fn(q);
        await client.query('COMMIT');
        release();
        return out;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        // A client whose connection failed must not go back to the pool for the next call.
        release(isStorageUnavailable(err) ? (err as Error) : undefined);
        const code = (err as { code?: string }).code;
        if (code && RETRYABLE_PG.has(code) && attempt < 5) {
          await new Promise((r) => setTimeout(r, 5 + Math.random() * 20 * (attempt + 1)));
          continue;
        }
        throw err;
      }
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/**
 * Applies the numbered migrations not yet recorded in `schema_migrations`, each in its own
 * transaction. On PostgreSQL an advisory lock makes concurrent replicas starting at once apply them
 * exactly once; on SQLite `BEGIN IMMEDIATE` does the same across processes.
 */
export async function migrate(db: Db): Promise<number[]> {
  const applied: number[] = [];
  await db.tx(async (q) => {
    if (q.dialect === 'postgres') await q.query('SELECT pg_advisory_xact_lock(7346001)');
    await q.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)',
    );
    const done = new Set((await q.query<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => Number(r.version)));
    for (const m of MIGRATIONS) {
      if (done.has(m.version)) continue;
      const statements = q.dialect === 'postgres' ? m.postgres : m.sqlite;
      for (const s of statements) await q.query(s);
      await q.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [m.version, m.name, Date.now()]);
      applied.push(m.version);
    }
  });
  return applied;
}
