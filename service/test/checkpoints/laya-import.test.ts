/**
 * Issue 22: Laya checkpoints in their PyTorch form, built with the `laya` package's own classes and
 * writer (small random-weight ModernBERT- and mmBERT-shaped encoders, both option layouts), imported by
 * `structqa models import`'s code and served by the engine, give laya's own PyTorch answers: the same
 * token ids (so the same text) and every probability within 1e-4, over hundreds of varied requests.
 * FIXTURES: random weights prove the format and the arithmetic, nothing about answer quality.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { readManifest } from '../../src/engine/manifest.js';
import { parseSourceJson } from '../../src/engine/source-json.js';
import type { Question } from '../../src/engine/render.js';
import { engineServing } from '../helpers/checkpoints.js';
import { modelsCli } from '../helpers/cli.js';
import { importedCheckpoint, importPython, layaCheckpoint, layaReference, sh, type LayaFamily, type LayaLayout } from '../helpers/laya.js';
import { requests, SCRIPTS, sourceBodies, type Request } from '../helpers/requests.js';

const TOLERANCE = 1e-4;
const INT8_SAME = fileURLToPath(new URL('../helpers/int8_same_as_onnxruntime.py', import.meta.url));

async function compare(
  family: LayaFamily,
  layout: LayaLayout,
  count: number,
  seed: number,
  scripts: string[],
  bodies?: string[],
  opts: { externalData?: boolean } = {},
): Promise<{ rows: number; worst: number }> {
  const dir = await importedCheckpoint(family, layout, opts);
  const manifest = readManifest(dir);
  // each body is parsed as the HTTP layer parses it (key order and number texts kept for rendering)
  const texts = bodies ?? requests(count, seed, scripts, manifest.special_tokens.mask).map((req) => JSON.stringify(req));
  const reqs = texts.map((t) => parseSourceJson(t) as Request);
  const reference = layaReference(layaCheckpoint(family, layout), `[${texts.join(',\n')}]`);
  const engine = engineServing(manifest.name, dir, { maxQueuedRows: 4096 });
  await engine.start();
  let rows = 0;
  let cut = 0;
  let worst = 0;
  try {
    for (const [i, req] of reqs.entries()) {
      const prepared = await engine.prepare(manifest.name, req.questions, req.state);
      const answered = await engine.answer(prepared);
      prepared.names.forEach((name, j) => {
        const want = reference[i]![name]!;
        assert.equal(want.truncated, false, `request ${i} ${name}: laya cut the state (the test must stay inside the window)`);
        if (want.head_cut) {
          cut++; // laya cut an option or the head: out of the engine's scope (it never cuts); counted, not compared
          return;
        }
        assert.deepEqual([...prepared.laidOut.rows[j]!.ids], want.ids, `request ${i} ${name}: token ids differ from laya's (${JSON.stringify(req)})`);
        const a = answered.answers[name]!;
        // laya's probabilities are in the client's option order (the head's keys), which a JS record may not iterate in
        const got = a.type === 'noul' ? [1 - a.noul, a.noul] : prepared.laidOut.heads[j]!.keys.map((key) => a.probabilities[key]!);
        assert.equal(got.length, want.probabilities.length);
        got.forEach((p, k) => {
          const d = Math.abs(p - want.probabilities[k]!);
          worst = Math.max(worst, d);
          assert.ok(d <= TOLERANCE, `request ${i} ${name} option ${k}: ${p} vs laya ${want.probabilities[k]} (${JSON.stringify(req)})`);
        });
        rows++;
      });
    }
  } finally {
    await engine.close();
  }
  assert.ok(cut <= rows / 5, `${cut} questions were cut by laya (${rows} compared): the generator should stay inside its budgets`);
  return { rows, worst };
}

describe('Laya PyTorch checkpoints imported and served exactly (issue 22)', { timeout: 30 * 60_000 }, () => {
  before(() => {
    importPython(); // installs training/requirements-import.txt into .cache/venv-import once
  });

  it('ModernBERT-shaped, marker (sequential) layout: 210 requests, English; ids equal, probabilities within 1e-4', async () => {
    const { rows, worst } = await compare('modernbert', 'sequential', 210, 1, []);
    assert.ok(rows >= 210, String(rows));
    process.stdout.write(`# modernbert sequential: ${rows} questions, max |Δp| ${worst.toExponential(2)}\n`);
  });

  it('mmBERT-shaped, parallel-option layout: 210 requests in English and eight other scripts; ids equal, probabilities within 1e-4', async () => {
    const { rows, worst } = await compare('mmbert', 'parallel', 210, 2, Object.keys(SCRIPTS));
    assert.ok(rows >= 210, String(rows));
    process.stdout.write(`# mmbert parallel: ${rows} questions, max |Δp| ${worst.toExponential(2)}\n`);
  });

  it('the other two combinations (ModernBERT parallel; mmBERT sequential, its weights in an external-data file): 40 requests each', async () => {
    for (const [family, layout, scripts, externalData] of [['modernbert', 'parallel', [], false], ['mmbert', 'sequential', Object.keys(SCRIPTS), true]] as const) {
      const { rows } = await compare(family, layout, 40, 3, [...scripts], undefined, { externalData });
      assert.ok(rows >= 40);
    }
    const external = await importedCheckpoint('mmbert', 'sequential', { externalData: true });
    assert.ok(fs.statSync(path.join(external, 'model.onnx.data')).size > 4 * fs.statSync(path.join(external, 'model.onnx')).size);
  });

  it('the text is laya\'s byte for byte where JSON.parse loses it: integer-like keys in the client\'s order, numbers as Python writes them (ids equal)', async () => {
    const { rows } = await compare('modernbert', 'sequential', 0, 0, [], sourceBodies(100, 5));
    assert.ok(rows >= 200, String(rows));
  });

  it('--int8: an int8 graph with its agreement against laya reported in the manifest, served one row per run when opted in', async () => {
    const dir = await importedCheckpoint('modernbert', 'sequential');
    const m = readManifest(dir);
    assert.equal(m.files.model_int8, 'model.int8.onnx');
    const int8 = (m.provenance as { int8: { rows: number; argmax_agreement: number; quantized_matmuls: number } }).int8;
    assert.equal(int8.rows, 60);
    assert.ok(int8.quantized_matmuls > 0);
    // random weights with sharp attention are harder on int8 than a trained model; this guards the wiring
    assert.ok(int8.argmax_agreement >= 0.7, String(int8.argmax_agreement));
    const engine = engineServing(m.name, dir, { int8: true, maxQueuedRows: 4096 });
    await engine.start();
    try {
      assert.equal((engine.status.checkpoints[m.name] as { precision: string }).precision, 'int8');
      const q: Record<string, Question> = { c: { type: 'choice', instructions: 'Which team?', criteria: { billing: 'money', tech: 'bugs', sales: null } } };
      const a = (await engine.answer(await engine.prepare(m.name, q, 'The invoice page crashes.'))).answers['c'] as { probabilities: Record<string, number> };
      assert.ok(Math.abs(Object.values(a.probabilities).reduce((x, y) => x + y, 0) - 1) < 1e-6);
    } finally {
      await engine.close();
    }
  });

  it('--int8: the graph, made one weight at a time (training/quantize.py), is onnxruntime quantize_dynamic\'s node for node and tensor for tensor, weights inside the graph or in an external-data file', async () => {
    const dir = await importedCheckpoint('modernbert', 'sequential');
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'structqa-int8-'));
    try {
      const report = JSON.parse(sh(importPython(), [INT8_SAME, path.join(dir, 'model.onnx'), work])) as Record<
        'inline' | 'external',
        { quantized_matmuls: number; nodes: number; initializers: number; ours_has_data_file: boolean; differences: string[]; max_abs_logit_diff: number }
      >;
      for (const form of ['inline', 'external'] as const) {
        const r = report[form];
        assert.deepEqual(r.differences, [], form);
        assert.equal(r.max_abs_logit_diff, 0, form);
        assert.equal(r.ours_has_data_file, form === 'external');
        assert.ok(r.quantized_matmuls >= 20 && r.nodes > 1000, JSON.stringify(r));
      }
      const m = readManifest(dir);
      assert.equal((m.provenance as { int8: { quantized_matmuls: number } }).int8.quantized_matmuls, report.inline.quantized_matmuls);
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  });

  it('the manifest carries the window, special tokens and every temperature of the config', async () => {
    const en = readManifest(await importedCheckpoint('modernbert', 'sequential'));
    assert.equal(en.window, 512);
    assert.deepEqual(en.languages, ['en']);
    assert.deepEqual(en.special_tokens, { cls: '[CLS]', sep: '[SEP]', mask: '[MASK]', pad: '[PAD]' });
    assert.deepEqual(en.calibration.temperature, {
      choice: { '2': 1.1, '3-5': 1.6, '6-10': 1.3, '11+': 0.5 }, // the config's 0.1006, as laya applies it (its clamp), with a warning
      score: { '2': 0.8, '3-5': 0.8, '6-10': 2.2, '11+': 0.8 },
      noul: { '2': 0.9 },
    });
    const mm = readManifest(await importedCheckpoint('mmbert', 'parallel'));
    assert.equal(mm.window, 1024);
    assert.deepEqual(mm.languages, ['*']);
    assert.deepEqual(mm.special_tokens, { cls: '<bos>', sep: '<eos>', mask: '<mask>', pad: '<pad>' });
    assert.equal((mm.provenance as { option_layout: string }).option_layout, 'parallel');
  });

  describe('refusals', () => {
    let tmp: string;
    before(() => {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'structqa-import-'));
    });
    after(() => fs.rmSync(tmp, { recursive: true, force: true }));

    it('a folder that is not a Laya checkpoint, an unsupported encoder, and a missing Python toolchain are refused clearly', async () => {
      const { laya } = await import('../../src/checkpoints/laya.js');
      await assert.rejects(laya.import({ src: tmp, modelsDir: path.join(tmp, 'm'), name: 'x', python: importPython() }), /missing rl_agent_config\.json, model\.safetensors/);
      const bert = path.join(tmp, 'bert');
      fs.cpSync(layaCheckpoint('modernbert', 'sequential'), bert, { recursive: true });
      fs.writeFileSync(path.join(bert, 'encoder', 'config.json'), JSON.stringify({ model_type: 'deberta-v2' }));
      await assert.rejects(laya.import({ src: bert, modelsDir: path.join(tmp, 'm'), name: 'x', python: importPython() }), /model_type 'deberta-v2' is not supported/);
      const noPython = path.join(tmp, 'no-python');
      await assert.rejects(
        laya.import({ src: layaCheckpoint('modernbert', 'sequential'), modelsDir: path.join(tmp, 'm'), name: 'x', python: noPython }),
        /requirements-import\.txt/,
      );
      assert.deepEqual(fs.existsSync(path.join(tmp, 'm')) ? fs.readdirSync(path.join(tmp, 'm')) : [], [], 'nothing left behind');
    });

    it('the CLI: models import DIR tells the user what to install when its Python lacks the tooling, and imports with --python', async () => {
      const config = loadConfig({ STRUCTQA_DATA_DIR: tmp, LOG_LEVEL: 'silent' });
      const run = modelsCli(config, { STRUCTQA_IMPORT_PYTHON: '/nonexistent/python3' });
      const src = layaCheckpoint('modernbert', 'sequential');
      const missing = await run('models', 'import', src, '--out', path.join(tmp, 'cli'));
      assert.equal(missing.code, 1);
      assert.match(missing.err, /pip install -r \S*training\/requirements-import\.txt/);
      assert.match(missing.err, /--python/);
      const ok = await run('models', 'import', src, '--out', path.join(tmp, 'cli'), '--name', 'core-0.3.20', '--python', importPython(), '--check-rows', '4');
      assert.equal(ok.code, 0, ok.err);
      assert.equal(ok.out, `${path.join(tmp, 'cli', 'core-0.3.20')}\n`);
      assert.equal(readManifest(path.join(tmp, 'cli', 'core-0.3.20')).name, 'core-0.3.20');
    });
  });
});

