/** The soak row's slope (issue 32, item 5): least squares over the samples of the last half. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { slope } from '../../chaos/soak.js';

test('slope: MiB per minute by least squares; flat is 0; too few points is NaN', () => {
  assert.equal(slope([0, 1, 2, 3].map((x) => ({ x, y: 800 + 2 * x }))), 2);
  assert.equal(slope([0, 1, 2, 3].map((x) => ({ x, y: 800 }))), 0);
  // noise around a line: the fitted slope, not the first-to-last difference
  assert.ok(Math.abs(slope([{ x: 0, y: 810 }, { x: 1, y: 800 }, { x: 2, y: 802 }, { x: 3, y: 801 }]) + 2.5) < 1e-9);
  assert.ok(Number.isNaN(slope([{ x: 1, y: 1 }])));
});
