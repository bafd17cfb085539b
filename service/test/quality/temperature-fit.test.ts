/**
 * The temperature fit of `structqa models calibrate`: on logits whose labels are drawn from a known
 * temperature the maximum-likelihood fit recovers it; thin buckets take their type's temperature, thin
 * types keep the checkpoint's; the clamp is applied and reported; per-language overrides only where a
 * language has the cases.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { softmax } from '../../src/engine/calibrate.js';
import type { QuestionType } from '../../src/engine/manifest.js';
import { Prng } from '../../src/fixtures/prng.js';
import { caseLogLoss, fitCalibration, fitTemperature, meanLogLoss, FIT_T_MAX, FIT_T_MIN, type FitCase } from '../../src/quality/temperature-fit.js';

/** `n` cases of `options` options: logits ~ uniform(−4, 4), the label drawn from softmax(logits / t). */
function drawn(rng: Prng, n: number, options: number, t: number, extra: Partial<FitCase> = {}): FitCase[] {
  return Array.from({ length: n }, () => {
    const logits = Array.from({ length: options }, () => rng.uniform() * 8 - 4);
    const p = softmax(logits, t);
    let u = rng.uniform();
    let label = 0;
    while (label < options - 1 && u >= p[label]!) u -= p[label++]!;
    return { type: (options === 2 ? 'noul' : 'choice') as QuestionType, language: 'en', logits, label, ...extra };
  });
}

test('the fit recovers the temperature the labels were drawn from', () => {
  const rng = new Prng(1);
  for (const t of [0.7, 1, 2.5, 4]) {
    for (const options of [2, 4, 8]) {
      const fitted = fitTemperature(drawn(rng, 4000, options, t));
      assert.ok(Math.abs(fitted / t - 1) < 0.12, `T ${t}, ${options} options: fitted ${fitted.toFixed(3)}`);
    }
  }
});

test('the fit is the minimum of the log-loss', () => {
  const rows = drawn(new Prng(2), 500, 5, 1.7);
  const t = fitTemperature(rows);
  for (const factor of [0.9, 0.99, 1.01, 1.1]) assert.ok(meanLogLoss(rows, t) <= meanLogLoss(rows, t * factor) + 1e-12, `factor ${factor}`);
  // the log-loss is −ln of the engine's own softmax
  const r = rows[0]!;
  assert.ok(Math.abs(caseLogLoss(r.logits, r.label, 1.3) + Math.log(softmax(r.logits, 1.3)[r.label]!)) < 1e-12);
});

test('no signal fits flat (the largest T), perfect separation the smallest', () => {
  const rng = new Prng(3);
  const against = Array.from({ length: 200 }, () => {
    const logits = [rng.uniform() * 4, rng.uniform() * 4];
    return { logits, label: logits[0]! < logits[1]! ? 0 : 1 }; // always the lower logit
  });
  assert.equal(fitTemperature(against), FIT_T_MAX);
  const separated = against.map((r) => ({ ...r, label: 1 - r.label }));
  assert.equal(fitTemperature(separated), FIT_T_MIN);
});

test('thin buckets fall back to the type, thin types keep the checkpoint\'s values, the clamp is reported', () => {
  const rng = new Prng(4);
  const current = { temperature: { choice: { '6-10': 0.8 }, noul: { '2': 1.5 }, score: { '3-5': 1.2 } } };
  const cases = [
    ...drawn(rng, 600, 4, 2.0), // choice 3-5: its own fit
    ...drawn(rng, 10, 7, 0.6), // choice 6-10: thin
    ...drawn(rng, 12, 2, 1.0), // noul: too few for the type
    ...drawn(rng, 400, 4, 9.0).map((c) => ({ ...c, type: 'score' as const })), // score: fits above the clamp
  ];
  const fit = fitCalibration(current, cases, { minCases: 30, byLanguage: false });
  const cell = (type: string, bucket: string) => fit.cells.find((c) => c.type === type && c.bucket === bucket && !c.language)!;
  assert.equal(cell('choice', '3-5').source, 'own');
  assert.ok(Math.abs(cell('choice', '3-5').value - 2) < 0.3, `choice 3-5 ${cell('choice', '3-5').value}`);
  const thin = cell('choice', '6-10');
  assert.equal(thin.source, 'type');
  assert.equal(thin.cases, 10);
  assert.equal(thin.previous, 0.8);
  const pooled = fitTemperature(cases.filter((c) => c.type === 'choice'));
  assert.equal(thin.value, Number(pooled.toFixed(4)), 'a thin bucket gets the type\'s pooled fit');
  assert.equal(cell('choice', '11+').source, 'type');
  assert.equal(fit.calibration.temperature.choice!['6-10'], thin.value);
  // noul: too few cases, kept as it was
  assert.deepEqual(fit.kept, [{ type: 'noul', cases: 12 }]);
  assert.deepEqual(fit.calibration.temperature.noul, { '2': 1.5 });
  assert.equal(fit.cells.filter((c) => c.type === 'noul').length, 0);
  // score: the fit is above 5, written as 5 and reported
  const score = cell('score', '3-5');
  assert.ok(score.fitted > 5 && score.clamped && score.value === 5, JSON.stringify(score));
  assert.ok(!cell('choice', '3-5').clamped);
  // the input is not modified
  assert.deepEqual(current, { temperature: { choice: { '6-10': 0.8 }, noul: { '2': 1.5 }, score: { '3-5': 1.2 } } });
});

test('per-language overrides only where a language has the cases and differs from the default; others are left as they were', () => {
  const rng = new Prng(5);
  const current = { temperature: { noul: { '2': 1 } }, by_language: { ar: { noul: { '2': 0.9 } }, ja: { score: { '3-5': 2 } }, de: { noul: { '2': 0.6 } } } };
  const cases = [
    ...drawn(rng, 1500, 2, 3.0, { language: 'fr' }),
    ...drawn(rng, 1500, 2, 0.8, { language: 'en' }),
    ...drawn(rng, 8, 2, 1.0, { language: 'ar' }), // too few: ar's override stays
    ...drawn(rng, 3000, 2, 1.3, { language: 'und' }), // nothing detected: never an override
    ...drawn(rng, 300, 2, 1.3, { language: 'de' }), // like the default: no override, and the earlier one goes
  ];
  const fit = fitCalibration(current, cases, { minCases: 30, byLanguage: true });
  const by = fit.calibration.by_language!;
  assert.ok(Math.abs(by.fr!.noul!['2']! - 3) < 0.6, `fr ${by.fr!.noul!['2']}`);
  assert.ok(Math.abs(by.en!.noul!['2']! - 0.8) < 0.2, `en ${by.en!.noul!['2']}`);
  assert.deepEqual(by.ar, { noul: { '2': 0.9 } });
  assert.deepEqual(by.ja, { score: { '3-5': 2 } });
  assert.equal(by.und, undefined);
  assert.equal(by.de, undefined);
  assert.deepEqual(fit.defaulted.map((d) => [d.language, d.type, d.cases]), [['de', 'noul', 300]]);
  assert.ok(fit.defaulted[0]!.lr < 3.841);
  assert.ok(fit.kept.some((k) => k.language === 'ar' && k.type === 'noul' && k.cases === 8));
  // without --by-language the overrides are untouched and only the default row is fitted
  const plain = fitCalibration(current, cases, { minCases: 30, byLanguage: false });
  assert.deepEqual(plain.calibration.by_language, current.by_language);
  assert.ok(plain.cells.every((c) => c.language === undefined));
});

test('--types: only the named types are fitted', () => {
  const rng = new Prng(6);
  const cases = [...drawn(rng, 200, 2, 2), ...drawn(rng, 200, 4, 2)];
  const fit = fitCalibration({ temperature: {} }, cases, { minCases: 30, byLanguage: false, types: ['choice'] });
  assert.deepEqual(Object.keys(fit.calibration.temperature), ['choice']);
});
