/**
 * `structqa models import DIR` for a Decima checkpoint folder in its PyTorch form (what the `decima-ai`
 * package saves and loads: decima.json, head.safetensors, encoder/ with the tokenizer): the second published
 * family (issue 22; docs/checkpoint-format.md says why this one). `training/decima/convert.py` loads it with
 * the package's own `DecimaModel.load`, writes one graph with the engine's five inputs in the
 * late-interaction row layout (engine/late-layout.ts) and checks it against the package's own PyTorch
 * scoring; the manifest records that layout and Decima's budgets and prefixes from decima.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { LateInteraction, Manifest } from '../engine/manifest.js';
import { convertCheckpoint, hashFiles, TRAINING_DIR, type ImportOptions, type ImportResult } from './import.js';
import { PullError } from './pull.js';

const CONVERTER = path.join(TRAINING_DIR, 'decima', 'convert.py');

/** The files that make a Decima checkpoint folder (as decima.model.Decima reads it). */
export const DECIMA_PYTORCH_FILES = ['decima.json', 'head.safetensors', 'encoder/config.json', 'encoder/tokenizer.json'];

/** Whether a folder's (or a repository's) file names are a Decima checkpoint in PyTorch form. */
export function isDecimaPytorch(names: Iterable<string>): boolean {
  const set = new Set(names);
  return set.has('decima.json') && set.has('head.safetensors');
}

/** What training/decima/convert.py reports in decima_import.json. */
interface DecimaFacts {
  decima_version: string;
  encoder?: string | null;
  encoder_family: string;
  late_interaction: LateInteraction;
  temperature: number;
  special_tokens: Manifest['special_tokens'];
  check: { rows: number; max_abs_prob_diff: number | null };
}

export async function importDecimaCheckpoint(opts: ImportOptions): Promise<ImportResult> {
  const src = path.resolve(opts.src);
  const missing = DECIMA_PYTORCH_FILES.filter((f) => !fs.existsSync(path.join(src, f)));
  if (missing.length > 0) {
    throw new PullError(`${src}: not a Decima checkpoint folder in PyTorch form: missing ${missing.join(', ')} (decima saves decima.json, head.safetensors, encoder/ with its tokenizer)`);
  }
  // Decima cuts a longer state at decima.json's max_state_tokens: a larger window would serve states it never read whole
  if (opts.window !== undefined) throw new PullError(`${src}: --window does not apply to a Decima checkpoint: its state budget is decima.json's max_state_tokens`);
  if (opts.int8) throw new PullError(`${src}: --int8 is not available for Decima checkpoints yet: only the fp32 graph has been checked against decima`);
  const { dir, manifest } = await convertCheckpoint<DecimaFacts>(opts, {
    runtime: 'decima',
    converter: CONVERTER,
    args: ['--check-rows', String(opts.checkRows ?? 48), '--external-data-mb', String(opts.externalDataMb ?? 1024)],
    factsFile: 'decima_import.json',
    manifest: async (facts, tmp) => {
      // multilingual-e5 (Decima's backbone) is multilingual; only an English backbone named so is ["en"]
      const languages = opts.languages ?? (/(^|\/)(e5|bert)-(small|base|large)(-v2)?$|english/i.test(facts.encoder ?? '') ? ['en'] : ['*']);
      const li = facts.late_interaction;
      return {
        format: 'structqa-checkpoint/1',
        name: opts.name,
        version: /(\d+\.\d+\.\d+)$/.exec(opts.name)?.[1] ?? '0.0.0',
        description:
          `Decima decision model (${facts.encoder ?? 'unknown encoder'}, late interaction) imported from its PyTorch form by structqa models import; ` +
          `the graph was checked against decima-ai ${facts.decima_version} within ` +
          `${facts.check.max_abs_prob_diff === null ? '(check skipped)' : facts.check.max_abs_prob_diff.toExponential(1)} in probability.`,
        release_date: new Date(fs.statSync(path.join(src, 'head.safetensors')).mtime).toISOString().slice(0, 10),
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
          source: 'decima-import',
          src,
          ...(opts.provenance ?? {}),
          imported_at: new Date().toISOString(),
          decima_version: facts.decima_version,
          encoder: facts.encoder ?? null,
          encoder_family: facts.encoder_family,
          temperature_in_graph: facts.temperature,
          check: facts.check,
          sha256: await hashFiles(tmp),
        },
      };
    },
  });
  return { dir, manifest };
}
