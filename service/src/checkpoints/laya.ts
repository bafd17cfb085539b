/**
 * The Laya family (NandhaKishorM/laya, the `laya` package 0.4.15), in its two published forms:
 *
 * - PyTorch form (what `laya.train.save_checkpoint` writes and `laya.load` reads: rl_agent_config.json,
 *   model.safetensors, encoder/config.json, tokenizer/), converted by training/laya/convert.py, which loads
 *   it with laya's own loader so the graph computes what laya computes, and checks it against laya's forward.
 * - ONNX bundle (scripts/export_onnx.py, laya/onnx_agent.py: laya.onnx or model.onnx with its external
 *   data, tokenizer/, laya_config.json or rl_agent_config.json): served as it is, with a manifest written
 *   from its config.
 *
 * See docs/checkpoint-format.md ("Importing Laya's PyTorch checkpoints", "Pulling published checkpoints").
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Manifest, OptionBucket, QuestionType, TemperatureTable } from '../engine/manifest.js';
import { readManifest } from '../engine/manifest.js';
import { checkName, convertCheckpoint, hashFile, hashFiles, TRAINING_DIR } from './convert.js';
import { CheckpointError, errorText, refusal } from './errors.js';
import type { CheckpointFamily, ImportOptions, ImportResult, PullPlan, Recognised } from './family.js';
import { listFiles, workFolder } from './files.js';
import { lineProgress } from './progress.js';
import { moveIntoPlace, verifyCheckpoint } from './verify.js';

const CONVERTER = path.join(TRAINING_DIR, 'laya', 'convert.py');

/** The files that make a Laya checkpoint folder in PyTorch form (as laya.Agent reads it). */
export const LAYA_PYTORCH_FILES = ['rl_agent_config.json', 'model.safetensors', 'encoder/config.json', 'tokenizer/tokenizer.json'];
const GRAPH_NAMES = ['laya.onnx', 'model.onnx'];
const INT8_NAMES = ['laya.int8.onnx', 'laya_int8.onnx', 'model.int8.onnx', 'model_int8.onnx', 'model_quantized.onnx'];
const CONFIG_NAMES = ['laya_config.json', 'rl_agent_config.json'];
const TOKENIZER_EXTRAS = ['tokenizer_config.json', 'special_tokens_map.json'];
/** Read at a repository's root besides what the runtime fetches: its licence and description, kept with the checkpoint. */
export const DOC_FILES = /^(README\.md|LICENSE(\.\w+)?|NOTICE(\.\w+)?)$/i;
const QTYPES: QuestionType[] = ['choice', 'score', 'noul'];
const BUCKETS: Record<QuestionType, OptionBucket[]> = { choice: ['2', '3-5', '6-10', '11+'], score: ['2', '3-5', '6-10', '11+'], noul: ['2'] };

export interface LayaConfig {
  max_len?: unknown;
  head_max_len?: unknown;
  encoder?: unknown;
  temperature?: unknown;
  temperature_by_options?: unknown;
  lang_temperatures?: unknown;
  [key: string]: unknown;
}

/** What training/laya/convert.py reports in laya_import.json. */
interface LayaFacts {
  encoder?: string;
  encoder_family: string;
  option_layout: 'sequential' | 'parallel';
  max_len: number;
  head_max_len: number;
  special_tokens: Manifest['special_tokens'];
  temperature_table: TemperatureTable;
  temperature?: unknown;
  temperature_by_options?: unknown;
  warnings: string[];
  laya_version?: string | null;
  check: { rows: number; max_abs_logit_diff: number | null; max_abs_prob_diff: number | null };
  int8: ImportResult['int8'];
}

/** The parts of a Laya ONNX bundle among a folder's (or a repository's) file names. */
interface Bundle {
  graph: string;
  int8?: string;
  tokenizer: string;
  config?: string;
  files: string[];
}

function bundleOf(names: readonly string[]): Bundle | undefined {
  const set = new Set(names);
  const onnx = names.filter((n) => n.endsWith('.onnx'));
  let graph = [...GRAPH_NAMES, ...GRAPH_NAMES.map((g) => `onnx/${g}`)].find((g) => set.has(g));
  if (!graph) {
    const fp32 = onnx.filter((n) => !/(int8|uint8|quant|fp16|f16|q4|bnb)/i.test(n));
    if (fp32.length > 1) throw refusal(`several ONNX graphs (${fp32.join(', ')}); expected laya.onnx or model.onnx`);
    graph = fp32[0];
  }
  if (!graph) return undefined;
  const dir = path.posix.dirname(graph);
  const inDir = (n: string): string => (dir === '.' ? n : `${dir}/${n}`);
  const int8 = INT8_NAMES.map(inDir).find((n) => set.has(n));
  const tokenizer = ['tokenizer/tokenizer.json', inDir('tokenizer.json'), 'tokenizer.json'].find((n) => set.has(n));
  if (!tokenizer) throw refusal(`no tokenizer.json (looked in tokenizer/ and next to ${graph})`);
  const config = [...CONFIG_NAMES.map(inDir), ...CONFIG_NAMES].find((n) => set.has(n));
  const tokDir = path.posix.dirname(tokenizer);
  const files = new Set<string>([graph, tokenizer]);
  if (int8) files.add(int8);
  if (config) files.add(config);
  // External data of the graphs (`laya.onnx.data`, `model.onnx_data`, …) keeps the name the graph refers to.
  for (const g of [graph, int8]) if (g) for (const n of names) if (n !== g && n.startsWith(g) && !n.endsWith('.onnx')) files.add(n);
  for (const extra of TOKENIZER_EXTRAS) {
    const n = tokDir === '.' ? extra : `${tokDir}/${extra}`;
    if (set.has(n)) files.add(n);
  }
  for (const n of names) if (!n.includes('/') && DOC_FILES.test(n)) files.add(n);
  return { graph, int8, tokenizer, config, files: [...files] };
}

const isPytorch = (names: readonly string[]): boolean => names.includes('rl_agent_config.json') && names.includes('model.safetensors');

export const laya: CheckpointFamily = {
  name: 'Laya',
  recognise(names): Recognised | undefined {
    if (isPytorch(names)) return { form: 'pytorch' };
    if (names.some((n) => n.endsWith('.onnx')) && !names.some((n) => n.endsWith('decima.json')) && bundleOf(names)) return { form: 'onnx' };
    return undefined;
  },
  missing(names, form) {
    return form === 'pytorch' ? LAYA_PYTORCH_FILES.filter((f) => !names.includes(f)) : [];
  },
  async import(opts) {
    const src = path.resolve(opts.src);
    if (opts.precision) throw refusal(`${src}: --precision applies to a Decima ONNX export (onnx/<precision>/), not to a Laya checkpoint (--int8 makes its int8 graph)`);
    const names = listFiles(src);
    if (!isPytorch(names) && bundleOf(names)) return importBundle(opts, names);
    const missing = this.missing(names, 'pytorch');
    if (missing.length > 0) {
      throw refusal(`${src}: not a Laya checkpoint folder in PyTorch form: missing ${missing.join(', ')} (laya saves rl_agent_config.json, model.safetensors, encoder/, tokenizer/)`);
    }
    return importPytorch(opts);
  },
  plan(names, { where }): PullPlan | undefined {
    const bundle = bundleOf(names);
    if (bundle) return { family: laya, form: 'Laya ONNX bundle', files: bundle.files, root: '' };
    if (!isPytorch(names)) return undefined;
    const missing = this.missing(names, 'pytorch');
    if (missing.length > 0) throw refusal(`${where}: no ONNX graph, and the Laya PyTorch checkpoint is incomplete: missing ${missing.join(', ')}`);
    // laya.Agent's own snapshot_download patterns (rl_agent_config.json, model.safetensors, tokenizer/*, encoder/*; fnmatch's * spans folders)
    const files = names.filter((n) => n === 'rl_agent_config.json' || n === 'model.safetensors' || /^(encoder|tokenizer)\//.test(n) || (!n.includes('/') && DOC_FILES.test(n)));
    return { family: laya, form: 'Laya, PyTorch form', files, root: '' };
  },
};

async function importPytorch(opts: ImportOptions): Promise<ImportResult> {
  const src = path.resolve(opts.src);
  const progress = opts.progress ?? lineProgress();
  const args = ['--check-rows', String(opts.checkRows ?? 48), '--external-data-mb', String(opts.externalDataMb ?? 1024)];
  if (opts.int8) args.push('--int8', '--int8-rows', String(opts.int8Rows ?? 200));
  const { dir, manifest, facts } = await convertCheckpoint<LayaFacts>(opts, {
    runtime: 'laya',
    converter: CONVERTER,
    args,
    factsFile: 'laya_import.json',
    manifest: async (facts, tmp) => {
      const languages = opts.languages ?? (facts.encoder_family === 'mmbert' ? ['*'] : ['en']);
      return {
        format: 'structqa-checkpoint/1',
        name: opts.name,
        version: /(\d+\.\d+\.\d+)$/.exec(opts.name)?.[1] ?? '0.0.0',
        description:
          `Laya decision model (${facts.encoder ?? 'unknown encoder'}, ${facts.option_layout} option layout) imported from its PyTorch form ` +
          `by structqa models import; the graph was checked against laya ${facts.laya_version ?? ''} within ` +
          `${facts.check.max_abs_prob_diff === null ? '(check skipped)' : facts.check.max_abs_prob_diff.toExponential(1)} in probability.`,
        release_date: new Date(fs.statSync(path.join(src, 'model.safetensors')).mtime).toISOString().slice(0, 10),
        languages,
        window: opts.window ?? facts.max_len,
        processed_token_cap: opts.processedTokenCap ?? (languages.includes('*') ? 6000 : 3500),
        fixture: false,
        files: { model: 'model.onnx', tokenizer: 'tokenizer.json', ...(facts.int8 ? { model_int8: 'model.int8.onnx' } : {}) },
        special_tokens: facts.special_tokens,
        // the temperatures laya applies (its clamp to [0.5, 5], 1 for a value that is not a number)
        calibration: { temperature: facts.temperature_table },
        provenance: {
          source: 'laya-import',
          src,
          ...(opts.hub ? { pulled: opts.hub } : {}),
          imported_at: new Date().toISOString(),
          laya_version: facts.laya_version ?? null,
          encoder: facts.encoder ?? null,
          encoder_family: facts.encoder_family,
          option_layout: facts.option_layout,
          laya_config: { max_len: facts.max_len, head_max_len: facts.head_max_len, temperature: facts.temperature ?? null, temperature_by_options: facts.temperature_by_options ?? null },
          calibration: 'the config\'s temperature and temperature_by_options as laya applies them',
          ...(facts.warnings.length > 0 ? { warnings: facts.warnings } : {}),
          check: facts.check,
          ...(facts.int8 ? { int8: facts.int8 } : {}),
          sha256: await hashFiles(tmp),
        },
      };
    },
  });
  if (facts.int8) {
    progress.line(
      `int8 (opt-in: STRUCTQA_INT8=${opts.name}): argmax agrees with laya's fp32 on ${(facts.int8.argmax_agreement * 100).toFixed(1)} % of ` +
        `${facts.int8.rows} rows (one row per run, as the engine runs int8); largest probability difference ${facts.int8.max_abs_prob_diff.toFixed(3)}`,
    );
  }
  return { dir, manifest, int8: facts.int8, warnings: facts.warnings };
}

/**
 * A Laya ONNX bundle: its files as they are (hard links when the folder is a pull's own download, copies
 * otherwise, so the source stays as it was), a manifest from its config, loaded as the engine loads it.
 */
async function importBundle(opts: ImportOptions, names: string[]): Promise<ImportResult> {
  const progress = opts.progress ?? lineProgress();
  const src = path.resolve(opts.src);
  checkName(opts.name);
  const bundle = bundleOf(names)!;
  const modelsDir = path.resolve(opts.modelsDir);
  const target = path.join(modelsDir, opts.name);
  if (!opts.force && fs.existsSync(target)) throw new CheckpointError(`${target} already exists; pass --force to replace it`);
  const work = await workFolder(modelsDir, opts.name, 'import');
  const tmp = work.dir;
  try {
    for (const rel of bundle.files) {
      const to = path.join(tmp, ...rel.split('/'));
      await fsp.mkdir(path.dirname(to), { recursive: true });
      if (opts.hub) await fsp.link(path.join(src, rel), to);
      else await fsp.copyFile(path.join(src, rel), to);
    }
    const hub = opts.hub;
    const config = bundle.config ? readJson<LayaConfig>(path.join(tmp, bundle.config), bundle.config) : undefined;
    const calibration = calibrationFrom(config, bundle.config ?? 'the config', hub ? 'pull' : 'import');
    for (const w of calibration.warnings) progress.line(`warning: ${w}`);
    const tokDir = path.posix.dirname(bundle.tokenizer);
    const special = specialTokens(tmp, tokDir === '.' ? '' : tokDir, bundle.tokenizer);
    const multilingual = /multilingual|mmbert|xlm|mbert|mdeberta/i.test(`${hub?.repo ?? path.basename(src)} ${typeof config?.encoder === 'string' ? config.encoder : ''}`);
    const languages = opts.languages ?? (multilingual ? ['*'] : ['en']);
    const window = opts.window ?? positiveInt(config?.max_len) ?? 512;
    const files = hub?.files ?? (await Promise.all(bundle.files.map(async (f) => ({ path: f, size: fs.statSync(path.join(tmp, f)).size, sha256: await hashFile(path.join(tmp, f)) }))));
    const where = hub ? `${hub.endpoint}/${hub.repo} at ${hub.revision}${hub.commit ? ` (commit ${hub.commit.slice(0, 12)})` : ''}` : src;
    const manifest: Manifest = {
      format: 'structqa-checkpoint/1',
      name: opts.name,
      version: /(\d+\.\d+\.\d+)$/.exec(opts.name)?.[1] ?? (hub?.commit ? hub.commit.slice(0, 12) : (hub?.revision ?? '0.0.0')),
      description: `Laya decision model ${hub ? 'pulled from' : 'imported from'} ${where}; Apache-2.0 unless the repository says otherwise.`,
      release_date: /^\d{4}-\d{2}-\d{2}/.exec(hub?.lastModified ?? '')?.[0] ?? new Date(fs.statSync(path.join(tmp, bundle.graph)).mtime).toISOString().slice(0, 10),
      languages,
      window,
      processed_token_cap: opts.processedTokenCap ?? (languages.includes('*') ? 6000 : 3500),
      fixture: false,
      files: { model: bundle.graph, tokenizer: bundle.tokenizer, ...(bundle.int8 ? { model_int8: bundle.int8 } : {}) },
      special_tokens: special,
      calibration: calibration.table,
      provenance: {
        source: hub ? 'hub' : 'laya-bundle-import',
        ...(hub ? { endpoint: hub.endpoint, repo: hub.repo, revision: hub.revision, ...(hub.commit ? { commit: hub.commit } : {}), ...(hub.subfolder ? { subfolder: hub.subfolder } : {}), pulled_at: new Date().toISOString() } : { src, imported_at: new Date().toISOString() }),
        format: 'Laya ONNX bundle (NandhaKishorM/laya scripts/export_onnx.py)',
        config: bundle.config ?? null,
        calibration: calibration.source,
        ...(calibration.warnings.length > 0 ? { warnings: calibration.warnings } : {}),
        ...(config ? { laya_config: { max_len: config.max_len ?? null, head_max_len: config.head_max_len ?? null, encoder: config.encoder ?? null } } : {}),
        files,
        sha256: Object.fromEntries(files.map((f) => [f.path, f.sha256])),
      },
    };
    await fsp.writeFile(path.join(tmp, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
    readManifest(tmp);
    if (opts.verify ?? true) {
      progress.line('checking the tokenizer and the graph as the engine loads them');
      await verifyCheckpoint(tmp, manifest);
    }
    await moveIntoPlace(tmp, target, opts.force ?? false);
    return { dir: target, manifest, warnings: calibration.warnings };
  } finally {
    await work.remove();
  }
}

/**
 * laya's `clamp_temperature` (laya/common.py): Python's float() of the value confined to [0.5, 5], and 1
 * for a bool or anything float() refuses (NaN and ±inf too); `rejected` when the value is not that number.
 */
export function layaTemperature(v: unknown): { applied: number; rejected: boolean; number: boolean } {
  let n: number | undefined;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'string' && /^\s*[+-]?(\d[\d_]*(\.[\d_]*)?|\.\d[\d_]*)([eE][+-]?\d+)?\s*$/.test(v)) n = Number(v.replace(/_/g, ''));
  if (n === undefined || !Number.isFinite(n)) return { applied: 1, rejected: true, number: false };
  const applied = Math.min(5, Math.max(0.5, n));
  return { applied, rejected: applied !== n, number: true };
}

/**
 * A bundle's config `temperature` [choice, score, noul] and `temperature_by_options` → the manifest's table,
 * as laya's ONNXAgent applies them (its clamp; a bucket's own value, else the type's), with laya's load-time
 * warning entry by entry in plain words. `lang_temperatures` is not read from a config by laya: ignored, with a warning.
 */
export function calibrationFrom(config: LayaConfig | undefined, file: string, verb: 'pull' | 'import'): { table: Manifest['calibration']; source: string; warnings: string[] } {
  const warnings: string[] = [];
  const note = (name: string, raw: unknown, t: { applied: number; number: boolean }): void => {
    warnings.push(
      `${file}: ${name} is ${JSON.stringify(raw) ?? String(raw)}, ${t.number ? "outside laya's [0.5, 5]" : 'not a number'}: laya uses ${t.applied} instead, ` +
        `and so does this ${verb} (treat the confidence of those answers as uncalibrated)`,
    );
  };
  const base = config?.temperature ?? [1, 1, 1];
  if (!Array.isArray(base) || base.length !== 3) {
    throw refusal(`${file}: temperature is ${JSON.stringify(base)}; expected a list of 3 numbers [choice, score, noul] (laya refuses any other shape)`);
  }
  const byOptions = config?.temperature_by_options ?? {};
  if (typeof byOptions !== 'object' || byOptions === null || Array.isArray(byOptions)) {
    throw refusal(`${file}: temperature_by_options is ${JSON.stringify(byOptions)}; expected an object of "<type>:<bucket>" → number (laya cannot read any other shape)`);
  }
  const types = QTYPES.map((type, i) => {
    const t = layaTemperature(base[i]);
    if (t.rejected) note(`temperature[${i}] (${type})`, base[i], t);
    return t.applied;
  });
  const buckets = new Map<string, number>();
  for (const [key, raw] of Object.entries(byOptions as Record<string, unknown>)) {
    const t = layaTemperature(raw);
    if (t.rejected) note(`temperature_by_options[${JSON.stringify(key)}]`, raw, t);
    buckets.set(key, t.applied);
  }
  const table: TemperatureTable = {};
  QTYPES.forEach((type, i) => {
    const row: Partial<Record<OptionBucket, number>> = {};
    for (const bucket of BUCKETS[type]) row[bucket] = buckets.get(`${type}:${bucket}`) ?? types[i]!;
    table[type] = row;
  });
  if (config && 'lang_temperatures' in config) {
    warnings.push(
      `${file}: lang_temperatures is not read by laya when it loads a checkpoint (only laya.load(..., lang_temperatures=...)); ` +
        `this ${verb} ignores it as laya does (a manifest's calibration.by_language applies per-language temperatures)`,
    );
  }
  const given = config !== undefined && (config.temperature !== undefined || config.temperature_by_options !== undefined);
  return { table: { temperature: table }, source: given ? `${file} temperature/temperature_by_options as laya applies them` : 'none in the repository: T = 1', warnings };
}

function specialTokens(dir: string, tokDir: string, tokenizerFile: string): Manifest['special_tokens'] {
  const read = (file: string): Record<string, unknown> => {
    const full = path.join(dir, tokDir, file);
    return fs.existsSync(full) ? readJson<Record<string, unknown>>(full, file) : {};
  };
  const sources = [read('tokenizer_config.json'), read('special_tokens_map.json')];
  const tokenizer = readJson<{ added_tokens?: { content?: string }[]; model?: { vocab?: unknown } }>(path.join(dir, tokenizerFile), tokenizerFile);
  const known = new Set<string>((tokenizer.added_tokens ?? []).map((t) => t.content ?? ''));
  const vocab = tokenizer.model?.vocab;
  if (vocab && typeof vocab === 'object' && !Array.isArray(vocab)) for (const k of Object.keys(vocab)) known.add(k);
  if (Array.isArray(vocab)) for (const v of vocab) if (Array.isArray(v) && typeof v[0] === 'string') known.add(v[0]);
  const guesses: Record<keyof Manifest['special_tokens'], string[]> = {
    cls: ['[CLS]', '<s>', '<cls>', '<bos>'],
    sep: ['[SEP]', '</s>', '<sep>', '<eos>'],
    mask: ['[MASK]', '<mask>'],
    pad: ['[PAD]', '<pad>'],
  };
  const out = {} as Manifest['special_tokens'];
  for (const key of ['cls', 'sep', 'mask', 'pad'] as const) {
    let token: string | undefined;
    for (const s of sources) {
      const v = s[`${key}_token`];
      token = typeof v === 'string' ? v : v && typeof v === 'object' && typeof (v as { content?: unknown }).content === 'string' ? (v as { content: string }).content : undefined;
      if (token) break;
    }
    token ??= guesses[key].find((g) => known.has(g));
    if (!token) throw refusal(`${tokenizerFile}: cannot tell the ${key} token (no tokenizer_config.json entry, none of ${guesses[key].join(' ')})`);
    out[key] = token;
  }
  return out;
}

function readJson<T>(file: string, label: string): T {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  } catch (e) {
    throw refusal(`${label}: not valid JSON (${errorText(e)})`);
  }
}

function positiveInt(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined;
}
