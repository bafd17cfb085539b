/**
 * A newcomer's first minutes, as the README tells them: `npm start` from the repository root with
 * PORT and STRUCTQA_DATA_DIR set; the call the start log prints, pasted into a shell, is answered; so is
 * the README's own example with the same variables; SIGTERM or SIGINT to the `npm start` process
 * stops the node server too (npm runs the scripts with `exec`, so each signal reaches it).
 * On the fixture checkpoints, to keep it quick.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { fixtureModels } from '../helpers/checkpoints.js';
import { freePort } from '../helpers/server.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(here, '../../..');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The README's example: the bash block that reads the first key file. */
function readmeExample(): string {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const block = [...readme.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.includes('first-api-key.txt'));
  assert.ok(block, 'README has an example call');
  return block;
}

function answered(output: string): void {
  const body = JSON.parse(output) as { answers?: Record<string, unknown> };
  assert.ok(body.answers && 'refund' in body.answers, output);
}

async function npmStart(signal: NodeJS.Signals, check: (env: NodeJS.ProcessEnv, hint: string) => Promise<void>): Promise<void> {
  const models = await fixtureModels();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'structqa-npm-start-'));
  const env = {
    ...process.env,
    PORT: String(await freePort()),
    STRUCTQA_DATA_DIR: dataDir,
    STRUCTQA_MODELS_DIR: models,
    STRUCTQA_ENGLISH_DIR: 'fixture-en',
    STRUCTQA_MULTILINGUAL_DIR: 'fixture-multilingual',
    STRUCTQA_BUILD_FIXTURES: '0',
    LOG_LEVEL: 'info',
  };
  const npm = spawn('npm', ['start'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  npm.stdout.on('data', (d) => (stdout += d));
  npm.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<void>((resolve) => npm.once('exit', () => resolve()));
  let pid = 0;
  try {
    // Ready: the JSON log names the server's pid, and /readyz answers 200.
    const base = `http://127.0.0.1:${env.PORT}`;
    for (;;) {
      assert.equal(npm.exitCode, null, `npm start exited:\n${stdout}\n${stderr}`);
      const ok = await fetch(`${base}/readyz`).then((r) => r.ok, () => false);
      if (ok && /"pid":\d+/.test(stdout) && stderr.includes('A first call:')) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    pid = Number(/"pid":(\d+)/.exec(stdout)![1]);
    assert.ok(alive(pid));
    await check(env, stderr.slice(stderr.indexOf('A first call:')));
    npm.kill(signal);
    await exited;
    assert.equal(alive(pid), false, `the node server (pid ${pid}) outlived npm start after ${signal}`);
  } finally {
    if (npm.exitCode === null) npm.kill('SIGKILL');
    if (pid && alive(pid)) process.kill(pid, 'SIGKILL'); // never leave a server behind, even when the test fails
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

test('npm start with PORT and STRUCTQA_DATA_DIR: the logged call and the README example are answered; SIGTERM stops the server', async () => {
  await npmStart('SIGTERM', async (env, hint) => {
    const lines = hint.split('\n').filter((l) => l.startsWith('  ')).map((l) => l.slice(2));
    const pasted = lines.join('\n');
    assert.match(pasted, new RegExp(`127\\.0\\.0\\.1:${env.PORT}/v1/systemone`));
    assert.ok(pasted.includes(path.join(env.STRUCTQA_DATA_DIR!, 'first-api-key.txt')), pasted);
    answered(execFileSync('bash', ['-c', pasted], { encoding: 'utf8' }));
    answered(execFileSync('bash', ['-c', readmeExample()], { encoding: 'utf8', env }));
  });
});

test('npm start: SIGINT stops the server too', async () => {
  await npmStart('SIGINT', async () => {});
});
