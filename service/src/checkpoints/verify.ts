/** The last two steps every pull and import share: load what the engine will load, then rename into place. */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import ort from 'onnxruntime-node';
import type { Manifest } from '../engine/manifest.js';
import { CheckpointTokenizer } from '../engine/tokenizer.js';
import { CheckpointError, errorText, refusal } from './errors.js';

/** The tokenizer loads with the manifest's special tokens; every graph loads in ONNX Runtime with the marker I/O. */
export async function verifyCheckpoint(dir: string, manifest: Manifest): Promise<void> {
  try {
    await CheckpointTokenizer.fromFile(path.join(dir, manifest.files.tokenizer), manifest);
  } catch (e) {
    throw refusal(`${manifest.files.tokenizer}: does not load with the manifest's special tokens (${errorText(e)})`);
  }
  const graphs = [manifest.files.model, ...(manifest.files.model_int8 ? [manifest.files.model_int8] : [])];
  // onnxruntime-node leaves two small files (.ses, mat-debug-<pid>.log) in $TMPDIR whenever it opens a
  // session: here they go into the folder being checked and are removed with it, not into the system's folder
  const scratch = path.join(dir, '.ort-tmp');
  await fsp.mkdir(scratch, { recursive: true });
  const savedTmpdir = process.env['TMPDIR'];
  process.env['TMPDIR'] = scratch;
  try {
    await loadGraphs(dir, graphs);
  } finally {
    if (savedTmpdir === undefined) delete process.env['TMPDIR'];
    else process.env['TMPDIR'] = savedTmpdir;
    await fsp.rm(scratch, { recursive: true, force: true });
  }
}

async function loadGraphs(dir: string, graphs: string[]): Promise<void> {
  for (const file of graphs) {
    let session: ort.InferenceSession;
    try {
      session = await ort.InferenceSession.create(path.join(dir, file), { executionProviders: ['cpu'], graphOptimizationLevel: 'disabled' });
    } catch (e) {
      throw refusal(`${file}: onnxruntime cannot load the graph (${errorText(e)})`);
    }
    try {
      const want: Record<string, string> = { input_ids: 'int64', attention_mask: 'int64', marker_pos: 'int64', marker_mask: 'bool', qtype: 'int64' };
      const problems: string[] = [];
      for (const [input, type] of Object.entries(want)) {
        const meta = session.inputMetadata?.find((m) => m.name === input);
        if (!session.inputNames.includes(input)) problems.push(`missing input ${input}`);
        else if (meta && meta.isTensor && meta.type !== type) problems.push(`input ${input} is ${meta.type}, expected ${type}`);
      }
      if (!session.outputNames.includes('logits')) problems.push('missing output logits');
      if (problems.length > 0) throw refusal(`${file}: not a marker-contract graph: ${problems.join('; ')}`);
    } finally {
      await session.release();
    }
  }
}

/** Renames a finished temporary folder to `target` (atomically swapping an existing one with `force`). */
export async function moveIntoPlace(tmp: string, target: string, force: boolean): Promise<void> {
  if (!fs.existsSync(target)) {
    try {
      await fsp.rename(tmp, target);
      return;
    } catch (e) {
      if (!force) throw new CheckpointError(`cannot move the checkpoint into ${target} (${errorText(e)})`);
    }
  }
  if (!force) throw new CheckpointError(`${target} already exists; pass --force to replace it`);
  const old = `${path.join(path.dirname(target), '.' + path.basename(target))}.old-${randomBytes(4).toString('hex')}`;
  await fsp.rename(target, old);
  try {
    await fsp.rename(tmp, target);
  } catch (e) {
    await fsp.rename(old, target).catch(() => {});
    throw new CheckpointError(`cannot move the checkpoint into ${target} (${errorText(e)})`);
  }
  await fsp.rm(old, { recursive: true, force: true });
}
