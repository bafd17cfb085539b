/** `structqa migrate` (the Helm chart's migration Job): applies every migration once, then is a no-op. */
import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { Command } from 'commander';
import { registerMigrateCommand } from '../../src/cli/migrate.js';
import { loadConfig } from '../../src/config.js';
import { MIGRATIONS } from '../../src/storage/migrations.js';
import { openDb } from '../../src/storage/db.js';
import { dropSchema, PG_URL, rand } from '../accounts/helpers.js';

const schema = `t_${rand(6)}`;
after(() => dropSchema(schema));

async function migrate(): Promise<string> {
  const program = new Command().exitOverride();
  registerMigrateCommand(program, loadConfig({ DATABASE_URL: PG_URL, STRUCTQA_DATABASE_SCHEMA: schema, STRUCTQA_DATA_DIR: '/nonexistent' }));
  let out = '';
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((s: string) => ((out += s), true)) as typeof process.stdout.write;
  try {
    await program.parseAsync(['node', 'structqa', 'migrate']);
  } finally {
    process.stdout.write = write;
  }
  // Only the command's line (the test runner writes its own protocol to stdout in between).
  return /[^\n\x02]*schema at version[^\n]*/.exec(out)?.[0] ?? out;
}

it('migrate applies every migration to an empty schema, and a second run changes nothing', async () => {
  const last = MIGRATIONS[MIGRATIONS.length - 1]!;
  const first = await migrate();
  assert.match(first, new RegExp(`schema at version ${last.version} \\(${last.name}\\), ${MIGRATIONS.length} migrations applied`));
  const db = await openDb({ databaseUrl: PG_URL, databaseSchema: schema, sqlitePath: '/nonexistent' });
  try {
    const before = await db.query<{ applied_at: unknown }>('SELECT applied_at FROM schema_migrations ORDER BY version');
    assert.equal(before.length, MIGRATIONS.length);
    assert.equal(await migrate(), first);
    const again = await db.query<{ applied_at: unknown }>('SELECT applied_at FROM schema_migrations ORDER BY version');
    assert.deepEqual(again, before, 'nothing re-applied');
    const tables = await db.query<{ n: unknown }>("SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'usage_records'", [schema]);
    assert.equal(Number(tables[0]!.n), 1);
  } finally {
    await db.close();
  }
});
