import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { buildReport, judge, pool, runCase, type CaseResult } from '../src/eval.js';

const close = (a: number, b: number, eps = 1e-12) => assert.ok(Math.abs(a - b) <= eps, `${a} != ${b}`);

test('judge: predictions and confidences per type', () => {
  const base = { id: 'x', task: 't', state: 's' };
  const noul = judge({ ...base, question: { type: 'noul', instructions: 'q' }, expected: false }, { type: 'noul', noul: 0.3 });
  assert.equal(noul.predicted, false);
  assert.equal(noul.correct, true);
  close(noul.confidence!, 0.7);
  const at = judge({ ...base, question: { type: 'noul', instructions: 'q' }, expected: true }, { type: 'noul', noul: 0.5 });
  assert.equal(at.predicted, true); // p ≥ 0.5
  const choice = judge(
    { ...base, question: { type: 'choice', instructions: 'q', criteria: { a: 'A', b: 'B' } }, expected: 'b' },
    { type: 'choice', choice: 'a', probabilities: { a: 0.6, b: 0.4 } },
  );
  assert.equal(choice.correct, false);
  close(choice.confidence!, 0.6);
  const score = judge(
    { ...base, question: { type: 'score', instructions: 'q', criteria: ['x', 'y', 'z'] }, expected: 1 },
    { type: 'score', score: 1.1, probabilities: { '0': 0.45, '1': 0.0, '2': 0.55 } },
  );
  assert.equal(score.predicted, 2);
  assert.equal(score.correct, false);
  assert.equal(score.exact_rounded_expectation, true);
});

test('buildReport: micro, macro, per type and per language', () => {
  const r = (task: string, type: 'noul' | 'choice', correct: boolean, lang?: string): CaseResult => ({
    id: `${task}-${Math.random()}`,
    task,
    type,
    expected: type === 'noul' ? true : 'a',
    correct,
    confidence: 0.8,
    probabilities: type === 'noul' ? { true: correct ? 0.8 : 0.2, false: correct ? 0.2 : 0.8 } : { a: correct ? 0.8 : 0.2, b: correct ? 0.2 : 0.8 },
    ...(type === 'noul' ? { noul: correct ? 0.8 : 0.2 } : {}),
    latency_ms: 10,
    attempts: 1,
    ...(lang ? { lang } : {}),
  });
  const results = [r('A', 'noul', true, 'en'), r('A', 'noul', true, 'en'), r('A', 'noul', true, 'fr'), r('B', 'choice', false, 'fr'), { id: 'e', task: 'B', type: 'choice' as const, expected: 'a', attempts: 3, error: 'HTTP 500' }];
  const rep = buildReport(results);
  assert.equal(rep.answered, 4);
  assert.equal(rep.failed, 1);
  close(rep.micro_accuracy, 0.75);
  close(rep.macro_accuracy, 0.5);
  close(rep.by_type.noul!.accuracy, 1);
  assert.ok(Number.isNaN(rep.by_type.noul!.roc_auc!)); // one class only
  assert.deepEqual(Object.keys(rep.by_lang!), ['en', 'fr']);
  assert.deepEqual([rep.by_lang!.en!.cases, rep.by_lang!.en!.accuracy, rep.by_lang!.fr!.cases, rep.by_lang!.fr!.accuracy], [2, 1, 2, 0.5]);
  assert.equal(rep.by_domain, undefined, 'no case has a domain');
  assert.equal(rep.worst_tasks[0]!.task, 'B');
  close(rep.brier, (3 * 2 * 0.04 + 2 * 0.64) / 4);
});

test('runCase: retries 529/429 honouring retry-after-ms, gives up on 400', async () => {
  const seen: { auth?: string; body: string; at: number }[] = [];
  let mode: 'retry' | 'bad' = 'retry';
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      seen.push({ auth: req.headers.authorization, body, at: Date.now() });
      if (mode === 'bad') {
        res.writeHead(400, { 'x-service-error-code': 'invalid_request' }).end('{"error":"no"}');
      } else if (seen.length === 1) {
        res.writeHead(529, { 'retry-after-ms': '120', 'retry-after': '5' }).end('{}');
      } else if (seen.length === 2) {
        res.writeHead(429, { 'retry-after-ms': '10' }).end('{}');
      } else {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({ model: 'm-1', answers: { q: { type: 'noul', noul: 0.9 } }, usage: {} }),
        );
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const opts = { url, key: 'k1', model: 'legacy-latest', timeoutMs: 2000, retries: 4 };
  const c = { id: 'c', task: 't', state: { a: 1 }, question: { type: 'noul' as const, instructions: 'q?' }, expected: true };
  try {
    const r = await runCase(c, opts);
    assert.equal(r.error, undefined);
    assert.equal(r.attempts, 3);
    assert.equal(r.correct, true);
    assert.equal(r.model, 'm-1');
    assert.ok(seen[1]!.at - seen[0]!.at >= 100, 'waited retry-after-ms, not Retry-After');
    assert.equal(seen[0]!.auth, 'Bearer k1');
    assert.deepEqual(JSON.parse(seen[0]!.body), { model: 'legacy-latest', state: { a: 1 }, questions: { q: { type: 'noul', instructions: 'q?' } } });
    mode = 'bad';
    const bad = await runCase(c, opts);
    assert.equal(bad.attempts, 1);
    assert.match(bad.error!, /HTTP 400 invalid_request/);
  } finally {
    server.close();
  }
});

test('pool: bounded concurrency, input order kept', async () => {
  let inFlight = 0;
  let peak = 0;
  const out = await pool([5, 1, 4, 2, 3], 2, async (x) => {
    peak = Math.max(peak, ++inFlight);
    await new Promise((r) => setTimeout(r, x * 3));
    inFlight--;
    return x * 10;
  });
  assert.deepEqual(out, [50, 10, 40, 20, 30]);
  assert.equal(peak, 2);
});
