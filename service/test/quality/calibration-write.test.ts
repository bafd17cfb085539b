/**
 * The pieces of `structqa models calibrate` around the fit: the seeded held-out split, the held-out
 * verdict that refuses a fit making log-loss worse, and writing a fit into a manifest without losing
 * the table it replaces.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { softmax } from '../../src/engine/calibrate.js';
import { readManifest } from '../../src/engine/manifest.js';
import { Prng } from '../../src/fixtures/prng.js';
import type { EvalCase } from '../../src/quality/cases.js';
import { heldOutReport } from '../../src/quality/calibration-report.js';
import { history, lastReplaced, writeCalibration } from '../../src/quality/calibration-history.js';
import type { ScoredCase } from '../../src/quality/engine-cases.js';
import { holdoutSplit } from '../../src/quality/holdout.js';

const evalCase = (id: string, type: 'noul' | 'choice' | 'score'): EvalCase => ({ id, task: 't', state: 's', question: { type }, expected: true });

test('held-out split: the share of each type, fixed by seed and id, whatever the order', () => {
  const cases = [
    ...Array.from({ length: 100 }, (_, i) => evalCase(`n${i}`, 'noul')),
    ...Array.from({ length: 40 }, (_, i) => evalCase(`c${i}`, 'choice')),
    ...Array.from({ length: 7 }, (_, i) => evalCase(`s${i}`, 'score')),
  ];
  const split = holdoutSplit(cases, 0.3, 29);
  const held = (type: string) => split.holdout.filter((c) => c.question.type === type).length;
  assert.deepEqual([held('noul'), held('choice'), held('score')], [30, 12, 2]);
  assert.equal(split.fit.length + split.holdout.length, cases.length);
  assert.equal(new Set([...split.fit, ...split.holdout].map((c) => c.id)).size, cases.length);
  const ids = (cs: EvalCase[]) => cs.map((c) => c.id).sort();
  const shuffled = holdoutSplit([...cases].reverse(), 0.3, 29);
  assert.deepEqual(ids(shuffled.holdout), ids(split.holdout), 'the order of the cases does not matter');
  assert.notDeepEqual(ids(holdoutSplit(cases, 0.3, 30).holdout), ids(split.holdout), 'another seed, another split');
  assert.throws(() => holdoutSplit(cases, 1, 29), /between 0 and 1/);
});

/** Noul cases whose labels follow softmax(logits / t). */
function scored(n: number, t: number, seed: number): ScoredCase[] {
  const rng = new Prng(seed);
  return Array.from({ length: n }, (_, i) => {
    const logits = [rng.uniform() * 6 - 3, rng.uniform() * 6 - 3];
    const label = rng.uniform() < softmax(logits, t)[1]! ? 1 : 0;
    return { case: evalCase(`x${i}`, 'noul'), type: 'noul', keys: ['false', 'true'], logits, label, language: 'en' };
  });
}

test('held-out verdict: a flatter table on sharp labels is worse, a right one is better; argmax never moves', () => {
  const sharp = scored(800, 0.7, 1);
  const good = heldOutReport(sharp, { temperature: { noul: { '2': 3 } } }, { temperature: { noul: { '2': 0.7 } } }, false);
  assert.deepEqual(good.worse, []);
  const all = good.slices.find((s) => s.name === 'all')!;
  assert.ok(all.after.log_loss < all.before.log_loss && all.after.ece < all.before.ece, JSON.stringify(all));
  assert.equal(all.before.accuracy, all.after.accuracy);
  assert.equal(good.argmax_unchanged, 800);
  const bad = heldOutReport(sharp, { temperature: { noul: { '2': 0.7 } } }, { temperature: { noul: { '2': 4 } } }, false);
  assert.deepEqual(bad.worse, ['all', 'noul']);
});

function checkpointCopy(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqa-calwrite-'));
  // a manifest as Python writes it (indent 1, 5.0), with provenance the write must leave alone
  fs.writeFileSync(
    path.join(dir, 'manifest.json'),
    '{\n "format": "structqa-checkpoint/1",\n "name": "x-1.0.0",\n "version": "1.0.0",\n "description": "caf\\u00e9",\n "release_date": "2026-01-01",\n' +
      ' "languages": [\n  "en"\n ],\n "window": 512,\n "processed_token_cap": 3500,\n "fixture": true,\n "files": {\n  "model": "model.onnx",\n  "tokenizer": "tokenizer.json"\n },\n' +
      ' "special_tokens": {\n  "cls": "[CLS]",\n  "sep": "[SEP]",\n  "mask": "[MASK]",\n  "pad": "[PAD]"\n },\n "calibration": {\n  "temperature": {\n   "noul": {\n    "2": 5.0\n   }\n  }\n },\n' +
      ' "provenance": {\n  "seed": 7,\n  "sha256": {\n   "model.onnx": "ab"\n  }\n }\n}\n',
  );
  return dir;
}

test('writing a fit keeps the table it replaced, changes nothing else, and can be undone', () => {
  const dir = checkpointCopy();
  const file = path.join(dir, 'manifest.json');
  const shipped = fs.readFileSync(file, 'utf8');
  const first = { temperature: { noul: { '2': 3.25 }, choice: { '2': 1.5, '3-5': 1.7, '6-10': 1.7, '11+': 1.7 } } };
  writeCalibration(dir, first, { written_at: '2026-12-05T00:00:00Z', by: 'structqa models calibrate', fit: { cases: ['a.jsonl'] } });
  let m = readManifest(dir);
  assert.deepEqual(m.calibration, first);
  assert.deepEqual(history(m).map((h) => h.replaced), [{ temperature: { noul: { '2': 5 } } }]);
  assert.equal(m.provenance!.seed, 7);
  assert.deepEqual(m.provenance!.sha256, { 'model.onnx': 'ab' });
  const text = fs.readFileSync(file, 'utf8');
  // outside the two edited values the text is the shipped one, byte for byte (indent, escapes)
  const outside = (t: string) => t.replace(/"calibration": \{[\s\S]*?\n \},\n/, '').replace(/,\n  "calibration_history": \[[\s\S]*\n  \]/, '');
  assert.equal(outside(text), outside(shipped));
  assert.ok(text.includes('"description": "caf\\u00e9"') && text.includes('\n "window": 512,'));

  const second = { temperature: { noul: { '2': 2 } } };
  writeCalibration(dir, second, { written_at: '2026-12-05T01:00:00Z', by: 'structqa models calibrate' });
  m = readManifest(dir);
  assert.deepEqual(history(m).map((h) => h.replaced), [{ temperature: { noul: { '2': 5 } } }, first], 'every earlier table is kept, oldest first');
  // undo twice: back to the shipped table, with all four states in the history
  for (const want of [first, { temperature: { noul: { '2': 5 } } }]) {
    const last = lastReplaced(m)!;
    writeCalibration(dir, last.calibration, { written_at: '2026-12-05T02:00:00Z', by: 'structqa models calibrate --restore', restored_from: last.index });
    m = readManifest(dir);
    if (want === first) assert.deepEqual(m.calibration, first);
  }
  // the second undo put back what the first undo replaced (second), not the shipped table: undo toggles
  assert.deepEqual(m.calibration, second);
  assert.equal(history(m).length, 4);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('only the temperatures that changed are edited: the others keep their text (order, 5.0)', () => {
  const dir = checkpointCopy();
  const file = path.join(dir, 'manifest.json');
  // the bundled manifests' shape: keys not in JavaScript's order ("2" last), values written by Python
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"noul": {\n    "2": 5.0\n   }', '"noul": {\n    "2": 5.0\n   },\n   "choice": {\n    "11+": 1.3,\n    "3-5": 2.0,\n    "2": 1.3\n   }'));
  const shipped = readManifest(dir).calibration;
  writeCalibration(dir, { temperature: { noul: { '2': 5 }, choice: { '2': 1.3, '3-5': 1.75, '11+': 1.3, '6-10': 0.9 } } }, { written_at: 'x', by: 'y' });
  const text = fs.readFileSync(file, 'utf8');
  assert.match(text, /"noul": \{\n {4}"2": 5\.0\n {3}\}/, 'an unchanged value keeps its text');
  assert.match(text, /"11\+": 1\.3,\n {4}"3-5": 1\.75,\n {4}"2": 1\.3,\n {4}"6-10": 0\.9\n/, 'changed and new values in place, the order kept');
  assert.deepEqual(history(readManifest(dir))[0]!.replaced, shipped);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a history that is not a list is not touched', () => {
  const dir = checkpointCopy();
  const file = path.join(dir, 'manifest.json');
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"seed": 7', '"seed": 7, "calibration_history": "oops"'));
  const before = fs.readFileSync(file, 'utf8');
  assert.throws(() => writeCalibration(dir, { temperature: {} }, { written_at: 'x', by: 'y' }), /not a list/);
  assert.equal(fs.readFileSync(file, 'utf8'), before);
  fs.rmSync(dir, { recursive: true, force: true });
});
