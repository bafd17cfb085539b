/**
 * The `structqa` command line (commander): `serve` (the default, what `npm start` runs), account and
 * key management, fixture checkpoints, and checkpoint checks.
 */
import { Command, CommanderError } from 'commander';
import { loadConfig } from '../config.js';
import { registerAccountCommands } from './keys.js';
import { registerCheckpointCommands } from './checkpoints.js';
import { registerMcpCommand } from './mcp.js';
import { registerMigrateCommand } from './migrate.js';
import { serve } from './serve.js';

const program = new Command();
const config = loadConfig();

program.name('structqa').description('Structured question answering service (System One compatible).');
// commander throws instead of exiting, so that its usage errors (unknown option, missing argument) exit 2 below
program.exitOverride();

program
  .command('serve', { isDefault: true })
  .description('Start the service (PORT, STRUCTQA_DATA_DIR, …: see docs/configuration.md).')
  .action(async () => {
    await serve(config);
  });

registerAccountCommands(program, config);
registerCheckpointCommands(program, config);
registerMigrateCommand(program, config);
registerMcpCommand(program, config);

try {
  await program.parseAsync(process.argv);
} catch (e) {
  // commander has printed its one line (or the help, exit 0); bad input exits 2
  if (!(e instanceof CommanderError)) throw e;
  process.exitCode = e.exitCode === 1 ? 2 : e.exitCode;
}
