/**
 * The fast parts of `npm run chaos` (issue 20): fuzzing with depth and size extremes, slow and stalled
 * clients, PostgreSQL and Redis cut and restored mid-load. Small counts; every check must hold. The
 * timed scenarios (CPU flood p50, kills) run in `npm run chaos` only (docs/reliability.md).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runChaos } from '../../chaos/main.js';
import { table } from '../../chaos/lib.js';

test('chaos (fast): fuzz, stalled clients, PostgreSQL and Redis outages', async () => {
  const lines: string[] = [];
  const results = await runChaos({ fast: true, only: ['fuzz', 'slow', 'postgres', 'redis'], log: (l) => lines.push(l) });
  assert.equal(results.length, 4);
  const failed = results.flatMap((r) => r.checks.filter((c) => !c.ok).map((c) => `${r.name}: ${c.name} — ${c.detail}`));
  assert.deepEqual(failed, [], `${table(results)}\n${lines.join('\n')}`);
  for (const r of results) assert.ok(r.tally.requests > 0);
});
