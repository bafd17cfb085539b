/**
 * `structqa models pull REPO [--revision R] [--name NAME] [--endpoint URL] [--out DIR]`: fetch a
 * published Laya-format checkpoint (or a Decima repository's ONNX export, `--precision`) from a Hugging
 * Face-compatible hub into the models folder; `structqa models import DIR` converts a folder on disk.
 * Endpoint: --endpoint, else config.hub (STRUCTQA_HUB_ENDPOINT, default https://huggingface.co); token: HF_TOKEN.
 */
import type { Command } from 'commander';
import { loadConfig, type Config } from '../config.js';
import { CheckpointError, refusal } from '../checkpoints/errors.js';
import { runInterruptHandlers } from '../checkpoints/files.js';
import { importCheckpoint } from '../checkpoints/import.js';
import { streamProgress } from '../checkpoints/progress.js';
import { DEFAULT_HUB_ENDPOINT, pullCheckpoint } from '../checkpoints/pull.js';
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
  verbose?: boolean;
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
  verbose?: boolean;
}

const number = (flag: string, v: string | undefined, min = 1): number | undefined => {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw refusal(`${flag} must be an integer ≥ ${min}, got ${JSON.stringify(v)}`);
  return n;
};
const precisionFlag = (v: string | undefined): 'fp32' | 'int8' | undefined => {
  if (v === undefined || v === 'fp32' || v === 'int8') return v;
  throw refusal(`--precision must be fp32 or int8, got ${JSON.stringify(v)}`);
};
const languageList = (v: string | undefined): string[] | undefined => (v ? v.split(',').map((s) => s.trim()).filter(Boolean) : undefined);

/** Where the command reads its environment and writes its output (tests pass their own). */
export interface ModelCommandIo {
  env?: Env;
  out?: (text: string) => void;
  err?: (text: string) => void;
  /** Whether `err` is a terminal (a progress bar) or not (a line every few seconds); default: stderr's. */
  tty?: boolean;
}

/**
 * A failure's one line (two when it says how to fix it): exit status 2 when the input is refused (the
 * checkpoint, the repository's content, an argument), 1 otherwise (the Python tooling, the hub, the network,
 * an existing target); the converter's traceback only with --verbose.
 */
function fail(command: string, e: unknown, err: (text: string) => void): void {
  err(`structqa models ${command}: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = e instanceof CheckpointError && e.refused ? 2 : 1;
}

/**
 * Runs a command's work; stopped by Ctrl-C or SIGTERM, it first undoes what the work started (its temporary
 * folders, the converter: files.ts onInterrupt) and exits 130 / 143. A pull's unfinished downloads stay in
 * the models folder's .partial/ for the next pull to resume.
 */
async function interruptible(command: string, err: (text: string) => void, run: () => Promise<void>): Promise<void> {
  const stop = (signal: NodeJS.Signals): void => {
    runInterruptHandlers();
    const kept = command === 'pull' ? "; what was downloaded stays in the models folder's .partial/ and the next pull resumes it" : '';
    err(`structqa models ${command}: stopped (${signal})${kept}\n`);
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await run();
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

export function registerModelCommands(program: Command, config: Config, io: ModelCommandIo = {}): void {
  // tests hand in their own environment; otherwise the process's, as read by config.ts
  const hub = io.env ? loadConfig(io.env).hub : config.hub;
  const out = io.out ?? ((text: string) => void process.stdout.write(text));
  const err = io.err ?? ((text: string) => void process.stderr.write(text));
  const tty = io.tty ?? (io.err ? false : process.stderr.isTTY === true);
  const progress = () => streamProgress(err, { tty, stream: process.stderr });
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
    .option('--verbose', "the converter's traceback and the libraries' own messages")
    .action((repo: string, opts: PullFlags) => interruptible('pull', err, async () => {
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
          verbose: opts.verbose ?? false,
          progress: progress(),
        });
        out(`${result.dir}\n`);
      } catch (e) {
        fail('pull', e, err);
      }
    }));
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
    .option('--verbose', "the converter's traceback and the libraries' own messages")
    .action((dir: string, opts: ImportFlags) => interruptible('import', err, async () => {
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
          verbose: opts.verbose ?? false,
          progress: progress(),
        });
        out(`${result.dir}\n`);
      } catch (e) {
        fail('import', e, err);
      }
    }));
  registerCalibrateCommand(models, config, { out, err });
}
