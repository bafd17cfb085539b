/**
 * What the Laya import tests need, installed and built by the tests themselves:
 * - a Python venv with training/requirements-import.txt (the `laya` package, CPU torch from the local
 *   wheel, transformers, onnx, onnxruntime) at <repo>/.cache/venv-import, created once and reused;
 * - small random-weight Laya checkpoints saved by laya's own classes (training/laya/fixture.py), and
 *   their imports, under service/.cache/laya/<key>, keyed by a hash of the scripts that make them.
 * FIXTURES: random weights prove the format and the arithmetic, nothing about answer quality.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TRAINING_DIR } from '../../src/checkpoints/convert.js';
import { laya } from '../../src/checkpoints/laya.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(here, '../../..');
const VENV = path.join(ROOT, '.cache', 'venv-import');
export const LAYA_CACHE = path.resolve(here, '../../.cache/laya');
const REQUIREMENTS = path.join(TRAINING_DIR, 'requirements-import.txt');

export type LayaFamily = 'modernbert' | 'mmbert';
export type LayaLayout = 'sequential' | 'parallel';

/** The venv's python, installing training/requirements-import.txt the first time (a few minutes, then cached). */
export function importPython(): string {
  const python = path.join(VENV, 'bin', 'python');
  const stamp = path.join(VENV, '.requirements-sha256');
  const want = createHash('sha256').update(fs.readFileSync(REQUIREMENTS)).digest('hex');
  if (fs.existsSync(python) && fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === want) return python;
  if (!fs.existsSync(python)) sh('python3', ['-m', 'venv', VENV]);
  sh(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '-r', REQUIREMENTS]);
  fs.writeFileSync(stamp, want);
  return python;
}

export function sh(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', env: { ...process.env, HF_HUB_OFFLINE: '1' }, maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

function scriptsKey(): string {
  const h = createHash('sha256');
  for (const f of ['laya/fixture.py', 'laya/convert.py', 'converting.py', 'quantize.py', 'requirements-import.txt']) h.update(fs.readFileSync(path.join(TRAINING_DIR, f)));
  h.update(fs.readFileSync(fileURLToPath(import.meta.url))); // how this file imports them
  return h.digest('hex').slice(0, 12);
}

/** A Laya checkpoint folder (PyTorch form) as laya saves it, built once per scripts version. */
export function layaCheckpoint(family: LayaFamily, layout: LayaLayout): string {
  const dir = path.join(LAYA_CACHE, scriptsKey(), `laya-${family}-${layout}`);
  if (!fs.existsSync(path.join(dir, 'rl_agent_config.json'))) {
    const tmp = `${dir}.tmp-${process.pid}`;
    fs.rmSync(tmp, { recursive: true, force: true });
    sh(importPython(), [path.join(TRAINING_DIR, 'laya', 'fixture.py'), '--out', tmp, '--family', family, '--layout', layout]);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.renameSync(tmp, dir);
  }
  return dir;
}

/** That checkpoint imported by the Laya family's import (the code behind `structqa models import`). */
export async function importedCheckpoint(family: LayaFamily, layout: LayaLayout, opts: { externalData?: boolean } = {}): Promise<string> {
  // The ModernBERT marker-layout import also carries an int8 graph (one import fewer for the tests to make).
  const int8 = family === 'modernbert' && layout === 'sequential' && !opts.externalData;
  const src = layaCheckpoint(family, layout);
  const modelsDir = path.join(LAYA_CACHE, scriptsKey(), 'models');
  const name = `imported-${family}-${layout}${opts.externalData ? '-external' : ''}`;
  const dir = path.join(modelsDir, name);
  if (!fs.existsSync(path.join(dir, 'manifest.json'))) {
    // externalData: every weight in model.onnx.data, as a large encoder's graph is written
    await laya.import({ src, modelsDir, name, python: importPython(), force: true, checkRows: 16, ...(opts.externalData ? { externalDataMb: 0 } : {}), ...(int8 ? { int8: true, int8Rows: 60 } : {}) });
  }
  return dir;
}

/** laya's own unrounded probabilities (and token ids) for each request (training/laya/reference.py). */
export interface LayaAnswer {
  probabilities: number[];
  ids: number[];
  truncated: boolean;
  /** laya cut an option (48 tokens) or the head (head_max_len): the engine never cuts, so such a request is out of scope. */
  head_cut: boolean;
}

export function layaReference(src: string, requestsJson: string): Record<string, LayaAnswer>[] {
  return runReference(path.join(TRAINING_DIR, 'laya', 'reference.py'), src, requestsJson, LAYA_CACHE) as Record<string, LayaAnswer>[];
}

/** Run a family's reference script (`--model SRC --requests FILE --out FILE`) on the requests and read its answers. */
export function runReference(script: string, src: string, requestsJson: string, cacheDir: string): unknown {
  fs.mkdirSync(cacheDir, { recursive: true });
  const dir = fs.mkdtempSync(path.join(cacheDir, 'ref-'));
  try {
    fs.writeFileSync(path.join(dir, 'requests.json'), requestsJson);
    sh(importPython(), [script, '--model', src, '--requests', path.join(dir, 'requests.json'), '--out', path.join(dir, 'answers.json')]);
    return JSON.parse(fs.readFileSync(path.join(dir, 'answers.json'), 'utf8'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
