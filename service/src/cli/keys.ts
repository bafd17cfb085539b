/**
 * Account and key commands:
 *   structqa keys create --account NAME [--allowance TOKENS] [--no-create-account]   prints the new key once on stdout
 *   structqa keys list [--account NAME] [--json]
 *   structqa keys revoke PREFIX_OR_ID
 *   structqa accounts list [--json]
 *   structqa accounts create NAME [--allowance N] [--rps N] [--tps N] [--in-flight N]
 *   structqa accounts set-limits NAME [--allowance N] [--rps N] [--tps N] [--in-flight N]   ("default" resets one)
 *   structqa usage --account NAME [--month YYYY-MM] [--json]
 * They use the same storage as the service (DATABASE_URL or the SQLite file) and never touch Redis.
 */
import { Command, InvalidArgumentError } from 'commander';
import type { Config } from '../config.js';
import { AccountError, createGate, type AccountsGate } from '../accounts/gate.js';
import type { AccountRecord, KeyRecord, LimitOverrides } from '../accounts/store.js';
import { MemoryLimiter } from '../limits/memory.js';

const quietLog = {
  info: () => undefined,
  warn: (obj: object, msg?: string) => process.stderr.write(`warning: ${msg ?? ''} ${JSON.stringify(obj)}\n`),
  error: (obj: object, msg?: string) => process.stderr.write(`error: ${msg ?? ''} ${JSON.stringify(obj)}\n`),
};

function limitValue(raw: string): number | null {
  if (raw === 'default') return null;
  if (!/^\d+$/.test(raw)) throw new InvalidArgumentError('expected a non-negative integer or "default"');
  const n = Number(raw);
  if (!Number.isSafeInteger(n)) throw new InvalidArgumentError('too large');
  return n;
}

function withLimitOptions(cmd: Command): Command {
  return cmd
    .option('--allowance <tokens>', 'monthly free allowance in processed tokens', limitValue)
    .option('--rps <n>', 'requests per second', limitValue)
    .option('--tps <n>', 'processed tokens per second', limitValue)
    .option('--in-flight <n>', 'concurrent requests', limitValue);
}

function limitsFrom(o: { allowance?: number | null; rps?: number | null; tps?: number | null; inFlight?: number | null }): LimitOverrides {
  return { monthlyAllowance: o.allowance, requestsPerSecond: o.rps, processedTokensPerSecond: o.tps, inFlight: o.inFlight };
}

async function withGate<T>(config: Config, fn: (gate: AccountsGate) => Promise<T>): Promise<T> {
  const gate = await createGate(config, quietLog, { bootstrap: false, limiter: new MemoryLimiter() });
  try {
    return await fn(gate);
  } catch (err) {
    if (err instanceof AccountError) {
      process.stderr.write(`error: ${err.message}\n`);
      process.exitCode = 1;
      return undefined as T;
    }
    throw err;
  } finally {
    await gate.close();
  }
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n') + '\n';
}

function keyRows(keys: KeyRecord[]): string {
  return table([
    ['ID', 'PREFIX', 'ACCOUNT', 'CREATED', 'REVOKED'],
    ...keys.map((k) => [k.id, k.prefix + '…', k.accountName, k.createdAt, k.revokedAt ?? '-']),
  ]);
}

function accountRows(accounts: AccountRecord[]): string {
  return table([
    ['ID', 'NAME', 'ALLOWANCE/MONTH', 'REQ/S', 'TOKENS/S', 'IN-FLIGHT', 'CREATED'],
    ...accounts.map((a) => [
      a.id,
      a.name,
      String(a.limits.monthlyAllowance) + (a.overrides.monthlyAllowance === null ? ' (default)' : ''),
      String(a.limits.requestsPerSecond),
      String(a.limits.processedTokensPerSecond),
      String(a.limits.inFlight),
      a.createdAt,
    ]),
  ]);
}

export function registerAccountCommands(program: Command, config: Config): void {
  const keys = program.command('keys').description('Issue, list and revoke API keys');

  keys
    .command('create')
    .description('Issue a new key for an account (created when missing); prints the key once on stdout')
    .requiredOption('--account <name>', 'account name or id')
    .option('--allowance <tokens>', 'set the account\'s monthly free allowance (processed tokens)', limitValue)
    .option('--no-create-account', 'fail when the account does not exist')
    .action(async (o: { account: string; allowance?: number | null; createAccount: boolean }) => {
      await withGate(config, async (gate) => {
        const out = await gate.createKey(o.account, { create: o.createAccount, limits: { monthlyAllowance: o.allowance } });
        process.stdout.write(out.key + '\n');
        process.stderr.write(
          `${out.created ? 'Created account' : 'Account'} "${out.account.name}" (${out.account.id}), allowance ${out.account.limits.monthlyAllowance} tokens/month.\n` +
            `New key ${out.record.id} (${out.record.prefix}…). It is shown only this once; only its hash is stored.\n`,
        );
      });
    });

  keys
    .command('list')
    .description('List keys (prefix only; keys are never stored)')
    .option('--account <name>', 'only this account')
    .option('--json', 'JSON output')
    .action(async (o: { account?: string; json?: boolean }) => {
      await withGate(config, async (gate) => {
        const list = await gate.listKeys(o.account);
        process.stdout.write(o.json ? JSON.stringify(list, null, 2) + '\n' : keyRows(list));
      });
    });

  keys
    .command('revoke')
    .description('Revoke a key by its id (key_…), its visible prefix (sqa_live_XXXXXXXX) or the whole key')
    .argument('<prefix-or-id>')
    .action(async (ref: string) => {
      await withGate(config, async (gate) => {
        const k = await gate.revokeKey(ref);
        process.stdout.write(`Revoked ${k.id} (${k.prefix}…) of account "${k.accountName}" at ${k.revokedAt}.\n`);
      });
    });

  const accounts = program.command('accounts').description('Manage accounts and their limits');

  accounts
    .command('list')
    .option('--json', 'JSON output')
    .action(async (o: { json?: boolean }) => {
      await withGate(config, async (gate) => {
        const list = await gate.listAccounts();
        process.stdout.write(o.json ? JSON.stringify(list, null, 2) + '\n' : accountRows(list));
      });
    });

  withLimitOptions(accounts.command('create').argument('<name>').description('Create an account (limits default to the configuration)')).action(
    async (name: string, o: Parameters<typeof limitsFrom>[0]) => {
      await withGate(config, async (gate) => {
        process.stdout.write(accountRows([await gate.createAccount(name, limitsFrom(o))]));
      });
    },
  );

  withLimitOptions(accounts.command('set-limits').argument('<name>').description('Change an account\'s limits ("default" = back to the configured default)')).action(
    async (name: string, o: Parameters<typeof limitsFrom>[0]) => {
      await withGate(config, async (gate) => {
        process.stdout.write(accountRows([await gate.updateLimits(name, limitsFrom(o))]));
      });
    },
  );

  program
    .command('usage')
    .description('Show an account\'s usage for a month')
    .requiredOption('--account <name>', 'account name or id')
    .option('--month <YYYY-MM>', 'UTC month (default: this month)')
    .option('--json', 'JSON output')
    .action(async (o: { account: string; month?: string; json?: boolean }) => {
      await withGate(config, async (gate) => {
        const a = await gate.getAccount(o.account);
        if (!a) throw new AccountError(`No account named or with id ${JSON.stringify(o.account)}.`);
        const u = await gate.usage({ id: a.id, name: a.name, limits: a.limits }, o.month);
        if (o.json) {
          process.stdout.write(JSON.stringify(u, null, 2) + '\n');
          return;
        }
        process.stdout.write(
          `Account ${u.account.name}, ${u.period}: used ${u.used} of ${u.allowance} (remaining ${u.remaining}), resets ${u.resets_at}\n` +
            table([['MODEL', 'CALLS', 'TOKENS'], ...u.by_model.map((m) => [m.model, String(m.requests), String(m.processed_tokens)])]),
        );
      });
    });
}
