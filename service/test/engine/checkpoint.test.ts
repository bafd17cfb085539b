/**
 * The engine on the real fixture checkpoints (real tokenizers and graphs, random weights): room on the
 * English checkpoint, the multilingual tokenizer's own counts, int8 as an explicit opt-in.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { OnnxBackend } from '../../src/engine/backend.js';
import { Engine } from '../../src/engine/engine.js';
import type { Row } from '../../src/engine/layout.js';
import { StateTooLong } from '../../src/errors.js';
import type { Question } from '../../src/engine/render.js';
import { fixtureModels } from '../helpers/checkpoints.js';

const batcher = { tokenBudget: 8192, maxRows: 64, maxQueuedRows: 1024, overloadedRetryMs: 1000 };

async function engineFor(int8 = false): Promise<Engine> {
  const models = await fixtureModels();
  const engine = new Engine({
    checkpoints: {
      'core-0.3.20': { dir: path.join(models, 'fixture-en'), int8 },
      'core-multilingual-0.3.20': { dir: path.join(models, 'fixture-multilingual'), int8: false },
    },
    threads: 2,
    batcher,
    startingRetryMs: 1000,
  });
  await engine.start();
  return engine;
}

async function rooms(engine: Engine, checkpoint: string, questions: Record<string, any>): Promise<Record<string, { room: number }>> {
  try {
    await engine.prepare(checkpoint, questions, 'word '.repeat(3000));
  } catch (e) {
    assert.ok(e instanceof StateTooLong);
    return e.extra['questions'] as Record<string, { room: number }>;
  }
  throw new Error('expected state_too_long');
}

test('a simple noul question leaves about 476 tokens of room on the English checkpoint, a split choice question more', async () => {
  const engine = await engineFor();
  try {
    const r = await rooms(engine, 'core-0.3.20', {
      noul: { type: 'noul', instructions: 'Is the customer asking for a refund?' },
      choice: {
        type: 'choice',
        instructions: 'Which team should handle this ticket?',
        criteria: { billing: 'payments and invoices', technical: 'bugs and errors', sales: 'new purchases' },
      },
    });
    assert.ok(r['noul']!.room >= 466 && r['noul']!.room <= 486, `noul: ${r['noul']!.room}`);
    // A choice question whose options do not fit beside the state is split (one option per row at
    // most), so the longest state it accepts is that of its head and its longest option alone.
    assert.ok(r['choice']!.room >= 486 && r['choice']!.room <= 505, `choice: ${r['choice']!.room}`);
    // the same questions on the multilingual checkpoint: another tokenizer, a longer window
    const m = await rooms(engine, 'core-multilingual-0.3.20', { noul: { type: 'noul', instructions: 'Is the customer asking for a refund?' } });
    assert.ok(m['noul']!.room > 950 && m['noul']!.room < 1023, String(m['noul']!.room));
  } finally {
    await engine.close();
  }
});

test('exact accounting: the reported room is the longest state that is accepted', async () => {
  const engine = await engineFor();
  try {
    const q: Record<string, Question> = { q: { type: 'choice', instructions: 'Pick one', criteria: { a: 'first option', b: 'second option' } } };
    const room = (await rooms(engine, 'core-0.3.20', q))['q']!.room;
    // "a" is one token in the English fixture tokenizer, with single spaces between
    const fits = await engine.prepare('core-0.3.20', q, Array.from({ length: room }, () => 'a').join(' '));
    assert.equal(fits.laidOut.stateTokens, room);
    assert.equal(fits.laidOut.rows[0]!.ids.length, 512);
    await assert.rejects(engine.prepare('core-0.3.20', q, Array.from({ length: room + 1 }, () => 'a').join(' ')), StateTooLong);
  } finally {
    await engine.close();
  }
});

test('the status (/readyz) names the tokenizer each checkpoint encodes with', async () => {
  const engine = await engineFor();
  try {
    const tokenizer = (name: string) => (engine.status.checkpoints[name] as { tokenizer: string }).tokenizer;
    assert.equal(tokenizer('core-0.3.20'), 'js');
    assert.equal(tokenizer('core-multilingual-0.3.20'), 'native');
  } finally {
    await engine.close();
  }
});

test('int8 is opt-in per checkpoint: the engine runs the int8 graph only when configured, and says so', async () => {
  const fp32 = await engineFor(false);
  const int8 = await engineFor(true);
  try {
    assert.equal(fp32.checkpoint('core-0.3.20').precision, 'fp32');
    assert.equal(int8.checkpoint('core-0.3.20').precision, 'int8');
    assert.equal((int8.status.checkpoints['core-0.3.20'] as { precision: string }).precision, 'int8');
    const q: Record<string, Question> = { q: { type: 'choice', instructions: 'Which team?', criteria: { billing: 'money', tech: 'bugs', sales: 'buying' } } };
    const state = 'The app crashes when I open the invoice page.';
    const a = await fp32.answer(await fp32.prepare('core-0.3.20', q, state));
    const b = await int8.answer(await int8.prepare('core-0.3.20', q, state));
    const pa = (a.answers['q'] as { probabilities: Record<string, number> }).probabilities;
    const pb = (b.answers['q'] as { probabilities: Record<string, number> }).probabilities;
    assert.notDeepEqual(pa, pb, 'int8 must actually run a different graph');
    for (const k of Object.keys(pa)) assert.ok(Math.abs(pa[k]! - pb[k]!) < 0.2, `${k}: ${pa[k]} vs ${pb[k]}`);
  } finally {
    await fp32.close();
    await int8.close();
  }
});

test('a graph above singleSessionAboveMiB gets one session (one lane, no wide, no inline); a smaller one keeps its lanes and inline session', async () => {
  const models = await fixtureModels();
  const build = (singleSessionAboveMiB: number): Engine =>
    new Engine({
      checkpoints: { 'core-0.3.20': { dir: path.join(models, 'fixture-en'), int8: false } },
      threads: 2,
      lanes: 2,
      singleSessionAboveMiB,
      batcher: { ...batcher, inlineMaxTokens: 256 },
      startingRetryMs: 1000,
    });
  // fixture-en's graph is 52.5 MB
  const large = build(10);
  await large.start();
  const small = build(512);
  await small.start();
  try {
    const one = large.checkpoints.get('core-0.3.20')!;
    assert.equal(one.backend.lanes, 1);
    assert.equal(one.backend.runInline, undefined);
    assert.equal((large.status.checkpoints['core-0.3.20'] as { sessions: number }).sessions, 1);
    const several = small.checkpoints.get('core-0.3.20')!;
    assert.equal(several.backend.lanes, 2);
    assert.equal((small.status.checkpoints['core-0.3.20'] as { sessions: number }).sessions, 4, 'two lanes, the wide session and the inline one');
    const q: Record<string, Question> = { c: { type: 'choice', instructions: 'Which team?', criteria: { billing: 'money', tech: 'bugs' } } };
    const a = (await large.answer(await large.prepare('core-0.3.20', q, 'The invoice page crashes.'))).answers['c'] as { probabilities: Record<string, number> };
    const b = (await small.answer(await small.prepare('core-0.3.20', q, 'The invoice page crashes.'))).answers['c'] as { probabilities: Record<string, number> };
    for (const k of Object.keys(a.probabilities)) assert.ok(Math.abs(a.probabilities[k]! - b.probabilities[k]!) < 1e-4);
  } finally {
    await large.close();
    await small.close();
  }
});

test('warm-up: the lanes and the wide session run a full-window row, the inline session nothing over its budget', async () => {
  // TEST FIXTURE: wrap OnnxBackend.load so that the lengths of the rows each session is given are recorded.
  const seen: { lane: number[]; wide: number[]; inline: number[] } = { lane: [], wide: [], inline: [] };
  const load = OnnxBackend.load;
  OnnxBackend.load = async (...args: Parameters<typeof load>) => {
    const backend = await load.apply(OnnxBackend, args);
    const run = backend.run.bind(backend);
    const runInline = backend.runInline!;
    const longest = (rows: Row[]) => Math.max(...rows.map((r) => r.ids.length));
    Object.assign(backend, {
      run: (rows: Row[], opts?: { wide?: boolean }) => (seen[opts?.wide ? 'wide' : 'lane'].push(longest(rows)), run(rows, opts)),
      runInline: (rows: Row[]) => (seen.inline.push(longest(rows)), runInline(rows)),
    });
    return backend;
  };
  const engine = new Engine({
    checkpoints: { 'core-0.3.20': { dir: path.join(await fixtureModels(), 'fixture-en'), int8: false } },
    threads: 2,
    lanes: 2,
    batcher: { ...batcher, inlineMaxTokens: 256 },
    startingRetryMs: 1000,
  });
  try {
    await engine.start();
    const window = engine.checkpoints.get('core-0.3.20')!.manifest.window;
    assert.deepEqual(seen.lane.sort((a, b) => a - b).slice(-2), [window, window], 'each lane ran a full-window row');
    assert.equal(Math.max(...seen.wide), window);
    assert.equal(Math.max(...seen.inline), 256, 'the inline session ran a row of its whole budget, and no longer');
  } finally {
    OnnxBackend.load = load;
    await engine.close();
  }
});

test('sessions per checkpoint: with the service defaults 2 lanes and the inline session; the wide session only when asked for and a lane has fewer than all the threads', async () => {
  const dir = path.join(await fixtureModels(), 'fixture-en');
  const defaults = loadConfig({ STRUCTQA_DATA_DIR: '/tmp/structqa-unused', STRUCTQA_THREADS: '2' }).engine;
  const table: { settings: { wideSession?: boolean; laneThreads?: number }; sessions: number; wide: boolean; laneThreads: number }[] = [
    { settings: { wideSession: defaults.wideSession, laneThreads: defaults.laneThreads }, sessions: 3, wide: false, laneThreads: 1 },
    { settings: { wideSession: true }, sessions: 4, wide: true, laneThreads: 1 },
    { settings: { wideSession: false }, sessions: 3, wide: false, laneThreads: 1 },
    { settings: { laneThreads: 2, wideSession: true }, sessions: 3, wide: true, laneThreads: 2 },
  ];
  for (const { settings, sessions, wide, laneThreads } of table) {
    const engine = new Engine({
      checkpoints: { 'core-0.3.20': { dir, int8: false } },
      threads: 2,
      lanes: 2,
      ...settings,
      batcher: { ...batcher, inlineMaxTokens: 256 },
      startingRetryMs: 1000,
    });
    await engine.start();
    try {
      const { backend } = engine.checkpoints.get('core-0.3.20')! as unknown as { backend: OnnxBackend };
      const label = JSON.stringify(settings);
      assert.equal((engine.status.checkpoints['core-0.3.20'] as { sessions: number }).sessions, sessions, label);
      assert.deepEqual([backend.lanes, backend.wide, backend.laneThreads, backend.runInline !== undefined], [2, wide, laneThreads, true], label);
    } finally {
      await engine.close();
    }
  }
});
