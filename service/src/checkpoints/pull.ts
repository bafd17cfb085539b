/**
 * `structqa models pull REPO`: fetch a published Laya-format checkpoint from a Hugging Face-compatible
 * hub into the models folder and write our manifest for it. See docs/checkpoint-format.md
 * ("Pulling published checkpoints").
 *
 * What a Laya ONNX bundle holds (public repository NandhaKishorM/laya, `scripts/export_onnx.py`,
 * `laya/onnx_agent.py`): an ONNX graph exported with the marker I/O (`laya.onnx`, weights over 2 GB in
 * an external-data file next to it such as `laya.onnx.data`), the tokenizer under `tokenizer/`
 * (`tokenizer.json`, `tokenizer_config.json`, `special_tokens_map.json`), and a JSON config
 * (`laya_config.json` in ONNX bundles, `rl_agent_config.json` in the PyTorch checkpoints) carrying
 * `max_len`, `head_max_len`, `temperature` (one per question type: choice, score, noul) and
 * `temperature_by_options` (`"<type>:<bucket>" → T`). The PyTorch weights (`model.safetensors`,
 * `encoder/`) of a repository that has an ONNX graph are not downloaded; a repository with only the
 * PyTorch form (the published Laya repositories) is downloaded as laya.Agent downloads it and converted
 * by `structqa models import`'s code (import.ts).
 *
 * The download goes into a hidden temporary sibling folder; sizes and (when the hub gives them) hashes
 * are checked, the tokenizer and graph are loaded once, and only then is the folder renamed into place.
 * A failed pull leaves nothing in the models folder.
 */
import { createHash, randomBytes, type Hash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { Manifest, OptionBucket, QuestionType, TemperatureTable } from '../engine/manifest.js';
import { readManifest } from '../engine/manifest.js';
import { CheckpointTokenizer } from '../engine/tokenizer.js';
import ort from 'onnxruntime-node';
import { importLayaCheckpoint, isLayaPytorch, missingLayaFiles } from './import.js';
import { DECIMA_PYTORCH_FILES, decimaOnnxPrecisions, importDecimaCheckpoint, isDecimaPytorch, missingDecimaOnnxFiles, type DecimaPrecision } from './import-decima.js';

export const DEFAULT_HUB_ENDPOINT = 'https://huggingface.co';

export interface PullOptions {
  /** `owner/name` on the hub. */
  repo: string;
  /** Branch, tag or commit; default `main`. Files are fetched at the commit the listing resolves to. */
  revision?: string;
  /** Hub base URL; default https://huggingface.co. */
  endpoint?: string;
  /** Root of checkpoint folders; the checkpoint lands in `<modelsDir>/<name>`. */
  modelsDir: string;
  /** Checkpoint name (manifest `name` and folder name); default: the repo's name part. */
  name?: string;
  /** Bearer token for private or gated repositories (HF_TOKEN). */
  token?: string;
  /** Folder inside the repo holding the bundle (Laya bundles keep some routes in subfolders). */
  subfolder?: string;
  /** Override the manifest's languages; default `["*"]` for an mmBERT/multilingual repo, else `["en"]`. */
  languages?: string[];
  /** Override the window; default the config's `max_len` (Laya's runtime default 512 when absent). */
  window?: number;
  /** Override the cap; default the contract's values: 6000 multilingual, 3500 otherwise. */
  processedTokenCap?: number;
  /** Replace an existing folder of the same name (atomically swapped). */
  force?: boolean;
  /** Load the tokenizer and the graph before the folder is moved into place (default true). */
  verify?: boolean;
  /** Attempts per request for transient failures (network errors, 429, 5xx, short or corrupt bodies). */
  attempts?: number;
  /** Base delay between attempts, ms (doubled each time). */
  retryDelayMs?: number;
  fetch?: typeof fetch;
  /** Python that converts a repository holding only PyTorch weights (`structqa models import`); default python3. */
  importPython?: string;
  /** Rows of the import's check against laya's own forward (PyTorch repositories; default 48). */
  importCheckRows?: number;
  /** PyTorch repositories: also write an int8 graph and report its agreement (`models import --int8`). */
  importInt8?: boolean;
  /** A Decima repository (its ONNX export as `onnx/<precision>/`): which precision to fetch (default int8, as Decima's runtime). */
  precision?: DecimaPrecision;
  /** Progress lines (human text). */
  log?: (line: string) => void;
}

export interface PulledFile {
  path: string;
  size: number;
  sha256: string;
}

export interface PullResult {
  dir: string;
  manifest: Manifest;
  commit?: string;
  files: PulledFile[];
}

/** A pull failure with a message meant for the operator. `status` is the hub's HTTP status, when any. */
export class PullError extends Error {
  constructor(message: string, readonly status?: number, readonly retryable = false) {
    super(message);
    this.name = 'PullError';
  }
}

interface Sibling {
  rfilename: string;
  size?: number;
  lfs?: { sha256?: string; oid?: string; size?: number };
}

interface RepoInfo {
  sha?: string;
  lastModified?: string;
  siblings?: Sibling[];
}

export interface LayaConfig {
  max_len?: number;
  head_max_len?: number;
  encoder?: string;
  temperature?: unknown;
  temperature_by_options?: Record<string, unknown>;
  lang_temperatures?: Record<string, { temperature?: unknown; temperature_by_options?: Record<string, unknown> }>;
  [key: string]: unknown;
}

const REPO_RE = /^[A-Za-z0-9][\w.-]*\/[A-Za-z0-9][\w.-]*$/;
const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const GRAPH_NAMES = ['laya.onnx', 'model.onnx'];
const INT8_NAMES = ['laya.int8.onnx', 'laya_int8.onnx', 'model.int8.onnx', 'model_int8.onnx', 'model_quantized.onnx'];
const CONFIG_NAMES = ['laya_config.json', 'rl_agent_config.json'];
const TOKENIZER_EXTRAS = ['tokenizer_config.json', 'special_tokens_map.json'];
const DOC_FILES = /^(README\.md|LICENSE(\.\w+)?|NOTICE(\.\w+)?)$/i;
const QTYPES: QuestionType[] = ['choice', 'score', 'noul'];
const BUCKETS: Record<QuestionType, OptionBucket[]> = {
  choice: ['2', '3-5', '6-10', '11+'],
  score: ['2', '3-5', '6-10', '11+'],
  noul: ['2'],
};

export async function pullCheckpoint(opts: PullOptions): Promise<PullResult> {
  const revision = opts.revision ?? 'main';
  const endpoint = (opts.endpoint ?? DEFAULT_HUB_ENDPOINT).replace(/\/+$/, '');
  const doFetch = opts.fetch ?? fetch;
  const log = opts.log ?? (() => {});
  const attempts = Math.max(1, opts.attempts ?? 3);
  const retryDelayMs = opts.retryDelayMs ?? 500;
  if (!REPO_RE.test(opts.repo) || opts.repo.includes('..')) {
    throw new PullError(`invalid repository ${JSON.stringify(opts.repo)}: expected owner/name`);
  }
  const name = opts.name ?? opts.repo.split('/')[1]!;
  if (!NAME_RE.test(name)) throw new PullError(`invalid checkpoint name ${JSON.stringify(name)}: use letters, digits, '.', '_' and '-'`);
  const prefix = normaliseSubfolder(opts.subfolder);
  const modelsDir = path.resolve(opts.modelsDir);
  const target = path.join(modelsDir, name);
  if (!opts.force && fs.existsSync(target)) {
    throw new PullError(`${target} already exists; pass --force to replace it`);
  }

  const headers: Record<string, string> = { 'user-agent': 'structqa-models-pull' };
  if (opts.token) headers['authorization'] = `Bearer ${opts.token}`;
  const where = `${opts.repo}@${revision} on ${endpoint}`;

  // 1. List the repository's files (huggingface_hub's model_info with files metadata).
  const infoUrl = `${endpoint}/api/models/${opts.repo}/revision/${encodeURIComponent(revision)}?blobs=true`;
  const info = await withRetries(attempts, retryDelayMs, async () => {
    const res = await request(doFetch, infoUrl, headers, where);
    try {
      return (await res.json()) as RepoInfo;
    } catch {
      throw new PullError(`${where}: the hub's file listing is not JSON (is ${endpoint} a Hugging Face-compatible hub?)`);
    }
  });
  const siblings = new Map<string, Sibling>();
  for (const s of info.siblings ?? []) {
    if (typeof s?.rfilename === 'string' && s.rfilename.startsWith(prefix)) siblings.set(s.rfilename.slice(prefix.length), s);
  }
  if (siblings.size === 0) throw new PullError(`${where}: the repository lists no files${prefix ? ` under ${prefix}` : ''}`);
  const commit = typeof info.sha === 'string' && /^[0-9a-f]{40}$/.test(info.sha) ? info.sha : undefined;

  // 2. Pick the files a checkpoint needs.
  const plan = planFiles([...siblings.keys()], where, opts.precision);

  // 3. Download into a hidden temporary sibling of the target (same file system: the rename is atomic).
  await fsp.mkdir(modelsDir, { recursive: true });
  const tmp = path.join(modelsDir, `.${name}.pull-${process.pid}-${randomBytes(4).toString('hex')}`);
  await fsp.mkdir(tmp);
  try {
    const files: PulledFile[] = [];
    const fileRevision = commit ?? revision;
    for (const rel of plan.all) {
      const sibling = siblings.get(rel)!;
      const dest = path.join(tmp, ...rel.split('/'));
      await fsp.mkdir(path.dirname(dest), { recursive: true });
      const url = `${endpoint}/${opts.repo}/resolve/${encodeURIComponent(fileRevision)}/${(prefix + rel).split('/').map(encodeURIComponent).join('/')}`;
      const listedSize = sibling.lfs?.size ?? sibling.size;
      log(`downloading ${rel}${listedSize !== undefined ? ` (${formatBytes(listedSize)})` : ''}`);
      const got = await withRetries(attempts, retryDelayMs, () => downloadFile(doFetch, url, headers, dest, sibling, `${where}: ${rel}`));
      files.push({ path: rel, ...got });
    }

    // What both imports of a downloaded folder take (the same code as `structqa models import`).
    const importing = {
      modelsDir,
      name,
      python: opts.importPython ?? 'python3',
      languages: opts.languages,
      window: opts.window,
      processedTokenCap: opts.processedTokenCap,
      force: opts.force,
      checkRows: opts.importCheckRows,
      log,
    };
    const hub = { source: 'hub', endpoint, repo: opts.repo, revision, ...(commit ? { commit } : {}) };

    // A checkpoint in PyTorch form (Laya or Decima, converted) or a Decima ONNX export (composed into one
    // graph): by `structqa models import`'s code, from the downloaded folder.
    const pulled = { pulled: { ...hub, files } };
    const importDownloaded = async () => {
      switch (plan.kind) {
        case 'pytorch':
          return importLayaCheckpoint({ ...importing, src: tmp, int8: opts.importInt8, provenance: pulled });
        case 'decima-pytorch':
          return importDecimaCheckpoint({ ...importing, src: tmp, int8: opts.importInt8, provenance: pulled });
        case 'decima-onnx':
          return importDecimaCheckpoint({ ...importing, src: path.join(tmp, ...plan.graph.split('/').slice(0, -1)), provenance: { pulled: { ...hub, precision: plan.precision, files } } });
        default:
          return undefined; // an ONNX bundle: served as downloaded (below)
      }
    };
    const imported = await importDownloaded();
    if (imported) {
      await fsp.rm(tmp, { recursive: true, force: true });
      const form = plan.kind === 'decima-onnx' ? ` (onnx/${plan.precision})` : plan.kind === 'decima-pytorch' ? ' (Decima, PyTorch form)' : '';
      log(`pulled ${opts.repo}@${revision}${form} into ${imported.dir}`);
      return { dir: imported.dir, manifest: imported.manifest, commit, files };
    }

    // 4. The manifest, from what the repository holds.
    const config = plan.config ? readJson<LayaConfig>(path.join(tmp, plan.config), plan.config) : undefined;
    const tokenizerDir = path.posix.dirname(plan.tokenizer);
    const special = specialTokens(tmp, tokenizerDir === '.' ? '' : tokenizerDir, plan.tokenizer);
    const multilingual = isMultilingual(opts.repo, config);
    const languages = opts.languages ?? (multilingual ? ['*'] : ['en']);
    const window = opts.window ?? positiveInt(config?.max_len) ?? 512;
    const calibration = calibrationFrom(config);
    const sha256: Record<string, string> = {};
    for (const f of files) sha256[f.path] = f.sha256;
    const manifest: Manifest = {
      format: 'structqa-checkpoint/1',
      name,
      version: /(\d+\.\d+\.\d+)$/.exec(name)?.[1] ?? (commit ? commit.slice(0, 12) : revision),
      description:
        `Laya decision model pulled from ${endpoint}/${opts.repo} at ${revision}` +
        `${commit ? ` (commit ${commit.slice(0, 12)})` : ''}; Apache-2.0 unless the repository says otherwise.`,
      release_date: /^\d{4}-\d{2}-\d{2}/.exec(info.lastModified ?? '')?.[0] ?? new Date().toISOString().slice(0, 10),
      languages,
      window,
      processed_token_cap: opts.processedTokenCap ?? (languages.includes('*') ? 6000 : 3500),
      fixture: false,
      files: { model: plan.graph, tokenizer: plan.tokenizer, ...(plan.int8 ? { model_int8: plan.int8 } : {}) },
      special_tokens: special,
      calibration: calibration.table,
      provenance: {
        source: 'hub',
        endpoint,
        repo: opts.repo,
        revision,
        ...(commit ? { commit } : {}),
        ...(prefix ? { subfolder: prefix.slice(0, -1) } : {}),
        pulled_at: new Date().toISOString(),
        format: 'Laya ONNX bundle (NandhaKishorM/laya scripts/export_onnx.py)',
        config: plan.config ?? null,
        calibration: calibration.source,
        ...(config ? { laya_config: { max_len: config.max_len ?? null, head_max_len: config.head_max_len ?? null, encoder: config.encoder ?? null } } : {}),
        files: files.map((f) => ({ path: f.path, size: f.size, sha256: f.sha256 })),
        sha256,
      },
    };
    await fsp.writeFile(path.join(tmp, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
    readManifest(tmp);

    // 5. Load what the engine will load before anyone can see the folder.
    if (opts.verify ?? true) {
      log('checking the tokenizer and the graph');
      await verifyCheckpoint(tmp, manifest);
    }

    // 6. Into place.
    await moveIntoPlace(tmp, target, opts.force ?? false);
    log(`pulled ${opts.repo}@${revision} into ${target}`);
    return { dir: target, manifest, commit, files };
  } catch (e) {
    await fsp.rm(tmp, { recursive: true, force: true });
    throw e;
  }
}

function normaliseSubfolder(subfolder: string | undefined): string {
  if (!subfolder) return '';
  const clean = subfolder.replace(/^\/+|\/+$/g, '');
  if (clean === '' || clean.split('/').some((p) => p === '..' || p === '.' || p === '')) {
    throw new PullError(`invalid subfolder ${JSON.stringify(subfolder)}`);
  }
  return clean + '/';
}

interface Plan {
  /**
   * 'pytorch': no ONNX graph, a Laya checkpoint in PyTorch form, converted by `models import` after download;
   * 'decima-onnx': a Decima ONNX export (`onnx/<precision>/`), composed into one graph by `models import`'s code;
   * 'decima-pytorch': no ONNX export, a Decima checkpoint in PyTorch form (`DecimaModel.save`), converted likewise.
   */
  kind?: 'onnx' | 'pytorch' | 'decima-onnx' | 'decima-pytorch';
  precision?: DecimaPrecision;
  graph: string;
  int8?: string;
  tokenizer: string;
  config?: string;
  all: string[];
}

function planFiles(names: string[], where: string, precision?: DecimaPrecision): Plan {
  const set = new Set(names);
  for (const n of names) {
    if (n.split('/').some((p) => p === '..' || p === '.' || p === '') || path.isAbsolute(n)) {
      throw new PullError(`${where}: refusing the file name ${JSON.stringify(n)}`);
    }
  }
  const decima = decimaOnnxPrecisions(names);
  if (decima.length > 0) return planDecimaOnnx(names, where, decima, precision ?? 'int8');
  if (precision) throw new PullError(`${where}: --precision applies to a Decima repository (onnx/<precision>/decima.json), which this is not`);
  const onnx = names.filter((n) => n.endsWith('.onnx'));
  let graph = [...GRAPH_NAMES, ...GRAPH_NAMES.map((g) => `onnx/${g}`)].find((g) => set.has(g));
  if (!graph) {
    const fp32 = onnx.filter((n) => !/(int8|uint8|quant|fp16|f16|q4|bnb)/i.test(n));
    if (fp32.length === 1) graph = fp32[0];
    else if (fp32.length > 1) throw new PullError(`${where}: several ONNX graphs (${fp32.join(', ')}); expected laya.onnx or model.onnx`);
  }
  if (!graph) {
    if (isLayaPytorch(names)) {
      const missing = missingLayaFiles(names);
      if (missing.length > 0) {
        throw new PullError(`${where}: no ONNX graph, and the Laya PyTorch checkpoint is incomplete: missing ${missing.join(', ')}`);
      }
      // Everything laya.Agent reads (its own snapshot_download patterns), converted after download.
      const all = names.filter((n) => n === 'rl_agent_config.json' || n === 'model.safetensors' || /^(encoder|tokenizer)\/[^/]+$/.test(n) || (!n.includes('/') && DOC_FILES.test(n)));
      return { kind: 'pytorch', graph: 'model.safetensors', tokenizer: 'tokenizer/tokenizer.json', config: 'rl_agent_config.json', all };
    }
    if (isDecimaPytorch(names)) {
      const missing = DECIMA_PYTORCH_FILES.filter((f) => !set.has(f));
      if (missing.length > 0) throw new PullError(`${where}: no ONNX export, and the Decima PyTorch checkpoint is incomplete: missing ${missing.join(', ')}`);
      // Everything DecimaModel.load reads: its config, the head, and the encoder folder with its tokenizer.
      const all = names.filter((n) => n === 'decima.json' || n === 'head.safetensors' || n.startsWith('encoder/') || (!n.includes('/') && DOC_FILES.test(n)));
      return { kind: 'decima-pytorch', graph: 'head.safetensors', tokenizer: 'encoder/tokenizer.json', config: 'decima.json', all };
    }
    throw new PullError(
      `${where}: no ONNX graph, no Laya PyTorch checkpoint (rl_agent_config.json + model.safetensors) and no Decima checkpoint (decima.json + head.safetensors, or onnx/<precision>/decima.json) in the repository.`,
    );
  }
  const dir = path.posix.dirname(graph);
  const inDir = (n: string): string => (dir === '.' ? n : `${dir}/${n}`);
  const int8 = INT8_NAMES.map(inDir).find((n) => set.has(n));
  const tokenizer = ['tokenizer/tokenizer.json', inDir('tokenizer.json'), 'tokenizer.json'].find((n) => set.has(n));
  if (!tokenizer) throw new PullError(`${where}: no tokenizer.json (looked in tokenizer/ and next to ${graph})`);
  const config = [...CONFIG_NAMES.map(inDir), ...CONFIG_NAMES].find((n) => set.has(n));
  const tokDir = path.posix.dirname(tokenizer);
  const all = new Set<string>([graph, tokenizer]);
  if (int8) all.add(int8);
  if (config) all.add(config);
  // External data of the graphs (`laya.onnx.data`, `model.onnx_data`, …) keeps the name the graph refers to.
  for (const g of [graph, int8]) {
    if (!g) continue;
    for (const n of names) if (n !== g && n.startsWith(g) && !n.endsWith('.onnx')) all.add(n);
  }
  for (const extra of TOKENIZER_EXTRAS) {
    const n = tokDir === '.' ? extra : `${tokDir}/${extra}`;
    if (set.has(n)) all.add(n);
  }
  for (const n of names) if (!n.includes('/') && DOC_FILES.test(n)) all.add(n);
  return { graph, int8, tokenizer, config, all: [...all] };
}

/**
 * A Decima repository as `DecimaOnnx.from_pretrained` fetches it: `onnx/<precision>/**` and the root's
 * config.json (plus README/LICENSE), nothing from the other precisions or the PyTorch files.
 */
function planDecimaOnnx(names: string[], where: string, available: string[], precision: DecimaPrecision): Plan {
  if (!available.includes(precision)) {
    throw new PullError(`${where}: no onnx/${precision}/decima.json: the repository publishes the Decima ONNX export in ${available.join(', ')} (--precision)`);
  }
  const dir = `onnx/${precision}/`;
  const inside = names.filter((n) => n.startsWith(dir));
  const missing = missingDecimaOnnxFiles(inside.map((n) => n.slice(dir.length)));
  if (missing.length > 0) {
    throw new PullError(`${where}: the Decima ONNX export onnx/${precision}/ is incomplete: missing ${missing.map((f) => dir + f).join(', ')}`);
  }
  const all = [...inside, ...names.filter((n) => !n.includes('/') && (n === 'config.json' || DOC_FILES.test(n)))];
  return { kind: 'decima-onnx', precision, graph: `${dir}scorer.onnx`, tokenizer: `${dir}tokenizer/tokenizer.json`, config: `${dir}decima.json`, all };
}

/** One HTTP GET with redirects followed by hand (so the hub's own headers are seen); throws PullError. */
async function request(
  doFetch: typeof fetch,
  url: string,
  headers: Record<string, string>,
  what: string,
): Promise<Response & { hubHeaders: Headers }> {
  let current = new URL(url);
  const origin = current.origin;
  let hubHeaders: Headers | undefined;
  for (let hop = 0; hop < 6; hop++) {
    const sameOrigin = current.origin === origin;
    const h = { ...headers };
    if (!sameOrigin) delete h['authorization'];
    let res: Response;
    try {
      res = await doFetch(current, { headers: h, redirect: 'manual' });
    } catch (e) {
      throw new PullError(`${what}: cannot reach ${current.origin} (${errorText(e)})`, undefined, true);
    }
    hubHeaders ??= res.headers;
    if ([301, 302, 303, 307, 308].includes(res.status)) {
      const location = res.headers.get('location');
      await res.body?.cancel().catch(() => {});
      if (!location) throw new PullError(`${what}: redirect without a location`, res.status);
      current = new URL(location, current);
      continue;
    }
    if (res.ok) return Object.assign(res, { hubHeaders });
    const code = res.headers.get('x-error-code');
    const message = res.headers.get('x-error-message');
    await res.body?.cancel().catch(() => {});
    const detail = message ? ` (${message})` : code ? ` (${code})` : '';
    if (res.status === 401 || res.status === 403) {
      throw new PullError(
        `${what}: ${res.status === 401 ? 'unauthorized' : 'forbidden'}${detail}. The repository may not exist, be private or ` +
          `gated: check the name, ${headers['authorization'] ? 'check that HF_TOKEN has access' : 'set HF_TOKEN to a token with access'}.`,
        res.status,
      );
    }
    if (res.status === 404) {
      const kind = code === 'RevisionNotFound' ? 'revision not found' : code === 'EntryNotFound' ? 'file not found' : 'not found';
      throw new PullError(`${what}: ${kind}${detail} (HTTP 404)`, 404);
    }
    const retryable = res.status === 408 || res.status === 429 || res.status >= 500;
    throw new PullError(`${what}: HTTP ${res.status}${detail}`, res.status, retryable);
  }
  throw new PullError(`${what}: too many redirects`);
}

async function downloadFile(
  doFetch: typeof fetch,
  url: string,
  headers: Record<string, string>,
  dest: string,
  sibling: Sibling,
  what: string,
): Promise<{ size: number; sha256: string }> {
  const res = await request(doFetch, url, headers, what);
  const hub = res.hubHeaders;
  const linkedEtag = unquote(hub.get('x-linked-etag'));
  const etag = unquote(hub.get('etag'));
  const expectedSha256 = lower(sibling.lfs?.sha256) ?? (isHex(linkedEtag, 64) ? linkedEtag : undefined) ?? (isHex(etag, 64) ? etag : undefined);
  const contentLength = res.headers.get('content-encoding') ? undefined : intHeader(res.headers.get('content-length'));
  const expectedSize = sibling.lfs?.size ?? sibling.size ?? intHeader(hub.get('x-linked-size')) ?? contentLength;
  // A file kept in git (not LFS): the hub's ETag is its git blob id, sha1("blob <size>\0" + bytes).
  const gitSha1 = !expectedSha256 && !linkedEtag && isHex(etag, 40) && expectedSize !== undefined ? etag : undefined;

  if (!res.body) throw new PullError(`${what}: empty response`, res.status, true);
  const sha256 = createHash('sha256');
  let sha1: Hash | undefined;
  if (gitSha1) {
    sha1 = createHash('sha1');
    sha1.update(`blob ${expectedSize}\0`);
  }
  let size = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      sha256.update(chunk);
      sha1?.update(chunk);
      done(null, chunk);
    },
  });
  try {
    await pipeline(Readable.fromWeb(res.body as unknown as WebReadableStream<Uint8Array>), tap, fs.createWriteStream(dest));
  } catch (e) {
    await fsp.rm(dest, { force: true });
    throw new PullError(`${what}: download interrupted after ${formatBytes(size)} (${errorText(e)})`, undefined, true);
  }
  const digest = sha256.digest('hex');
  const bad = (message: string): PullError => new PullError(`${what}: ${message}`, undefined, true);
  if (expectedSize !== undefined && size !== expectedSize) {
    await fsp.rm(dest, { force: true });
    throw bad(`truncated or oversized download: got ${size} bytes, expected ${expectedSize}`);
  }
  if (expectedSha256 && digest !== expectedSha256) {
    await fsp.rm(dest, { force: true });
    throw bad(`sha256 mismatch: got ${digest}, expected ${expectedSha256}`);
  }
  if (gitSha1 && sha1!.digest('hex') !== gitSha1) {
    await fsp.rm(dest, { force: true });
    throw bad(`content does not match the hub's git blob id ${gitSha1}`);
  }
  return { size, sha256: digest };
}

async function withRetries<T>(attempts: number, delayMs: number, run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (e) {
      const retryable = e instanceof PullError ? e.retryable : true;
      if (!retryable || attempt >= attempts) {
        if (e instanceof PullError) {
          if (attempt > 1) e.message += ` (after ${attempt} attempts)`;
          throw e;
        }
        throw new PullError(errorText(e));
      }
      await new Promise((r) => setTimeout(r, delayMs * 2 ** (attempt - 1)));
    }
  }
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
    if (!token) throw new PullError(`${tokenizerFile}: cannot tell the ${key} token (no tokenizer_config.json entry, none of ${guesses[key].join(' ')})`);
    out[key] = token;
  }
  return out;
}

function isMultilingual(repo: string, config: LayaConfig | undefined): boolean {
  const text = `${repo} ${typeof config?.encoder === 'string' ? config.encoder : ''}`;
  return /multilingual|mmbert|xlm|mbert|mdeberta/i.test(text);
}

/** Laya's `temperature` [choice, score, noul] and `temperature_by_options` → our table (raw; the engine clamps). */
export function calibrationFrom(config: LayaConfig | undefined): { table: Manifest['calibration']; source: string } {
  const hasBase = Array.isArray(config?.temperature);
  const hasByOptions = !!config?.temperature_by_options && typeof config.temperature_by_options === 'object';
  const table = (base: unknown, byOptions: Record<string, unknown> | undefined): TemperatureTable => {
    const out: TemperatureTable = {};
    QTYPES.forEach((type, i) => {
      const row: Partial<Record<OptionBucket, number>> = {};
      const fallback = Array.isArray(base) ? finite(base[i]) ?? 1 : 1;
      for (const bucket of BUCKETS[type]) row[bucket] = finite(byOptions?.[`${type}:${bucket}`]) ?? fallback;
      out[type] = row;
    });
    return out;
  };
  const result: Manifest['calibration'] = { temperature: table(config?.temperature, config?.temperature_by_options) };
  const langs = config?.lang_temperatures;
  if (langs && typeof langs === 'object') {
    const byLanguage: Record<string, TemperatureTable> = {};
    for (const [lang, l] of Object.entries(langs)) {
      if (!l || typeof l !== 'object') continue;
      byLanguage[lang.split('-')[0]!.toLowerCase()] = table(l.temperature ?? config?.temperature, l.temperature_by_options);
    }
    if (Object.keys(byLanguage).length > 0) result.by_language = byLanguage;
  }
  const source = hasBase || hasByOptions ? 'repository config temperature/temperature_by_options' : 'none in the repository: T = 1';
  return { table: result, source };
}

export async function verifyCheckpoint(dir: string, manifest: Manifest): Promise<void> {
  try {
    await CheckpointTokenizer.fromFile(path.join(dir, manifest.files.tokenizer), manifest);
  } catch (e) {
    throw new PullError(`${manifest.files.tokenizer}: does not load with the manifest's special tokens (${errorText(e)})`);
  }
  const graphs = [manifest.files.model, ...(manifest.files.model_int8 ? [manifest.files.model_int8] : [])];
  for (const file of graphs) {
    let session: ort.InferenceSession;
    try {
      session = await ort.InferenceSession.create(path.join(dir, file), { executionProviders: ['cpu'], graphOptimizationLevel: 'disabled' });
    } catch (e) {
      throw new PullError(`${file}: onnxruntime cannot load the graph (${errorText(e)})`);
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
      if (problems.length > 0) throw new PullError(`${file}: not a marker-contract graph: ${problems.join('; ')}`);
    } finally {
      await session.release();
    }
  }
}

export async function moveIntoPlace(tmp: string, target: string, force: boolean): Promise<void> {
  if (!fs.existsSync(target)) {
    try {
      await fsp.rename(tmp, target);
      return;
    } catch (e) {
      if (!force) throw new PullError(`cannot move the checkpoint into ${target} (${errorText(e)})`);
    }
  }
  if (!force) throw new PullError(`${target} already exists; pass --force to replace it`);
  const old = `${path.join(path.dirname(target), '.' + path.basename(target))}.old-${randomBytes(4).toString('hex')}`;
  await fsp.rename(target, old);
  try {
    await fsp.rename(tmp, target);
  } catch (e) {
    await fsp.rename(old, target).catch(() => {});
    throw new PullError(`cannot move the checkpoint into ${target} (${errorText(e)})`);
  }
  await fsp.rm(old, { recursive: true, force: true });
}

function readJson<T>(file: string, label: string): T {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  } catch (e) {
    throw new PullError(`${label}: not valid JSON (${errorText(e)})`);
  }
}

function finite(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

function positiveInt(v: unknown): number | undefined {
  const n = finite(v);
  return n !== undefined && Number.isInteger(n) && n > 0 ? n : undefined;
}

function intHeader(v: string | null): number | undefined {
  if (v === null || !/^\d+$/.test(v.trim())) return undefined;
  return Number(v.trim());
}

function unquote(v: string | null): string | undefined {
  if (!v) return undefined;
  return v.replace(/^W\//, '').replace(/^"|"$/g, '').toLowerCase();
}

function lower(v: string | undefined): string | undefined {
  return v ? v.toLowerCase() : undefined;
}

function isHex(v: string | undefined, length: number): v is string {
  return v !== undefined && v.length === length && /^[0-9a-f]+$/.test(v);
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(2)} GB`;
}

export function errorText(e: unknown): string {
  if (e instanceof Error) {
    const cause = (e as { cause?: unknown }).cause;
    return cause instanceof Error ? `${e.message}: ${cause.message}` : e.message;
  }
  return String(e);
}
