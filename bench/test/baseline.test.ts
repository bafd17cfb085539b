/**
 * `npm run eval -- --baseline`: an identical run passes every gate, a planted drop is flagged (and only
 * where it was planted), the gate syntax, and the command's exit statuses.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { Prng } from '../../service/src/fixtures/prng.js';
import { checkGates, compareRuns, dropped, pairCases, parseGate, type Difference } from '../src/baseline.js';
import { judge, type CaseResult } from '../src/eval.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const OPTIONS = { resamples: 400, seed: 1, level: 0.95, eceBins: 15 };

/** A run of `n` answered cases (a third of each type, tasks of 20) from a model right about 70 % of the time. */
function run(n: number, seed: number): CaseResult[] {
  const rng = new Prng(seed);
  return Array.from({ length: n }, (_, i) => {
    const type = (['noul', 'choice', 'score'] as const)[i % 3]!;
    const right = rng.uniform() < 0.7;
    const confidence = 0.55 + 0.4 * rng.uniform();
    const base = { id: `case-${i}`, task: `${type}-task-${Math.floor(i / 60)}`, state: 's' };
    if (type === 'noul') {
      const expected = rng.uniform() < 0.5;
      const noul = expected === right ? confidence : 1 - confidence;
      return { id: base.id, task: base.task, type, expected, attempts: 1, ...judge({ ...base, question: { type }, expected }, { type, noul }) };
    }
    const keys = ['a', 'b', 'c'];
    const expected = type === 'choice' ? keys[i % 3]! : i % 3;
    const at = right ? i % 3 : (i + 1) % 3;
    const probabilities = Object.fromEntries(keys.map((k, j) => [type === 'choice' ? k : String(j), j === at ? confidence : (1 - confidence) / 2]));
    const answer = type === 'choice' ? { type, choice: keys[at]!, probabilities } : { type, probabilities };
    const question = type === 'choice' ? { type, criteria: { a: null, b: null, c: null } } : { type, criteria: ['x', 'y', 'z'] };
    return { id: base.id, task: base.task, type, expected, attempts: 1, ...judge({ ...base, question, expected }, answer) };
  });
}

/** The same run with `share` of the correct choice cases made wrong (the confident answer moved to another option). */
function withDrop(results: CaseResult[], share: number): CaseResult[] {
  const rng = new Prng(99);
  return results.map((r) => {
    if (r.type !== 'choice' || !r.correct || rng.uniform() >= share) return r;
    const wrong = r.expected === 'a' ? 'b' : 'a';
    const probabilities = { ...r.probabilities!, [wrong]: r.probabilities![r.expected as string]!, [r.expected as string]: r.probabilities![wrong]! };
    return { ...r, predicted: wrong, correct: false, probabilities };
  });
}

const find = (diffs: Difference[], scope: string, metric: string) => diffs.find((d) => d.scope === scope && d.metric === metric)!;

test('an identical run: every difference 0, every gate passes', () => {
  const old = run(900, 1);
  const pairing = pairCases(old, structuredClone(old));
  assert.equal(pairing.pairs.length, 900);
  const diffs = compareRuns(pairing.pairs, OPTIONS);
  for (const d of diffs) if (Number.isFinite(d.diff)) assert.deepEqual([d.diff, d.lo, d.hi], [0, 0, 0], `${d.scope} ${d.metric}`);
  const gates = checkGates(['accuracy', 'types.ece', 'tasks.accuracy', 'noul.auc', 'brier', 'log_loss'].map(parseGate), diffs);
  assert.ok(gates.every((g) => g.tripped.length === 0 && g.checked > 0));
});

test('a planted drop in choice accuracy is flagged there, and only there', () => {
  const old = run(900, 1);
  const diffs = compareRuns(pairCases(old, withDrop(old, 0.4)).pairs, OPTIONS);
  const choice = find(diffs, 'choice', 'accuracy');
  assert.ok(choice.diff < -0.2 && choice.hi < 0, JSON.stringify(choice));
  assert.ok(dropped(choice, 0.05));
  assert.ok(!dropped(choice, 0.5), 'not beyond an amount larger than the drop');
  assert.ok(find(diffs, 'all', 'accuracy').hi < 0);
  assert.ok(find(diffs, 'choice', 'brier').lo > 0, 'Brier rises: lower is better');
  for (const type of ['noul', 'score']) assert.equal(find(diffs, type, 'accuracy').diff, 0);
  const [all, choiceGate, noulGate, scoreEce] = checkGates(['accuracy:0.02', 'choice.accuracy', 'noul.accuracy', 'score.ece'].map(parseGate), diffs);
  assert.deepEqual(all!.tripped.map((d) => d.scope), ['all']);
  assert.deepEqual(choiceGate!.tripped.map((d) => d.scope), ['choice']);
  assert.equal(noulGate!.tripped.length, 0);
  assert.equal(scoreEce!.tripped.length, 0);
  const types = checkGates([parseGate('types.accuracy')], diffs)[0]!;
  assert.deepEqual(types.tripped.map((d) => d.scope), ['choice']);
});

test('a small noisy change stays inside its interval', () => {
  const old = run(300, 1);
  const diffs = compareRuns(pairCases(old, withDrop(old, 0.03)).pairs, OPTIONS);
  const all = find(diffs, 'all', 'accuracy');
  assert.ok(all.diff < 0 && all.lo < all.diff && all.hi >= 0, JSON.stringify(all));
  assert.equal(checkGates([parseGate('accuracy')], diffs)[0]!.tripped.length, 0);
});

test('pairing: by id; cases of one run only are counted; another suite is refused', () => {
  const old = run(30, 1);
  const now = [...old.slice(5), { id: 'new-1', task: 't', type: 'noul' as const, expected: true, attempts: 1 }];
  now[0] = { ...now[0]!, error: 'HTTP 500', correct: undefined };
  const p = pairCases(old, now);
  assert.deepEqual([p.pairs.length, p.onlyOld, p.onlyNew, p.unanswered], [24, 5, 1, 1]);
  const other = old.map((r) => (r.id === 'case-3' ? { ...r, expected: r.type === 'noul' ? !r.expected : 'zzz' } : r));
  assert.throws(() => pairCases(old, other), /case-3 .* not the same suite/);
});

test('gate syntax', () => {
  assert.deepEqual(parseGate('accuracy'), { spec: 'accuracy', scope: 'all', metric: 'accuracy', amount: 0 });
  assert.deepEqual(parseGate('types.ece:0.02'), { spec: 'types.ece:0.02', scope: 'types', metric: 'ece', amount: 0.02 });
  assert.deepEqual(parseGate('noul.auc:0.01'), { spec: 'noul.auc:0.01', scope: 'noul', metric: 'auc', amount: 0.01 });
  for (const bad of ['acc', 'accuracy:', 'accuracy:-1', 'accuracy:x', 'lang.accuracy', 'ece:1:2', '']) assert.throws(() => parseGate(bad), /--fail-on/, bad);
});

test('the command: exit 0 on an identical run, 3 on a gate that trips, 2 on a bad gate; --help', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqa-baseline-'));
  const old = run(300, 1);
  const write = (name: string, cases: CaseResult[]) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, JSON.stringify({ meta: {}, report: {}, cases }));
    return file;
  };
  const oldFile = write('old.json', old);
  const eval_ = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', path.resolve(here, '../src/eval.ts'), ...args], { encoding: 'utf8', cwd: path.resolve(here, '..'), env: { ...process.env, INIT_CWD: dir } });
  const same = eval_('--results', write('same.json', old), '--baseline', oldFile, '--fail-on', 'accuracy', '--fail-on', 'types.ece:0.01', '--bootstrap', '200', '--out', 'cmp');
  assert.equal(same.status, 0, same.stderr);
  assert.match(same.stdout, /--fail-on accuracy: passed/);
  assert.ok(fs.existsSync(path.join(dir, 'cmp', 'comparison.json')));
  const dropped_ = eval_('--results', write('drop.json', withDrop(old, 0.5)), '--baseline', oldFile, '--fail-on', 'choice.accuracy:0.05', '--bootstrap', '200');
  assert.equal(dropped_.status, 3, dropped_.stderr);
  assert.match(dropped_.stdout, /--fail-on choice.accuracy:0.05: FAILED \(choice −0\.\d+/);
  const bad = eval_('--results', oldFile, '--baseline', oldFile, '--fail-on', 'speed');
  assert.equal(bad.status, 2);
  assert.equal(bad.stderr.trim().split('\n').length, 1);
  const unknown = eval_('--no-such-flag');
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /^npm run eval: Unknown option '--no-such-flag' \(--help for usage\)\n$/);
  const help = eval_('--help');
  assert.equal(help.status, 0);
  assert.match(help.stdout, /--fail-on SPEC/);
  const check = spawnSync(process.execPath, ['--import', 'tsx', path.resolve(here, '../src/eval-check.ts'), '--help'], { encoding: 'utf8' });
  assert.equal(check.status, 0);
  assert.match(check.stdout, /usage: npm run eval-check/);
  const checkBad = spawnSync(process.execPath, ['--import', 'tsx', path.resolve(here, '../src/eval-check.ts'), '--x'], { encoding: 'utf8' });
  assert.equal(checkBad.status, 2);
  assert.equal(checkBad.stderr.trim().split('\n').length, 1);
  fs.rmSync(dir, { recursive: true, force: true });
});
