/**
 * The `structqa` command line (commander): `serve` (the default, what `npm start` runs), account and
 * key management, fixture checkpoints, and checkpoint checks.
 */
import { Command } from 'commander';
import { loadConfig } from '../config.js';
import { registerAccountCommands } from './keys.js';
import { registerCheckpointCommands } from './checkpoints.js';
import { registerMcpCommand } from './mcp.js';
import { registerMigrateCommand } from './migrate.js';
import { serve } from './serve.js';

const program = new Command();
const config = loadConfig();

program.name('structqa').description('Structured question answering service (System One compatible).');

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

await program.parseAsync(process.argv);
