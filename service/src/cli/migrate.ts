/**
 * `structqa migrate`: apply the pending schema migrations and exit. Every replica also migrates on
 * start (under a PostgreSQL advisory lock, so concurrent starts apply each migration once); this
 * command lets a deployment run them first, on its own (the Helm chart's pre-upgrade Job, the Compose
 * stack's one-shot `migrate` service), so that no replica of the new version starts against an old
 * schema and a failing migration stops the rollout before any replica is replaced (docs/deploy.md).
 */
import type { Command } from 'commander';
import type { Config } from '../config.js';
import { openDb } from '../storage/db.js';

export function registerMigrateCommand(program: Command, config: Config): void {
  program
    .command('migrate')
    .description('Apply pending database migrations (DATABASE_URL, or the SQLite file) and exit')
    .action(async () => {
      const db = await openDb({
        databaseUrl: config.accounts.databaseUrl,
        databaseSchema: config.accounts.databaseSchema,
        sqlitePath: config.accounts.sqlitePath,
      });
      try {
        const rows = await db.query<{ version: unknown; name: string }>('SELECT version, name FROM schema_migrations ORDER BY version');
        const last = rows[rows.length - 1];
        process.stdout.write(`${db.description}: schema at version ${last ? `${Number(last.version)} (${last.name})` : 'none'}, ${rows.length} migrations applied\n`);
      } finally {
        await db.close();
      }
    });
}
