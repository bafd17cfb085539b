import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rowCycle } from '../src/call-rows.js';

const row = (name: string, tokens: number) => ({ name, ids: new Int32Array(tokens) });

test('rowCycle: each batch is the next rows, round and round, sorted by length', () => {
  const next = rowCycle([row('a', 5), row('b', 3), row('c', 4)]);
  const names = (size: number) => next(size).map((r) => r.name).join('');
  const table = [
    { size: 2, expected: 'ba' }, // a, b
    { size: 2, expected: 'ca' }, // c, then round to a
    { size: 4, expected: 'bbca' }, // b, c, a, b
    { size: 1, expected: 'c' },
  ];
  for (const { size, expected } of table) assert.equal(names(size), expected);
});

test('rowCycle refuses an empty set of rows', () => {
  assert.throws(() => rowCycle([]), /at least one row/);
});
