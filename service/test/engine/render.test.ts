import assert from 'node:assert/strict';
import { test } from 'node:test';
import { optionKeys, pythonFloat, pythonJson, renderContent, renderHead, renderOptions, type Question } from '../../src/engine/render.js';
import { parseSourceJson } from '../../src/engine/source-json.js';

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

test("numbers as Python's repr writes floats (shortest digits; scientific below 1e-4 and from 1e16)", () => {
  const cases: [number, string][] = [
    [1, '1.0'], [-0, '-0.0'], [0, '0.0'], [1e-7, '1e-07'], [1e-4, '0.0001'], [1.5e-5, '1.5e-05'], [0.1, '0.1'],
    [123456789.125, '123456789.125'], [1e15, '1000000000000000.0'], [1e16, '1e+16'], [1.5e300, '1.5e+300'],
    [12345678901234567890, '1.2345678901234567e+19'], [-2.5, '-2.5'], [Infinity, 'Infinity'], [-Infinity, '-Infinity'],
  ];
  for (const [x, want] of cases) assert.equal(pythonFloat(x), want, String(x));
});

test('a body parsed with its source keeps the client\'s key order and number forms (as laya renders it)', () => {
  const body = parseSourceJson(
    '{"state": {"10": 1.0, "2": [1e-7, 12345678901234567890, -0, -0.0, 1E5, 2.50], "b": {"1": "x", "0": 0.0001}},' +
      ' "q": {"type": "choice", "criteria": {"10": null, "2": "two", "b": {"3": 1.0, "1": "y"}}}}',
  ) as { state: unknown; q: Question };
  assert.equal(
    renderContent(body.state),
    '{"10": 1.0, "2": [1e-07, 12345678901234567890, 0, -0.0, 100000.0, 2.5], "b": {"1": "x", "0": 0.0001}}',
  );
  assert.deepEqual(renderOptions(body.q), ['10', '2: two', 'b: {"3": 1.0, "1": "y"}']);
  assert.deepEqual(optionKeys(body.q), ['10', '2', 'b']);
  // a value without its source (built in code): JavaScript's order, integral numbers as ints
  assert.equal(pythonJson({ b: 1, 2: 0.5 }), '{"2": 0.5, "b": 1}');
  // duplicate keys: the first position, the last value (as Python's json.loads and JSON.parse both do)
  assert.equal(renderContent(parseSourceJson('{"2": 1, "1": 2.0, "2": 3.0}')), '{"2": 3.0, "1": 2.0}');
});

test('score levels are always "level i: <description>" (null and empty included) and noul keys are read lower-cased, as laya does', () => {
  assert.deepEqual(renderOptions({ type: 'score', criteria: [null, '', 'high'] }), ['level 0: null', 'level 1: ', 'level 2: high']);
  assert.deepEqual(renderOptions({ type: 'noul', criteria: { True: 'yes!', FALSE: { x: 1 } } }), ['false: {"x": 1}', 'true: yes!']);
});
