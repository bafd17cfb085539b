/**
 * `structqa models calibrate` on imported checkpoints, as on the bundled ones: a Laya checkpoint
 * (ModernBERT, marker layout, imported from laya's PyTorch form) and a Decima one (late interaction,
 * imported from its ONNX export). Labels are drawn from the checkpoint's own logits at a known T; the
 * command fits (the maximum-likelihood temperatures of its fitting split), writes (the imported table kept
 * in the history) and the engine then serves
 * softmax(logits / fitted T). The Laya fixture's logits are small (noul margins ±0.3), so its labels are
 * drawn at T = 0.15, below the engine's clamp: the fit is written as 0.5 and the clamp reported.
 * FIXTURES: random weights; nothing here is about answer quality.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { clampTemperature, softmax, temperatureFor } from '../../src/engine/calibrate.js';
import { readManifest } from '../../src/engine/manifest.js';
import { loadConfig } from '../../src/config.js';
import { history } from '../../src/quality/calibration-history.js';
import { DEFAULT_HOLDOUT, DEFAULT_SEED, holdoutSplit } from '../../src/quality/holdout.js';
import { fitTemperature } from '../../src/quality/temperature-fit.js';
import { labelled, unlabelled, writeJsonl } from '../helpers/calibration-cases.js';
import { engineServing } from '../helpers/checkpoints.js';
import { modelsCli, type ModelsCli } from '../helpers/cli.js';
import { importedDecimaOnnx } from '../helpers/decima-export.js';
import { importedCheckpoint } from '../helpers/laya.js';

describe('models calibrate on imported checkpoints', () => {
  let tmp: string;
  let cli: ModelsCli;
  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sqa-calibrate-imported-'));
    cli = modelsCli(loadConfig({ STRUCTQA_DATA_DIR: tmp, STRUCTQA_MODELS_DIR: tmp, STRUCTQA_SHARED_WEIGHTS: '0', LOG_LEVEL: 'silent' }));
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  const cases: [string, () => Promise<string>, number, string[]][] = [
    ['Laya (ModernBERT, marker layout)', () => importedCheckpoint('modernbert', 'sequential'), 0.15, []],
    ['Decima (ONNX export, late interaction)', () => importedDecimaOnnx('fp32'), 2, ['--by-language']],
  ];
  for (const [label, imported, t, extra] of cases) {
    it(`${label}: fits, writes keeping the imported table, and serves the fit`, async () => {
      // a copy: the cached import is shared with the exactness tests
      const dir = path.join(tmp, path.basename(await imported()));
      fs.cpSync(await imported(), dir, { recursive: true });
      const name = readManifest(dir).name;
      const shipped = readManifest(dir).calibration;
      const { cases: labelledCases, logits } = await labelled(dir, name, unlabelled(120, 120, 3), t);
      const file = writeJsonl(path.join(tmp, `${name}.jsonl`), labelledCases);
      const r = await cli('models', 'calibrate', dir, '--cases', file, '--write', ...extra);
      assert.equal(r.code, 0, r.out + r.err);
      assert.match(r.out, /held-out split/);
      assert.match(r.out, /predicted option unchanged on 72 of 72 held-out cases/);
      const m = readManifest(dir);
      assert.notDeepEqual(m.calibration, shipped);
      assert.deepEqual(history(m)[0]!.replaced, shipped);
      // the written temperatures are the maximum-likelihood fits of the fitting split, on the logits the engine gave
      const fitting = holdoutSplit(labelledCases, DEFAULT_HOLDOUT, DEFAULT_SEED).fit;
      for (const type of ['noul', 'choice'] as const) {
        const rows = fitting.filter((c) => c.question.type === type).map((c) => {
          const keys = type === 'noul' ? ['false', 'true'] : Object.keys(c.question.criteria as object);
          return { logits: logits.get(c.id)!, label: keys.indexOf(String(c.expected)) };
        });
        const written = m.calibration.temperature[type]![type === 'noul' ? '2' : '3-5']!;
        assert.equal(written, Number(clampTemperature(fitTemperature(rows)).toFixed(4)), type);
        if (t < 0.5) assert.equal(written, 0.5, `${type}: clamped`);
      }
      if (t < 0.5) assert.match(r.out, /clamped: the fit 0\.\d+ is outside \[0\.5, 5\]/);
      const engine = engineServing(name, dir);
      await engine.start();
      try {
        for (const c of labelledCases.filter((_, i) => i % 40 === 0)) {
          const prepared = await engine.prepare(name, { q: c.question as never }, c.state);
          const answer = (await engine.answer(prepared, { route: { language: 'en' } })).answers.q!;
          const t = temperatureFor(m.calibration, c.question.type, logits.get(c.id)!.length, 'en');
          const p = softmax(logits.get(c.id)!, t);
          const got = answer.type === 'noul' ? [1 - answer.noul, answer.noul] : prepared.laidOut.heads[0]!.keys.map((k) => (answer as { probabilities: Record<string, number> }).probabilities[k]!);
          got.forEach((x, i) => assert.ok(Math.abs(x - p[i]!) < 1e-6, `${c.id}: ${x} vs ${p[i]}`));
        }
      } finally {
        await engine.close();
      }
    });
  }
});
