/** Laya's list-form labels: option text, answer key, `choice` value and clashes as Python reads them (engine/labels.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answeredJson, labelClash, listOptions, PythonNumber } from '../../src/engine/labels.js';
import { optionKeys, renderOptions, type Question } from '../../src/engine/render.js';
import { toAnswer } from '../../src/engine/calibrate.js';
import { parseSourceJson } from '../../src/engine/source-json.js';

const parsed = (text: string) => parseSourceJson(text) as unknown[];

test("text is Python's str(label), the key json.dumps' dict key, choice the label in Python's number form", () => {
  const labels = parsed('["approve", 3, 3.0, 1e16, 12345678901234567890, -0.0, 2.50, 1E5, true, false, ""]');
  const { texts, keys, values } = listOptions(labels as never);
  assert.deepEqual(texts, ['approve', '3', '3.0', '1e+16', '12345678901234567890', '-0.0', '2.5', '100000.0', 'True', 'False', '']);
  assert.deepEqual(keys, ['approve', '3', '3.0', '1e+16', '12345678901234567890', '-0.0', '2.5', '100000.0', 'true', 'false', '']);
  assert.deepEqual(values.map((v) => (v instanceof PythonNumber ? `py:${v.text}` : v)), ['approve', 3, 'py:3.0', 'py:1e+16', 'py:12345678901234567890', 'py:-0.0', 2.5, 'py:100000.0', true, false, '']);
  const q: Question = { type: 'choice', criteria: labels as never };
  assert.deepEqual(renderOptions(q), texts);
  assert.deepEqual(optionKeys(q), keys);
});

test('labels Python holds equal clash (laya refuses them); distinct labels with one answer key clash too', () => {
  const cases: [string, ReturnType<typeof labelClash>][] = [
    ['["a", "b", "a"]', { index: 2, first: 0, reason: 'equal', key: 'a' }],
    ['[1, 1.0]', { index: 1, first: 0, reason: 'equal', key: '1.0' }],
    ['["x", 1, true]', { index: 2, first: 1, reason: 'equal', key: 'true' }],
    ['[0, -0.0]', { index: 1, first: 0, reason: 'equal', key: '-0.0' }],
    ['[-0.0, false]', { index: 1, first: 0, reason: 'equal', key: 'false' }],
    ['[1e16, 10000000000000000]', { index: 1, first: 0, reason: 'equal', key: '10000000000000000' }],
    ['["1", 1]', { index: 1, first: 0, reason: 'key', key: '1' }],
    ['["true", true]', { index: 1, first: 0, reason: 'key', key: 'true' }],
    ['["1e+16", 1e16]', { index: 1, first: 0, reason: 'key', key: '1e+16' }],
    // Python compares an int with a float exactly: 2^64 + 1 is not the float 2^64
    ['[18446744073709551617, 18446744073709551616.0]', undefined],
    ['[18446744073709551616, 18446744073709551616.0]', { index: 1, first: 0, reason: 'equal', key: '1.8446744073709552e+19' }],
    ['["True", true, 1.5, 3]', undefined],
  ];
  for (const [text, want] of cases) assert.deepEqual(labelClash(parsed(text)), want, text);
});

test("an answered call writes a number label's choice as Python does; other calls are plain JSON.stringify", () => {
  const criteria = parsed('[12345678901234567890, 7.0, "\\u0000py-x:0"]');
  const pick = (p: number[]) => answeredJson({ answers: { q: toAnswer('choice', listOptions(criteria as never).keys, p, criteria) } });
  assert.match(pick([0.7, 0.2, 0.1]), /"choice":12345678901234567890,/);
  assert.match(pick([0.2, 0.7, 0.1]), /"choice":7\.0,/);
  assert.match(pick([0.1, 0.2, 0.7]), /"choice":"\\u0000py-x:0",/);
  const plain = { answers: { q: { type: 'choice', choice: 'a', probabilities: { a: 1 }, confidence: 1 } } };
  assert.equal(answeredJson(plain), JSON.stringify(plain));
});

test("score levels given as numbers or booleans read and echo as laya writes them", () => {
  const criteria = parsed('["low", 3, 3.0, true, {"at": 1.0}, null]');
  const q: Question = { type: 'score', criteria: criteria as never };
  assert.deepEqual(renderOptions(q), ['level 0: low', 'level 1: 3', 'level 2: 3.0', 'level 3: true', 'level 4: {"at": 1.0}', 'level 5: null']);
  const a = toAnswer('score', optionKeys(q), [0.1, 0.1, 0.2, 0.2, 0.2, 0.2], criteria);
  // laya's legend for its forms; objects echoed and null as "" as for the earlier service
  assert.deepEqual(a.type === 'score' && a.legend, { '0': 'low', '1': '3', '2': '3.0', '3': 'true', '4': { at: 1 }, '5': '' });
});
