import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../src/config.js';

const base = { STRUCTQA_DATA_DIR: '/tmp/structqa-unused' };

test('lanes: 2 by default, 1 with a single thread, as set otherwise; the batch budget defaults to 1024', () => {
  const table: { env: Record<string, string>; threads: number; lanes: number }[] = [
    { env: { STRUCTQA_THREADS: '2' }, threads: 2, lanes: 2 },
    { env: { STRUCTQA_THREADS: '8' }, threads: 8, lanes: 2 },
    { env: { STRUCTQA_THREADS: '1' }, threads: 1, lanes: 1 },
    { env: { STRUCTQA_THREADS: '4', STRUCTQA_LANES: '4' }, threads: 4, lanes: 4 },
    { env: { STRUCTQA_THREADS: '2', STRUCTQA_LANES: '1' }, threads: 2, lanes: 1 },
  ];
  for (const { env, threads, lanes } of table) {
    const { engine } = loadConfig({ ...base, ...env });
    assert.deepEqual([engine.threads, engine.lanes], [threads, lanes], JSON.stringify(env));
    assert.equal(engine.batchTokenBudget, 1024);
  }
});

test('the attention budget: one 512-token window by default, set or turned off (0) by env', () => {
  assert.equal(loadConfig(base).engine.batchAttentionBudget, 512 * 512);
  assert.equal(loadConfig({ ...base, STRUCTQA_BATCH_ATTENTION_BUDGET: '1048576' }).engine.batchAttentionBudget, 1024 * 1024);
  assert.equal(loadConfig({ ...base, STRUCTQA_BATCH_ATTENTION_BUDGET: '0' }).engine.batchAttentionBudget, 0);
});

test('threads and lanes below 1 are refused at start with the names of both settings', () => {
  for (const env of [{ STRUCTQA_LANES: '0' }, { STRUCTQA_THREADS: '0' }, { STRUCTQA_LANES: '-2' }]) {
    assert.throws(() => loadConfig({ ...base, ...env }), /STRUCTQA_THREADS and STRUCTQA_LANES must be at least 1/, JSON.stringify(env));
  }
});

test('shared weights: on by default under the data dir, its own folder or off by env; arena and pre-packing on unless turned off', () => {
  const d = loadConfig(base).engine;
  assert.deepEqual([d.sharedWeightsDir, d.ortArena, d.ortPrepack], ['/tmp/structqa-unused/ort-cache', true, true]);
  assert.equal(loadConfig({ ...base, STRUCTQA_SHARED_WEIGHTS_DIR: '/var/cache/sq' }).engine.sharedWeightsDir, '/var/cache/sq');
  assert.equal(loadConfig({ ...base, STRUCTQA_SHARED_WEIGHTS: '0' }).engine.sharedWeightsDir, undefined);
  const off = loadConfig({ ...base, STRUCTQA_ORT_ARENA: '0', STRUCTQA_ORT_PREPACK: 'false' }).engine;
  assert.deepEqual([off.ortArena, off.ortPrepack], [false, false]);
});

test('lane threads: threads / lanes by default (at least 1), as set otherwise; no wide session unless turned on', () => {
  const table: { env: Record<string, string>; laneThreads: number; wideSession: boolean }[] = [
    { env: { STRUCTQA_THREADS: '2' }, laneThreads: 1, wideSession: false },
    { env: { STRUCTQA_THREADS: '8' }, laneThreads: 4, wideSession: false },
    { env: { STRUCTQA_THREADS: '3', STRUCTQA_LANES: '4' }, laneThreads: 1, wideSession: false },
    { env: { STRUCTQA_THREADS: '2', STRUCTQA_LANE_THREADS: '2' }, laneThreads: 2, wideSession: false },
    { env: { STRUCTQA_THREADS: '2', STRUCTQA_WIDE_SESSION: '1' }, laneThreads: 1, wideSession: true },
  ];
  for (const { env, laneThreads, wideSession } of table) {
    const { engine } = loadConfig({ ...base, ...env });
    assert.deepEqual([engine.laneThreads, engine.wideSession], [laneThreads, wideSession], JSON.stringify(env));
  }
});
