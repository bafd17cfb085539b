/**
 * The hand-written evaluation set (eval/handwritten, issue 19) in `npm test`: the checker's rules
 * (table-driven, each must reject its bad line), the real set checked (format, ids, repeated states,
 * no state in training data), and a guard that no training code reads eval/. The counts per language,
 * domain and type are printed as test diagnostics; the minimum counts are not asserted here.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { HANDWRITTEN_DIR } from '../src/eval.js';
import { windowOverflows } from '../src/set-fit.js';
import { TRAINING_DIR } from '../src/eval-check.js';
import {
  checkLine,
  checkSet,
  crossChecks,
  duplicateKeys,
  findContamination,
  formatCounts,
  jsonlValues,
  trainingDataFiles,
  type SetCase,
} from '../src/set-check.js';

const good = {
  id: 'cr-0001',
  lang: 'en',
  domain: 'code-review',
  task: 'diff-adds-test',
  state: 'diff --git a/x.py b/x.py\n+def f(): return 1',
  question: { type: 'noul', instructions: 'Does the diff add a test?' },
  answer: false,
};
const choice = { ...good, question: { type: 'choice', instructions: 'Which?', criteria: { approve: 'Looks fine', request_changes: null } }, answer: 'approve' };
const score = { ...good, question: { type: 'score', instructions: 'How risky?', criteria: ['none', 'low', 'high'] }, answer: 2 };
const line = (o: object) => JSON.stringify(o);

const lineRows: { name: string; text: string; english?: boolean; problem?: RegExp }[] = [
  { name: 'a good noul', text: line(good) },
  { name: 'a good choice with a null description', text: line(choice) },
  { name: 'a good score', text: line(score) },
  { name: 'a JSON state', text: line({ ...good, state: { messages: [{ role: 'user', content: 'hi' }] } }) },
  { name: 'invalid JSON', text: line(good).slice(0, -1), problem: /invalid JSON/ },
  { name: 'unknown key', text: line({ ...good, expected: true }), problem: /unknown key "expected"/ },
  { name: 'bad id', text: line({ ...good, id: 'cr-1' }), problem: /id "cr-1"/ },
  { name: 'lang not ISO', text: line({ ...good, lang: 'eng' }), problem: /ISO 639-1/ },
  { name: 'non-English case under en/', text: line({ ...good, lang: 'fr' }), problem: /lang fr in a file under en\// },
  { name: 'English case under multi/', text: line(good), english: false, problem: /lang en in a file under multi\// },
  { name: 'unknown domain', text: line({ ...good, domain: 'finance' }), problem: /domain "finance"/ },
  { name: 'missing task', text: line({ ...good, task: undefined }), problem: /task undefined/ },
  { name: 'empty state', text: line({ ...good, state: '  ' }), problem: /state must be/ },
  { name: 'empty object state', text: line({ ...good, state: {} }), problem: /state must be/ },
  { name: 'state over 1,700 characters', text: line({ ...good, state: 'x'.repeat(1701) }), problem: /1701 characters \(max 1700\)/ },
  { name: 'empty instructions', text: line({ ...good, question: { type: 'noul', instructions: '' } }), problem: /instructions/ },
  { name: 'noul with criteria', text: line({ ...good, question: { ...good.question, criteria: null } }), problem: /no criteria/ },
  { name: 'noul answer not boolean', text: line({ ...good, answer: 'yes' }), problem: /not true\/false/ },
  { name: 'unknown type', text: line({ ...good, question: { type: 'yesno', instructions: 'q' } }), problem: /question.type/ },
  { name: 'choice answer not a label', text: line({ ...choice, answer: 'reject' }), problem: /not one of the labels/ },
  { name: 'one label', text: line({ ...choice, question: { ...choice.question, criteria: { approve: 'x' } } }), problem: /1 labels \(2–40\)/ },
  { name: '41 labels', text: line({ ...choice, question: { ...choice.question, criteria: Object.fromEntries(Array.from({ length: 41 }, (_, i) => [`l${i}`, null])) }, answer: 'l3' }), problem: /41 labels/ },
  { name: 'empty label', text: line({ ...choice, question: { ...choice.question, criteria: { approve: 'a', '': 'b' } } }), problem: /empty or padded/ },
  { name: 'labels differing in case only', text: line({ ...choice, question: { ...choice.question, criteria: { approve: 'a', Approve: 'b' } } }), problem: /differ only in case/ },
  { name: 'label written twice (JSON.parse keeps one)', text: line(choice).replace('"request_changes":null', '"request_changes":null,"approve":"again"'), problem: /key "approve" twice/ },
  { name: 'numeric description', text: line({ ...choice, question: { ...choice.question, criteria: { approve: 3, reject: null } } }), problem: /description of "approve"/ },
  {
    name: '16 labels with a 901-character state',
    text: line({ ...choice, state: 'y'.repeat(901), question: { ...choice.question, criteria: Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`l${i}`, null])) }, answer: 'l0' }),
    problem: /max 900 above 15 labels/,
  },
  { name: 'two levels', text: line({ ...score, question: { ...score.question, criteria: ['a', 'b'] }, answer: 0 }), problem: /3–7/ },
  { name: 'level out of range', text: line({ ...score, answer: 3 }), problem: /not a level 0..2/ },
  { name: 'level as a string', text: line({ ...score, answer: '1' }), problem: /not a level/ },
];

for (const row of lineRows) {
  test(`set checker line: ${row.name}`, () => {
    const { problems } = checkLine(row.text, row.english ?? true);
    if (row.problem) assert.ok(problems.some((p) => row.problem!.test(p)), `expected ${row.problem} in ${JSON.stringify(problems)}`);
    else assert.deepEqual(problems, []);
  });
}

test('duplicateKeys: per object, nested objects apart', () => {
  assert.deepEqual(duplicateKeys('{"a":1,"b":{"a":2},"c":[{"a":1},{"a":2}]}'), []);
  assert.deepEqual(duplicateKeys('{"a":1,"b":{"x":2,"x":3},"a":4}'), ['x', 'a']);
});

const setCase = (over: Partial<SetCase>): SetCase => ({ file: "en/a.jsonl", line: 1, id: "a-0001", lang: "en", domain: "rag", task: "t", type: "noul", state: "s", question: { type: "noul", instructions: "q?" }, answer: true, labels: 0, ...over });

test('crossChecks: repeated ids, one id prefix per file, a state repeated within a task', () => {
  assert.deepEqual(crossChecks([setCase({}), setCase({ id: 'a-0002', state: 'other' })]), []);
  assert.match(crossChecks([setCase({}), setCase({ line: 2, state: 'other' })]).join('\n'), /id a-0001 used 2 times/);
  assert.match(crossChecks([setCase({}), setCase({ id: 'b-0002', state: 'other' })]).join('\n'), /2 prefixes/);
  assert.match(crossChecks([setCase({ state: 'same  text' }), setCase({ id: 'a-0002', line: 2, state: 'same text' })]).join('\n'), /same state twice in task t/);
  assert.deepEqual(crossChecks([setCase({}), setCase({ id: 'a-0002', task: 'u' })]), [], 'the same state in two tasks is fine');
});

const long = 'The build on main failed because the migration 0042 drops the column invoices.vat_rate before the backfill job has copied it';
const contaminationRows: { name: string; state: unknown; training: unknown; found: boolean }[] = [
  { name: 'a long state inside a training state', state: long, training: { state: `Note. ${long}. End.`, answer: true }, found: true },
  { name: 'a 12-word run, other case and punctuation', state: `Intro words here. ${long}`, training: { state: long.toUpperCase().replace(/ /g, ' , ') }, found: true },
  { name: '11 shared words only', state: long, training: { state: long.split(' ').slice(0, 11).join(' ') + ' and then something else entirely different' }, found: false },
  { name: 'a JSON state whose text is in a training question', state: { msg: long }, training: { question: { instructions: `msg ${long}` } }, found: true },
  { name: 'a short state equal to a training field', state: 'Refund my $40 please', training: { state: 'x', question: { instructions: 'refund my 40 please' } }, found: true },
  { name: 'a short state that is only part of a training field', state: 'Refund my $40 please', training: { state: 'Please refund my $40 please now' }, found: false },
  { name: 'Japanese: 24 characters in common', state: '先月の請求書の金額が注文書と一致しないため、今月の支払いを保留しています。', training: { state: '請求書の金額が注文書と一致しないため、今月の支払いを保留' }, found: true },
  { name: 'Japanese: a 13-character stock phrase in common', state: 'お問い合わせありがとうございます。注文番号をお知らせください。', training: { state: 'お問い合わせありがとうございます。返品について' }, found: false },
];

for (const row of contaminationRows) {
  test(`contamination: ${row.name}`, () => {
    const found = findContamination([{ id: 'e-1', state: row.state }], [{ source: 'train:1', value: row.training }]);
    assert.equal(found.length, row.found ? 1 : 0, JSON.stringify(found));
    if (row.found) assert.equal(found[0]!.source, 'train:1');
  });
}

test('contamination: training data files are found and read (a real corpus state is caught)', () => {
  const files = trainingDataFiles(TRAINING_DIR).map((f) => path.relative(TRAINING_DIR, f));
  assert.ok(files.includes(path.join('corpus', 'en', 'raw.jsonl')), files.join(', '));
  assert.ok(files.includes(path.join('corpus', 'multilingual', 'raw.jsonl')), files.join(', '));
  const first = jsonlValues([path.join(TRAINING_DIR, 'corpus', 'multilingual', 'raw.jsonl')]).next().value!;
  const state = (first.value as { state: unknown }).state;
  const found = findContamination([{ id: 'probe', state }], jsonlValues([path.join(TRAINING_DIR, 'corpus', 'multilingual', 'raw.jsonl')]));
  assert.equal(found.length, 1);
});

test('windowOverflows: measured with the routed checkpoint\'s tokenizer and layout', async () => {
  const q = { type: 'noul', instructions: 'Does the customer ask for a refund?' };
  const long = 'The parcel arrived late and the box was damaged, so I would like my money back please. '.repeat(40);
  const over = await windowOverflows([
    { id: 'short-en', state: 'Please refund my $40, the mug arrived broken.', question: q },
    { id: 'long-en', state: long, question: q },
    { id: 'long-fr', state: 'Le colis est arrivé en retard et la boîte était abîmée, je voudrais être remboursé. '.repeat(40), question: q },
  ]);
  assert.deepEqual(over.map((o) => [o.id, o.checkpoint]), [['long-en', 'core-0.3.20'], ['long-fr', 'core-multilingual-0.3.20']]);
  assert.ok(over.every((o) => o.tokens > o.window && o.window === 512));
});

let setCases: SetCase[] = [];

test('the hand-written set: every line well-formed, ids unique, no repeated state in a task, nothing from training data', (t) => {
  assert.ok(fs.existsSync(HANDWRITTEN_DIR), `${HANDWRITTEN_DIR} exists`);
  const r = checkSet(HANDWRITTEN_DIR, TRAINING_DIR);
  setCases = r.cases;
  t.diagnostic(`\n${formatCounts(r.cases)}`);
  if (r.warnings.length) t.diagnostic(`${r.warnings.length} warnings (npm run eval-check lists them)`);
  assert.ok(r.cases.length > 0, 'the set holds cases');
  assert.deepEqual(r.problems, []);
  assert.deepEqual(r.contamination, []);
});

test('the hand-written set holds what issue 19 asks: at least 1,500 English and 600 non-English cases', () => {
  assert.ok(setCases.length > 0, 'the set was read by the test above');
  const english = setCases.filter((c) => c.lang === 'en').length;
  assert.ok(english >= 1500, `${english} English cases`);
  assert.ok(setCases.length - english >= 600, `${setCases.length - english} non-English cases`);
});

test('the hand-written set: every case fits the window of the checkpoint that answers it (no 413 state_too_long)', async () => {
  assert.ok(setCases.length > 0, 'the set was read by the test above');
  const over = await windowOverflows(setCases);
  assert.deepEqual(over.map((o) => `${o.id}: ${o.tokens} tokens > ${o.window} (${o.checkpoint})`), []);
});

// ---------------------------------------------------------------- training never reads eval/

/** A line of training code that names the evaluation set: eval/handwritten or a path starting at eval/. */
const READS_EVAL = [
  /eval[/\\]handwritten/i,
  /["'`](\.\.?\/)*eval\//, // "eval/…", "../eval/…"
  /["'`](\.\.?\/)+eval\/?["'`]/, // "../eval"
  /\/\s*["'`]eval["'`]|["'`]eval["'`]\s*\//, // ROOT / "eval", "eval" / x
  /join\([^)]*["'`]eval["'`]/, // os.path.join(ROOT, "eval")
];

const guardRows: { text: string; flagged: boolean }[] = [
  { text: 'open("eval/handwritten/en/x.jsonl")', flagged: true },
  { text: "ROOT / 'eval' / 'x.jsonl'", flagged: true },
  { text: 'path = "../eval/multi/fr.jsonl"', flagged: true },
  { text: 'os.path.join(ROOT, "eval", "en")', flagged: true },
  { text: 'rec = {"eval": True, "epoch": epoch}', flagged: false },
  { text: 'open("../../eval\\handwritten\\multi\\fr.jsonl")', flagged: true },
  // the training corpus's own hand-written items (training/corpus/handwritten) are not the eval set
  { text: 'for folder in ("multilingual", "handwritten"):', flagged: false },
  { text: 'JABR = os.environ.get("JABR_TOML", "/work/shared/eval/jabr-v1/v1.toml")', flagged: false },
  { text: 'model.eval()', flagged: false },
  { text: 'ap.add_argument("--eval-every", type=int)', flagged: false },
];

for (const row of guardRows) {
  test(`training guard pattern: ${row.text}`, () => assert.equal(READS_EVAL.some((re) => re.test(row.text)), row.flagged));
}

test('no training code reads eval/ (the hand-written set is never trained on)', () => {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const code: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!['node_modules', '__pycache__', '.pytest_cache'].includes(e.name) && !e.name.startsWith('.venv')) walk(p);
      } else if (/\.(py|sh|ts|js|toml|cfg|ini|ya?ml)$/.test(e.name)) code.push(p);
    }
  };
  walk(path.join(root, 'training'));
  assert.ok(code.some((f) => f.endsWith(path.join('training', 'train.py'))), 'training code found');
  const hits: string[] = [];
  for (const f of code) {
    fs.readFileSync(f, 'utf8')
      .split('\n')
      .forEach((l, i) => {
        if (READS_EVAL.some((re) => re.test(l))) hits.push(`${path.relative(root, f)}:${i + 1}: ${l.trim()}`);
      });
  }
  assert.deepEqual(hits, []);
});
