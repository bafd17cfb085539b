/**
 * The checkpoint manifest (`manifest.json` in a checkpoint folder): everything about a checkpoint the
 * engine needs and must not hard-code. See docs/checkpoint-format.md.
 */
import fs from 'node:fs';
import path from 'node:path';

export type QuestionType = 'choice' | 'score' | 'noul';
/** Option-count buckets for temperatures. */
export type OptionBucket = '2' | '3-5' | '6-10' | '11+';
export type TemperatureTable = Partial<Record<QuestionType, Partial<Record<OptionBucket, number>>>>;

/**
 * The late-interaction row layout (Decima): the state and each option encoded apart, with their own
 * budgets and prefixes, as the checkpoint's own config says (late-layout.ts, late-render.ts).
 */
export interface LateInteraction {
  max_state_tokens: number;
  max_choice_tokens: number;
  state_prefix: string;
  choice_prefix: string;
  question_in_state: boolean;
  question_in_choices: boolean;
  choice_fit: boolean;
}

export interface Manifest {
  format: 'structqa-checkpoint/1';
  name: string;
  version: string;
  description: string;
  /** YYYY-MM-DD */
  release_date: string;
  /** ISO 639-1 codes the checkpoint is meant for; ["*"] = multilingual. */
  languages: string[];
  /** Longest sequence the graph accepts, special tokens included. */
  window: number;
  /** Cap on questions × longest sequence per call. */
  processed_token_cap: number;
  /** True for random-weight fixtures: they prove mechanics, not answer quality. */
  fixture: boolean;
  files: {
    model: string;
    tokenizer: string;
    /** Optional int8 graph with the same I/O, selected only by explicit configuration. */
    model_int8?: string;
  };
  special_tokens: { cls: string; sep: string; mask: string; pad: string };
  /**
   * How a question's row is laid out for the same five graph inputs: "marker" (absent: the default,
   * layout.ts) or "late-interaction" (late-layout.ts; `late_interaction` then holds its settings).
   */
  layout?: 'marker' | 'late-interaction';
  late_interaction?: LateInteraction;
  calibration: {
    /** softmax(logits / T); missing entries mean T = 1; values are clamped to [0.5, 5]. */
    temperature: TemperatureTable;
    /** Per-language overrides (ISO 639-1 → table), applied over `temperature`. */
    by_language?: Record<string, TemperatureTable>;
  };
  /** Free-form provenance (backbone, training data, seed, builder command). */
  provenance?: Record<string, unknown>;
}

const REQUIRED: (keyof Manifest)[] = [
  'format', 'name', 'version', 'description', 'release_date', 'languages', 'window',
  'processed_token_cap', 'fixture', 'files', 'special_tokens', 'calibration',
];

export function readManifest(dir: string): Manifest {
  const file = path.join(dir, 'manifest.json');
  const manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as Manifest;
  for (const key of REQUIRED) {
    if (manifest[key] === undefined) throw new Error(`${file}: missing "${key}"`);
  }
  if (manifest.format !== 'structqa-checkpoint/1') throw new Error(`${file}: unknown format ${manifest.format}`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(manifest.release_date)) throw new Error(`${file}: release_date must be YYYY-MM-DD`);
  if (!(manifest.window > 8)) throw new Error(`${file}: window must be a positive token count`);
  if (manifest.layout !== undefined && manifest.layout !== 'marker' && manifest.layout !== 'late-interaction') {
    throw new Error(`${file}: unknown layout ${JSON.stringify(manifest.layout)}`);
  }
  if (manifest.layout === 'late-interaction' && !manifest.late_interaction) throw new Error(`${file}: layout late-interaction needs "late_interaction"`);
  return manifest;
}
