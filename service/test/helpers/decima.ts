/**
 * What the Decima import tests need (issue 22, the second family): small random-weight Decima checkpoints
 * saved by the `decima-ai` package's own classes (training/decima/fixture.py), their imports, and the
 * package's own PyTorch answers (training/decima/reference.py), under service/.cache/decima/<key>, keyed
 * by a hash of the scripts that make them. The venv is the Laya tests' (.cache/venv-import).
 * FIXTURES: random weights prove the format and the arithmetic, nothing about answer quality.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TRAINING_DIR } from '../../src/checkpoints/convert.js';
import { importCheckpoint } from '../../src/checkpoints/import.js';
import { importPython, runReference, sh } from './laya.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const DECIMA_CACHE = path.resolve(here, '../../.cache/decima');

/** v1: question in state and choices, options kept whole; v0: question on the choice side only, right-hand cut. */
export type DecimaVariant = 'v1' | 'v0';

function scriptsKey(): string {
  const h = createHash('sha256');
  for (const f of ['decima/fixture.py', 'decima/convert.py', 'laya/convert.py', 'converting.py', 'laya/fixture.py', 'requirements-import.txt']) h.update(fs.readFileSync(path.join(TRAINING_DIR, f)));
  h.update(fs.readFileSync(fileURLToPath(import.meta.url)));
  return h.digest('hex').slice(0, 12);
}

/** A Decima checkpoint folder (PyTorch form) as decima saves it, built once per scripts version. */
export function decimaCheckpoint(variant: DecimaVariant): string {
  const dir = path.join(DECIMA_CACHE, scriptsKey(), `decima-${variant}`);
  if (!fs.existsSync(path.join(dir, 'decima.json'))) {
    const tmp = `${dir}.tmp-${process.pid}`;
    fs.rmSync(tmp, { recursive: true, force: true });
    sh(importPython(), [path.join(TRAINING_DIR, 'decima', 'fixture.py'), '--out', tmp, '--variant', variant]);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.renameSync(tmp, dir);
  }
  return dir;
}

/** That checkpoint imported by `structqa models import`'s code. */
export async function importedDecima(variant: DecimaVariant): Promise<string> {
  const modelsDir = path.join(DECIMA_CACHE, scriptsKey(), 'models');
  const name = `imported-decima-${variant}`;
  const dir = path.join(modelsDir, name);
  if (!fs.existsSync(path.join(dir, 'manifest.json'))) {
    await importCheckpoint({ src: decimaCheckpoint(variant), modelsDir, name, python: importPython(), force: true, checkRows: 24 });
  }
  return dir;
}

/** Decima's own unrounded answer to one question (training/decima/reference.py). */
export interface DecimaAnswer {
  probabilities?: number[];
  ids?: number[];
  /** Decima cut the state or an option: the engine refuses such a question instead. */
  cut?: boolean;
  /** Decima refused the question (two options render alike). */
  error?: string;
}

export function decimaReference(src: string, requestsJson: string): Record<string, DecimaAnswer>[] {
  return runReference(path.join(TRAINING_DIR, 'decima', 'reference.py'), src, requestsJson, DECIMA_CACHE) as Record<string, DecimaAnswer>[];
}
