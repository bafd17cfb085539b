// The trained checkpoints committed in checkpoints/: the default configuration serves them, and they
// answer clear-cut questions the way a trained model must (a random-weight graph would not, except
// by chance: each assertion below is a 1-in-2 to 1-in-4 coin for such a graph, 1 in ~2,000 for all).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BUNDLED_CHECKPOINTS_DIR, ENGLISH_CHECKPOINT, loadConfig, MULTILINGUAL_CHECKPOINT } from '../../src/config.js';
import { testApp, type TestApp } from '../helpers/app.js';

const bundled = (name: string) => path.join(BUNDLED_CHECKPOINTS_DIR, name);

describe('bundled trained checkpoints', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp({ env: { STRUCTQA_ENGLISH_DIR: bundled(ENGLISH_CHECKPOINT), STRUCTQA_MULTILINGUAL_DIR: bundled(MULTILINGUAL_CHECKPOINT) } });
  });
  after(() => t.close());

  it('are what the default configuration serves, and are not fixtures', () => {
    const config = loadConfig({ STRUCTQA_DATA_DIR: '/tmp/structqa-unused' });
    for (const name of [ENGLISH_CHECKPOINT, MULTILINGUAL_CHECKPOINT]) {
      assert.equal(config.models.checkpoints[name]!.dir, bundled(name));
      const manifest = JSON.parse(fs.readFileSync(path.join(bundled(name), 'manifest.json'), 'utf8'));
      assert.equal(manifest.name, name);
      assert.equal(manifest.fixture, false);
      const bytes = fs.readdirSync(bundled(name)).reduce((n, f) => n + fs.statSync(path.join(bundled(name), f)).size, 0);
      assert.ok(bytes <= 50e6, `${name} is ${bytes} bytes`);
    }
  });

  const ask = async (state: string, questions: object) => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/systemone', payload: { model: 'legacy-latest', state, questions }, headers: t.auth });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { model: string; answers: Record<string, { choice?: string; noul?: number }> };
  };

  it('English: routes a ticket to the right team, each of four', async () => {
    const team = {
      type: 'choice',
      instructions: 'Which team should handle this message?',
      criteria: {
        billing: 'Charges, invoices, refunds and payment methods',
        technical: 'Bugs, errors, crashes or something not working',
        account: 'Login, password or locked account problems',
        shipping: 'Delivery status, delays, lost or damaged parcels',
      },
    };
    const cases: [string, string][] = [
      ['My card was charged twice for the same invoice, please refund one payment.', 'billing'],
      ['The app crashes with an error every time I open the settings page.', 'technical'],
      ['I forgot my password and now my account is locked after too many login attempts.', 'account'],
      ['My parcel was supposed to arrive last week and the tracking has not moved since.', 'shipping'],
    ];
    for (const [state, expected] of cases) {
      const out = await ask(state, { team });
      assert.equal(out.model, ENGLISH_CHECKPOINT);
      assert.equal(out.answers.team!.choice, expected, state);
    }
  });

  it('French, Japanese and Arabic states are answered by the multilingual checkpoint', async () => {
    for (const state of [
      "J'ai été débité deux fois pour le même abonnement ce mois-ci.",
      '今月、同じサブスクリプションで二回請求されました。',
      'تم خصم المبلغ من بطاقتي مرتين لنفس الاشتراك هذا الشهر.',
    ]) {
      const out = await ask(state, { billing: { type: 'noul', instructions: 'Is this about a payment or a charge?' } });
      assert.equal(out.model, MULTILINGUAL_CHECKPOINT, state);
      assert.ok(typeof out.answers.billing!.noul === 'number');
    }
  });

  it('/readyz and the README say the same about precision: fp32 arithmetic, int8-stored weights for the multilingual one', async () => {
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    const checkpoints = ready.json().checkpoints as Record<string, { precision: string; weights: string }>;
    assert.deepEqual(checkpoints[ENGLISH_CHECKPOINT], { ...checkpoints[ENGLISH_CHECKPOINT], precision: 'fp32', weights: 'fp16' });
    assert.deepEqual(checkpoints[MULTILINGUAL_CHECKPOINT], { ...checkpoints[MULTILINGUAL_CHECKPOINT], precision: 'fp32', weights: 'int8' });
    const readme = fs.readFileSync(path.join(BUNDLED_CHECKPOINTS_DIR, '..', 'README.md'), 'utf8');
    assert.match(readme, /`core-multilingual-0\.3\.20`: [^;]*int8-stored weights[^;]*fp32 arithmetic/);
    assert.match(readme, /`core-0\.3\.20`: [^;]*fp16-stored weights[^;]*fp32 arithmetic/);
  });
});
