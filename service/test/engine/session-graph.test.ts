/**
 * Shared weights (issue 22): the engine's sessions open an optimised copy of the graph whose weights are
 * external data that ONNX Runtime maps, so a checkpoint's sessions share one physical copy. Checked on
 * the fixture checkpoint and the bundled ones (fp16- and int8-stored weights).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { BUNDLED_CHECKPOINTS_DIR } from '../../src/config.js';
import { Engine } from '../../src/engine/engine.js';
import { readManifest } from '../../src/engine/manifest.js';
import type { Question } from '../../src/engine/render.js';
import { sessionGraph, sessionGraphPath } from '../../src/engine/session-graph.js';
import { fixtureModels } from '../helpers/checkpoints.js';

const batcher = { tokenBudget: 1024, maxRows: 64, maxQueuedRows: 1024, overloadedRetryMs: 1000, inlineMaxTokens: 256 };
const questions: Record<string, Question> = {
  team: { type: 'choice', instructions: 'Which team should handle this?', criteria: { billing: 'payments and invoices', tech: 'bugs and errors', sales: 'new purchases' } },
  refund: { type: 'noul', instructions: 'Does the customer ask for a refund?' },
  urgency: { type: 'score', instructions: 'How urgent is it?', criteria: ['not urgent', 'soon', 'right now'] },
};
const states = ['The invoice page crashes when I open it.', 'Ich möchte mein Geld zurück, die Lieferung kam beschädigt an.', 'x'.repeat(40)];

function engine(name: string, dir: string, sharedWeightsDir?: string): Engine {
  return new Engine({ checkpoints: { [name]: { dir, int8: false } }, threads: 2, lanes: 2, sharedWeightsDir, batcher, startingRetryMs: 1000 });
}

async function probabilities(e: Engine, name: string): Promise<number[]> {
  const out: number[] = [];
  for (const state of states) {
    const { answers } = await e.answer(await e.prepare(name, questions, state));
    for (const a of Object.values(answers) as { noul?: number; probabilities?: Record<string, number> }[]) out.push(...(a.probabilities ? Object.values(a.probabilities) : [a.noul!]));
  }
  return out;
}

/** Files this process maps that live in `folder` (the workers' sessions are threads of this process). */
function mappedFrom(folder: string): Set<string> {
  const lines = fs.readFileSync('/proc/self/maps', 'utf8').split('\n');
  return new Set(lines.map((l) => l.split(/\s+/).slice(5).join(' ')).filter((f) => f.startsWith(folder)));
}

const cases = async (): Promise<[string, string][]> => {
  const models = await fixtureModels();
  const list: [string, string][] = [['core-0.3.20', path.join(models, 'fixture-en')]];
  // The bundled checkpoints store fp16 weights (English: the copy holds them folded to fp32) and int8
  // weights (multilingual: ONNX Runtime's fused DequantizeLinear + MatMul, kept as it was).
  for (const name of ['core-0.3.20', 'core-multilingual-0.3.20']) {
    const dir = path.join(BUNDLED_CHECKPOINTS_DIR, name);
    if (fs.existsSync(path.join(dir, 'manifest.json'))) list.push([name, dir]);
  }
  return list;
};

test('every session of a checkpoint maps the one weights file of the shared copy, and answers as the graph itself does', async () => {
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'structqa-shared-weights-'));
  try {
    for (const [name, dir] of await cases()) {
      const plain = engine(name, dir);
      const shared = engine(name, dir, cache);
      await plain.start();
      await shared.start();
      try {
        const graph = sessionGraphPath(path.join(dir, readManifest(dir).files.model), cache);
        assert.ok(fs.statSync(`${graph}.data`).size > 1 << 20, `${name}: the copy's weights are external data`);
        assert.deepEqual([...mappedFrom(path.dirname(graph))], [`${graph}.data`], `${name}: the sessions map the weights, not copy them`);
        assert.equal(shared.status.checkpoints[name] && (shared.status.checkpoints[name] as { sessions: number }).sessions, 4);
        const [a, b] = [await probabilities(plain, name), await probabilities(shared, name)];
        assert.equal(a.length, b.length);
        const worst = Math.max(...a.map((p, i) => Math.abs(p - b[i]!)));
        assert.ok(worst <= 1e-6, `${name}: shared copy differs by ${worst}`);
      } finally {
        await plain.close();
        await shared.close();
      }
    }
  } finally {
    fs.rmSync(cache, { recursive: true, force: true });
  }
});

test('the copy is made once per graph file and made again when the file changes', async () => {
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'structqa-shared-weights-'));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'structqa-graph-'));
  try {
    const models = await fixtureModels();
    const model = path.join(work, 'model.onnx');
    fs.copyFileSync(path.join(models, 'fixture-en', 'model.onnx'), model);
    const first = await sessionGraph(model, cache);
    const made = fs.statSync(`${first}.data`).mtimeMs;
    assert.equal(await sessionGraph(model, cache), first);
    assert.equal(fs.statSync(`${first}.data`).mtimeMs, made, 'reused, not rewritten');
    fs.utimesSync(model, new Date(), new Date(Date.now() + 5000));
    const second = await sessionGraph(model, cache);
    assert.notEqual(second, first);
    assert.ok(fs.existsSync(`${second}.data`));
    assert.deepEqual(fs.readdirSync(cache).filter((f) => f.includes('.tmp-')), [], 'no temporary folder left');
  } finally {
    fs.rmSync(cache, { recursive: true, force: true });
    fs.rmSync(work, { recursive: true, force: true });
  }
});

test('a graph ONNX Runtime cannot open is refused with its path and the runtime\'s reason', async () => {
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'structqa-shared-weights-'));
  const bad = path.join(cache, 'broken.onnx');
  fs.writeFileSync(bad, 'not a graph');
  try {
    await assert.rejects(sessionGraph(bad, path.join(cache, 'out')), (e: Error) => e.message.includes(bad) && /optimis/.test(e.message));
  } finally {
    fs.rmSync(cache, { recursive: true, force: true });
  }
});
