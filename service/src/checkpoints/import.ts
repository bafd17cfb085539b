/**
 * `structqa models import DIR`: turn a Laya checkpoint folder in its PyTorch form (what the `laya` package
 * saves and loads: rl_agent_config.json, model.safetensors, encoder/, tokenizer/) into a checkpoint folder
 * the engine serves. See docs/checkpoint-format.md ("Importing Laya's PyTorch checkpoints").
 *
 * The conversion itself is Python (`training/laya/convert.py`, dependencies in
 * training/requirements-import.txt): it loads the model with the `laya` package, so the ONNX graph computes
 * what laya computes, and it checks the graph against laya's own forward before anything is written here.
 * This module runs it into a hidden temporary folder, writes the manifest from the facts it reports
 * (window, head budget, special tokens, every temperature of the config), loads the result the way the
 * engine will, and only then renames the folder into place.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Manifest } from '../engine/manifest.js';
import { readManifest } from '../engine/manifest.js';
import { calibrationFrom, errorText, moveIntoPlace, PullError, verifyCheckpoint, type LayaConfig } from './pull.js';

/** training/ at the repository root (the converter and its requirements file). */
export const TRAINING_DIR = fileURLToPath(new URL('../../../training/', import.meta.url));
const CONVERTER = path.join(TRAINING_DIR, 'laya', 'convert.py');
const REQUIREMENTS = path.join(TRAINING_DIR, 'requirements-import.txt');
const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export interface ImportOptions {
  /** The Laya checkpoint folder (PyTorch form). */
  src: string;
  /** Root of checkpoint folders; the checkpoint lands in `<modelsDir>/<name>`. */
  modelsDir: string;
  /** Checkpoint name; default the source folder's name. */
  name: string;
  /** Python with training/requirements-import.txt installed (STRUCTQA_IMPORT_PYTHON; default python3). */
  python: string;
  languages?: string[];
  window?: number;
  processedTokenCap?: number;
  force?: boolean;
  /** Rows of the converter's own check against laya's forward (default 48; 0 skips it). */
  checkRows?: number;
  /** Weights above this many MiB go to one external-data file next to the graph (default 1024). */
  externalDataMb?: number;
  /** Also write model.int8.onnx (onnxruntime dynamic quantisation) and report its agreement with laya's fp32. */
  int8?: boolean;
  /** Rows of the int8 agreement check (default 200). */
  int8Rows?: number;
  /** A folder holding Decima's ONNX export as `onnx/<precision>/` (a repository's root): which one (default int8). */
  precision?: 'fp32' | 'int8';
  /** Extra provenance (a pull records where the folder came from). */
  provenance?: Record<string, unknown>;
  log?: (line: string) => void;
}

/** What training/laya/convert.py reports in laya_import.json. */
interface ImportFacts {
  encoder?: string;
  encoder_family: string;
  option_layout: 'sequential' | 'parallel';
  max_len: number;
  head_max_len: number;
  special_tokens: Manifest['special_tokens'];
  temperature?: unknown;
  temperature_by_options?: Record<string, unknown>;
  lang_temperatures?: LayaConfig['lang_temperatures'];
  laya_version?: string | null;
  check: { rows: number; max_abs_logit_diff: number | null; max_abs_prob_diff: number | null };
  int8: { rows: number; argmax_agreement: number; max_abs_prob_diff: number; quantized_matmuls: number } | null;
}

/** The files that make a Laya checkpoint folder (as laya.Agent reads it). */
export const LAYA_PYTORCH_FILES = ['rl_agent_config.json', 'model.safetensors', 'encoder/config.json', 'tokenizer/tokenizer.json'];

/** Whether a folder, or a repository's file list, holds a Laya checkpoint in PyTorch form. */
export function isLayaPytorch(names: Iterable<string>): boolean {
  const set = new Set(names);
  return set.has('rl_agent_config.json') && set.has('model.safetensors');
}

/** The missing files of a Laya PyTorch checkpoint, for a clear refusal. */
export function missingLayaFiles(names: Iterable<string>): string[] {
  const set = new Set(names);
  return LAYA_PYTORCH_FILES.filter((f) => !set.has(f));
}

/** How to install what the converter needs (printed when it is missing). */
export function installHint(python: string): string {
  return (
    `the import runs on the project's Python tooling, which ${python} lacks. Install it once:\n` +
    `  python3 -m venv .venv-import && .venv-import/bin/pip install -r ${path.relative(process.cwd(), REQUIREMENTS) || REQUIREMENTS}\n` +
    `then pass --python .venv-import/bin/python (or set STRUCTQA_IMPORT_PYTHON).`
  );
}

/** Throws a PullError with the install instructions when `python` cannot import the converter's packages. */
export function checkPython(python: string, runtime = 'laya'): void {
  const probe = spawnSync(python, ['-c', `import ${runtime}, torch, onnx, onnxruntime, transformers, safetensors`], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    const why = probe.error ? errorText(probe.error) : (probe.stderr.trim().split('\n').pop() ?? `exit ${probe.status}`);
    throw new PullError(`${why}: ${installHint(python)}`);
  }
}

/**
 * `structqa models import DIR`: a Decima folder (decima.json: its PyTorch form or its ONNX export, or a
 * folder holding the export as onnx/<precision>/) goes to its own converters (import-decima.ts), anything
 * else is read as a Laya folder (whose refusal names what is missing).
 */
export async function importCheckpoint(opts: ImportOptions): Promise<ImportResult> {
  const src = path.resolve(opts.src);
  const onnxDir = path.join(src, 'onnx');
  const exported = fs.existsSync(onnxDir) && fs.statSync(onnxDir).isDirectory() && fs.readdirSync(onnxDir).some((p) => fs.existsSync(path.join(onnxDir, p, 'decima.json')));
  if (fs.existsSync(path.join(src, 'decima.json')) || exported) {
    const { importDecimaCheckpoint } = await import('./import-decima.js');
    return importDecimaCheckpoint(opts);
  }
  return importLayaCheckpoint(opts);
}

export interface ImportResult {
  dir: string;
  manifest: Manifest;
  /** The int8 graph's agreement with laya's fp32 forward, when one was made. */
  int8?: ImportFacts['int8'];
  /** A Decima import: its converter's check against the package's own runtime on the same folder. */
  decimaCheck?: { rows: number; max_abs_prob_diff: number | null; reference?: string };
}

export async function importLayaCheckpoint(opts: ImportOptions): Promise<ImportResult> {
  const src = path.resolve(opts.src);
  if (!fs.existsSync(src) || !fs.statSync(src).isDirectory()) throw new PullError(`${src}: no such folder`);
  if (opts.precision) throw new PullError(`${src}: --precision applies to a Decima ONNX export (onnx/<precision>/), not to a Laya checkpoint (--int8 makes its int8 graph)`);
  const present = LAYA_PYTORCH_FILES.filter((f) => fs.existsSync(path.join(src, f)));
  const missing = missingLayaFiles(present);
  if (missing.length > 0) {
    throw new PullError(`${src}: not a Laya checkpoint folder in PyTorch form: missing ${missing.join(', ')} (laya saves rl_agent_config.json, model.safetensors, encoder/, tokenizer/)`);
  }
  const args = ['--check-rows', String(opts.checkRows ?? 48), '--external-data-mb', String(opts.externalDataMb ?? 1024)];
  if (opts.int8) args.push('--int8', '--int8-rows', String(opts.int8Rows ?? 200));
  const log = opts.log ?? (() => {});
  const { dir, manifest, facts } = await convertCheckpoint<ImportFacts>(opts, {
    runtime: 'laya',
    converter: CONVERTER,
    args,
    factsFile: 'laya_import.json',
    manifest: async (facts, tmp) => {
      const config = JSON.parse(await fsp.readFile(path.join(src, 'rl_agent_config.json'), 'utf8')) as LayaConfig;
      const calibration = calibrationFrom(config);
      const multilingual = facts.encoder_family === 'mmbert';
      const languages = opts.languages ?? (multilingual ? ['*'] : ['en']);
      return {
        format: 'structqa-checkpoint/1',
        name: opts.name,
        version: /(\d+\.\d+\.\d+)$/.exec(opts.name)?.[1] ?? '0.0.0',
        description:
          `Laya decision model (${facts.encoder ?? 'unknown encoder'}, ${facts.option_layout} option layout) imported from its PyTorch form ` +
          `by structqa models import; the graph was checked against laya ${facts.laya_version ?? ''} within ` +
          `${facts.check.max_abs_prob_diff === null ? '(check skipped)' : facts.check.max_abs_prob_diff.toExponential(1)} in probability.`,
        release_date: new Date(fs.statSync(path.join(src, 'model.safetensors')).mtime).toISOString().slice(0, 10),
        languages,
        window: opts.window ?? facts.max_len,
        processed_token_cap: opts.processedTokenCap ?? (languages.includes('*') ? 6000 : 3500),
        fixture: false,
        files: { model: 'model.onnx', tokenizer: 'tokenizer.json', ...(facts.int8 ? { model_int8: 'model.int8.onnx' } : {}) },
        special_tokens: facts.special_tokens,
        calibration: calibration.table,
        provenance: {
          source: 'laya-import',
          src,
          ...(opts.provenance ?? {}),
          imported_at: new Date().toISOString(),
          laya_version: facts.laya_version ?? null,
          encoder: facts.encoder ?? null,
          encoder_family: facts.encoder_family,
          option_layout: facts.option_layout,
          laya_config: { max_len: facts.max_len, head_max_len: facts.head_max_len },
          calibration: calibration.source,
          check: facts.check,
          ...(facts.int8 ? { int8: facts.int8 } : {}),
          sha256: await hashFiles(tmp),
        },
      };
    },
  });
  if (facts.int8) {
    log(
      `int8 (opt-in: STRUCTQA_INT8=${opts.name}): argmax agrees with laya's fp32 on ${(facts.int8.argmax_agreement * 100).toFixed(1)} % of ` +
        `${facts.int8.rows} rows (one row per run, as the engine runs int8); largest probability difference ${facts.int8.max_abs_prob_diff.toFixed(3)}`,
    );
  }
  return { dir, manifest, ...(facts.int8 ? { int8: facts.int8 } : {}) };
}

/** What one family's conversion needs: its runtime package, converter script, arguments, facts file and manifest. */
export interface ConversionSpec<F> {
  /** The Python package the converter loads the checkpoint with (probed before anything runs). */
  runtime: string;
  converter: string;
  /** Arguments after `--src SRC --out TMP`. */
  args: string[];
  /** The converter's report in the output folder. */
  factsFile: string;
  /** The manifest from the converter's facts (the output folder's files are final when it is called). */
  manifest: (facts: F, tmp: string) => Promise<Manifest>;
}

/**
 * The steps every family's import shares: check the name and the target, probe the Python, run the
 * converter into a hidden temporary folder beside the target, write the manifest from its facts, load the
 * result as the engine will, and only then rename it into place (nothing is left behind on failure).
 */
export async function convertCheckpoint<F>(opts: ImportOptions, spec: ConversionSpec<F>): Promise<{ dir: string; manifest: Manifest; facts: F }> {
  const log = opts.log ?? (() => {});
  const src = path.resolve(opts.src);
  if (!NAME_RE.test(opts.name)) throw new PullError(`invalid checkpoint name ${JSON.stringify(opts.name)}: use letters, digits, '.', '_' and '-'`);
  const modelsDir = path.resolve(opts.modelsDir);
  const target = path.join(modelsDir, opts.name);
  if (!opts.force && fs.existsSync(target)) throw new PullError(`${target} already exists; pass --force to replace it`);
  checkPython(opts.python, spec.runtime);

  await fsp.mkdir(modelsDir, { recursive: true });
  const tmp = path.join(modelsDir, `.${opts.name}.import-${process.pid}-${randomBytes(4).toString('hex')}`);
  await fsp.mkdir(tmp);
  try {
    log(`converting ${src} with ${opts.python} ${path.relative(process.cwd(), spec.converter)}`);
    const { code, stderr } = await run(opts.python, [spec.converter, '--src', src, '--out', tmp, ...spec.args], log);
    if (code !== 0) {
      const refused = /^refused: (.*)$/m.exec(stderr)?.[1];
      throw new PullError(refused ? `cannot import ${src}: ${refused}` : `the converter failed (exit ${code}): ${stderr.trim().split('\n').slice(-5).join('\n')}`);
    }
    const facts = JSON.parse(await fsp.readFile(path.join(tmp, spec.factsFile), 'utf8')) as F;
    const manifest = await spec.manifest(facts, tmp);
    await fsp.writeFile(path.join(tmp, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
    readManifest(tmp);
    log('checking the tokenizer and the graph');
    await verifyCheckpoint(tmp, manifest);
    await moveIntoPlace(tmp, target, opts.force ?? false);
    log(`imported ${src} into ${target}`);
    return { dir: target, manifest, facts };
  } catch (e) {
    await fsp.rm(tmp, { recursive: true, force: true });
    throw e;
  }
}

/** sha256 of every file the converter wrote (the manifest is written after). */
export async function hashFiles(dir: string): Promise<Record<string, string>> {
  const files = (await fsp.readdir(dir)).filter((f) => f !== 'manifest.json').sort();
  const sha256: Record<string, string> = {};
  for (const f of files) sha256[f] = await hashFile(path.join(dir, f));
  return sha256;
}

function run(cmd: string, args: string[], log: (line: string) => void): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, HF_HUB_OFFLINE: '1' } });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => {
      stderr += d;
      for (const line of d.split('\n')) if (line.trim() && !line.startsWith('refused:')) log(line);
    });
    child.on('error', (e) => reject(new PullError(`cannot run ${cmd} (${errorText(e)}): ${installHint(cmd)}`)));
    child.on('close', (code) => resolve({ code: code ?? 1, stderr }));
  });
}

async function hashFile(file: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) h.update(chunk as Buffer);
  return h.digest('hex');
}
