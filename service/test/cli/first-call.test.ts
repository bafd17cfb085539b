import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { firstCallHint, localUrl } from '../../src/cli/first-call.js';
import { loadConfig } from '../../src/config.js';

test('HOST: every interface by default, as set otherwise', () => {
  assert.equal(loadConfig({ STRUCTQA_DATA_DIR: '/tmp/structqa-unused' }).host, '0.0.0.0');
  assert.equal(loadConfig({ STRUCTQA_DATA_DIR: '/tmp/structqa-unused', HOST: '127.0.0.1' }).host, '127.0.0.1');
});

test('the hinted address is one a client on this machine reaches, for any HOST', () => {
  assert.equal(localUrl('0.0.0.0', 8080), 'http://127.0.0.1:8080');
  assert.equal(localUrl('::', 9000), 'http://127.0.0.1:9000');
  assert.equal(localUrl('10.1.2.3', 81), 'http://10.1.2.3:81');
  assert.equal(localUrl('::1', 81), 'http://[::1]:81');
});

test('the hint reads the real key file (quoted), or says how to make a key when there is none', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "structqa it's-"));
  const file = path.join(dir, 'first-api-key.txt');
  assert.match(firstCallHint('http://127.0.0.1:1', file, 'default'), /npx structqa keys create --account 'default'/);
  fs.writeFileSync(file, 'sqa_live_x\n');
  const hint = firstCallHint('http://127.0.0.1:1', file, 'default');
  assert.ok(hint.includes(`'${file.replace(/'/g, `'\\''`)}'`), hint);
  assert.match(hint, /curl -s http:\/\/127\.0\.0\.1:1\/v1\/systemone/);
  fs.rmSync(dir, { recursive: true, force: true });
});
