/**
 * `structqa models import DIR` for a Decima checkpoint folder: the second published family (issue 22;
 * docs/checkpoint-format.md says why this one), in either form the `decima-ai` package writes.
 *
 * - PyTorch form (`DecimaModel.save`: decima.json, head.safetensors, encoder/ with the tokenizer):
 *   `training/decima/convert.py` loads it with the package's own `DecimaModel.load`, writes one graph with
 *   the engine's five inputs in the late-interaction row layout (engine/late-layout.ts) and checks it against
 *   the package's own PyTorch scoring.
 * - ONNX export, the form the published repositories hold as `onnx/<precision>/` (`decima.export`, and
 *   `decima.quantize` for int8: encoder.onnx, scorer.onnx, decima.json with the "ordinal" head, tokenizer/):
 *   `training/decima/compose.py` composes the two published graphs, operators and weights as they are, into
 *   one graph with the same inputs and layout and checks it against the package's ONNX runtime
 *   (`decima.runtime.DecimaOnnx`) on the same folder. A folder holding `onnx/<precision>/` (a repository's
 *   root) imports that precision (`--precision`, default int8 as Decima's runtime and server).
 *
 * The manifest records that layout and Decima's budgets and prefixes from decima.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { LateInteraction, Manifest } from '../engine/manifest.js';
import { convertCheckpoint, hashFiles, TRAINING_DIR, type ImportOptions, type ImportResult } from './import.js';
import { PullError } from './pull.js';

// functions, not constants: pull.ts and import.ts import each other and this module (TRAINING_DIR is read at call time)
const converter = (): string => path.join(TRAINING_DIR, 'decima', 'convert.py');
const composer = (): string => path.join(TRAINING_DIR, 'decima', 'compose.py');

/** The files that make a Decima checkpoint folder (as decima.model.Decima reads it). */
export const DECIMA_PYTORCH_FILES = ['decima.json', 'head.safetensors', 'encoder/config.json', 'encoder/tokenizer.json'];

/** The files that make a Decima ONNX export (as decima.runtime.DecimaOnnx reads it). */
export const DECIMA_ONNX_FILES = ['encoder.onnx', 'scorer.onnx', 'decima.json', 'tokenizer/tokenizer.json'];

/** The precisions Decima publishes (`onnx/<precision>/`); its runtime and server default to int8. */
export const DECIMA_PRECISIONS = ['int8', 'fp32'] as const;
export type DecimaPrecision = (typeof DECIMA_PRECISIONS)[number];

/** Whether a folder's (or a repository's) file names are a Decima checkpoint in PyTorch form. */
export function isDecimaPytorch(names: Iterable<string>): boolean {
  const set = new Set(names);
  return set.has('decima.json') && set.has('head.safetensors');
}

/** Whether a folder's file names are a Decima ONNX export (decima.json beside encoder.onnx or scorer.onnx). */
export function isDecimaOnnx(names: Iterable<string>): boolean {
  const set = new Set(names);
  return set.has('decima.json') && (set.has('encoder.onnx') || set.has('scorer.onnx'));
}

/** The precisions a repository (or a folder laid out like one) holds as `onnx/<precision>/decima.json`. */
export function decimaOnnxPrecisions(names: Iterable<string>): string[] {
  const out = new Set<string>();
  for (const n of names) {
    const m = /^onnx\/([^/]+)\/decima\.json$/.exec(n);
    if (m) out.add(m[1]!);
  }
  return [...out].sort();
}

/** The files of an ONNX export missing from a list of names (relative to the export folder). */
export function missingDecimaOnnxFiles(names: Iterable<string>): string[] {
  const set = new Set(names);
  return DECIMA_ONNX_FILES.filter((f) => !set.has(f));
}

/** What training/decima/convert.py and compose.py report in decima_import.json. */
interface DecimaFacts {
  format: string;
  decima_version: string;
  encoder?: string | null;
  encoder_family: string;
  late_interaction: LateInteraction;
  temperature: number;
  special_tokens: Manifest['special_tokens'];
  check: { rows: number; max_abs_prob_diff: number | null; reference?: string };
  /** compose.py (ONNX form) only. */
  precision?: DecimaPrecision;
  quantize_method?: string | null;
  quantised_ops?: string[];
  custom_ops?: string[];
  source_sha256?: Record<string, string>;
}

/** A Decima folder in either form, or a folder holding `onnx/<precision>/` (the export of that precision). */
export async function importDecimaCheckpoint(opts: ImportOptions): Promise<ImportResult> {
  const src = path.resolve(opts.src);
  const here = fs.existsSync(src) ? listFiles(src) : [];
  const precisions = decimaOnnxPrecisions(here);
  if (!isDecimaPytorch(here) && !isDecimaOnnx(here) && precisions.length > 0) {
    const precision = opts.precision ?? 'int8';
    if (!precisions.includes(precision)) {
      throw new PullError(`${src}: no onnx/${precision}/decima.json: the folder holds the Decima ONNX export in ${precisions.join(', ')} (--precision)`);
    }
    return importDecimaOnnx({ ...opts, src: path.join(src, 'onnx', precision) });
  }
  return isDecimaOnnx(here) ? importDecimaOnnx(opts) : importDecimaPytorch(opts);
}

/** Every file under a folder, relative, with '/' separators. */
function listFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true })
    .map(String)
    .filter((rel) => fs.statSync(path.join(dir, rel)).isFile())
    .map((rel) => rel.split(path.sep).join('/'));
}

async function importDecimaOnnx(opts: ImportOptions): Promise<ImportResult> {
  const src = path.resolve(opts.src);
  const missing = missingDecimaOnnxFiles(listFiles(src));
  if (missing.length > 0) {
    throw new PullError(`${src}: not a Decima ONNX export: missing ${missing.join(', ')} (decima.export writes encoder.onnx, scorer.onnx, decima.json with the ordinal head, tokenizer/)`);
  }
  if (opts.window !== undefined) throw new PullError(`${src}: --window does not apply to a Decima checkpoint: its state budget is decima.json's max_state_tokens`);
  if (opts.int8) {
    throw new PullError(`${src}: --int8 does not apply to a Decima ONNX export: the export's own precision is served as it was published (import onnx/int8/, made by decima.quantize, for int8)`);
  }
  const log = opts.log ?? (() => {});
  const result = await convertDecima(opts, composer(), 'decima.json', 'onnx');
  const facts = result.facts;
  if (facts.check.max_abs_prob_diff !== null) {
    log(
      `agreement with decima.runtime.DecimaOnnx on this folder (${facts.precision}): largest probability difference ` +
        `${facts.check.max_abs_prob_diff.toExponential(1)} over ${facts.check.rows} rows (batched in eights)`,
    );
  }
  return { dir: result.dir, manifest: result.manifest, decimaCheck: facts.check };
}

async function importDecimaPytorch(opts: ImportOptions): Promise<ImportResult> {
  const src = path.resolve(opts.src);
  const missing = DECIMA_PYTORCH_FILES.filter((f) => !fs.existsSync(path.join(src, f)));
  if (missing.length > 0) {
    throw new PullError(
      `${src}: not a Decima checkpoint folder in PyTorch form: missing ${missing.join(', ')} (decima saves decima.json, head.safetensors, encoder/ with its tokenizer; ` +
        `its ONNX export is encoder.onnx, scorer.onnx, decima.json, tokenizer/)`,
    );
  }
  // Decima cuts a longer state at decima.json's max_state_tokens: a larger window would serve states it never read whole
  if (opts.window !== undefined) throw new PullError(`${src}: --window does not apply to a Decima checkpoint: its state budget is decima.json's max_state_tokens`);
  if (opts.int8) {
    throw new PullError(`${src}: --int8 is not available for Decima checkpoints in PyTorch form: import the ONNX export decima.quantize makes (onnx/int8/) instead`);
  }
  const { dir, manifest, facts } = await convertDecima(opts, converter(), 'head.safetensors', 'pytorch');
  return { dir, manifest, decimaCheck: facts.check };
}

/** The conversion and the manifest both forms share (their converters report the same facts). */
async function convertDecima(opts: ImportOptions, converter: string, dated: string, form: 'pytorch' | 'onnx') {
  const src = path.resolve(opts.src);
  return convertCheckpoint<DecimaFacts>(opts, {
    runtime: 'decima',
    converter,
    args: ['--check-rows', String(opts.checkRows ?? 48), '--external-data-mb', String(opts.externalDataMb ?? 1024)],
    factsFile: 'decima_import.json',
    manifest: async (facts, tmp) => {
      // multilingual-e5 (Decima's backbone) is multilingual; only an English backbone named so is ["en"]
      const languages = opts.languages ?? (/(^|\/)(e5|bert)-(small|base|large)(-v2)?$|english/i.test(facts.encoder ?? '') ? ['en'] : ['*']);
      const li = facts.late_interaction;
      const within = facts.check.max_abs_prob_diff === null ? '(check skipped)' : facts.check.max_abs_prob_diff.toExponential(1);
      const precision = facts.precision ?? 'fp32';
      return {
        format: 'structqa-checkpoint/1',
        name: opts.name,
        version: /(\d+\.\d+\.\d+)$/.exec(opts.name)?.[1] ?? '0.0.0',
        description:
          form === 'pytorch'
            ? `Decima decision model (${facts.encoder ?? 'unknown encoder'}, late interaction) imported from its PyTorch form by structqa models import; ` +
              `the graph was checked against decima-ai ${facts.decima_version} within ${within} in probability.`
            : `Decima decision model (${facts.encoder ?? 'unknown encoder'}, late interaction) imported from its ONNX export ` +
              `(${precision}${facts.quantize_method ? `, decima.quantize ${facts.quantize_method}` : ''}) by structqa models import: the published ` +
              `encoder and scorer graphs composed into one, checked against decima-ai ${facts.decima_version}'s DecimaOnnx within ${within} in probability.`,
        release_date: new Date(fs.statSync(path.join(src, dated)).mtime).toISOString().slice(0, 10),
        languages,
        // the state side's budget: the longest sequence one encoder pass reads (options have their own)
        window: li.max_state_tokens,
        processed_token_cap: opts.processedTokenCap ?? 6000,
        fixture: false,
        files: { model: 'model.onnx', tokenizer: 'tokenizer.json' },
        special_tokens: facts.special_tokens,
        layout: 'late-interaction',
        late_interaction: li,
        // decima.json's temperature is applied inside the graph, before the ordinal head as Decima does
        calibration: { temperature: {} },
        provenance: {
          source: form === 'pytorch' ? 'decima-import' : 'decima-onnx-import',
          src,
          ...(opts.provenance ?? {}),
          imported_at: new Date().toISOString(),
          decima_version: facts.decima_version,
          encoder: facts.encoder ?? null,
          encoder_family: facts.encoder_family,
          temperature_in_graph: facts.temperature,
          check: facts.check,
          ...(form === 'onnx'
            ? {
                // how the graph stores and runs its weights (/readyz: weights, precision); an int8 export keeps
                // decima.quantize's operators (com.microsoft MatMulNBits, MatMulInteger)
                export: { weights: precision, precision, quantize_method: facts.quantize_method ?? null, quantised_ops: facts.quantised_ops ?? [], custom_ops: facts.custom_ops ?? [] },
                source_sha256: facts.source_sha256 ?? {},
              }
            : {}),
          sha256: await hashFiles(tmp),
        },
      };
    },
  });
}
