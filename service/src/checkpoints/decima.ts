/**
 * The Decima family (`decima-ai` 2.4.0; issue 22, docs/checkpoint-format.md says why this one), in either
 * form the package writes:
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
import { convertCheckpoint, hashFiles, TRAINING_DIR } from './convert.js';
import { refusal } from './errors.js';
import type { CheckpointFamily, DecimaPrecision, ImportOptions, ImportResult, PullPlan, Recognised } from './family.js';
import { listFiles } from './files.js';
import { DOC_FILES } from './laya.js';
import { lineProgress } from './progress.js';

const CONVERTER = path.join(TRAINING_DIR, 'decima', 'convert.py');
const COMPOSER = path.join(TRAINING_DIR, 'decima', 'compose.py');

/** The files that make a Decima checkpoint folder (as decima.model.Decima reads it). */
export const DECIMA_PYTORCH_FILES = ['decima.json', 'head.safetensors', 'encoder/config.json', 'encoder/tokenizer.json'];

/** The files that make a Decima ONNX export (as decima.runtime.DecimaOnnx reads it). */
export const DECIMA_ONNX_FILES = ['encoder.onnx', 'scorer.onnx', 'decima.json', 'tokenizer/tokenizer.json'];

/** The precisions Decima publishes (`onnx/<precision>/`); its runtime and server default to int8. */
export const DECIMA_PRECISIONS: readonly DecimaPrecision[] = ['int8', 'fp32'];

const isPytorch = (names: readonly string[]): boolean => names.includes('decima.json') && names.includes('head.safetensors');
const isExport = (names: readonly string[]): boolean => names.includes('decima.json') && (names.includes('encoder.onnx') || names.includes('scorer.onnx'));

/** The precisions a repository (or a folder laid out like one) holds as `onnx/<precision>/decima.json`. */
export function decimaOnnxPrecisions(names: readonly string[], prefix = 'onnx/'): string[] {
  const out = new Set<string>();
  for (const n of names) {
    if (!n.startsWith(prefix)) continue;
    const m = /^([^/]+)\/decima\.json$/.exec(n.slice(prefix.length));
    if (m) out.add(m[1]!);
  }
  return [...out].sort();
}

/** The precision of an export folder: decima.quantize writes quantize.txt into an int8 one. */
function exportPrecision(dir: string, names: readonly string[]): DecimaPrecision {
  return names.includes('quantize.txt') || path.basename(dir) === 'int8' ? 'int8' : 'fp32';
}

export const decima: CheckpointFamily = {
  name: 'Decima',
  recognise(names, { precision }): Recognised | undefined {
    if (isPytorch(names)) return { form: 'pytorch' };
    if (isExport(names)) return { form: 'onnx' };
    if (decimaOnnxPrecisions(names).length > 0) return { form: 'repository' };
    // its onnx/ folder: one export per precision folder
    const inside = decimaOnnxPrecisions(names, '');
    if (inside.length > 0 && inside.some((p) => names.includes(`${p}/encoder.onnx`) || names.includes(`${p}/scorer.onnx`))) {
      return { misplaced: `the onnx/ folder of a Decima repository, holding its ONNX exports in ${inside.map((p) => `${p}/`).join(', ')}` };
    }
    // decima.json with neither form complete: an incomplete Decima folder (its import names what is missing)
    if (names.includes('decima.json')) return { form: names.some((n) => n.endsWith('.onnx')) ? 'onnx' : 'pytorch' };
    return undefined;
  },
  missing(names, form) {
    if (form === 'pytorch') return DECIMA_PYTORCH_FILES.filter((f) => !names.includes(f));
    if (form === 'onnx') return DECIMA_ONNX_FILES.filter((f) => !names.includes(f));
    return [];
  },
  async import(opts) {
    const src = path.resolve(opts.src);
    const names = listFiles(src);
    const found = this.recognise(names, opts);
    if (found && 'misplaced' in found) {
      const inside = decimaOnnxPrecisions(names, '');
      const pick = opts.precision ?? (inside.includes('int8') ? 'int8' : inside[0]!);
      throw refusal(
        `${src} is ${found.misplaced}, one level below the repository's root: pass ${path.join(src, pick)} (that export itself), ` +
          `or the root ${path.dirname(src)} with --precision ${pick}`,
      );
    }
    if (found?.form === 'repository') {
      const precisions = decimaOnnxPrecisions(names);
      const precision = opts.precision ?? 'int8';
      if (!precisions.includes(precision)) {
        throw refusal(`${src}: no onnx/${precision}/decima.json: the folder holds the Decima ONNX export in ${precisions.join(', ')} (--precision)`);
      }
      return importExport({ ...opts, src: path.join(src, 'onnx', precision), precision: undefined });
    }
    if (found?.form === 'onnx') {
      const own = exportPrecision(src, names);
      if (opts.precision && opts.precision !== own) {
        const root = path.basename(path.dirname(src)) === 'onnx' ? path.dirname(path.dirname(src)) : undefined;
        throw refusal(
          `${src} is a Decima ONNX export itself (${own}); --precision ${opts.precision} picks onnx/${opts.precision}/ inside a repository's root: ` +
            (root ? `pass ${root} --precision ${opts.precision}, or ${path.join(root, 'onnx', opts.precision)}` : `import the ${opts.precision} export's own folder`),
        );
      }
      return importExport(opts);
    }
    return importPytorch(opts);
  },
  plan(names, { precision, where }): PullPlan | undefined {
    const available = decimaOnnxPrecisions(names);
    if (available.length > 0) {
      const p = precision ?? 'int8';
      if (!available.includes(p)) throw refusal(`${where}: no onnx/${p}/decima.json: the repository publishes the Decima ONNX export in ${available.join(', ')} (--precision)`);
      const dir = `onnx/${p}/`;
      const inside = names.filter((n) => n.startsWith(dir));
      const missing = this.missing(inside.map((n) => n.slice(dir.length)), 'onnx');
      if (missing.length > 0) throw refusal(`${where}: the Decima ONNX export onnx/${p}/ is incomplete: missing ${missing.map((f) => dir + f).join(', ')}`);
      // DecimaOnnx.from_pretrained's allow_patterns: config.json, onnx/<precision>/*, onnx/<precision>/tokenizer/* (fnmatch's * spans folders)
      const files = [...inside, ...names.filter((n) => !n.includes('/') && (n === 'config.json' || DOC_FILES.test(n)))];
      return { family: decima, form: `Decima, onnx/${p}`, files, root: `onnx/${p}`, precision: p };
    }
    if (!isPytorch(names)) return undefined;
    const missing = this.missing(names, 'pytorch');
    if (missing.length > 0) throw refusal(`${where}: no ONNX export, and the Decima PyTorch checkpoint is incomplete: missing ${missing.join(', ')}`);
    // everything DecimaModel.load reads: its config, the head, and the encoder folder with its tokenizer
    const files = names.filter((n) => n === 'decima.json' || n === 'head.safetensors' || n.startsWith('encoder/') || (!n.includes('/') && DOC_FILES.test(n)));
    return { family: decima, form: 'Decima, PyTorch form', files, root: '' };
  },
};

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

async function importExport(opts: ImportOptions): Promise<ImportResult> {
  const src = path.resolve(opts.src);
  const missing = decima.missing(listFiles(src), 'onnx');
  if (missing.length > 0) {
    throw refusal(`${src}: not a Decima ONNX export: missing ${missing.join(', ')} (decima.export writes encoder.onnx, scorer.onnx, decima.json with the ordinal head, tokenizer/)`);
  }
  if (opts.window !== undefined) throw refusal(`${src}: --window does not apply to a Decima checkpoint: its state budget is decima.json's max_state_tokens`);
  if (opts.int8) {
    throw refusal(`${src}: --int8 does not apply to a Decima ONNX export: the export's own precision is served as it was published (import onnx/int8/, made by decima.quantize, for int8)`);
  }
  const result = await convertDecima(opts, COMPOSER, 'decima.json', 'onnx');
  const facts = result.facts;
  if (facts.check.max_abs_prob_diff !== null) {
    (opts.progress ?? lineProgress()).line(
      `agreement with decima.runtime.DecimaOnnx on this folder (${facts.precision}): largest probability difference ` +
        `${facts.check.max_abs_prob_diff.toExponential(1)} over ${facts.check.rows} rows (batched in eights)`,
    );
  }
  return { dir: result.dir, manifest: result.manifest, decimaCheck: facts.check, warnings: [] };
}

async function importPytorch(opts: ImportOptions): Promise<ImportResult> {
  const src = path.resolve(opts.src);
  const missing = decima.missing(listFiles(src), 'pytorch');
  if (missing.length > 0) {
    throw refusal(
      `${src}: not a Decima checkpoint folder in PyTorch form: missing ${missing.join(', ')} (decima saves decima.json, head.safetensors, encoder/ with its tokenizer; ` +
        `its ONNX export is encoder.onnx, scorer.onnx, decima.json, tokenizer/)`,
    );
  }
  // Decima cuts a longer state at decima.json's max_state_tokens: a larger window would serve states it never read whole
  if (opts.window !== undefined) throw refusal(`${src}: --window does not apply to a Decima checkpoint: its state budget is decima.json's max_state_tokens`);
  if (opts.int8) throw refusal(`${src}: --int8 is not available for Decima checkpoints in PyTorch form: import the ONNX export decima.quantize makes (onnx/int8/) instead`);
  if (opts.precision) throw refusal(`${src}: --precision picks onnx/<precision>/ inside a Decima repository's root; this is its PyTorch form (no --precision)`);
  const { dir, manifest, facts } = await convertDecima(opts, CONVERTER, 'head.safetensors', 'pytorch');
  return { dir, manifest, decimaCheck: facts.check, warnings: [] };
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
          ...(opts.hub ? { pulled: opts.hub } : {}),
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
