/**
 * Issue 22, Decima in the form its repositories publish: the ONNX export (`onnx/<precision>/{encoder.onnx,
 * scorer.onnx, decima.json, tokenizer/}`), made offline with the package's own tools (`decima.export`, and
 * `decima.quantize`'s default int8 recipe) from the small random-weight fixture, imported by `structqa models
 * import` (training/decima/compose.py: the two published graphs composed into one) and served by the engine,
 * gives what the package's ONNX runtime (`decima.runtime.DecimaOnnx`, as its server runs it) gives on the
 * same folder: the same token ids and every probability within 1e-4, fp32 and int8, over hundreds of
 * varied requests.
 * FIXTURES: random weights prove the format and the arithmetic, nothing about answer quality.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { readManifest } from '../../src/engine/manifest.js';
import { engineServing } from '../helpers/checkpoints.js';
import { modelsCli } from '../helpers/cli.js';
import { checkServedOverHttp, compareServed, DECIMA_WORDS } from '../helpers/decima-compare.js';
import { decimaExport, decimaExportRepo, decimaOnnxReference, importedDecimaOnnx, type Precision } from '../helpers/decima-export.js';
import { importPython } from '../helpers/laya.js';
import { requests, SCRIPTS, sourceBodies } from '../helpers/requests.js';

async function compare(precision: Precision, texts: string[], leftOut = 0.1) {
  const reference = decimaOnnxReference(decimaExport(precision), `[${texts.join(',\n')}]`);
  return compareServed(await importedDecimaOnnx(precision), reference, texts, `decima onnx ${precision}`, leftOut);
}

describe('Decima ONNX exports (its published form) imported and served as DecimaOnnx answers (issue 22)', { timeout: 30 * 60_000 }, () => {
  before(() => {
    importPython();
    decimaExportRepo(); // decima.export + decima.quantize on the v1 fixture, once per scripts version
  });

  for (const [precision, seed] of [['fp32', 31], ['int8', 32]] as const) {
    it(`${precision}: 210 requests (all three types, text and JSON states, 2–40 options, English and eight other scripts) and 30 bodies JavaScript reorders; ids equal, probabilities within 1e-4 of DecimaOnnx ${precision}`, async () => {
      const texts = [...requests(210, seed, Object.keys(SCRIPTS), '<mask>', DECIMA_WORDS).map((r) => JSON.stringify(r)), ...sourceBodies(30, seed)];
      const { rows, worst, spread, types } = await compare(precision, texts, 0.15);
      assert.ok(rows >= 400, String(rows));
      assert.ok(types['choice']! >= 100 && types['score']! >= 100 && types['noul']! >= 100, JSON.stringify(types));
      assert.ok(spread > 0.3, `probabilities barely move (${spread}): the fixture would not show a wrong input`);
      process.stdout.write(`# decima onnx ${precision}: ${rows} questions ${JSON.stringify(types)}, max |Δp| vs DecimaOnnx ${worst.toExponential(2)}\n`);
    });
  }

  it('the manifest: the late-interaction layout and decima.json\'s budgets; the import\'s own check against DecimaOnnx; int8 keeps decima.quantize\'s operators (com.microsoft MatMulNBits), which onnxruntime-node runs', async () => {
    for (const precision of ['fp32', 'int8'] as const) {
      const dir = await importedDecimaOnnx(precision);
      const m = readManifest(dir);
      assert.equal(m.layout, 'late-interaction');
      assert.deepEqual(m.late_interaction, {
        max_state_tokens: 256, max_choice_tokens: 48, state_prefix: 'query: ', choice_prefix: 'passage: ',
        question_in_state: true, question_in_choices: true, choice_fit: true,
      });
      assert.equal(m.window, 256);
      assert.deepEqual(m.languages, ['*']);
      assert.deepEqual(m.special_tokens, { cls: '<s>', sep: '</s>', mask: '<mask>', pad: '<pad>' });
      assert.deepEqual(m.calibration.temperature, {});
      assert.deepEqual(m.files, { model: 'model.onnx', tokenizer: 'tokenizer.json' });
      const prov = m.provenance as { source: string; temperature_in_graph: number; check: { rows: number; max_abs_prob_diff: number }; export: { precision: string; quantize_method: string | null; custom_ops: string[] } };
      assert.equal(prov.source, 'decima-onnx-import');
      assert.equal(prov.temperature_in_graph, 1.3);
      assert.equal(prov.export.precision, precision);
      assert.ok(prov.check.rows === 48 && prov.check.max_abs_prob_diff <= 1e-4, JSON.stringify(prov.check));
      process.stdout.write(`# decima onnx ${precision}: the import's own check, ${prov.check.rows} rows batched in eights: max |Δp| ${prov.check.max_abs_prob_diff.toExponential(2)}\n`);
      const graph = fs.readFileSync(path.join(dir, 'model.onnx'));
      if (precision === 'int8') {
        assert.equal(prov.export.quantize_method, 'nbits8');
        assert.deepEqual(prov.export.custom_ops, ['com.microsoft.MatMulNBits']);
        assert.ok(graph.includes('MatMulNBits') && graph.includes('com.microsoft') && graph.includes('MatMulInteger'), 'the published int8 operators are kept');
      } else {
        assert.ok(!graph.includes('MatMulNBits') && !graph.includes('MatMulInteger'));
      }
      const engine = engineServing(m.name, dir);
      await engine.start();
      try {
        assert.equal(engine.checkpoints.get(m.name)!.precision, precision, 'the arithmetic the graph runs in, as /readyz reports it');
      } finally {
        await engine.close();
      }
    }
  });

  it('served over HTTP as core-0.3.20 (int8, as Decima serves by default): POST /v1/systemone answers as DecimaOnnx does; too long a state is 413, too long an option 422', async () => {
    await checkServedOverHttp(await importedDecimaOnnx('int8'), (body) => decimaOnnxReference(decimaExport('int8'), body)[0]!, 'DecimaOnnx', async (t) => {
      const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
      assert.match(ready.body, /"precision":"int8"/);
    });
  });

  describe('refusals', () => {
    let tmp: string;
    before(() => {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'structqa-decima-onnx-'));
    });
    after(() => fs.rmSync(tmp, { recursive: true, force: true }));

    it('an incomplete export, a decima.json without the ordinal head, graphs of another shape, --int8 and --window are refused with what and why; nothing is left behind', async () => {
      const { importCheckpoint } = await import('../../src/checkpoints/import.js');
      const models = path.join(tmp, 'm');
      const attempt = (src: string, extra: Record<string, unknown> = {}) => importCheckpoint({ src, modelsDir: models, name: 'x', python: importPython(), checkRows: 8, ...extra });
      const copy = (name: string): string => {
        const d = path.join(tmp, name);
        fs.cpSync(decimaExport('fp32'), d, { recursive: true });
        return d;
      };
      const half = copy('half');
      fs.rmSync(path.join(half, 'scorer.onnx'));
      fs.rmSync(path.join(half, 'tokenizer'), { recursive: true });
      await assert.rejects(attempt(half), /not a Decima ONNX export: missing scorer\.onnx, tokenizer\/tokenizer\.json/);
      const noHead = copy('no-ordinal');
      const cfg = JSON.parse(fs.readFileSync(path.join(noHead, 'decima.json'), 'utf8'));
      delete cfg.ordinal;
      fs.writeFileSync(path.join(noHead, 'decima.json'), JSON.stringify(cfg));
      await assert.rejects(attempt(noHead), /decima\.json: no ordinal: DecimaOnnx needs/);
      const swapped = copy('swapped');
      fs.copyFileSync(path.join(swapped, 'encoder.onnx'), path.join(swapped, 'scorer.onnx'));
      await assert.rejects(attempt(swapped), /scorer\.onnx: inputs \['input_ids', 'attention_mask'\] and 1 outputs, expected \['state_h', 'state_mask', 'choice_h', 'choice_mask'\] and 2/);
      await assert.rejects(attempt(decimaExport('int8'), { int8: true }), /--int8 does not apply to a Decima ONNX export/);
      await assert.rejects(attempt(decimaExport('int8'), { window: 512 }), /--window does not apply/);
      const fp32Only = path.join(tmp, 'repo-fp32-only');
      fs.mkdirSync(path.join(fp32Only, 'onnx'), { recursive: true });
      fs.cpSync(decimaExport('fp32'), path.join(fp32Only, 'onnx', 'fp32'), { recursive: true });
      await assert.rejects(attempt(fp32Only), /no onnx\/int8\/decima\.json: the folder holds the Decima ONNX export in fp32 \(--precision\)/);
      assert.deepEqual(fs.existsSync(models) ? fs.readdirSync(models) : [], [], 'nothing left behind');
    });

    it('the CLI: models import of a repository folder takes onnx/<precision>/ (--precision) and reports its agreement check', async () => {
      const run = modelsCli(loadConfig({ STRUCTQA_DATA_DIR: tmp, LOG_LEVEL: 'silent' }));
      const out = path.join(tmp, 'cli');
      const ok = await run('models', 'import', decimaExportRepo(), '--out', out, '--name', 'decima-small-fp32', '--precision', 'fp32', '--python', importPython(), '--check-rows', '16');
      assert.equal(ok.code, 0, ok.err);
      assert.equal(ok.out, `${path.join(out, 'decima-small-fp32')}\n`);
      assert.match(ok.err, /agreement with decima\.runtime\.DecimaOnnx on this folder \(fp32\): largest probability difference \d\.\de-\d+ over 16 rows/);
      assert.equal((readManifest(path.join(out, 'decima-small-fp32')).provenance as { export: { precision: string } }).export.precision, 'fp32');
      const bad = await run('models', 'import', decimaExportRepo(), '--out', out, '--precision', 'fp16', '--python', importPython());
      assert.equal(bad.code, 2, 'a refused argument');
      assert.match(bad.err, /--precision must be fp32 or int8/);
    });
  });
});
