/**
 * `structqa models pull` against a local stand-in hub (node:http on 127.0.0.1) that serves a Laya-format
 * ONNX bundle built from the fixture-tiny checkpoint (random weights: this proves the download and
 * manifest mechanics, nothing about answer quality).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { CheckpointError } from '../../src/checkpoints/errors.js';
import { listFiles } from '../../src/checkpoints/files.js';
import { pullCheckpoint } from '../../src/checkpoints/pull.js';
import { modelsCli } from '../helpers/cli.js';
import { loadConfig } from '../../src/config.js';
import { readManifest } from '../../src/engine/manifest.js';
import type { Question } from '../../src/engine/render.js';
import { engineServing, fixtureModels } from '../helpers/checkpoints.js';
import { importPython, layaCheckpoint, layaReference } from '../helpers/laya.js';
import { decimaExport, decimaExportRepo, decimaOnnxReference } from '../helpers/decima-export.js';
import { decimaCheckpoint, decimaReference } from '../helpers/decima.js';

const COMMIT = '0123456789abcdef0123456789abcdef01234567';
const BIN = fileURLToPath(new URL('../../bin/structqa.js', import.meta.url));
const TOKEN = 'hf_test_secret';

interface RepoFile {
  bytes: Buffer;
  /** Served like an LFS object: 302 to a CDN path, x-linked-etag = sha256. */
  lfs: boolean;
}

interface StandInHub {
  endpoint: string;
  /** Every path requested, in order. */
  requests: string[];
  /** Every CDN request's Range header ('' when none), in order. */
  ranges: string[];
  close(): Promise<void>;
}

/**
 * The stand-in hub: Hugging Face's model-info API (`/api/models/{repo}/revision/{rev}`, siblings with
 * sizes and LFS sha256 when `blobs=true`) and `/{repo}/resolve/{rev}/{path}` (LFS files redirect to a
 * CDN path with `x-linked-etag`/`x-linked-size`; git files answer with their git blob id as ETag).
 * `private` repos need the bearer token; `truncate` repos send half of the named file, either with a
 * matching content-length ('short'), by dropping the connection mid-body ('drop') or by stalling after it
 * with the connection open ('stall': a pull the test then stops), on every response or on the first `times`. With `ranges` the CDN answers a `Range: bytes=N-` request with 206 and the rest of
 * the file, as the real hub's CDN does; without, it ignores the header and sends the whole file (200).
 */
async function startStandInHub(
  repos: Record<string, { files: Record<string, RepoFile>; private?: boolean; ranges?: boolean; truncate?: { file: string; mode: 'short' | 'drop' | 'stall'; times?: number } }>,
): Promise<StandInHub> {
  const requests: string[] = [];
  const ranges: string[] = [];
  const cuts = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    requests.push(url.pathname);
    const notFound = (code: string): void => {
      res.writeHead(404, { 'x-error-code': code, 'x-error-message': `${code} (stand-in hub)` }).end();
    };
    const api = /^\/api\/models\/([^/]+\/[^/]+)\/revision\/([^/]+)$/.exec(url.pathname);
    const resolve = /^\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(url.pathname);
    const cdn = /^\/cdn\/([^/]+)\/([0-9a-f]{64})$/.exec(url.pathname);
    if (cdn) {
      // the CDN answers without authentication (signed URLs on the real hub)
      const r = repos[decodeURIComponent(cdn[1]!)];
      const entry = r && Object.entries(r.files).find(([, f]) => f.lfs && sha256(f.bytes) === cdn[2]);
      if (!r || !entry) return notFound('EntryNotFound');
      const range = req.headers['range'] ?? '';
      ranges.push(range);
      const cut = r.truncate?.file === entry[0] && (cuts.get(cdn[1]!) ?? 0) < (r.truncate.times ?? Infinity) ? r.truncate.mode : undefined;
      if (cut) cuts.set(cdn[1]!, (cuts.get(cdn[1]!) ?? 0) + 1);
      const from = r.ranges ? /^bytes=(\d+)-$/.exec(range) : null;
      if (from && Number(from[1]) < entry[1].bytes.length) {
        const start = Number(from[1]);
        const rest = entry[1].bytes.subarray(start);
        res.writeHead(206, { 'content-range': `bytes ${start}-${entry[1].bytes.length - 1}/${entry[1].bytes.length}`, 'content-length': String(rest.length) }).end(rest);
        return;
      }
      return sendBody(res, entry[1].bytes, {}, cut);
    }
    const repoName = decodeURIComponent((api ?? resolve)?.[1] ?? '');
    const repo = repos[repoName];
    if (!api && !resolve) return notFound('NotFound');
    if (!repo) return notFound('RepoNotFound');
    if (repo.private && req.headers['authorization'] !== `Bearer ${TOKEN}`) {
      return res.writeHead(401, { 'x-error-code': 'GatedRepo', 'x-error-message': 'Access to this repository is restricted.' }).end();
    }
    const rev = decodeURIComponent((api ?? resolve)![2]!);
    if (rev !== 'main' && rev !== COMMIT) return notFound('RevisionNotFound');
    if (api) {
      const blobs = url.searchParams.get('blobs') === 'true';
      const siblings = Object.entries(repo.files).map(([rfilename, f]) =>
        blobs
          ? { rfilename, size: f.bytes.length, ...(f.lfs ? { lfs: { sha256: sha256(f.bytes), size: f.bytes.length, pointerSize: 134 } } : {}) }
          : { rfilename },
      );
      const body = JSON.stringify({ id: repoName, sha: COMMIT, lastModified: '2026-09-20T10:00:00.000Z', siblings });
      return res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    }
    const file = repo.files[resolve![3]!.split('/').map(decodeURIComponent).join('/')];
    if (!file) return notFound('EntryNotFound');
    if (file.lfs) {
      const hash = sha256(file.bytes);
      return res
        .writeHead(302, { location: `/cdn/${encodeURIComponent(repoName)}/${hash}`, 'x-linked-etag': `"${hash}"`, 'x-linked-size': String(file.bytes.length), 'x-repo-commit': COMMIT })
        .end();
    }
    const gitId = createHash('sha1').update(`blob ${file.bytes.length}\0`).update(file.bytes).digest('hex');
    return sendBody(res, file.bytes, { etag: `"${gitId}"`, 'x-repo-commit': COMMIT }, undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    ranges,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

function sendBody(res: http.ServerResponse, bytes: Buffer, headers: Record<string, string>, truncate: 'short' | 'drop' | 'stall' | undefined): void {
  const half = bytes.subarray(0, Math.floor(bytes.length / 2));
  if (truncate === 'short') {
    res.writeHead(200, { ...headers, 'content-length': String(half.length) }).end(half);
  } else if (truncate === 'drop') {
    res.writeHead(200, { ...headers, 'content-length': String(bytes.length) });
    // the cut comes once the half is on its way, so the client has bytes to resume from
    res.write(half, () => setTimeout(() => res.socket?.destroy(), 20));
  } else if (truncate === 'stall') {
    res.writeHead(200, { ...headers, 'content-length': String(bytes.length) });
    res.write(half); // and nothing more until the client goes away
  } else {
    res.writeHead(200, { ...headers, 'content-length': String(bytes.length) }).end(bytes);
  }
}

function sha256(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}

/** fixture-tiny laid out as a Laya ONNX bundle (plus the PyTorch files a pull must not fetch). */
function layaRepo(tiny: string, config: Record<string, unknown>): Record<string, RepoFile> {
  const read = (f: string): Buffer => fs.readFileSync(path.join(tiny, f));
  const json = (v: unknown): RepoFile => ({ bytes: Buffer.from(JSON.stringify(v, null, 2)), lfs: false });
  return {
    '.gitattributes': { bytes: Buffer.from('*.onnx filter=lfs diff=lfs merge=lfs -text\n'), lfs: false },
    'README.md': { bytes: Buffer.from('---\nlicense: apache-2.0\n---\n# laya (stand-in)\n'), lfs: false },
    'laya.onnx': { bytes: read('model.onnx'), lfs: true },
    'laya_config.json': json(config),
    'tokenizer/tokenizer.json': { bytes: read('tokenizer.json'), lfs: false },
    'tokenizer/tokenizer_config.json': json({ cls_token: '[CLS]', sep_token: '[SEP]', mask_token: '[MASK]', pad_token: '[PAD]', model_max_length: 8192 }),
    'tokenizer/special_tokens_map.json': json({ cls_token: '[CLS]', sep_token: '[SEP]', mask_token: '[MASK]', pad_token: '[PAD]', unk_token: '[UNK]' }),
    'model.safetensors': { bytes: Buffer.from('not needed by an ONNX pull'), lfs: true },
    'encoder/config.json': json({ model_type: 'modernbert' }),
  };
}

/** A Laya checkpoint in its PyTorch form (as laya saves it; random weights) laid out as a hub repository. */
function pytorchRepo(dir: string): Record<string, RepoFile> {
  const files: Record<string, RepoFile> = {
    'README.md': { bytes: Buffer.from('---\nlicense: apache-2.0\n---\n# laya (stand-in, PyTorch form)\n'), lfs: false },
    'eval_results.json': { bytes: Buffer.from('{}'), lfs: false },
  };
  for (const rel of fs.readdirSync(dir, { recursive: true }).map(String)) {
    const full = path.join(dir, rel);
    if (fs.statSync(full).isFile()) files[rel.split(path.sep).join('/')] = { bytes: fs.readFileSync(full), lfs: rel.endsWith('.safetensors') || rel.endsWith('tokenizer.json') };
  }
  return files;
}

/**
 * A Decima repository as published: its ONNX export in onnx/fp32/ and onnx/int8/ (decima.export and
 * decima.quantize on the fixture), config.json and README at the root, and files a pull must not fetch
 * (the PyTorch form beside it, another precision's folder).
 */
function decimaRepo(root: string, drop: (name: string) => boolean = () => false): Record<string, RepoFile> {
  const files: Record<string, RepoFile> = {
    '.gitattributes': { bytes: Buffer.from('*.onnx filter=lfs diff=lfs merge=lfs -text\n'), lfs: false },
    'pytorch/head.safetensors': { bytes: Buffer.from('not needed by an ONNX pull'), lfs: true },
    'onnx/fp16/decima.json': { bytes: Buffer.from('{}'), lfs: false },
  };
  for (const rel of fs.readdirSync(root, { recursive: true }).map(String)) {
    const full = path.join(root, rel);
    const name = rel.split(path.sep).join('/');
    if (fs.statSync(full).isFile() && !drop(name)) files[name] = { bytes: fs.readFileSync(full), lfs: name.endsWith('.onnx') || name.endsWith('tokenizer.json') };
  }
  return files;
}

const LAYA_CONFIG = {
  encoder: 'answerdotai/ModernBERT-large',
  max_len: 512,
  head_max_len: 192,
  temperature: [1.2, 0.9, 1.1],
  temperature_by_options: { 'choice:2': 1.5, 'choice:11+': 0.1006, 'score:3-5': 2 },
};


/** The three question types, as every pulled checkpoint below is asked them. */
const THREE_QUESTIONS: Record<string, Question> = {
  team: { type: 'choice', instructions: 'Which team?', criteria: { billing: 'money', tech: 'bugs', sales: null } },
  refund: { type: 'noul', instructions: 'Is the customer asking for a refund?' },
  urgency: { type: 'score', instructions: 'How urgent?', criteria: ['low', 'medium', 'high'] },
};

/** Serves a pulled checkpoint and checks its answers to THREE_QUESTIONS against the reference's, within 1e-4. */
async function assertServedAs(name: string, dir: string, state: string, want: Record<string, { probabilities?: number[] }>): Promise<void> {
  const engine = engineServing(name, dir);
  await engine.start();
  try {
    const answered = await engine.answer(await engine.prepare(name, THREE_QUESTIONS, state));
    for (const q of Object.keys(THREE_QUESTIONS)) {
      const a = answered.answers[q] as { noul?: number; probabilities?: Record<string, number> };
      const expected = want[q]!.probabilities!;
      // A noul's reference is [false, true]: both sides are checked.
      const got = a.noul !== undefined ? [1 - a.noul, a.noul] : Object.values(a.probabilities!);
      got.forEach((p, k) => assert.ok(Math.abs(p - expected[k]!) <= 1e-4, `${q}[${k}]: ${p} vs ${expected[k]}`));
    }
  } finally {
    await engine.close();
  }
}

describe('structqa models pull (stand-in hub)', () => {
  let hub: StandInHub;
  let tiny: string;
  const tmpRoots: string[] = [];
  const modelsDir = (): string => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'structqa-pull-'));
    tmpRoots.push(d);
    return path.join(d, 'models');
  };

  before(async () => {
    tiny = path.join(await fixtureModels(), 'fixture-tiny');
    const files = layaRepo(tiny, LAYA_CONFIG);
    hub = await startStandInHub({
      'acme/laya': { files },
      'acme/laya-private': { files, private: true },
      'acme/laya-short': { files: layaRepo(tiny, { ...LAYA_CONFIG, max_len: 500 }), truncate: { file: 'laya.onnx', mode: 'short' } },
      'acme/laya-drop': { files: layaRepo(tiny, { ...LAYA_CONFIG, max_len: 501 }), truncate: { file: 'laya.onnx', mode: 'drop' } },
      'acme/laya-resume': { files: layaRepo(tiny, { ...LAYA_CONFIG, max_len: 502 }), ranges: true, truncate: { file: 'laya.onnx', mode: 'drop', times: 1 } },
      'acme/laya-restart': { files: layaRepo(tiny, { ...LAYA_CONFIG, max_len: 503 }), truncate: { file: 'laya.onnx', mode: 'drop', times: 1 } },
      'acme/laya-stopped': { files: layaRepo(tiny, { ...LAYA_CONFIG, max_len: 504 }), ranges: true, truncate: { file: 'laya.onnx', mode: 'stall', times: 1 } },
      'acme/laya-killed': { files: layaRepo(tiny, { ...LAYA_CONFIG, max_len: 505 }), ranges: true, truncate: { file: 'laya.onnx', mode: 'stall', times: 1 } },
      'acme/laya-stale': { files: layaRepo(tiny, { ...LAYA_CONFIG, max_len: 506 }), ranges: true },
      'acme/laya-pytorch': { files: pytorchRepo(layaCheckpoint('modernbert', 'sequential')) },
      'acme/pytorch-only': { files: { 'model.safetensors': files['model.safetensors']!, 'rl_agent_config.json': files['laya_config.json']! } },
      'acme/decima-small': { files: decimaRepo(decimaExportRepo()) },
      'acme/decima-broken': { files: decimaRepo(decimaExportRepo(), (n) => ['onnx/int8/scorer.onnx', 'onnx/int8/tokenizer/tokenizer.json'].includes(n)) },
      'acme/decima-fp32': { files: decimaRepo(decimaExportRepo(), (n) => n.startsWith('onnx/int8/')) },
      'acme/decima-pytorch': { files: pytorchRepo(decimaCheckpoint('v1')) },
      'acme/decima-pytorch-broken': { files: Object.fromEntries(Object.entries(pytorchRepo(decimaCheckpoint('v1'))).filter(([n]) => !n.startsWith('encoder/'))) },
    });
  });

  after(async () => {
    await hub.close();
    for (const d of tmpRoots) fs.rmSync(d, { recursive: true, force: true });
  });

  it('pulls the bundle, writes a valid manifest, and the checkpoint answers through the Engine', async () => {
    const dir = modelsDir();
    const result = await pullCheckpoint({ repo: 'acme/laya', endpoint: hub.endpoint, modelsDir: dir, name: 'core-0.3.20' });
    assert.equal(result.dir, path.join(dir, 'core-0.3.20'));
    assert.deepEqual(fs.readdirSync(dir), ['core-0.3.20'], 'no temporary folders left');
    const files = fs.readdirSync(result.dir, { recursive: true }).map(String).sort();
    assert.deepEqual(files, [
      'README.md', 'laya.onnx', 'laya_config.json', 'manifest.json', 'tokenizer',
      path.join('tokenizer', 'special_tokens_map.json'), path.join('tokenizer', 'tokenizer.json'), path.join('tokenizer', 'tokenizer_config.json'),
    ].sort());
    assert.ok(!hub.requests.some((p) => p.includes('model.safetensors') || p.includes('encoder/')), 'PyTorch files are not fetched');
    assert.deepEqual(fs.readFileSync(path.join(result.dir, 'laya.onnx')), fs.readFileSync(path.join(tiny, 'model.onnx')));

    const m = readManifest(result.dir);
    assert.equal(m.name, 'core-0.3.20');
    assert.equal(m.version, '0.3.20');
    assert.equal(m.fixture, false);
    assert.equal(m.window, 512, "the config's max_len, not tokenizer_config's model_max_length");
    assert.equal(m.release_date, '2026-09-20');
    assert.deepEqual(m.languages, ['en']);
    assert.equal(m.processed_token_cap, 3500);
    assert.deepEqual(m.files, { model: 'laya.onnx', tokenizer: 'tokenizer/tokenizer.json' });
    assert.deepEqual(m.special_tokens, { cls: '[CLS]', sep: '[SEP]', mask: '[MASK]', pad: '[PAD]' });
    // laya's clamp: its 0.1006 is applied as 0.5, and the pull says so
    assert.deepEqual(m.calibration.temperature, {
      choice: { '2': 1.5, '3-5': 1.2, '6-10': 1.2, '11+': 0.5 },
      score: { '2': 0.9, '3-5': 2, '6-10': 0.9, '11+': 0.9 },
      noul: { '2': 1.1 },
    });
    const prov = m.provenance as { source: string; endpoint: string; repo: string; revision: string; commit: string; sha256: Record<string, string>; files: { path: string }[] };
    assert.equal(prov.source, 'hub');
    assert.equal(prov.endpoint, hub.endpoint);
    assert.equal(prov.repo, 'acme/laya');
    assert.equal(prov.revision, 'main');
    assert.equal(prov.commit, COMMIT);
    assert.equal(prov.sha256['laya.onnx'], sha256(fs.readFileSync(path.join(tiny, 'model.onnx'))));
    assert.equal(prov.files.length, 6);
    // files are fetched at the commit the listing resolved to
    assert.ok(hub.requests.includes(`/acme/laya/resolve/${COMMIT}/laya.onnx`));

    const engine = engineServing('core-0.3.20', result.dir);
    await engine.start();
    try {
      const q: Record<string, Question> = {
        team: { type: 'choice', instructions: 'Which team?', criteria: { billing: 'money', tech: 'bugs', sales: 'buying' } },
        refund: { type: 'noul', instructions: 'Is the customer asking for a refund?' },
      };
      const answered = await engine.answer(await engine.prepare('core-0.3.20', q, 'The app crashes when I open the invoice page.'));
      const team = answered.answers['team'] as { choice: string; probabilities: Record<string, number> };
      assert.ok(['billing', 'tech', 'sales'].includes(team.choice));
      const sum = Object.values(team.probabilities).reduce((a, b) => a + b, 0);
      assert.ok(Math.abs(sum - 1) < 1e-3, String(sum));
      assert.equal(typeof (answered.answers['refund'] as { noul: number }).noul, 'number');
    } finally {
      await engine.close();
    }
  });

  it('a PyTorch-form Laya repository is pulled, imported (models import), served, and answers as laya does; a pull whose import failed is run again without downloading again', { timeout: 20 * 60_000 }, async () => {
    const dir = modelsDir();
    // the first pull downloads everything, then its import fails (no such Python): the files stay in .partial/
    const first = hub.requests.length;
    await assert.rejects(pullCheckpoint({ repo: 'acme/laya-pytorch', endpoint: hub.endpoint, modelsDir: dir, name: 'core-0.3.20', importPython: path.join(dir, 'no-python') }), /no-python/);
    assert.ok(hub.requests.slice(first).includes(`/acme/laya-pytorch/resolve/${COMMIT}/model.safetensors`));
    assert.deepEqual(fs.readdirSync(dir), ['.partial']);
    const before = hub.requests.length;
    const result = await pullCheckpoint({ repo: 'acme/laya-pytorch', endpoint: hub.endpoint, modelsDir: dir, name: 'core-0.3.20', importPython: importPython(), importCheckRows: 8 });
    assert.deepEqual(hub.requests.slice(before).filter((p) => !p.startsWith('/api/')), [], 'every file came from .partial/, checked by its sha256 or git blob id');
    assert.equal(result.dir, path.join(dir, 'core-0.3.20'));
    assert.deepEqual(fs.readdirSync(dir), ['core-0.3.20'], 'no temporary folders and no .partial/ left');
    assert.ok(!hub.requests.some((p) => p.includes('eval_results.json')), 'only what laya.Agent reads is fetched');
    const m = readManifest(result.dir);
    assert.equal(m.name, 'core-0.3.20');
    assert.equal(m.window, 512);
    assert.deepEqual(m.files, { model: 'model.onnx', tokenizer: 'tokenizer.json' });
    const prov = m.provenance as { source: string; pulled: { repo: string; commit: string } };
    assert.equal(prov.source, 'laya-import');
    assert.equal(prov.pulled.repo, 'acme/laya-pytorch');
    assert.equal(prov.pulled.commit, COMMIT);

    const state = 'The app crashes when I open the invoice page, and I want my payment back.';
    const want = layaReference(layaCheckpoint('modernbert', 'sequential'), JSON.stringify([{ state, questions: THREE_QUESTIONS }]))[0]!;
    await assertServedAs('core-0.3.20', result.dir, state, want);
  });

  it('a Decima repository (its ONNX export, onnx/<precision>/) is pulled in int8 by default (only onnx/int8/**, config.json, README), imported, served, and answers as DecimaOnnx does; --precision fp32 through the CLI', { timeout: 20 * 60_000 }, async () => {
    const dir = modelsDir();
    const before = hub.requests.length;
    const result = await pullCheckpoint({ repo: 'acme/decima-small', endpoint: hub.endpoint, modelsDir: dir, name: 'decima-small', importPython: importPython(), importCheckRows: 8 });
    assert.equal(result.dir, path.join(dir, 'decima-small'));
    assert.deepEqual(fs.readdirSync(dir), ['decima-small'], 'no temporary folders left');
    const fetched = result.files.map((f) => f.path).sort();
    assert.deepEqual(fetched, ['README.md', 'config.json', ...Object.keys(decimaRepo(decimaExportRepo())).filter((n) => n.startsWith('onnx/int8/'))].sort());
    const resolved = hub.requests.slice(before).filter((p) => p.includes('/resolve/'));
    assert.ok(resolved.every((p) => /\/resolve\/[0-9a-f]{40}\/(onnx\/int8\/|config\.json$|README\.md$)/.test(p)), resolved.join('\n'));
    const m = readManifest(result.dir);
    assert.equal(m.layout, 'late-interaction');
    const prov = m.provenance as { source: string; export: { precision: string }; pulled: { repo: string; commit: string; precision: string } };
    assert.equal(prov.source, 'decima-onnx-import');
    assert.equal(prov.export.precision, 'int8');
    assert.deepEqual([prov.pulled.repo, prov.pulled.commit, prov.pulled.precision], ['acme/decima-small', COMMIT, 'int8']);

    const state = 'The app crashes when I open the invoice page, and I want my payment back.';
    await assertServedAs('decima-small', result.dir, state, decimaOnnxReference(decimaExport('int8'), JSON.stringify([{ state, questions: THREE_QUESTIONS }]))[0]!);

    const config = loadConfig({ STRUCTQA_DATA_DIR: path.dirname(dir), LOG_LEVEL: 'silent' });
    const run = modelsCli(config, { STRUCTQA_HUB_ENDPOINT: hub.endpoint });
    const fp32 = await run('models', 'pull', 'acme/decima-small', '--name', 'decima-small-fp32', '--precision', 'fp32', '--python', importPython());
    assert.equal(fp32.code, 0, fp32.err);
    assert.match(fp32.err, /downloading onnx\/fp32\/encoder\.onnx/);
    assert.match(fp32.err, /agreement with decima\.runtime\.DecimaOnnx on this folder \(fp32\)/);
    assert.equal((readManifest(path.join(dir, 'decima-small-fp32')).provenance as { export: { precision: string } }).export.precision, 'fp32');
  });

  it('a Decima repository in PyTorch form only (decima.json, head.safetensors, encoder/) is pulled, imported, served, and answers as decima does', { timeout: 20 * 60_000 }, async () => {
    const dir = modelsDir();
    const result = await pullCheckpoint({ repo: 'acme/decima-pytorch', endpoint: hub.endpoint, modelsDir: dir, name: 'decima-pt', importPython: importPython(), importCheckRows: 8 });
    assert.deepEqual(fs.readdirSync(dir), ['decima-pt'], 'no temporary folders left');
    const published = Object.keys(pytorchRepo(decimaCheckpoint('v1')));
    assert.deepEqual(result.files.map((f) => f.path).sort(), published.filter((n) => n !== 'eval_results.json').sort(), 'decima.json, head.safetensors, encoder/** and the README');
    const m = readManifest(result.dir);
    assert.equal(m.layout, 'late-interaction');
    const prov = m.provenance as { pulled: { repo: string; commit: string } };
    assert.deepEqual([prov.pulled.repo, prov.pulled.commit], ['acme/decima-pytorch', COMMIT]);

    const state = 'My card was charged twice for one order and the app keeps crashing at checkout.';
    await assertServedAs('decima-pt', result.dir, state, decimaReference(decimaCheckpoint('v1'), JSON.stringify([{ state, questions: THREE_QUESTIONS }]))[0]!);
    await assert.rejects(
      pullCheckpoint({ repo: 'acme/decima-pytorch-broken', endpoint: hub.endpoint, modelsDir: dir, importPython: importPython() }),
      (e: unknown) => e instanceof CheckpointError && /no ONNX export, and the Decima PyTorch checkpoint is incomplete: missing encoder\/config\.json, encoder\/tokenizer\.json/.test(e.message),
    );
  });

  it('a Decima repository that is incomplete, or lacks the precision asked for, is refused with what is missing; nothing is left behind', async () => {
    const dir = modelsDir();
    await assert.rejects(
      pullCheckpoint({ repo: 'acme/decima-broken', endpoint: hub.endpoint, modelsDir: dir, importPython: importPython() }),
      (e: unknown) => e instanceof CheckpointError && /the Decima ONNX export onnx\/int8\/ is incomplete: missing onnx\/int8\/scorer\.onnx, onnx\/int8\/tokenizer\/tokenizer\.json/.test(e.message),
    );
    await assert.rejects(
      pullCheckpoint({ repo: 'acme/decima-fp32', endpoint: hub.endpoint, modelsDir: dir, importPython: importPython() }),
      (e: unknown) => e instanceof CheckpointError && /no onnx\/int8\/decima\.json: the repository publishes the Decima ONNX export in fp16, fp32 \(--precision\)/.test(e.message),
    );
    await assert.rejects(
      pullCheckpoint({ repo: 'acme/decima-small', endpoint: hub.endpoint, modelsDir: dir, precision: 'fp32', window: 512, importPython: importPython() }),
      (e: unknown) => e instanceof CheckpointError && /--window does not apply to a Decima checkpoint/.test(e.message),
    );
    await assert.rejects(
      pullCheckpoint({ repo: 'acme/laya', endpoint: hub.endpoint, modelsDir: dir, precision: 'int8' }),
      (e: unknown) => e instanceof CheckpointError && /--precision applies to a Decima repository/.test(e.message),
    );
    assert.deepEqual(fs.existsSync(dir) ? fs.readdirSync(dir) : [], [], 'nothing left in the models folder');
  });

  it('a repository that does not exist, or a private one without a token, gives a clear error', async () => {
    const dir = modelsDir();
    await assert.rejects(
      pullCheckpoint({ repo: 'acme/nope', endpoint: hub.endpoint, modelsDir: dir }),
      (e: unknown) => e instanceof CheckpointError && e.status === 404 && /acme\/nope@main .*not found/.test(e.message),
    );
    await assert.rejects(
      pullCheckpoint({ repo: 'acme/laya', revision: 'v9', endpoint: hub.endpoint, modelsDir: dir }),
      (e: unknown) => e instanceof CheckpointError && /revision not found/.test(e.message),
    );
    await assert.rejects(
      pullCheckpoint({ repo: 'acme/laya-private', endpoint: hub.endpoint, modelsDir: dir }),
      (e: unknown) => e instanceof CheckpointError && e.status === 401 && /HF_TOKEN/.test(e.message),
    );
    await assert.rejects(
      pullCheckpoint({ repo: 'acme/pytorch-only', endpoint: hub.endpoint, modelsDir: dir }),
      (e: unknown) => e instanceof CheckpointError && /no ONNX graph, and the Laya PyTorch checkpoint is incomplete: missing encoder\/config\.json, tokenizer\/tokenizer\.json/.test(e.message),
    );
    assert.deepEqual(fs.existsSync(dir) ? fs.readdirSync(dir) : [], []);
    const ok = await pullCheckpoint({ repo: 'acme/laya-private', endpoint: hub.endpoint, modelsDir: dir, token: TOKEN, verify: false });
    assert.equal(readManifest(ok.dir).name, 'laya-private');
  });

  for (const mode of ['short', 'drop'] as const) {
    it(`a truncated download (${mode === 'short' ? 'short body' : 'connection dropped'}) from a hub that always cuts it is detected, retried while it gains bytes, and leaves nothing in the models folder but what the next pull resumes (.partial/)`, async () => {
      const dir = modelsDir();
      fs.mkdirSync(dir, { recursive: true });
      fs.mkdirSync(path.join(dir, 'other-checkpoint'));
      const before = hub.requests.length;
      await assert.rejects(
        pullCheckpoint({ repo: `acme/laya-${mode}`, endpoint: hub.endpoint, modelsDir: dir, attempts: 2, retryDelayMs: 5 }),
        (e: unknown) =>
          e instanceof CheckpointError &&
          /laya\.onnx/.test(e.message) &&
          (mode === 'short' ? /got \d+ bytes, expected \d+/ : /interrupted|got \d+ bytes/).test(e.message) &&
          /after \d+ attempts/.test(e.message),
      );
      // the first attempt gained part of the file; the ones after it (a Range this hub ignores: the same part again)
      // went on while they gained bytes and stopped after two in a row that gained none
      const cdnHits = hub.requests.slice(before).filter((p) => p.startsWith('/cdn/'));
      assert.ok(cdnHits.length >= 3, String(cdnHits.length));
      assert.deepEqual(fs.readdirSync(dir).sort(), ['.partial', 'other-checkpoint'], 'nothing half-written in the models folder');
      // what arrived stays for the next pull to resume, with what the hub said each file is (and no lock)
      const kept = listFiles(path.join(dir, '.partial'));
      assert.ok(kept.every((f) => new RegExp(`^acme--laya-${mode}/[0-9a-f]{16}-[\\w.]+$`).test(f) && !f.endsWith('.lock')), kept.join(', '));
      assert.ok(['laya.onnx', 'laya.onnx.json'].every((f) => kept.some((k) => k.endsWith(`-${f}`))), kept.join(', '));
    });
  }

  it('a connection cut mid-file resumes from where it stopped (Range), and the whole file is still checked by its sha256', async () => {
    const dir = modelsDir();
    const lines: string[] = [];
    const before = hub.ranges.length;
    const result = await pullCheckpoint({ repo: 'acme/laya-resume', endpoint: hub.endpoint, modelsDir: dir, retryDelayMs: 5, verify: false, log: (l) => lines.push(l) });
    const graph = fs.readFileSync(path.join(tiny, 'model.onnx'));
    const asked = hub.ranges.slice(before);
    assert.equal(asked.length, 2);
    assert.equal(asked[0], '');
    // the second request asks for the rest: from the bytes the cut connection delivered (at most half the file)
    const from = Number(/^bytes=(\d+)-$/.exec(asked[1]!)?.[1]);
    assert.ok(from > 0 && from <= Math.floor(graph.length / 2), asked[1]);
    assert.deepEqual(fs.readFileSync(path.join(result.dir, 'laya.onnx')), graph);
    assert.equal(result.files.find((f) => f.path === 'laya.onnx')!.sha256, sha256(graph));
  });

  it('a hub that ignores the Range header (200, the whole file) is downloaded again from zero, and checked', async () => {
    const dir = modelsDir();
    const before = hub.ranges.length;
    const result = await pullCheckpoint({ repo: 'acme/laya-restart', endpoint: hub.endpoint, modelsDir: dir, retryDelayMs: 5, verify: false });
    const graph = fs.readFileSync(path.join(tiny, 'model.onnx'));
    const asked = hub.ranges.slice(before);
    assert.equal(asked.length, 2);
    assert.match(asked[1]!, /^bytes=\d+-$/, 'it asked to resume; the hub sent the whole file instead');
    assert.deepEqual(fs.readFileSync(path.join(result.dir, 'laya.onnx')), graph);
  });

  for (const signal of ['SIGINT', 'SIGKILL'] as const) {
    it(`a pull ${signal === 'SIGINT' ? 'stopped with Ctrl-C (SIGINT)' : 'killed outright (SIGKILL)'} mid-file and run again resumes the file (Range from the bytes kept in .partial/) and checks it whole`, async () => {
      const repo = signal === 'SIGINT' ? 'acme/laya-stopped' : 'acme/laya-killed';
      const name = repo.split('/')[1]!;
      const dir = modelsDir();
      const graph = fs.readFileSync(path.join(tiny, 'model.onnx'));
      const half = Math.floor(graph.length / 2);
      // the first pull: its own process, stopped once half of laya.onnx is on disk (the hub then stalls)
      const child = spawn(process.execPath, [BIN, 'models', 'pull', repo, '--endpoint', hub.endpoint, '--out', dir, '--no-check'], {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, LOG_LEVEL: 'silent' },
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on('close', (code, sig) => r({ code, signal: sig })));
      const partDir = path.join(dir, '.partial', repo.replace('/', '--'));
      const part = (): string | undefined => listFiles(partDir).find((f) => f.endsWith('-laya.onnx'));
      for (let waited = 0; !(part() && fs.statSync(path.join(partDir, part()!)).size >= half); waited += 50) {
        assert.ok(waited < 60_000, `the first pull never got half of laya.onnx: ${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      child.kill(signal);
      const end = await exited;
      const kept = fs.statSync(path.join(partDir, part()!)).size;
      assert.equal(kept, half);
      if (signal === 'SIGINT') {
        assert.equal(end.code, 130, stderr);
        assert.match(stderr, /structqa models pull: stopped \(SIGINT\); what was downloaded stays in the models folder's \.partial\/ and the next pull resumes it/);
        assert.deepEqual(fs.readdirSync(dir), ['.partial'], 'its work folder is gone; only the part to resume stays');
        const kept = listFiles(partDir).map((f) => f.replace(/^[0-9a-f]{16}-/, ''));
        assert.ok(kept.includes('laya.onnx') && kept.includes('laya.onnx.json') && !kept.some((f) => f.endsWith('.lock')), kept.join(', '));
      } else {
        assert.equal(end.signal, 'SIGKILL');
        assert.ok(fs.readdirSync(dir).some((f) => new RegExp(`^\\.${name}\\.pull-${child.pid}-`).test(f)), 'a killed pull leaves its work folder');
      }

      // run again: the file resumes from the bytes kept, the whole file is checked, nothing is left over;
      // the files the first pull had finished are checked again, not fetched
      const finished = listFiles(partDir).filter((f) => !/-laya\.onnx|\.json$|\.lock$/.test(f)).map((f) => f.replace(/^[0-9a-f]{16}-/, ''));
      const before = hub.ranges.length;
      const asked = hub.requests.length;
      const result = await pullCheckpoint({ repo, endpoint: hub.endpoint, modelsDir: dir, retryDelayMs: 5, verify: false });
      assert.deepEqual(hub.ranges.slice(before), [`bytes=${half}-`]);
      const fetched = hub.requests.slice(asked).filter((p) => p.includes('/resolve/')).map((p) => p.split('/').pop()!);
      assert.ok(fetched.includes('laya.onnx') && finished.every((f) => !fetched.includes(f)), `fetched ${fetched.join(', ')}; finished before ${finished.join(', ')}`);
      assert.deepEqual(fs.readFileSync(path.join(result.dir, 'laya.onnx')), graph);
      assert.equal(result.files.find((f) => f.path === 'laya.onnx')!.sha256, sha256(graph));
      assert.deepEqual(fs.readdirSync(dir), [name], 'the part, its record and the killed pull\'s work folder are gone');
    });
  }

  it('a part kept from an earlier pull that does not match the file (another sha256) is downloaded again and checked', async () => {
    const dir = modelsDir();
    const graph = fs.readFileSync(path.join(tiny, 'model.onnx'));
    // an earlier pull's record of laya.onnx, with bytes that are not the file's
    const partDir = path.join(dir, '.partial', 'acme--laya-stale');
    fs.mkdirSync(partDir, { recursive: true });
    const key = sha256(graph).slice(0, 16);
    fs.writeFileSync(path.join(partDir, `${key}-laya.onnx`), Buffer.alloc(1000, 7));
    fs.writeFileSync(path.join(partDir, `${key}-laya.onnx.json`), JSON.stringify({ etag: sha256(graph), size: graph.length, sha256: sha256(graph) }));
    const before = hub.ranges.length;
    const result = await pullCheckpoint({ repo: 'acme/laya-stale', endpoint: hub.endpoint, modelsDir: dir, retryDelayMs: 5, verify: false });
    // it resumed at 1000, the whole file failed its sha256, and it came again from zero
    assert.deepEqual(hub.ranges.slice(before), ['bytes=1000-', '']);
    assert.deepEqual(fs.readFileSync(path.join(result.dir, 'laya.onnx')), graph);
    assert.deepEqual(fs.readdirSync(dir), ['laya-stale']);
  });

  it('the CLI shows each file\'s bytes done of total, rate and time left (plain lines when not a terminal)', async () => {
    const dir = modelsDir();
    const config = loadConfig({ STRUCTQA_DATA_DIR: path.dirname(dir), LOG_LEVEL: 'silent' });
    const r = await modelsCli(config, { STRUCTQA_HUB_ENDPOINT: hub.endpoint })('models', 'pull', 'acme/laya', '--name', 'progress', '--no-check');
    assert.equal(r.code, 0, r.err);
    const size = fs.statSync(path.join(tiny, 'model.onnx')).size;
    assert.match(r.err, new RegExp(`\\[0:\\d\\d\\] downloading laya\\.onnx ${(size / 1024).toFixed(1).replace('.', '\\.')} KB of ${(size / 1024).toFixed(1).replace('.', '\\.')} KB, [\\d.]+ (K|M)?B/s, 0:00 left`));
    assert.match(r.err, /\[0:\d\d\] pulled acme\/laya@main \(Laya ONNX bundle\) into /);
  });

  it('the CLI: models pull REPO --endpoint URL --out DIR --name NAME; refuses to overwrite without --force', async () => {
    const dir = modelsDir();
    const config = loadConfig({ STRUCTQA_DATA_DIR: path.dirname(dir), LOG_LEVEL: 'silent' });
    const run = modelsCli(config, { STRUCTQA_HUB_ENDPOINT: hub.endpoint });
    const first = await run('models', 'pull', 'acme/laya', '--name', 'laya-en', '--no-check');
    assert.equal(first.code, 0, first.err);
    assert.equal(first.out, `${path.join(dir, 'laya-en')}\n`, 'default --out is the configured models folder; endpoint from the environment');
    assert.match(first.err, /downloading laya\.onnx/);
    const again = await run('models', 'pull', 'acme/laya', '--name', 'laya-en', '--out', dir);
    assert.equal(again.code, 1);
    assert.match(again.err, /already exists; pass --force/);
    const forced = await run('models', 'pull', 'acme/laya', '--name', 'laya-en', '--force', '--revision', COMMIT, '--languages', '*');
    assert.equal(forced.code, 0, forced.err);
    const m = readManifest(path.join(dir, 'laya-en'));
    assert.deepEqual(m.languages, ['*']);
    assert.equal(m.processed_token_cap, 6000);
    assert.deepEqual(fs.readdirSync(dir), ['laya-en']);
  });
});
