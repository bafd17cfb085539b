/**
 * Issue 32, item 7: every command a newcomer runs answers --help with its usage (exit 0), and a bad
 * command line gets one line on stderr and exit 2: `npm run chaos`, `npm run bench` and the bench
 * scripts (service/src/cli/args.ts), and the `structqa` command (commander).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SERVICE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ROOT = path.resolve(SERVICE, '..');

const COMMANDS: [string, string[]][] = [
  ['npm run chaos', [path.join(SERVICE, 'chaos/main.ts')]],
  ['npm run bench', [path.join(ROOT, 'bench/src/bench.ts')]],
  ['server-ab.ts', [path.join(ROOT, 'bench/src/server-ab.ts')]],
  ['server-memory.ts', [path.join(ROOT, 'bench/src/server-memory.ts')]],
  ['checkpoint-memory.ts', [path.join(ROOT, 'bench/src/checkpoint-memory.ts')]],
  ['language-detect.ts', [path.join(ROOT, 'bench/src/language-detect.ts')]],
  ['structqa', [path.join(SERVICE, 'bin/structqa.js')]],
];

const run = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', ...args], { cwd: SERVICE, encoding: 'utf8', timeout: 60_000 });

for (const [name, script] of COMMANDS) {
  test(`${name} --help: the usage on stdout, exit 0 (nothing started)`, () => {
    const res = run([...script, '--help']);
    assert.equal(res.status, 0, res.stderr);
    assert.match(res.stdout, /usage:/i);
  });
  test(`${name} --no-such-option: one line on stderr, exit 2`, () => {
    const res = run([...script, '--no-such-option']);
    assert.equal(res.status, 2, res.stderr);
    const lines = res.stderr.trim().split('\n');
    assert.equal(lines.length, 1, res.stderr);
    assert.match(lines[0]!, /no-such-option/);
  });
}

test('a bad value is refused the same way (npm run chaos -- --minutes x, --only nope)', () => {
  for (const args of [['--minutes', 'x'], ['--only', 'nope']]) {
    const res = run([path.join(SERVICE, 'chaos/main.ts'), ...args]);
    assert.equal(res.status, 2, res.stderr);
    assert.equal(res.stderr.trim().split('\n').length, 1, res.stderr);
  }
});
