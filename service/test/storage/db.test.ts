import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { migrate, openDb, type Db } from '../../src/storage/db.js';
import { MIGRATIONS } from '../../src/storage/migrations.js';
import { BACKENDS, dropSchema, PG_URL, rand } from '../accounts/helpers.js';

function open(backend: string, schema: string, file: string): Promise<Db> {
  return backend === 'postgres' ? openDb({ databaseUrl: PG_URL, databaseSchema: schema, sqlitePath: file }) : openDb({ sqlitePath: file });
}

for (const backend of BACKENDS) {
  describe(`storage (${backend})`, () => {
    it('applies the numbered migrations once, also when several instances start together', async () => {
      const schema = `t_${rand(6)}`;
      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sqa-db-')), 'x.sqlite');
      const dbs = await Promise.all([open(backend, schema, file), open(backend, schema, file), open(backend, schema, file)]);
      try {
        const rows = await dbs[0]!.query<{ version: unknown }>('SELECT version FROM schema_migrations ORDER BY version');
        assert.deepEqual(rows.map((r) => Number(r.version)), MIGRATIONS.map((m) => m.version));
        assert.deepEqual(await migrate(dbs[1]!), []);
        for (const t of ['accounts', 'api_keys', 'account_periods', 'reservations', 'usage_records']) {
          await dbs[2]!.query(`SELECT COUNT(*) AS n FROM ${t}`);
        }
      } finally {
        for (const d of dbs) await d.close();
        if (backend === 'postgres') await dropSchema(schema);
        fs.rmSync(path.dirname(file), { recursive: true, force: true });
      }
    });

    it('numbered placeholders, RETURNING, ON CONFLICT and rollback behave the same', async () => {
      const schema = `t_${rand(6)}`;
      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sqa-db-')), 'x.sqlite');
      const db = await open(backend, schema, file);
      try {
        await db.query('INSERT INTO accounts (id, name, created_at) VALUES ($1, $2, $3)', ['a1', 'n1', 5]);
        const r = await db.query<{ id: string; name: string }>('SELECT id, name FROM accounts WHERE name = $2 AND id = $1 AND created_at = $3', ['a1', 'n1', 5]);
        assert.deepEqual(r, [{ id: 'a1', name: 'n1' }]);
        const dup = await db.query('INSERT INTO accounts (id, name, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING id', ['a2', 'n1', 5]);
        assert.deepEqual(dup, []);
        await assert.rejects(
          db.tx(async (q) => {
            await q.query('INSERT INTO accounts (id, name, created_at) VALUES ($1, $2, $3)', ['a3', 'n3', 5]);
            throw new Error('boom');
          }),
          /boom/,
        );
        assert.deepEqual(await db.query('SELECT id FROM accounts WHERE id = $1', ['a3']), []);
        // Concurrent transactions serialise (SQLite: one writer; PostgreSQL: row locks).
        await db.query('INSERT INTO account_periods (account_id, period, used, reserved) VALUES ($1, $2, 0, 0)', ['a1', '2026-11']);
        await Promise.all(
          Array.from({ length: 25 }, () =>
            db.tx(async (q) => {
              await q.query('UPDATE account_periods SET used = used + 1 WHERE account_id = $1', ['a1']);
            }),
          ),
        );
        const c = await db.query<{ used: unknown }>('SELECT used FROM account_periods WHERE account_id = $1', ['a1']);
        assert.equal(Number(c[0]!.used), 25);
      } finally {
        await db.close();
        if (backend === 'postgres') await dropSchema(schema);
        fs.rmSync(path.dirname(file), { recursive: true, force: true });
      }
    });
  });
}
