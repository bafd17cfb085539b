/**
 * The ONNX Runtime backend on the English fixture checkpoint (random weights): the worker-thread
 * session and the inline session (a second session of the same graph on the calling thread) give the
 * same logits, and the inline session exists only when asked for.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { OnnxBackend } from '../../src/engine/backend.js';
import { Checkpoint } from '../../src/engine/checkpoint.js';
import { layOut, tokenizeState } from '../../src/engine/layout.js';
import { fixtureModels } from '../helpers/checkpoints.js';

const batcher = { tokenBudget: 2048, maxRows: 64, maxQueuedRows: 1024, overloadedRetryMs: 1000 };

test('the inline session answers exactly as the worker session does (within 1e-4)', async () => {
  const checkpoint = await Checkpoint.load(path.join(await fixtureModels(), 'fixture-en'), { int8: false, threads: 2, batcher: { ...batcher, inlineMaxTokens: 256 } });
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
    const onWorker = await backend.run(rows);
    const inline = await backend.runInline(rows);
    assert.equal(inline.markers, onWorker.markers);
    assert.equal(inline.logits.length, onWorker.logits.length);
    const worst = Math.max(...Array.from(inline.logits, (v, i) => Math.abs(v - onWorker.logits[i]!)));
    assert.ok(worst <= 1e-4, `largest logit difference ${worst}`);
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
