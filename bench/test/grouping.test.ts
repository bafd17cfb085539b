/**
 * The per-domain, per-language and English-vs-rest tables of `npm run eval` (issue 19), table-driven:
 * each row is a set of answered cases and the figures the report must give for one slice.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadSuite, suiteFiles, type EvalCase } from '../../service/src/quality/cases.js';
import { buildReport, formatReport, type CaseResult, type GroupReport } from '../src/eval.js';
import { contrastivePairs } from '../src/pairs.js';

type Spec = { type: 'noul' | 'choice' | 'score'; lang?: string; domain?: string; expected: boolean | string | number; p: number };

/** One answered case: noul p is P(true); choice/score p is the probability of the predicted option. */
function result(s: Spec, i: number): CaseResult {
  const base = { id: `c${i}`, task: `t-${s.type}`, type: s.type, expected: s.expected, attempts: 1, latency_ms: 5, ...(s.lang ? { lang: s.lang } : {}), ...(s.domain ? { domain: s.domain } : {}) };
  if (s.type === 'noul') {
    const predicted = s.p >= 0.5;
    return { ...base, predicted, correct: predicted === s.expected, confidence: Math.max(s.p, 1 - s.p), noul: s.p, probabilities: { true: s.p, false: 1 - s.p } };
  }
  // choice/score cases here predict option "a"/0 with probability p
  const predicted = s.type === 'choice' ? 'a' : 0;
  const other = s.type === 'choice' ? 'b' : 1;
  return { ...base, predicted, correct: predicted === s.expected, confidence: s.p, probabilities: { [String(predicted)]: s.p, [String(other)]: 1 - s.p } };
}

const close = (a: number | undefined, b: number, eps = 1e-9) => assert.ok(a !== undefined && Math.abs(a - b) <= eps, `${a} != ${b}`);

interface Row {
  name: string;
  cases: Spec[];
  slice: (r: ReturnType<typeof buildReport>) => GroupReport | undefined;
  want: Partial<Record<keyof GroupReport, number>> & { absent?: (keyof GroupReport)[] };
}

const rows: Row[] = [
  {
    name: 'domain: accuracy, per-type accuracy and noul AUC within the domain only',
    cases: [
      { type: 'noul', domain: 'rag', expected: true, p: 0.9 },
      { type: 'noul', domain: 'rag', expected: false, p: 0.2 },
      { type: 'choice', domain: 'rag', expected: 'b', p: 0.7 },
      { type: 'noul', domain: 'moderation', expected: true, p: 0.1 }, // wrong, other domain
    ],
    slice: (r) => r.by_domain?.rag,
    want: { cases: 3, accuracy: 2 / 3, noul: 1, choice: 0, noul_auc: 1, absent: ['score'] },
  },
  {
    name: 'domain: AUC inverted when every true case scores below every false one',
    cases: [
      { type: 'noul', domain: 'code-review', expected: true, p: 0.3 },
      { type: 'noul', domain: 'code-review', expected: false, p: 0.6 },
      { type: 'score', domain: 'code-review', expected: 0, p: 0.8 },
    ],
    slice: (r) => r.by_domain?.['code-review'],
    want: { cases: 3, accuracy: 1 / 3, noul: 0, score: 1, noul_auc: 0 },
  },
  {
    name: 'lang: ECE of the slice (all at confidence 0.9, half right → 0.4)',
    cases: [
      { type: 'choice', lang: 'fr', expected: 'a', p: 0.9 },
      { type: 'choice', lang: 'fr', expected: 'b', p: 0.9 },
      { type: 'choice', lang: 'en', expected: 'a', p: 0.9 },
    ],
    slice: (r) => r.by_lang?.fr,
    want: { cases: 2, accuracy: 0.5, choice: 0.5, ece: 0.4, absent: ['noul', 'noul_auc'] },
  },
  {
    name: 'english vs other: every non-English language pooled',
    cases: [
      { type: 'noul', lang: 'de', expected: true, p: 0.8 },
      { type: 'noul', lang: 'ja', expected: false, p: 0.7 },
      { type: 'noul', lang: 'en', expected: true, p: 0.8 },
      { type: 'noul', expected: true, p: 0.8 }, // no language: in neither group
    ],
    slice: (r) => r.english_vs_other?.non_english,
    want: { cases: 2, accuracy: 0.5, noul: 0.5, noul_auc: 1 },
  },
  {
    name: 'english vs other: English alone',
    cases: [
      { type: 'noul', lang: 'en', expected: true, p: 0.8 },
      { type: 'noul', lang: 'en', expected: false, p: 0.4 },
      { type: 'score', lang: 'es', expected: 1, p: 0.6 },
    ],
    slice: (r) => r.english_vs_other?.english,
    want: { cases: 2, accuracy: 1, noul: 1, noul_auc: 1 },
  },
];

for (const row of rows) {
  test(`grouping: ${row.name}`, () => {
    const report = buildReport(row.cases.map(result));
    const g = row.slice(report);
    assert.ok(g, 'slice present');
    const { absent = [], ...want } = row.want;
    for (const [k, v] of Object.entries(want)) close(g[k as keyof GroupReport], v);
    for (const k of absent) assert.equal(g[k], undefined, `${k} absent`);
  });
}

test('grouping: no table without domains or languages; tables listed largest first and printed', () => {
  const bare = buildReport([result({ type: 'noul', expected: true, p: 0.9 }, 0)]);
  assert.equal(bare.by_domain, undefined);
  assert.equal(bare.by_lang, undefined);
  assert.equal(bare.english_vs_other, undefined);
  const r = buildReport(
    [
      { type: 'noul', domain: 'rag', lang: 'en', expected: true, p: 0.9 },
      { type: 'noul', domain: 'misc', lang: 'fr', expected: true, p: 0.9 },
      { type: 'noul', domain: 'misc', lang: 'fr', expected: false, p: 0.9 },
    ].map((s, i) => result(s as Spec, i)),
  );
  assert.deepEqual(Object.keys(r.by_domain!), ['misc', 'rag']);
  assert.deepEqual(Object.keys(r.english_vs_other!).sort(), ['english', 'non_english']);
  const text = formatReport(r, 'h');
  assert.match(text, /^domain\s+cases\s+accuracy\s+noul\s+choice\s+score\s+noul AUC\s+ECE$/m);
  assert.match(text, /^misc\s+2\s+50\.0%/m);
  assert.match(text, /^non_english\s+2\s+50\.0%/m);
});

test('loadSuite: a directory reads every .jsonl below it, tasks prefixed with the file path', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqa-suite-'));
  try {
    fs.mkdirSync(path.join(dir, 'en'));
    fs.mkdirSync(path.join(dir, 'multi'));
    const line = (id: string, lang: string, domain: string) =>
      JSON.stringify({ id, lang, domain, task: 'same-task', state: 's', question: { type: 'noul', instructions: 'q?' }, answer: true });
    fs.writeFileSync(path.join(dir, 'en', 'a.jsonl'), line('a-0001', 'en', 'rag') + '\n');
    fs.writeFileSync(path.join(dir, 'multi', 'fr.jsonl'), line('fr-0001', 'fr', 'misc') + '\n' + line('fr-0002', 'fr', 'misc') + '\n');
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'not a suite');
    assert.deepEqual(suiteFiles(dir).map((f) => path.relative(dir, f)), [path.join('en', 'a.jsonl'), path.join('multi', 'fr.jsonl')]);
    const cases = loadSuite(dir);
    assert.deepEqual(cases.map((c) => [c.id, c.task, c.lang, c.domain]), [
      ['a-0001', 'en/a:same-task', 'en', 'rag'],
      ['fr-0001', 'multi/fr:same-task', 'fr', 'misc'],
      ['fr-0002', 'multi/fr:same-task', 'fr', 'misc'],
    ]);
    // a file keeps the old behaviour: tasks as written
    assert.equal(loadSuite(path.join(dir, 'en', 'a.jsonl'))[0]!.task, 'same-task');
    fs.rmSync(path.join(dir, 'en'), { recursive: true });
    fs.rmSync(path.join(dir, 'multi'), { recursive: true });
    assert.throws(() => loadSuite(dir), /no \.jsonl or \.toml file/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// ---------------------------------------------------------------- contrastive noul pairs

const noulCase = (id: string, task: string, state: unknown, expected: boolean): EvalCase => ({ id, task, state, question: { type: 'noul', instructions: 'q?' }, expected });
const refund = 'Hi, the blender I ordered on 3 May arrived with a cracked jug. Please refund the 89 EUR to my card, I do not want a replacement.';

const pairRows: { name: string; cases: EvalCase[]; pairs: [string, string][] }[] = [
  { name: 'one detail changed, answers opposite: a pair', cases: [noulCase('t', 'a', refund, true), noulCase('f', 'a', refund.replace('do not want', 'would like'), false)], pairs: [['t', 'f']] },
  { name: 'same answers: no pair', cases: [noulCase('t', 'a', refund, true), noulCase('t2', 'a', refund.replace('89', '79'), true)], pairs: [] },
  { name: 'different tasks: no pair', cases: [noulCase('t', 'a', refund, true), noulCase('f', 'b', refund.replace('do not want', 'would like'), false)], pairs: [] },
  { name: 'unrelated texts: no pair', cases: [noulCase('t', 'a', refund, true), noulCase('f', 'a', 'The deploy of api 2.14 finished at 10:02 and all health checks passed.', false)], pairs: [] },
  {
    name: 'JSON states, one value changed; every true/false combination counted',
    cases: [
      noulCase('t', 'a', { status: 'approved', amount: 120, approver: 'Mia Koch', items: ['desk lamp', 'monitor arm'] }, true),
      noulCase('f1', 'a', { status: 'rejected', amount: 120, approver: 'Mia Koch', items: ['desk lamp', 'monitor arm'] }, false),
      noulCase('f2', 'a', { status: 'approved', amount: 120, approver: 'Mia Koch', items: ['desk lamp', 'monitor arm', 'chair'] }, false),
    ],
    pairs: [['t', 'f1'], ['t', 'f2']],
  },
];

for (const row of pairRows) {
  test(`contrastive pairs: ${row.name}`, () => assert.deepEqual(contrastivePairs(row.cases), row.pairs));
}

test('noul pairs in the report: true case above its twin counts 1, tie ½, unanswered pairs left out', () => {
  const rs = [
    { type: 'noul' as const, expected: true, p: 0.7 },
    { type: 'noul' as const, expected: false, p: 0.6 },
    { type: 'noul' as const, expected: true, p: 0.4 },
    { type: 'noul' as const, expected: false, p: 0.4 },
    { type: 'noul' as const, expected: true, p: 0.2 },
    { type: 'noul' as const, expected: false, p: 0.9 },
  ].map((s, i) => result(s, i));
  rs.push({ id: 'c9', task: 't-noul', type: 'noul', expected: false, attempts: 1, error: 'HTTP 413' });
  const r = buildReport(rs, 5, [['c0', 'c1'], ['c2', 'c3'], ['c4', 'c5'], ['c0', 'c9']]);
  assert.deepEqual(r.noul_pairs, { pairs: 3, accuracy: (1 + 0.5 + 0) / 3 });
  assert.match(formatReport(r, 'h'), /^noul pairs\s+3\s+50\.0%/m);
  assert.equal(buildReport(rs).noul_pairs, undefined);
});
