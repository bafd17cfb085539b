/**
 * Issue 22, the second published family: Decima checkpoints in their PyTorch form, built with the
 * `decima-ai` package's own classes and writer (small random-weight e5-shaped encoders, both text
 * variants), imported by `structqa models import`'s code and served by the engine, give the package's own
 * PyTorch answers (its System One mapping, unrounded): the same token ids (so the same text) and every
 * probability within 1e-4, over hundreds of varied requests.
 * FIXTURES: random weights prove the format and the arithmetic, nothing about answer quality.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { readManifest } from '../../src/engine/manifest.js';
import type { Question } from '../../src/engine/render.js';
import { ServiceError } from '../../src/errors.js';
import { engineServing } from '../helpers/checkpoints.js';
import { modelsCli } from '../helpers/cli.js';
import { decimaCheckpoint, decimaReference, importedDecima, type DecimaVariant } from '../helpers/decima.js';
import { checkServedOverHttp, compareServed, DECIMA_WORDS, type Compared } from '../helpers/decima-compare.js';
import { importPython } from '../helpers/laya.js';
import { requests, SCRIPTS, sourceBodies } from '../helpers/requests.js';

async function compare(variant: DecimaVariant, texts: string[], leftOut = 0.1): Promise<Compared> {
  const reference = decimaReference(decimaCheckpoint(variant), `[${texts.join(',\n')}]`);
  return compareServed(await importedDecima(variant), reference, texts, `decima ${variant}`, leftOut);
}

describe('Decima PyTorch checkpoints imported and served exactly (issue 22, second family)', { timeout: 30 * 60_000 }, () => {
  before(() => {
    importPython(); // installs training/requirements-import.txt (decima-ai included) into .cache/venv-import once
  });

  it('v1 (question in the state and the options, options kept whole): 210 requests in English and eight other scripts; ids equal, probabilities within 1e-4', async () => {
    const texts = requests(210, 11, Object.keys(SCRIPTS), '<mask>', DECIMA_WORDS).map((r) => JSON.stringify(r));
    const { rows, worst, spread } = await compare('v1', texts);
    assert.ok(rows >= 400, String(rows));
    assert.ok(spread > 0.3, `probabilities barely move (${spread}): the fixture would not show a wrong input`);
    process.stdout.write(`# decima v1: ${rows} questions, max |Δp| ${worst.toExponential(2)}\n`);
  });

  it('v0 (question on the option side only, right-hand cut) and bodies JSON.parse would reorder or reformat: ids equal, probabilities within 1e-4', async () => {
    const texts = [...requests(40, 12, [], '<mask>', DECIMA_WORDS).map((r) => JSON.stringify(r)), ...sourceBodies(40, 13)];
    // v0 puts the whole question in every option and cuts on the right: a long question (the JSON
    // instructions of the source bodies) is cut there, which the engine refuses; up to a fifth left out
    const { rows, worst } = await compare('v0', texts, 0.2);
    assert.ok(rows >= 150, String(rows));
    process.stdout.write(`# decima v0: ${rows} questions, max |Δp| ${worst.toExponential(2)}\n`);
  });

  it('the manifest records the late-interaction layout and decima.json\'s budgets, prefixes and settings', async () => {
    const m = readManifest(await importedDecima('v1'));
    assert.equal(m.layout, 'late-interaction');
    assert.deepEqual(m.late_interaction, {
      max_state_tokens: 256, max_choice_tokens: 48, state_prefix: 'query: ', choice_prefix: 'passage: ',
      question_in_state: true, question_in_choices: true, choice_fit: true,
    });
    assert.equal(m.window, 256);
    assert.deepEqual(m.languages, ['*']);
    assert.deepEqual(m.special_tokens, { cls: '<s>', sep: '</s>', mask: '<mask>', pad: '<pad>' });
    assert.deepEqual(m.calibration.temperature, {});
    assert.equal((m.provenance as { temperature_in_graph: number }).temperature_in_graph, 1.3);
    assert.equal(readManifest(await importedDecima('v0')).late_interaction!.question_in_state, false);
  });

  it('nothing is cut: a state over the state budget is 413 with each question\'s room, an option over the option budget and options that render alike are 422', async () => {
    const dir = await importedDecima('v1');
    const m = readManifest(dir);
    const engine = engineServing(m.name, dir);
    await engine.start();
    const status = async (questions: Record<string, Question>, state: unknown): Promise<ServiceError> => {
      try {
        await engine.prepare(m.name, questions, state);
      } catch (e) {
        assert.ok(e instanceof ServiceError, String(e));
        return e;
      }
      assert.fail('expected a refusal');
    };
    try {
      const q: Record<string, Question> = { n: { type: 'noul', instructions: 'late' } };
      const long = await status(q, 'refund order late '.repeat(200));
      assert.equal(long.status, 413);
      assert.equal(long.code, 'state_too_long');
      const rooms = (long.extra as { questions: Record<string, { room: number; overflow: number }> }).questions;
      assert.ok(rooms['n']!.overflow > 0 && rooms['n']!.room > 100, JSON.stringify(rooms));
      const option = await status({ c: { type: 'choice', instructions: 'x', criteria: { a: 'refund '.repeat(60), b: null } } }, 'hi');
      assert.equal(option.status, 422);
      assert.match(option.message, /at most 48 per option and nothing is cut/);
      const alike = await status({ c: { type: 'choice', instructions: 'x', criteria: { 'a: b': null, a: 'b' } } }, 'hi');
      assert.equal(alike.status, 422);
      assert.match(alike.message, /render to the same text/);
      // a state that fits is answered
      const ok = await engine.answer(await engine.prepare(m.name, q, 'refund order late'));
      assert.ok(ok.answers['n']!.type === 'noul');
    } finally {
      await engine.close();
    }
  });

  it('served over HTTP as core-0.3.20: POST /v1/systemone answers as decima does; too long a state is 413, too long an option 422', async () => {
    await checkServedOverHttp(await importedDecima('v1'), (body) => decimaReference(decimaCheckpoint('v1'), body)[0]!, 'decima');
  });

  describe('refusals', () => {
    let tmp: string;
    before(() => {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'structqa-decima-'));
    });
    after(() => fs.rmSync(tmp, { recursive: true, force: true }));

    it('an incomplete Decima folder, an unsupported encoder and --int8 are refused with what and why; nothing is left behind', async () => {
      const { importCheckpoint } = await import('../../src/checkpoints/import.js');
      const half = path.join(tmp, 'half');
      fs.mkdirSync(half);
      fs.writeFileSync(path.join(half, 'decima.json'), '{}');
      await assert.rejects(importCheckpoint({ src: half, modelsDir: path.join(tmp, 'm'), name: 'x', python: importPython() }), /not a Decima checkpoint folder in PyTorch form: missing head\.safetensors, encoder\/config\.json/);
      const other = path.join(tmp, 'other');
      fs.cpSync(decimaCheckpoint('v1'), other, { recursive: true });
      fs.writeFileSync(path.join(other, 'encoder', 'config.json'), JSON.stringify({ model_type: 'deberta-v2' }));
      await assert.rejects(importCheckpoint({ src: other, modelsDir: path.join(tmp, 'm'), name: 'x', python: importPython() }), /model_type 'deberta-v2' is not supported/);
      await assert.rejects(importCheckpoint({ src: decimaCheckpoint('v1'), modelsDir: path.join(tmp, 'm'), name: 'x', python: importPython(), int8: true }), /--int8 is not available for Decima/);
      await assert.rejects(importCheckpoint({ src: decimaCheckpoint('v1'), modelsDir: path.join(tmp, 'm'), name: 'x', python: importPython(), window: 512 }), /--window does not apply/);
      assert.deepEqual(fs.existsSync(path.join(tmp, 'm')) ? fs.readdirSync(path.join(tmp, 'm')) : [], [], 'nothing left behind');
    });

    it('the CLI: models import DIR takes a Decima folder to its own importer (and says why it refuses --int8)', async () => {
      const run = modelsCli(loadConfig({ STRUCTQA_DATA_DIR: tmp, LOG_LEVEL: 'silent' }));
      const refused = await run('models', 'import', decimaCheckpoint('v1'), '--out', path.join(tmp, 'cli'), '--python', importPython(), '--int8');
      assert.equal(refused.code, 2, 'a refused input');
      assert.match(refused.err, /structqa models import: .*--int8 is not available for Decima checkpoints in PyTorch form: import the ONNX export/);
    });
  });
});
