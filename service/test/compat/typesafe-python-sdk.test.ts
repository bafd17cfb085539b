/**
 * Runs typesafe_python_sdk_check.py — the earlier official Python client, typesafe-sdk==0.7.1, installed
 * from PyPI into a virtual environment this test creates — against live structqa servers.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { startServer, type LiveServer } from '../helpers/server.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const VENV = path.resolve(here, '../../.cache/venv-typesafe-sdk');
const PYTHON = path.join(VENV, 'bin', 'python');

function ensureVenv(): void {
  if (fs.existsSync(path.join(VENV, '.installed-0.7.1'))) return;
  execFileSync('python3', ['-m', 'venv', VENV], { stdio: 'inherit' });
  execFileSync(PYTHON, ['-m', 'pip', 'install', '--quiet', 'typesafe-sdk==0.7.1'], { stdio: 'inherit' });
  fs.writeFileSync(path.join(VENV, '.installed-0.7.1'), '');
}

let server: LiveServer;
before(async () => {
  ensureVenv();
  server = await startServer();
});
after(async () => {
  await server.stop();
});

test('typesafe-sdk 0.7.1 runs unchanged against structqa: answers, models, request id, error classes', async () => {
  const starting = await startServer({ holdStarting: true });
  try {
    const env = {
      ...process.env,
      SERVER_URL: server.url,
      KEY: server.firstKey,
      KEY_SMALL_ALLOWANCE: await server.createKey({ monthly_allowance: 10 }),
      KEY_SLOW: await server.createKey({ requests_per_second: 1 }),
      STARTING_URL: starting.url,
      STARTING_KEY: starting.firstKey,
    };
    const run = spawnSync(PYTHON, [path.join(here, 'typesafe_python_sdk_check.py')], { env, encoding: 'utf8' });
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /all checks passed/);
  } finally {
    await starting.stop();
  }
});
