import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CallTiming, parseServerTiming } from '../../src/engine/timing.js';

test('marks close phases in order; carved parts come out of the phase in progress; total is since the start', () => {
  const t = new CallTiming(100);
  t.mark('auth', 100.5);
  t.carve('model', 20);
  t.carve('hop', 0.25);
  t.mark('answer', 121);
  assert.equal(t.header(121.5), 'auth;dur=0.500, model;dur=20.000, hop;dur=0.250, answer;dur=0.250, total;dur=21.500');
});

test('parseServerTiming reads names and durations and ignores what it cannot read', () => {
  const table: [string | undefined, Record<string, number>][] = [
    ['auth;dur=0.5, model;dur=20, total;dur=21.5', { auth: 0.5, model: 20, total: 21.5 }],
    ['cache;desc="hit";dur=1.25', { cache: 1.25 }],
    ['db, x;dur=abc, y;dur=2', { y: 2 }],
    ['a;dur=1, a;dur=2', { a: 3 }],
    ['', {}],
    [undefined, {}],
  ];
  for (const [header, expected] of table) assert.deepEqual(parseServerTiming(header), expected, String(header));
});
