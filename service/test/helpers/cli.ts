/** `structqa models …` run in-process (commander with exitOverride), its output and exit status captured. */
import { Command } from 'commander';
import { registerModelCommands } from '../../src/cli/models.js';
import type { Config } from '../../src/config.js';

export type ModelsCli = (...args: string[]) => Promise<{ out: string; err: string; code: number }>;

export function modelsCli(config: Config, env: Record<string, string> = {}): ModelsCli {
  return async (...args) => {
    const program = new Command().exitOverride();
    let out = '';
    let err = '';
    registerModelCommands(program, config, { env, out: (s) => (out += s), err: (s) => (err += s) });
    process.exitCode = 0;
    await program.parseAsync(['node', 'structqa', ...args]);
    const code = Number(process.exitCode ?? 0);
    process.exitCode = 0;
    return { out, err, code };
  };
}
