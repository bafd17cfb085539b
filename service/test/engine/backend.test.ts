/**
 * The ONNX Runtime backend on the English fixture checkpoint (random weights): the worker-thread
 * sessions (one per lane, and the first lane's wide one) and the inline session (one more session of the same graph on the calling
 * thread) give the same logits, the inline session exists only when asked for, and a lane whose
 * worker died takes no more batches.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { OnnxBackend } from '../../src/engine/backend.js';
import { Checkpoint } from '../../src/engine/checkpoint.js';
import { layOut, tokenizeState } from '../../src/engine/layout.js';
import { fixtureModels } from '../helpers/checkpoints.js';

const batcher = { tokenBudget: 2048, maxRows: 64, maxQueuedRows: 1024, overloadedRetryMs: 1000 };

test('every lane, the wide session and the inline session answer alike (within 1e-4)', async () => {
  const checkpoint = await Checkpoint.load(path.join(await fixtureModels(), 'fixture-en'), { int8: false, threads: 2, lanes: 2, batcher: { ...batcher, inlineMaxTokens: 256 } });
  try {
    const heads = await checkpoint.questionHeads([
      { type: 'noul', instructions: 'Is the parcel late?' },
      { type: 'choice', instructions: 'Which team?', criteria: { billing: 'Invoices', technical: 'Bugs', sales: null } },
    ]);
    const state = await tokenizeState(checkpoint.tokenizer, 'The parcel arrived two weeks late and the invoice was wrong.');
    const { rows } = layOut(['late', 'team'], heads, state, checkpoint.tokenizer.special.sep, {
      model: checkpoint.name,
      window: checkpoint.manifest.window,
      processedTokenCap: checkpoint.manifest.processed_token_cap,
    });
    const { backend } = checkpoint;
    assert.ok(backend.runInline, 'loaded with an inline session');
    assert.equal(backend.lanes, 2);
    const inline = await backend.runInline(rows);
    // Two runs at once go to the two lanes (one thread each); the wide and inline sessions have both threads.
    const wide = await backend.run(rows, { wide: true });
    for (const onLane of [...(await Promise.all([backend.run(rows), backend.run(rows)])), wide]) {
      assert.equal(onLane.markers, inline.markers);
      assert.equal(onLane.logits.length, inline.logits.length);
      const worst = Math.max(...Array.from(inline.logits, (v, i) => Math.abs(v - onLane.logits[i]!)));
      assert.ok(worst <= 1e-4, `largest logit difference ${worst}`);
    }
    assert.ok(inline.modelMs! > 0);
  } finally {
    await checkpoint.close();
  }
});

test('without an inline limit there is no second session', async () => {
  const checkpoint = await Checkpoint.load(path.join(await fixtureModels(), 'fixture-en'), { int8: false, threads: 2, batcher: { ...batcher, inlineMaxTokens: 0 } });
  try {
    assert.equal(checkpoint.backend.runInline, undefined);
    assert.ok(checkpoint.backend instanceof OnnxBackend);
  } finally {
    await checkpoint.close();
  }
});

test('a lane whose worker died takes no more batches; with none left, runs fail instead of hanging', async () => {
  const checkpoint = await Checkpoint.load(path.join(await fixtureModels(), 'fixture-en'), { int8: false, threads: 2, lanes: 2, batcher: { ...batcher, inlineMaxTokens: 0 } });
  try {
    const heads = await checkpoint.questionHeads([{ type: 'noul', instructions: 'Is the parcel late?' }]);
    const state = await tokenizeState(checkpoint.tokenizer, 'The parcel arrived two weeks late.');
    const { rows } = layOut(['late'], heads, state, checkpoint.tokenizer.special.sep, {
      model: checkpoint.name,
      window: checkpoint.manifest.window,
      processedTokenCap: checkpoint.manifest.processed_token_cap,
    });
    // FAULT INJECTION: reach into the backend and stop one lane's worker, as a crash would.
    const lanes = (checkpoint.backend as unknown as { laneList: { worker: { terminate(): Promise<number> } }[] }).laneList;
    await lanes[0]!.worker.terminate();
    await new Promise((r) => setImmediate(r));
    const results = await Promise.all([checkpoint.backend.run(rows), checkpoint.backend.run(rows)]);
    assert.equal(results.length, 2, 'both runs answered by the lane that is left');
    await lanes[1]!.worker.terminate();
    await new Promise((r) => setImmediate(r));
    await assert.rejects(checkpoint.backend.run(rows), /onnxruntime worker exited/);
  } finally {
    await checkpoint.close();
  }
});
