import assert from 'node:assert/strict';
import { test } from 'node:test';
import { retryDelay } from '../src/retry.js';

test('retry delay: retry-after-ms first, then retry-after in seconds, else backoff from 250 ms capped at 8 s', () => {
  const headers = (h: Record<string, string>) => (name: string) => h[name];
  assert.equal(retryDelay(headers({ 'retry-after-ms': '1500', 'retry-after': '9' }), 0), 1500);
  assert.equal(retryDelay(headers({ 'retry-after': '2' }), 0), 2000);
  assert.equal(retryDelay(headers({ 'retry-after-ms': 'soon' }), 1), 500);
  assert.equal(retryDelay(headers({}), 0), 250);
  assert.equal(retryDelay(headers({}), 10), 8000);
});
