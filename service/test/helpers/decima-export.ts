/**
 * Decima in the form its repositories publish (issue 22): the small random-weight checkpoint of
 * training/decima/fixture.py (helpers/decima.ts), exported with the package's own tools — `python -m
 * decima.export` (encoder.onnx, scorer.onnx, decima.json with the ordinal head, tokenizer/) and `python -m
 * decima.quantize` (its default int8 recipe, nbits8: com.microsoft MatMulNBits in the encoder, dynamic
 * MatMulInteger in the scorer) — laid out as a repository (`onnx/fp32/`, `onnx/int8/`, config.json, README.md)
 * under service/.cache/decima-onnx/<key>; its imports; and the package's ONNX runtime's own answers
 * (`decima.runtime.DecimaOnnx`, training/decima/reference.py --runtime onnx).
 * FIXTURES: random weights prove the format and the arithmetic, nothing about answer quality.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TRAINING_DIR } from '../../src/checkpoints/convert.js';
import { importCheckpoint } from '../../src/checkpoints/import.js';
import { decimaCheckpoint, type DecimaAnswer } from './decima.js';
import { importPython, sh } from './laya.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const DECIMA_ONNX_CACHE = path.resolve(here, '../../.cache/decima-onnx');

export type Precision = 'fp32' | 'int8';

/** Keyed by what makes them: the exports by the fixture and the package versions, the imports also by the composer. */
function scriptsKey(what: 'export' | 'import'): string {
  const h = createHash('sha256');
  const scripts = ['decima/fixture.py', 'laya/fixture.py', 'requirements-import.txt', ...(what === 'import' ? ['decima/compose.py', 'laya/convert.py', 'converting.py'] : [])];
  for (const f of scripts) h.update(fs.readFileSync(path.join(TRAINING_DIR, f)));
  h.update(fs.readFileSync(fileURLToPath(import.meta.url)));
  return `${what}-${h.digest('hex').slice(0, 12)}`;
}

/** The v1 fixture as a published Decima repository: onnx/fp32/ and onnx/int8/ made by decima's own export and quantize. */
export function decimaExportRepo(): string {
  const dir = path.join(DECIMA_ONNX_CACHE, scriptsKey('export'), 'decima-v1-repo');
  if (!fs.existsSync(path.join(dir, 'onnx', 'int8', 'decima.json'))) {
    const tmp = `${dir}.tmp-${process.pid}`;
    fs.rmSync(tmp, { recursive: true, force: true });
    fs.mkdirSync(tmp, { recursive: true });
    const python = importPython();
    sh(python, ['-m', 'decima.export', decimaCheckpoint('v1'), '--out', path.join(tmp, 'onnx', 'fp32')]);
    sh(python, ['-m', 'decima.quantize', path.join(tmp, 'onnx', 'fp32'), '--out', path.join(tmp, 'onnx', 'int8')]);
    fs.writeFileSync(path.join(tmp, 'config.json'), JSON.stringify({ model_type: 'decima', backbone: 'intfloat/multilingual-e5-small' }, null, 2));
    fs.writeFileSync(path.join(tmp, 'README.md'), '---\nlicense: apache-2.0\n---\n# decima (stand-in: random weights)\n');
    fs.rmSync(dir, { recursive: true, force: true });
    fs.renameSync(tmp, dir);
  }
  return dir;
}

/** One precision's export folder (what DecimaOnnx loads). */
export function decimaExport(precision: Precision): string {
  return path.join(decimaExportRepo(), 'onnx', precision);
}

/** That export imported by `structqa models import`'s code; `log` gets the import's lines when it runs. */
export async function importedDecimaOnnx(precision: Precision, log?: (line: string) => void): Promise<string> {
  const modelsDir = path.join(DECIMA_ONNX_CACHE, scriptsKey('import'), 'models');
  const name = `imported-decima-onnx-${precision}`;
  const dir = path.join(modelsDir, name);
  if (!fs.existsSync(path.join(dir, 'manifest.json'))) {
    await importCheckpoint({ src: decimaExport(precision), modelsDir, name, python: importPython(), force: true, checkRows: 48, ...(log ? { log } : {}) });
  }
  return dir;
}

/** DecimaOnnx's own unrounded answers on an export folder (training/decima/reference.py --runtime onnx). */
export function decimaOnnxReference(exportDir: string, requestsJson: string): Record<string, DecimaAnswer>[] {
  fs.mkdirSync(DECIMA_ONNX_CACHE, { recursive: true });
  const work = fs.mkdtempSync(path.join(DECIMA_ONNX_CACHE, 'ref-'));
  try {
    fs.writeFileSync(path.join(work, 'requests.json'), requestsJson);
    sh(importPython(), [path.join(TRAINING_DIR, 'decima', 'reference.py'), '--runtime', 'onnx', '--model', exportDir,
      '--requests', path.join(work, 'requests.json'), '--out', path.join(work, 'answers.json')]);
    return JSON.parse(fs.readFileSync(path.join(work, 'answers.json'), 'utf8')) as Record<string, DecimaAnswer>[];
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
