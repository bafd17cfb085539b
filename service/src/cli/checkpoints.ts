/** `structqa fixtures build` and `structqa checkpoints int8-check`. */
import path from 'node:path';
import type { Command } from 'commander';
import type { Config } from '../config.js';
import { buildFixture, int8Agreement } from '../fixtures/index.js';
import { readManifest } from '../engine/manifest.js';
import { registerModelCommands } from './models.js';

export function registerCheckpointCommands(program: Command, config: Config): void {
  registerModelCommands(program, config);
  const fixtures = program.command('fixtures').description('Random-weight fixture checkpoints (mechanics only, not answer quality).');
  fixtures
    .command('build')
    .description('Build fixture-en, fixture-multilingual and fixture-tiny into a folder.')
    .option('--out <dir>', 'output folder', config.models.dir)
    .action(async (opts: { out: string }) => {
      const names = { en: config.models.englishCheckpoint, multilingual: config.models.multilingualCheckpoint, tiny: 'core-tiny-fixture' };
      for (const kind of ['en', 'multilingual', 'tiny'] as const) {
        const dir = path.join(opts.out, `fixture-${kind}`);
        await buildFixture(kind, dir, { name: names[kind] });
        process.stdout.write(`built ${dir}\n`);
      }
    });

  const checkpoints = program.command('checkpoints').description('Checks on checkpoint folders.');
  checkpoints
    .command('int8-check')
    .description('Share of a fixed sample where the int8 graph picks the same option as fp32.')
    .argument('<dir>', 'checkpoint folder with files.model_int8')
    .option('--rows <n>', 'sample rows', '256')
    .action(async (dir: string, opts: { rows: string }) => {
      const manifest = readManifest(dir);
      const agreement = await int8Agreement(dir, Number(opts.rows));
      process.stdout.write(`${manifest.name}: int8 agrees with fp32 on ${(agreement * 100).toFixed(1)}% of ${opts.rows} rows\n`);
    });
}
