/**
 * `structqa models pull REPO`: fetch a published checkpoint from a Hugging Face-compatible hub and hand it
 * to its family's import (laya.ts, decima.ts). See docs/checkpoint-format.md ("Pulling published checkpoints").
 *
 * Each family says which of the repository's files its own runtime would fetch (its `plan`); they are
 * downloaded into a hidden temporary folder beside the target (hub.ts: resumable, sizes and hashes checked),
 * and the folder is imported from there like any folder on disk; the download is removed afterwards. A
 * failed or stopped pull leaves nothing in the models folder but its downloads, whole or not, for the next
 * pull to resume (`.partial/`, partial.ts).
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { checkName } from './convert.js';
import { CheckpointError, refusal } from './errors.js';
import type { DecimaPrecision, HubSource, PullPlan } from './family.js';
import { workFolder } from './files.js';
import { downloadFile, repoInfo, type Hub, type Sibling } from './hub.js';
import { FAMILIES } from './import.js';
import { claimPartial, type PartialDownload } from './partial.js';
import { bytes, lineProgress, type Progress } from './progress.js';
import type { Manifest } from '../engine/manifest.js';

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
  /** Folder inside the repo holding the checkpoint (Laya bundles keep some routes in subfolders). */
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
  /** Attempts per request for transient failures without progress (network errors, 429, 5xx, short or corrupt bodies). */
  attempts?: number;
  /** Base delay between attempts, ms (doubled each time). */
  retryDelayMs?: number;
  fetch?: typeof fetch;
  /** Python that converts a repository in PyTorch form or a Decima export (`structqa models import`); default python3. */
  importPython?: string;
  /** Rows of the import's check against the family's runtime (default 48). */
  importCheckRows?: number;
  /** PyTorch repositories: also write an int8 graph and report its agreement (`models import --int8`). */
  importInt8?: boolean;
  /** A Decima repository (its ONNX export as `onnx/<precision>/`): which precision to fetch (default int8, as Decima's runtime). */
  precision?: DecimaPrecision;
  verbose?: boolean;
  /** Steps and per-file download progress (default: lines to `log`). */
  progress?: Progress;
  /** Progress lines (human text) when no `progress` is given. */
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
  warnings: string[];
}

const REPO_RE = /^[A-Za-z0-9][\w.-]*\/[A-Za-z0-9][\w.-]*$/;

export async function pullCheckpoint(opts: PullOptions): Promise<PullResult> {
  const revision = opts.revision ?? 'main';
  const endpoint = (opts.endpoint ?? DEFAULT_HUB_ENDPOINT).replace(/\/+$/, '');
  const progress = opts.progress ?? lineProgress(opts.log);
  if (!REPO_RE.test(opts.repo) || opts.repo.includes('..')) throw refusal(`invalid repository ${JSON.stringify(opts.repo)}: expected owner/name`);
  const name = opts.name ?? opts.repo.split('/')[1]!;
  checkName(name);
  const prefix = normaliseSubfolder(opts.subfolder);
  const modelsDir = path.resolve(opts.modelsDir);
  const target = path.join(modelsDir, name);
  if (!opts.force && fs.existsSync(target)) throw new CheckpointError(`${target} already exists; pass --force to replace it`);

  const hub: Hub = {
    fetch: opts.fetch ?? fetch,
    headers: { 'user-agent': 'structqa-models-pull', ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}) },
    attempts: Math.max(1, opts.attempts ?? 3),
    retryDelayMs: opts.retryDelayMs ?? 500,
  };
  const where = `${opts.repo}@${revision} on ${endpoint}`;

  // 1. The repository's files (huggingface_hub's model_info with files metadata).
  const info = await repoInfo(hub, `${endpoint}/api/models/${opts.repo}/revision/${encodeURIComponent(revision)}?blobs=true`, where, endpoint);
  const siblings = new Map<string, Sibling>();
  for (const s of info.siblings ?? []) {
    if (typeof s?.rfilename === 'string' && s.rfilename.startsWith(prefix)) siblings.set(s.rfilename.slice(prefix.length), s);
  }
  if (siblings.size === 0) throw refusal(`${where}: the repository lists no files${prefix ? ` under ${prefix}` : ''}`);
  const commit = typeof info.sha === 'string' && /^[0-9a-f]{40}$/.test(info.sha) ? info.sha : undefined;

  // 2. What the checkpoint's family fetches.
  const plan = planOf([...siblings.keys()], where, opts.precision);
  progress.line(`${where}: ${plan.form}, ${plan.files.length} files`);

  // 3. Download into a hidden temporary sibling of the target (same file system: the import links, then renames),
  // each file through the models folder's .partial/, where it stays until the whole pull has succeeded.
  const work = await workFolder(modelsDir, name, 'pull');
  const tmp = work.dir;
  const parts: PartialDownload[] = [];
  let keepParts = true;
  try {
    const files: PulledFile[] = [];
    for (const rel of plan.files) {
      const sibling = siblings.get(rel)!;
      const dest = path.join(tmp, ...rel.split('/'));
      await fsp.mkdir(path.dirname(dest), { recursive: true });
      const url = `${endpoint}/${opts.repo}/resolve/${encodeURIComponent(commit ?? revision)}/${(prefix + rel).split('/').map(encodeURIComponent).join('/')}`;
      const listed = sibling.lfs?.size ?? sibling.size;
      const part = await claimPartial(modelsDir, opts.repo, { path: prefix + rel, sha256: sibling.lfs?.sha256?.toLowerCase(), size: listed, revision: commit ?? revision });
      parts.push(part);
      const task = progress.task(`downloading ${rel}`, listed, 'bytes');
      try {
        files.push({ path: rel, ...(await downloadFile(hub, url, dest, sibling, `${where}: ${rel}`, task, part)) });
      } finally {
        task.end();
      }
      if (listed === undefined) progress.line(`downloaded ${rel} (${bytes(files.at(-1)!.size)})`);
    }

    // 4. Handed over to the family's import, from the downloaded folder.
    const source: HubSource = { endpoint, repo: opts.repo, revision, ...(commit ? { commit } : {}), ...(info.lastModified ? { lastModified: info.lastModified } : {}), ...(prefix ? { subfolder: prefix.slice(0, -1) } : {}), ...(plan.precision ? { precision: plan.precision } : {}), files };
    const imported = await plan.family.import({
      src: path.join(tmp, ...plan.root.split('/').filter(Boolean)),
      modelsDir,
      name,
      python: opts.importPython ?? 'python3',
      languages: opts.languages,
      window: opts.window,
      processedTokenCap: opts.processedTokenCap,
      force: opts.force,
      checkRows: opts.importCheckRows,
      verify: opts.verify,
      int8: opts.importInt8,
      hub: source,
      verbose: opts.verbose,
      progress,
    });
    progress.line(`pulled ${opts.repo}@${revision} (${plan.form}) into ${imported.dir}`);
    keepParts = false;
    return { dir: imported.dir, manifest: imported.manifest, commit, files, warnings: imported.warnings };
  } catch (e) {
    // a refused repository will not do better next time; anything else (the network, a stop, the Python
    // tooling) leaves its downloads in .partial/ for the next pull
    if (e instanceof CheckpointError && e.refused) keepParts = false;
    throw e;
  } finally {
    for (const part of parts) await part.done(keepParts);
    await work.remove();
  }
}

/** The first family whose runtime would fetch something from these files. */
function planOf(names: string[], where: string, precision: DecimaPrecision | undefined): PullPlan {
  for (const n of names) {
    if (n.split('/').some((p) => p === '..' || p === '.' || p === '') || path.isAbsolute(n)) throw refusal(`${where}: refusing the file name ${JSON.stringify(n)}`);
  }
  for (const family of FAMILIES) {
    const plan = family.plan(names, { precision, where });
    if (!plan) continue;
    if (precision && !plan.precision) throw refusal(`${where}: --precision applies to a Decima repository (onnx/<precision>/decima.json), which this is not`);
    return plan;
  }
  throw refusal(
    `${where}: no ONNX graph, no Laya PyTorch checkpoint (rl_agent_config.json + model.safetensors) and no Decima checkpoint (decima.json + head.safetensors, or onnx/<precision>/decima.json) in the repository.`,
  );
}

function normaliseSubfolder(subfolder: string | undefined): string {
  if (!subfolder) return '';
  const clean = subfolder.replace(/^\/+|\/+$/g, '');
  if (clean === '' || clean.split('/').some((p) => p === '..' || p === '.' || p === '')) throw refusal(`invalid subfolder ${JSON.stringify(subfolder)}`);
  return clean + '/';
}

