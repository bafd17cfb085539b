// A choice question whose options do not fit one sequence beside the state is answered over several
// rows (contract §5): every option gets a probability, they sum to 1, and the processed cost counts
// every row. Runs on the fixture checkpoints (mechanics; test/engine/grouping.test.ts measures the
// bundled ones' answers under reordering and regrouping).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testApp, type TestApp } from '../helpers/app.js';

describe('POST /v1/systemone: options split across rows', () => {
  let t: TestApp;
  before(async () => {
    t = await testApp();
  });
  after(() => t.close());

  const ask = (questions: object, state: unknown = 'My card was charged twice for the March invoice.', model = 'core-multilingual-0.3.20') =>
    t.app.inject({ method: 'POST', url: '/v1/systemone', headers: t.auth, payload: { model, state, questions } });

  it('answers 255 described options with every option, summing to 1, charged for every row', async () => {
    const colours = ['red', 'green', 'blue', 'black', 'white'];
    const criteria = Object.fromEntries(Array.from({ length: 255 }, (_, i) => [`#${i + 1}`, colours[i % colours.length]!]));
    const res = await ask({ queue: { type: 'choice', instructions: 'Which queue should this ticket go to?', criteria } });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    const answer = body.answers.queue;
    assert.deepEqual(Object.keys(answer.probabilities), Object.keys(criteria));
    const sum = Object.values(answer.probabilities as Record<string, number>).reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(sum - 1) < 1e-6, `sum ${sum}`);
    assert.ok(answer.choice in criteria);
    // Charged for every row: more than one row per question, each at most the window.
    assert.ok(body.usage.processed_tokens > 1024, `processed ${body.usage.processed_tokens}`);
    assert.ok(body.usage.input_tokens <= body.usage.processed_tokens);
    assert.equal(body.usage.output_tokens, 255);
  });

  it('a state too long even for one option per row: 413 state_too_long with the room that would fit', async () => {
    const criteria = { a: 'x', b: 'y', c: 'z' };
    const long = Array.from({ length: 600 }, () => 'word').join(' ');
    const res = await ask({ q: { type: 'choice', instructions: 'Which?', criteria } }, long, 'core-0.3.20');
    assert.equal(res.statusCode, 413);
    const room = res.json().detail.questions.q.room as number;
    assert.ok(room > 0 && room < 512);
    // A state of exactly that many tokens is answered (its options split as needed).
    const state = Array.from({ length: room }, () => 'word').join(' ');
    const fits = await ask({ q: { type: 'choice', instructions: 'Which?', criteria } }, state, 'core-0.3.20');
    assert.equal(fits.statusCode, 200, fits.body);
  });
});
