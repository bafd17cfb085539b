import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { BUNDLED_CHECKPOINTS_DIR } from '../../src/config.js';
import { readManifest } from '../../src/engine/manifest.js';
import { agreeOnProbes, CheckpointTokenizer, PROBE_TEXTS } from '../../src/engine/tokenizer.js';
import { fixtureModels } from '../helpers/checkpoints.js';
import { WordTokenizer } from '../helpers/word-tokenizer.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const ENGLISH_CORPUS = path.resolve(here, '../../../training/corpus/en/raw.jsonl');

async function load(dir: string, prefer?: 'native') {
  const manifest = readManifest(dir);
  return CheckpointTokenizer.fromFile(path.join(dir, manifest.files.tokenizer), manifest, { prefer });
}

/** Every folder whose tokenizer the service may load: the bundled checkpoints and the fixtures. */
async function checkpointDirs(): Promise<Record<string, string>> {
  const fixtures = await fixtureModels();
  const dirs: Record<string, string> = {
    'fixture-en': path.join(fixtures, 'fixture-en'),
    'fixture-multilingual': path.join(fixtures, 'fixture-multilingual'),
  };
  for (const name of ['core-0.3.20', 'core-multilingual-0.3.20']) {
    const dir = path.join(BUNDLED_CHECKPOINTS_DIR, name);
    if (fs.existsSync(path.join(dir, 'manifest.json'))) dirs[name] = dir;
  }
  return dirs;
}

test('WordPiece tokenizers encode in JS (no thread hop); Unigram ones stay native', async () => {
  const expected: Record<string, string> = {
    'fixture-en': 'js',
    'fixture-multilingual': 'native',
    'core-0.3.20': 'js',
    'core-multilingual-0.3.20': 'native',
  };
  for (const [name, dir] of Object.entries(await checkpointDirs())) {
    assert.equal((await load(dir)).implementation, expected[name], name);
    assert.equal((await load(dir, 'native')).implementation, 'native', name);
  }
});

test('the JS tokenizer gives the native ids on the probe texts and 2,000 English corpus states', async () => {
  const lines = fs.readFileSync(ENGLISH_CORPUS, 'utf8').split('\n').filter(Boolean);
  const step = Math.max(1, Math.floor(lines.length / 2000));
  const texts = lines
    .filter((_, i) => i % step === 0)
    .map((line) => (JSON.parse(line) as { state: unknown }).state)
    .map((state) => (typeof state === 'string' ? state : JSON.stringify(state)));
  texts.push(...PROBE_TEXTS, '', ' ', 'lone surrogate \ud800 here');
  const dirs = await checkpointDirs();
  for (const name of ['fixture-en', 'core-0.3.20'].filter((n) => dirs[n])) {
    const js = await load(dirs[name]!);
    const native = await load(dirs[name]!, 'native');
    assert.equal(js.implementation, 'js');
    assert.deepEqual(js.special, native.special);
    const [a, b] = await Promise.all([js.encode(texts), native.encode(texts)]);
    assert.equal(a.length, texts.length);
    a.forEach((ids, i) => assert.deepEqual(ids, b[i], `${name}: ${JSON.stringify(texts[i]).slice(0, 120)}`));
  }
});

test('agreeOnProbes: the same tokenizer agrees with itself, a different one does not', async () => {
  const dir = (await checkpointDirs())['fixture-en']!;
  const native = await load(dir, 'native');
  assert.equal(await agreeOnProbes(native, await load(dir)), true);
  // TEST FIXTURE: a whitespace tokenizer stands for an implementation that reads tokenizer.json differently.
  assert.equal(await agreeOnProbes(native, new WordTokenizer()), false);
  // Equal ids but different special tokens is a disagreement too.
  const shifted = { special: { ...native.special, pad: native.special.pad + 1 }, maskText: native.maskText, encode: (t: string[]) => native.encode(t) };
  assert.equal(await agreeOnProbes(native, shifted), false);
});
