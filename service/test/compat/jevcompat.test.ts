/**
 * jevcompat 0.1.1 — an outside conformance suite for System One-compatible servers (PyPI; MIT) — run
 * against a live structqa server on the bundled checkpoints, as a clean clone serves them. It is
 * installed with the earlier official Python client it drives (typesafe-sdk 0.7.1, the version the
 * contract names) into a virtual environment this test creates. Every MUST and every SHOULD must
 * pass; docs/conformance.md records what each of its checks settled.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { BUNDLED_CHECKPOINTS_DIR, ENGLISH_CHECKPOINT, MULTILINGUAL_CHECKPOINT } from '../../src/config.js';
import { startServer, type LiveServer } from '../helpers/server.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const VENV = path.resolve(here, '../../.cache/venv-jevcompat');
const JEVCOMPAT = path.join(VENV, 'bin', 'jevcompat');
const PINS = ['jevcompat==0.1.1', 'typesafe-sdk==0.7.1'];

function ensureVenv(): void {
  const marker = path.join(VENV, `.installed-${PINS.join('-')}`);
  if (fs.existsSync(marker)) return;
  execFileSync('python3', ['-m', 'venv', VENV], { stdio: 'inherit' });
  execFileSync(path.join(VENV, 'bin', 'python'), ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', ...PINS], { stdio: 'inherit' });
  fs.writeFileSync(marker, '');
}

interface Report {
  summary: { verdict: string; untested_musts: string[]; MUST: Record<string, number>; SHOULD: Record<string, number> };
  results: { id: string; level: string; status: string; findings: { message: string }[] }[];
  aborted: string | null;
  inconclusive: string[];
}

let server: LiveServer;
before(async () => {
  ensureVenv();
  server = await startServer({
    env: {
      STRUCTQA_ENGLISH_DIR: path.join(BUNDLED_CHECKPOINTS_DIR, ENGLISH_CHECKPOINT),
      STRUCTQA_MULTILINGUAL_DIR: path.join(BUNDLED_CHECKPOINTS_DIR, MULTILINGUAL_CHECKPOINT),
    },
  });
});
after(async () => {
  await server.stop();
});

test('jevcompat 0.1.1: MUST 32/32, SHOULD 15/15 against a live server', async () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'structqa-jevcompat-'));
  const reportFile = path.join(out, 'report.json');
  // spawn, not spawnSync: the test runner's event loop stays free (the server's own output is read by it).
  const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(JEVCOMPAT, ['test', server.url, '--key-env', 'STRUCTQA_JEVCOMPAT_KEY', '--json', reportFile, '--evidence', '3'], {
      env: { ...process.env, STRUCTQA_JEVCOMPAT_KEY: server.firstKey, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout.on('data', (d) => (text += d));
    child.stderr.on('data', (d) => (text += d));
    child.once('error', reject);
    child.once('close', (c) => resolve({ code: c, output: text }));
  });
  const report = JSON.parse(fs.readFileSync(reportFile, 'utf8')) as Report;
  fs.rmSync(out, { recursive: true, force: true });
  const failed = report.results.filter((r) => r.status === 'fail').map((r) => `${r.level} ${r.id}: ${r.findings.map((f) => f.message).join('; ')}`);
  assert.deepEqual(failed, [], output);
  assert.equal(report.aborted, null, output);
  assert.deepEqual(report.inconclusive, [], output);
  assert.equal(report.summary.verdict, 'conformant', output);
  assert.equal(code, 0, output);
  assert.equal(report.summary.MUST['passed'], 32, output);
  assert.equal(report.summary.SHOULD['passed'], 15, output);
});
