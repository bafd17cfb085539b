/**
 * `structqa models import DIR`: a checkpoint folder on disk (only read) → a checkpoint folder the engine
 * serves. Each family (laya.ts, decima.ts) says whether it recognises the folder; a folder that is one
 * level off (a checkpoint's subfolder, a folder holding one) is refused with what it is and what to pass.
 */
import fs from 'node:fs';
import path from 'node:path';
import { refusal } from './errors.js';
import type { CheckpointFamily, ImportOptions, ImportResult } from './family.js';
import { decima } from './decima.js';
import { listFiles } from './files.js';
import { laya } from './laya.js';

/** Decima first: a Decima export holds .onnx files that a Laya bundle would also match. */
export const FAMILIES: readonly CheckpointFamily[] = [decima, laya];

export async function importCheckpoint(opts: ImportOptions): Promise<ImportResult> {
  const src = path.resolve(opts.src);
  if (!fs.existsSync(src) || !fs.statSync(src).isDirectory()) throw refusal(`${src}: no such folder`);
  const names = listFiles(src);
  for (const family of FAMILIES) if (family.recognise(names, opts)) return family.import(opts);
  throw refusal(misplaced(src, opts) ?? unknown(src, names));
}

/** What a folder that no family takes is, when it sits just inside or just above a checkpoint. */
function misplaced(src: string, opts: ImportOptions): string | undefined {
  const parent = path.dirname(src);
  for (const family of FAMILIES) {
    const up = parent !== src ? family.recognise(listFiles(parent), opts) : undefined;
    if (up && 'form' in up) return `${src} is the ${path.basename(src)}/ folder inside a ${family.name} checkpoint: pass ${parent}`;
  }
  for (const entry of fs.readdirSync(src, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const child = path.join(src, entry.name);
    for (const family of FAMILIES) {
      const down = family.recognise(listFiles(child), opts);
      if (down && 'form' in down) return `${src} is not a checkpoint folder itself: ${child} holds a ${family.name} checkpoint: pass that folder`;
    }
  }
  return undefined;
}

function unknown(src: string, names: string[]): string {
  return (
    `${src}: not a checkpoint folder: a Laya checkpoint in PyTorch form holds rl_agent_config.json, model.safetensors, encoder/, tokenizer/ ` +
    `(missing here: ${laya.missing(names, 'pytorch').join(', ') || 'nothing'}); a Decima one decima.json, head.safetensors, encoder/, or its ONNX export ` +
    `encoder.onnx, scorer.onnx, decima.json, tokenizer/`
  );
}
