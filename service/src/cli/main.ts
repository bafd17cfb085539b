/**
 * The `structqa` command line (commander): `serve` (the default, what `npm start` runs), account and
 * key management, fixture checkpoints, and checkpoint checks.
 */
import { Command } from 'commander';
import { loadConfig } from '../config.js';
import { registerAccountCommands } from './keys.js';
import { registerCheckpointCommands } from './checkpoints.js';
import { registerMigrateCommand } from './migrate.js';
import { serve } from './serve.js';

const program = new Command();
const config = loadConfig();

program.name('structqa').description('Structured question answering service (System One compatible).');
// A bad command line (unknown option or command, missing or bad value) is commander's one line on
// stderr and exit 2, the convention every command here follows; commander itself exits 1. Set before
// the subcommands are made, which copy it.
program.exitOverride((err) => process.exit(err.exitCode !== 0 && err.code !== 'commander.executeSubCommandAsync' ? 2 : err.exitCode));

program
  .command('serve', { isDefault: true })
  .description('Start the service (PORT, STRUCTQA_DATA_DIR, …: see docs/configuration.md).')
  .action(async () => {
    await serve(config);
  });

registerAccountCommands(program, config);
registerCheckpointCommands(program, config);
registerMigrateCommand(program, config);

await program.parseAsync(process.argv);
