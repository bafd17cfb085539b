import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  choiceConfidence,
  clampTemperature,
  optionBucket,
  scoreConfidence,
  softmax,
  temperatureFor,
  toAnswer,
} from '../../src/engine/calibrate.js';

test('option-count buckets', () => {
  const table: [number, string][] = [[2, '2'], [3, '3-5'], [5, '3-5'], [6, '6-10'], [10, '6-10'], [11, '11+'], [255, '11+']];
  for (const [n, bucket] of table) assert.equal(optionBucket(n), bucket, `n=${n}`);
});

test('temperatures: bucket lookup, language override, default 1, clamped to [0.5, 5]', () => {
  const calibration = {
    temperature: { choice: { '3-5': 1.3, '11+': 0.1 }, score: { '6-10': 9 } },
    by_language: { fr: { choice: { '3-5': 2 } } },
  };
  assert.equal(temperatureFor(calibration, 'choice', 4), 1.3);
  assert.equal(temperatureFor(calibration, 'choice', 4, 'fr'), 2);
  assert.equal(temperatureFor(calibration, 'choice', 4, 'de'), 1.3);
  assert.equal(temperatureFor(calibration, 'choice', 2), 1);
  assert.equal(temperatureFor(calibration, 'choice', 12), 0.5);
  assert.equal(temperatureFor(calibration, 'score', 7), 5);
  assert.equal(temperatureFor(calibration, 'noul', 2), 1);
  assert.equal(clampTemperature(Number.NaN), 1);
  assert.equal(clampTemperature('2' as unknown), 1);
});

test('softmax is stable for large logits and sums to 1; temperature flattens', () => {
  const p = softmax([1000, 999, -10000]);
  assert.ok(Math.abs(p.reduce((a, b) => a + b, 0) - 1) < 1e-12);
  assert.ok(p[0]! > p[1]!);
  assert.equal(p[2], 0);
  const sharp = softmax([2, 0]);
  const flat = softmax([2, 0], 4);
  assert.ok(flat[0]! < sharp[0]!);
});

test('choice confidence (m − 1/n)/(1 − 1/n) reproduces the documented example', () => {
  // reference §3.2: technical 0.85, sales 0.0, billing 0.15 → confidence 0.78 (rounded)
  assert.ok(Math.abs(choiceConfidence([0.85, 0.0, 0.15]) - 0.775) < 1e-9);
  assert.equal(choiceConfidence([0.5, 0.5]), 0);
  assert.equal(choiceConfidence([1, 0]), 1);
});

test('score confidence max(0, 1 − Σ pᵢ|i − k| / D)', () => {
  assert.equal(scoreConfidence([0, 1, 0]), 1); // documented example
  // n=3: D = (1 + 0 + 1)/3 = 2/3; p = [0.5, 0.5, 0], k = 0 → spread 0.5 → 1 − 0.75 = 0.25
  assert.ok(Math.abs(scoreConfidence([0.5, 0.5, 0]) - 0.25) < 1e-12);
  assert.equal(scoreConfidence([0.5, 0, 0.5]), 0);
});

test('answers have exactly the contract keys', () => {
  const noul = toAnswer('noul', ['false', 'true'], [0.2, 0.8], null);
  assert.deepEqual(Object.keys(noul).sort(), ['noul', 'type']);
  assert.equal((noul as { noul: number }).noul, 0.8);
  const choice = toAnswer('choice', ['a', 'b'], [0.3, 0.7], { a: null, b: null });
  assert.deepEqual(Object.keys(choice).sort(), ['choice', 'confidence', 'probabilities', 'type']);
  assert.equal((choice as { choice: string }).choice, 'b');
  const legend = [{ text: 'low' }, 'mid', 'high'];
  const score = toAnswer('score', ['0', '1', '2'], [0.2, 0.3, 0.5], legend);
  assert.deepEqual(Object.keys(score).sort(), ['confidence', 'legend', 'probabilities', 'score', 'type']);
  const s = score as { score: number; legend: Record<string, unknown> };
  assert.ok(Math.abs(s.score - (0.3 + 1.0)) < 1e-12);
  assert.deepEqual(s.legend, { '0': { text: 'low' }, '1': 'mid', '2': 'high' });
});
