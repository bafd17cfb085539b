/**
 * `structqa models calibrate` end to end on a fixture checkpoint (random weights: only the relation
 * between its logits and labels drawn from a known temperature is tested, never answer quality): the fit
 * recovers the temperature through the engine, writes it with the shipped table kept, the engine then
 * serves it; a fit that makes held-out log-loss worse is refused; bad input exits 2 and writes nothing.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { clampTemperature, softmax } from '../../src/engine/calibrate.js';
import { readManifest, type OptionBucket } from '../../src/engine/manifest.js';
import { loadConfig } from '../../src/config.js';
import { buildFixture } from '../../src/fixtures/index.js';
import { history } from '../../src/quality/calibration-history.js';
import type { EvalCase } from '../../src/quality/cases.js';
import { DEFAULT_HOLDOUT, DEFAULT_SEED, holdoutSplit } from '../../src/quality/holdout.js';
import { fitTemperature } from '../../src/quality/temperature-fit.js';
import { labelled, unlabelled, writeJsonl } from '../helpers/calibration-cases.js';
import { engineServing } from '../helpers/checkpoints.js';
import { modelsCli, type ModelsCli } from '../helpers/cli.js';

const NAME = 'calibrate-tiny-1.0.0';
const here = path.dirname(fileURLToPath(import.meta.url));

describe('structqa models calibrate', () => {
  let tmp: string;
  let shipped: string;
  let cli: ModelsCli;
  let cases: EvalCase[];
  let logits: Map<string, number[]>;
  const copy = (label: string) => {
    const dir = path.join(tmp, label);
    fs.cpSync(shipped, dir, { recursive: true });
    return dir;
  };
  const manifestText = (dir: string) => fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8');

  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sqa-calibrate-'));
    shipped = path.join(tmp, 'shipped');
    await buildFixture('tiny', shipped, { name: NAME });
    cli = modelsCli(loadConfig({ STRUCTQA_DATA_DIR: tmp, STRUCTQA_MODELS_DIR: tmp, STRUCTQA_SHARED_WEIGHTS: '0', LOG_LEVEL: 'silent' }));
    ({ cases, logits } = await labelled(shipped, NAME, unlabelled(500, 400, 7), 2));
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('recovers the temperature the labels were drawn from, writes it keeping the shipped table, and the engine serves it', async () => {
    const dir = copy('recover');
    const file = writeJsonl(path.join(tmp, 'labelled.jsonl'), cases);
    const out = path.join(tmp, 'out-recover');
    const shippedCalibration = readManifest(dir).calibration;
    const r = await cli('models', 'calibrate', dir, '--cases', file, '--write', '--out', out, '--min-cases', '40');
    assert.equal(r.code, 0, r.err + r.out);
    assert.match(r.out, /FIXTURE: random weights/);
    assert.match(r.out, /predicted option unchanged on 270 of 270 held-out cases/);
    const m = readManifest(dir);
    const noul = m.calibration.temperature.noul!['2']!;
    const choice = m.calibration.temperature.choice!['3-5']!;
    assert.ok(choice > 1.5 && choice < 2.7, `choice T ${choice}`);
    // this fixture's noul margins hardly vary (T is weakly identified there): the command's fit must be
    // the maximum-likelihood fit of the fitting split's nouls, on the logits the engine gave this test
    const fitting = holdoutSplit(cases, DEFAULT_HOLDOUT, DEFAULT_SEED).fit.filter((c) => c.question.type === 'noul');
    const expected = fitTemperature(fitting.map((c) => ({ logits: logits.get(c.id)!, label: c.expected ? 1 : 0 })));
    assert.equal(noul, Number(clampTemperature(expected).toFixed(4)));
    // thin buckets (no 2-, 6–10- or 11+-option choices) took the type's temperature
    const fit = JSON.parse(fs.readFileSync(path.join(out, 'fit.json'), 'utf8')) as { cells: { type: string; bucket: OptionBucket; source: string; value: number }[] };
    const thin = fit.cells.filter((c) => c.type === 'choice' && c.bucket !== '3-5');
    assert.deepEqual(thin.map((c) => [c.bucket, c.source]), [['2', 'type'], ['6-10', 'type'], ['11+', 'type']]);
    const pooled = fitTemperature(holdoutSplit(cases, DEFAULT_HOLDOUT, DEFAULT_SEED).fit.filter((c) => c.question.type === 'choice').map((c) => {
      const keys = Object.keys(c.question.criteria as object);
      return { logits: logits.get(c.id)!, label: keys.indexOf(c.expected as string) };
    }));
    for (const c of thin) assert.equal(m.calibration.temperature.choice![c.bucket], Number(clampTemperature(pooled).toFixed(4)));
    // the shipped table is in the history, verbatim
    const past = history(m);
    assert.equal(past.length, 1);
    assert.deepEqual(past[0]!.replaced, shippedCalibration);
    assert.equal(past[0]!.by, 'structqa models calibrate');
    // outputs: the report, both diagrams, and the held-out cases as a suite npm run eval reads
    assert.match(fs.readFileSync(path.join(out, 'report.txt'), 'utf8'), /held-out split/);
    for (const png of ['reliability-before.png', 'reliability-after.png']) assert.equal(fs.readFileSync(path.join(out, png)).subarray(1, 4).toString(), 'PNG');
    assert.equal(fs.readFileSync(path.join(out, `${NAME}-holdout.jsonl`), 'utf8').trim().split('\n').length, 270);
    // the engine now answers softmax(logits / fitted T)
    const engine = engineServing(NAME, dir);
    await engine.start();
    try {
      const c = cases.find((x) => x.question.type === 'noul')!;
      const answered = await engine.answer(await engine.prepare(NAME, { q: c.question as never }, c.state));
      const answer = answered.answers.q as { noul: number };
      assert.ok(Math.abs(answer.noul - softmax(logits.get(c.id)!, noul)[1]!) < 1e-6);
    } finally {
      await engine.close();
    }
    // --restore puts the shipped table back (and keeps the fit in the history)
    const dry = await cli('models', 'calibrate', dir, '--restore');
    assert.equal(dry.code, 0);
    assert.deepEqual(readManifest(dir).calibration, m.calibration, 'without --write nothing changes');
    const restored = await cli('models', 'calibrate', dir, '--restore', '--write');
    assert.equal(restored.code, 0, restored.err);
    assert.deepEqual(readManifest(dir).calibration, shippedCalibration);
    assert.equal(history(readManifest(dir)).length, 2);
  });

  it('without --write writes nothing', async () => {
    const dir = copy('dry');
    const before = manifestText(dir);
    const r = await cli('models', 'calibrate', dir, '--cases', writeJsonl(path.join(tmp, 'dry.jsonl'), cases));
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /--write writes this fit/);
    assert.equal(manifestText(dir), before);
  });

  it('refuses a fit that makes held-out log-loss worse', async () => {
    // fitted on labels that contradict the model (a flat fit), judged on labels that follow it sharply
    const against = (await labelled(shipped, NAME, unlabelled(150, 0, 11), 1, { against: true })).cases;
    const sharp = (await labelled(shipped, NAME, unlabelled(60, 0, 12).map((c) => ({ ...c, id: `h-${c.id}` })), 1, { sharpest: true })).cases;
    const dir = copy('refused');
    const before = manifestText(dir);
    const args = ['models', 'calibrate', dir, '--cases', writeJsonl(path.join(tmp, 'against.jsonl'), against), '--holdout', writeJsonl(path.join(tmp, 'sharp.jsonl'), sharp)];
    const dry = await cli(...args);
    assert.equal(dry.code, 0);
    assert.match(dry.out, /refused: held-out log-loss gets worse \(all, noul\); --write would refuse it/);
    const r = await cli(...args, '--write');
    assert.equal(r.code, 1);
    assert.match(r.out, /nothing written/);
    assert.match(r.out, /clamped: the fit ≥100 is outside \[0.5, 5\]/);
    assert.equal(manifestText(dir), before);
  });

  it('bad input: one line, exit 2, nothing written', async () => {
    const dir = copy('bad');
    const before = manifestText(dir);
    const jsonl = (name: string, lines: unknown[]) => {
      const file = path.join(tmp, name);
      fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n'));
      return file;
    };
    const noul = (i: number) => ({ id: `b-${i}`, state: 'the order is late', question: { type: 'noul', instructions: 'late?' }, answer: i % 2 === 0 });
    const good = jsonl('good.jsonl', cases.slice(0, 200).map((c) => ({ id: c.id, state: c.state, question: c.question, answer: c.expected })));
    const table: [string[], RegExp][] = [
      [['--cases', path.join(tmp, 'missing.jsonl')], /cannot read cases: .*ENOENT/],
      [['--cases', jsonl('label.jsonl', [{ id: 'x', state: 's', question: { type: 'choice', criteria: { a: null, b: null } }, answer: 'zzz' }])], /expected "zzz" is not a label/],
      [['--cases', jsonl('type.jsonl', [{ id: 'x', state: 's', question: { type: 'rank' }, answer: 1 }])], /unknown question type "rank"/],
      [['--cases', jsonl('few.jsonl', Array.from({ length: 20 }, (_, i) => noul(i)))], /too few cases to fit: noul 14, choice 0, score 0 in the fitting split; a type needs at least 30/],
      [['--cases', jsonl('one.jsonl', [{ id: 'x', state: 's', question: { type: 'choice', criteria: { only: null } }, answer: 'only' }])], /the service would refuse this question \(question.criteria: Expected object to have at least 2 properties\)/],
      [['--cases', good, '--holdout', '1.5'], /--holdout takes a share between 0 and 1/],
      [['--cases', good, '--holdout', good], /held-out cases are also among --cases/],
      [['--cases', good, '--types', 'noul,rank'], /--types takes noul, choice, score/],
      [['--cases', good, '--min-cases', 'x'], /--min-cases must be an integer/],
      [['--cases', good, '--cases', good], /appears twice/],
      [[], /give the labelled cases with --cases/],
    ];
    for (const [args, message] of table) {
      const r = await cli('models', 'calibrate', dir, ...args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.out}${r.err}`);
      assert.match(r.err, message);
      assert.equal(r.err.trim().split('\n').length, 1, r.err);
    }
    const missing = await cli('models', 'calibrate', path.join(tmp, 'nowhere'), '--cases', good);
    assert.equal(missing.code, 2);
    assert.match(missing.err, /no checkpoint folder/);
    assert.equal(manifestText(dir), before);
    const odd = copy('odd-history');
    const manifest = JSON.parse(manifestText(odd));
    manifest.provenance.calibration_history = 'not a list';
    fs.writeFileSync(path.join(odd, 'manifest.json'), JSON.stringify(manifest));
    const refused = await cli('models', 'calibrate', odd, '--cases', good, '--write');
    assert.equal(refused.code, 2);
    assert.match(refused.err, /manifest\.json: provenance\.calibration_history is not a list/);
    // commander's own usage errors exit 2 from the structqa command too
    const bin = path.resolve(here, '../../bin/structqa.js');
    const spawned = spawnSync(process.execPath, [bin, 'models', 'calibrate', dir, '--no-such-option'], { encoding: 'utf8' });
    assert.equal(spawned.status, 2, spawned.stderr);
    assert.match(spawned.stderr, /unknown option '--no-such-option'/);
  });
});
