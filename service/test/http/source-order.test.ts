/**
 * Issue 22: the text a checkpoint reads follows the request's own text, whichever content type carried
 * it: choice options in the client's order even when their names are integer-like (JavaScript objects
 * reorder those) and numbers as written (1.0 is not 1). Fixture checkpoints (random weights): a different
 * text gives different probabilities, which is all these tests look at.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { testApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
before(async () => {
  t = await testApp();
});
after(async () => {
  await t.close();
});

async function probabilities(body: string, contentType: string): Promise<Record<string, number>> {
  const res = await t.app.inject({ method: 'POST', url: '/v1/systemone', payload: body, headers: { ...t.auth, 'content-type': contentType } });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json() as { answers: { q: { probabilities: Record<string, number> } } }).answers.q.probabilities;
}

const body = (criteria: string, state = '"The invoice page crashes on open."'): string =>
  `{"model": "core-0.3.20", "state": ${state}, "questions": {"q": {"type": "choice", "instructions": "Which team?", "criteria": ${criteria}}}}`;

test("integer-like option names keep the client's order, for application/json and for any other content type", async () => {
  for (const type of ['application/json', 'text/plain']) {
    const asSent = await probabilities(body('{"10": "ten", "2": "two", "b": "bee"}'), type);
    const jsOrder = await probabilities(body('{"2": "two", "10": "ten", "b": "bee"}'), type);
    // JSON.parse makes both bodies the same object; the model reads two different texts
    assert.notDeepEqual(asSent, jsOrder, type);
    assert.deepEqual(await probabilities(body('{"10": "ten", "2": "two", "b": "bee"}'), type === 'text/plain' ? 'application/json' : 'text/plain'), asSent);
  }
});

test('numbers in the state are read as written (1.0 and 1 are different texts)', async () => {
  const criteria = '{"billing": "money", "tech": "bugs"}';
  const float = await probabilities(body(criteria, '{"amount": 1.0, "ratio": 1e-7}'), 'application/json');
  const int = await probabilities(body(criteria, '{"amount": 1, "ratio": 1e-7}'), 'application/json');
  assert.notDeepEqual(float, int);
});
