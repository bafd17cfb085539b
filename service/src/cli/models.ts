/**
 * `structqa models pull REPO [--revision R] [--name NAME] [--endpoint URL] [--out DIR]`: fetch a
 * published Laya-format checkpoint (or a Decima repository's ONNX export, `--precision`) from a Hugging
 * Face-compatible hub into the models folder; `structqa models import DIR` converts a folder on disk.
 * Endpoint: --endpoint, else config.hub (STRUCTQA_HUB_ENDPOINT, default https://huggingface.co); token: HF_TOKEN.
 */
import type { Command } from 'commander';
import { loadConfig, type Config } from '../config.js';
import { DEFAULT_HUB_ENDPOINT, PullError, pullCheckpoint } from '../checkpoints/pull.js';
import { importCheckpoint } from '../checkpoints/import.js';
import { registerCalibrateCommand } from './calibrate.js';
import path from 'node:path';

type Env = Record<string, string | undefined>;

interface PullFlags {
  revision: string;
  name?: string;
  endpoint?: string;
  out: string;
  subfolder?: string;
  languages?: string;
  window?: string;
  cap?: string;
  force?: boolean;
  check: boolean;
  python?: string;
  int8?: boolean;
  precision?: string;
}

interface ImportFlags {
  name?: string;
  out: string;
  languages?: string;
  window?: string;
  cap?: string;
  force?: boolean;
  python?: string;
  checkRows: string;
  int8?: boolean;
  int8Rows: string;
  precision?: string;
}

const number = (flag: string, v: string | undefined, min = 1): number | undefined => {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new PullError(`${flag} must be an integer ≥ ${min}, got ${JSON.stringify(v)}`);
  return n;
};
const precisionFlag = (v: string | undefined): 'fp32' | 'int8' | undefined => {
  if (v === undefined || v === 'fp32' || v === 'int8') return v;
  throw new PullError(`--precision must be fp32 or int8, got ${JSON.stringify(v)}`);
};
const languageList = (v: string | undefined): string[] | undefined => (v ? v.split(',').map((s) => s.trim()).filter(Boolean) : undefined);

/** Where the command reads its environment and writes its output (tests pass their own). */
export interface ModelCommandIo {
  env?: Env;
  out?: (text: string) => void;
  err?: (text: string) => void;
}

export function registerModelCommands(program: Command, config: Config, io: ModelCommandIo = {}): void {
  // tests hand in their own environment; otherwise the process's, as read by config.ts
  const hub = io.env ? loadConfig(io.env).hub : config.hub;
  const out = io.out ?? ((text: string) => void process.stdout.write(text));
  const err = io.err ?? ((text: string) => void process.stderr.write(text));
  const models = program.command('models').description('Published checkpoints from a model hub.');
  models
    .command('pull')
    .description('Download a Laya-format checkpoint (ONNX bundle or PyTorch form) or a Decima ONNX export (onnx/<precision>/) from a Hugging Face-compatible hub into the models folder.')
    .argument('<repo>', 'repository, owner/name (e.g. NandhaKishorM/laya)')
    .option('--revision <rev>', 'branch, tag or commit', 'main')
    .option('--name <name>', 'checkpoint name and folder (default: the repository name)')
    .option('--endpoint <url>', `hub URL (default: STRUCTQA_HUB_ENDPOINT or ${DEFAULT_HUB_ENDPOINT})`)
    .option('--out <dir>', 'models folder', config.models.dir)
    .option('--subfolder <path>', 'folder inside the repository holding the bundle')
    .option('--languages <codes>', 'comma-separated ISO 639-1 codes, or * (default: from the repository)')
    .option('--window <tokens>', "override the config's max_len")
    .option('--cap <tokens>', 'processed_token_cap (default 3500 English, 6000 multilingual)')
    .option('--force', 'replace an existing folder of the same name')
    .option('--no-check', 'skip loading the tokenizer and graph before moving the folder into place')
    .option('--python <path>', 'Python for a PyTorch-form repository, converted by models import (default: STRUCTQA_IMPORT_PYTHON or python3)')
    .option('--int8', 'a PyTorch-form repository: also write an int8 graph and report its agreement (as models import --int8)')
    .option('--precision <p>', 'a Decima repository (onnx/<precision>/): fp32 or int8 (default int8, as Decima\'s runtime)')
    .action(async (repo: string, opts: PullFlags) => {
      try {
        const result = await pullCheckpoint({
          repo,
          revision: opts.revision,
          endpoint: opts.endpoint ?? hub.endpoint,
          token: hub.token,
          modelsDir: opts.out,
          name: opts.name,
          subfolder: opts.subfolder,
          languages: languageList(opts.languages),
          window: number('--window', opts.window),
          processedTokenCap: number('--cap', opts.cap),
          force: opts.force ?? false,
          verify: opts.check,
          importPython: opts.python ?? hub.importPython,
          importInt8: opts.int8 ?? false,
          precision: precisionFlag(opts.precision),
          log: (line) => err(`${line}\n`),
        });
        out(`${result.dir}\n`);
      } catch (e) {
        err(`structqa models pull: ${e instanceof Error ? e.message : String(e)}\n`);
        process.exitCode = 1;
      }
    });
  models
    .command('import')
    .description(
      'Convert a Laya (rl_agent_config.json, model.safetensors, encoder/, tokenizer/) or Decima (decima.json, head.safetensors, encoder/) checkpoint folder in PyTorch form, ' +
        'or a Decima ONNX export (encoder.onnx, scorer.onnx, decima.json, tokenizer/; or a folder holding onnx/<precision>/), into a checkpoint the engine serves.',
    )
    .argument('<dir>', 'the Laya or Decima checkpoint folder, or the Decima ONNX export')
    .option('--name <name>', 'checkpoint name and folder (default: the folder name)')
    .option('--out <dir>', 'models folder', config.models.dir)
    .option('--languages <codes>', 'comma-separated ISO 639-1 codes, or * (default: * for mmBERT, else en)')
    .option('--window <tokens>', "override the config's max_len")
    .option('--cap <tokens>', 'processed_token_cap (default 3500 English, 6000 multilingual)')
    .option('--force', 'replace an existing folder of the same name')
    .option('--python <path>', 'Python with training/requirements-import.txt installed (default: STRUCTQA_IMPORT_PYTHON or python3)')
    .option('--check-rows <n>', "rows of the converter's check against laya's own forward (0 skips it)", '48')
    .option('--int8', "also write an int8 graph (opt-in per checkpoint with STRUCTQA_INT8) and report its agreement with laya's fp32")
    .option('--int8-rows <n>', 'rows of the int8 agreement check (fewer is cheaper on a large graph and a weaker check; the count is in the manifest)', '200')
    .option('--precision <p>', 'a folder holding a Decima ONNX export as onnx/<precision>/: fp32 or int8 (default int8)')
    .action(async (dir: string, opts: ImportFlags) => {
      try {
        const result = await importCheckpoint({
          src: dir,
          modelsDir: opts.out,
          name: opts.name ?? path.basename(path.resolve(dir)),
          python: opts.python ?? hub.importPython,
          languages: languageList(opts.languages),
          window: number('--window', opts.window),
          processedTokenCap: number('--cap', opts.cap),
          force: opts.force ?? false,
          checkRows: number('--check-rows', opts.checkRows, 0),
          int8: opts.int8 ?? false,
          int8Rows: number('--int8-rows', opts.int8Rows, 1),
          precision: precisionFlag(opts.precision),
          log: (line) => err(`${line}\n`),
        });
        out(`${result.dir}\n`);
      } catch (e) {
        err(`structqa models import: ${e instanceof Error ? e.message : String(e)}\n`);
        process.exitCode = 1;
      }
    });
  registerCalibrateCommand(models, config, { out, err });
}
