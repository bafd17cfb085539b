/**
 * Writing a fitted calibration into a checkpoint's manifest without losing what was there: the table
 * it replaces goes into `provenance.calibration_history` (oldest first; the same keys and values) with
 * how the new one was fitted and judged, and `restore` puts the last replaced table back (recording
 * that too). Only the temperatures that changed and that list are edited: the rest of manifest.json
 * stays byte for byte as it was (jsonc-parser edits the text), and the file is replaced atomically.
 * docs/checkpoint-format.md.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { applyEdits, modify, type JSONPath, type ModificationOptions } from 'jsonc-parser';
import { readManifest, type Manifest } from '../engine/manifest.js';
import type { Calibration } from './temperature-fit.js';

export const HISTORY_KEY = 'calibration_history';

/** One entry of `provenance.calibration_history`. */
export interface CalibrationRecord {
  /** The calibration this entry's write replaced, exactly as the manifest had it. */
  replaced: Calibration;
  written_at: string;
  /** 'structqa models calibrate' (a fit) or 'structqa models calibrate --restore'. */
  by: string;
  /** What the fit saw and how it was judged (absent for a restore). */
  fit?: Record<string, unknown>;
  /** A restore: the index in this list whose `replaced` table was put back. */
  restored_from?: number;
}

export function history(manifest: Manifest): CalibrationRecord[] {
  const list = manifest.provenance?.[HISTORY_KEY];
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new Error(`provenance.${HISTORY_KEY} is not a list: not touching this manifest`);
  return list as CalibrationRecord[];
}

/** Replaces the manifest's calibration, appending `record` (whose `replaced` is the current table) to the history. */
export function writeCalibration(dir: string, calibration: Calibration, record: Omit<CalibrationRecord, 'replaced'>): Manifest {
  const file = path.join(dir, 'manifest.json');
  const before = readManifest(dir);
  const past = history(before);
  let text = fs.readFileSync(file, 'utf8');
  const indent = /\n( +)"/.exec(text)?.[1]?.length ?? 2;
  const options = { formattingOptions: { insertSpaces: true, tabSize: indent, eol: '\n' } };
  const entry: CalibrationRecord = { replaced: before.calibration, ...record };
  text = editChanged(text, ['calibration'], before.calibration, calibration, options);
  text = applyEdits(text, modify(text, ['provenance', HISTORY_KEY], [...past, entry], options));
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, text);
  try {
    fs.renameSync(tmp, file);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  const after = readManifest(dir);
  if (!isDeepStrictEqual(after.calibration, calibration)) throw new Error(`${file}: the written calibration does not read back`);
  return after;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Edits `text` at `at` from `before` to `after`, touching only the values that differ (so a review diff shows the change). */
function editChanged(text: string, at: JSONPath, before: unknown, after: unknown, options: ModificationOptions): string {
  if (isObject(before) && isObject(after)) {
    for (const key of Object.keys(before)) if (!(key in after)) text = applyEdits(text, modify(text, [...at, key], undefined, options));
    for (const [key, value] of Object.entries(after)) text = editChanged(text, [...at, key], before[key], value, options);
    return text;
  }
  return isDeepStrictEqual(before, after) ? text : applyEdits(text, modify(text, at, after, options));
}

/** The last replaced table, to be put back by `restore`; undefined when the history is empty. */
export function lastReplaced(manifest: Manifest): { index: number; calibration: Calibration } | undefined {
  const past = history(manifest);
  if (!past.length) return undefined;
  return { index: past.length - 1, calibration: past[past.length - 1]!.replaced };
}
