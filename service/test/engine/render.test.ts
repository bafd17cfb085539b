import assert from 'node:assert/strict';
import { test } from 'node:test';
import { optionKeys, pythonJson, renderContent, renderHead, renderOptions } from '../../src/engine/render.js';

test('objects and arrays render as Python json.dumps(ensure_ascii=False)', () => {
  assert.equal(pythonJson({ a: 1, b: [true, null, 'é"'] }), '{"a": 1, "b": [true, null, "é\\""]}');
  assert.equal(pythonJson([]), '[]');
  assert.equal(pythonJson({}), '{}');
  assert.equal(renderContent('plain text'), 'plain text');
  assert.equal(renderContent({ name: '日本' }), '{"name": "日本"}');
});

test('choice options: "key: description", or the key alone for null/empty descriptions', () => {
  const q = { type: 'choice' as const, criteria: { calm: null, angry: 'Very angry', odd: '', meta: { x: 1 } } };
  assert.deepEqual(renderOptions(q), ['calm', 'angry: Very angry', 'odd', 'meta: {"x": 1}']);
  assert.deepEqual(optionKeys(q), ['calm', 'angry', 'odd', 'meta']);
});

test('score options are "level i: description" and keys "0".."n-1"', () => {
  const q = { type: 'score' as const, criteria: ['low', { d: 'mid' }, 'high'] };
  assert.deepEqual(renderOptions(q), ['level 0: low', 'level 1: {"d": "mid"}', 'level 2: high']);
  assert.deepEqual(optionKeys(q), ['0', '1', '2']);
});

test('noul options are always [false, true] with defaults for missing sides', () => {
  assert.deepEqual(renderOptions({ type: 'noul' }), ['false: no, the statement does not hold', 'true: yes, the statement holds']);
  assert.deepEqual(renderOptions({ type: 'noul', criteria: { true: 'Urgent' } }), [
    'false: no, the statement does not hold',
    'true: Urgent',
  ]);
  assert.deepEqual(optionKeys({ type: 'noul' }), ['false', 'true']);
});

test('head is "<type> question: <instructions>"', () => {
  assert.equal(renderHead({ type: 'noul', instructions: 'Is it urgent?' }), 'noul question: Is it urgent?');
  assert.equal(renderHead({ type: 'choice', instructions: null, criteria: {} }), 'choice question: ');
  assert.equal(renderHead({ type: 'score', instructions: { q: 'x' }, criteria: [] }), 'score question: {"q": "x"}');
});
