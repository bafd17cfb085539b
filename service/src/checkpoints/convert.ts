/**
 * The steps every family's conversion shares (laya.ts, decima.ts): check the name and the target, probe
 * the Python, run the family's converter (training/) into a hidden temporary folder beside the target,
 * write the manifest from the facts it reports, load the result as the engine will, and only then rename
 * it into place. The converter reads the source folder and writes only into the temporary one (its TMPDIR
 * too), so a failure leaves nothing anywhere: the folder is removed, the source untouched.
 *
 * The converter's stderr lines (training/converting.py): `step:`, `progress:`, `warning:` are shown,
 * `refused:` becomes the command's one-line refusal (exit 2), `failed:` its one-line failure; everything
 * else (the libraries' own output, a traceback) only with --verbose.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Manifest } from '../engine/manifest.js';
import { readManifest } from '../engine/manifest.js';
import { CheckpointError, errorText, refusal } from './errors.js';
import type { ImportOptions } from './family.js';
import { lineProgress, type Progress, type ProgressTask } from './progress.js';
import { onInterrupt, workFolder } from './files.js';
import { moveIntoPlace, verifyCheckpoint } from './verify.js';

/** training/ at the repository root (the converters and their requirements file). */
export const TRAINING_DIR = fileURLToPath(new URL('../../../training/', import.meta.url));
const REQUIREMENTS = path.join(TRAINING_DIR, 'requirements-import.txt');
const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** How to install what the converters need (printed when it is missing). */
export function installHint(python: string): string {
  return (
    `the import runs on the project's Python tooling, which ${python} lacks. Install it once:\n` +
    `  python3 -m venv .venv-import && .venv-import/bin/pip install -r ${path.relative(process.cwd(), REQUIREMENTS) || REQUIREMENTS}\n` +
    `then pass --python .venv-import/bin/python (or set STRUCTQA_IMPORT_PYTHON).`
  );
}

/** Throws with the install instructions when `python` cannot import the converter's packages. */
export function checkPython(python: string, runtime: string): void {
  const probe = spawnSync(python, ['-c', `import ${runtime}, torch, onnx, onnxruntime, transformers, safetensors`], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    const why = probe.error ? errorText(probe.error) : (probe.stderr.trim().split('\n').pop() ?? `exit ${probe.status}`);
    throw new CheckpointError(`${why}: ${installHint(python)}`);
  }
}

export function checkName(name: string): void {
  if (!NAME_RE.test(name)) throw refusal(`invalid checkpoint name ${JSON.stringify(name)}: use letters, digits, '.', '_' and '-'`);
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

export async function convertCheckpoint<F>(opts: ImportOptions, spec: ConversionSpec<F>): Promise<{ dir: string; manifest: Manifest; facts: F }> {
  const progress = opts.progress ?? lineProgress();
  const src = path.resolve(opts.src);
  checkName(opts.name);
  const modelsDir = path.resolve(opts.modelsDir);
  const target = path.join(modelsDir, opts.name);
  if (!opts.force && fs.existsSync(target)) throw new CheckpointError(`${target} already exists; pass --force to replace it`);
  checkPython(opts.python, spec.runtime);

  const work = await workFolder(modelsDir, opts.name, 'import');
  const tmp = work.dir;
  try {
    progress.line(`converting ${src} with ${opts.python} ${path.relative(process.cwd(), spec.converter)}`);
    const args = [spec.converter, '--src', src, '--out', tmp, ...spec.args, ...(opts.verbose ? ['--verbose'] : [])];
    const result = await runConverter(opts.python, args, tmp, progress, opts.verbose ?? false);
    if (result.refused) throw refusal(`${src}: ${result.refused}`);
    if (result.code !== 0) {
      throw new CheckpointError(
        `the converter failed on ${src}: ${result.failed ?? `exit ${result.code}: ${result.lastLines}`}${opts.verbose ? '' : ' (--verbose shows its traceback)'}`,
      );
    }
    await fsp.rm(path.join(tmp, '.tmp'), { recursive: true, force: true });
    const facts = JSON.parse(await fsp.readFile(path.join(tmp, spec.factsFile), 'utf8')) as F;
    const manifest = await spec.manifest(facts, tmp);
    await fsp.writeFile(path.join(tmp, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
    readManifest(tmp);
    if (opts.verify ?? true) {
      progress.line('checking the tokenizer and the graph as the engine loads them');
      await verifyCheckpoint(tmp, manifest);
    }
    await moveIntoPlace(tmp, target, opts.force ?? false);
    progress.line(`imported ${src} into ${target}`);
    return { dir: target, manifest, facts };
  } finally {
    await work.remove();
  }
}

interface ConverterResult {
  code: number;
  refused?: string;
  failed?: string;
  lastLines: string;
}

/** Runs a converter with its temporary files inside its output folder, turning its stderr lines into progress. */
function runConverter(python: string, args: string[], out: string, progress: Progress, verbose: boolean): Promise<ConverterResult> {
  const tmpdir = path.join(out, '.tmp');
  fs.mkdirSync(tmpdir, { recursive: true });
  return new Promise((resolve, reject) => {
    const child = spawn(python, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, HF_HUB_OFFLINE: '1', TMPDIR: tmpdir } });
    const forget = onInterrupt(() => child.kill('SIGKILL')); // before its output folder is removed
    let refused: string | undefined;
    let failed: string | undefined;
    let task: ProgressTask | undefined;
    let step = '';
    const tail: string[] = [];
    let pending = '';
    const onLine = (line: string): void => {
      const m = /^(step|progress|warning|refused|failed): (.*)$/.exec(line);
      if (!m) {
        if (verbose) progress.line(line);
        if (line.trim()) tail.splice(0, Math.max(0, tail.length - 4), line);
        return;
      }
      const [, kind, text] = m as unknown as [string, string, string];
      if (kind === 'progress') {
        const p = /^(\d+)\/(\d+) (\w+)$/.exec(text);
        if (!p) return;
        task ??= progress.task(step, Number(p[2]), p[3] === 'bytes' ? 'bytes' : 'rows');
        task.update(Number(p[1]));
        return;
      }
      task?.end();
      task = undefined;
      if (kind === 'step') {
        step = text;
        progress.line(text);
      } else if (kind === 'warning') progress.line(`warning: ${text}`);
      else if (kind === 'refused') refused = text;
      else failed = text;
    };
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => {
      const lines = (pending + d).split('\n');
      pending = lines.pop() ?? '';
      lines.forEach(onLine);
    });
    child.on('error', (e) => reject(new CheckpointError(`cannot run ${python} (${errorText(e)}): ${installHint(python)}`)));
    child.on('close', (code) => {
      forget();
      if (pending) onLine(pending);
      task?.end();
      resolve({ code: code ?? 1, refused, failed, lastLines: tail.join(' / ') });
    });
  });
}

/** sha256 of every file the converter wrote (the manifest is written after). */
export async function hashFiles(dir: string): Promise<Record<string, string>> {
  const files = (await fsp.readdir(dir)).filter((f) => f !== 'manifest.json' && !f.startsWith('.')).sort();
  const sha256: Record<string, string> = {};
  for (const f of files) sha256[f] = await hashFile(path.join(dir, f));
  return sha256;
}

export async function hashFile(file: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) h.update(chunk as Buffer);
  return h.digest('hex');
}
