/**
 * Labelled cases for the `structqa models calibrate` tests, whose labels follow a known temperature:
 * the cases are run once through the checkpoint (raw logits), then each label is drawn from
 * softmax(logits / T). A fit on them should find T. FIXTURES: what the checkpoints answer means nothing;
 * only the relation between logits and labels is made here.
 */
import fs from 'node:fs';
import { softmax } from '../../src/engine/calibrate.js';
import { Prng } from '../../src/fixtures/prng.js';
import type { EvalCase } from '../../src/quality/cases.js';
import { scoreCases } from '../../src/quality/engine-cases.js';
import { engineServing } from './checkpoints.js';
import { ENGLISH, rng } from './requests.js';

const CHOICES = ['refund', 'shipping', 'billing', 'account', 'other'];

/** `nouls` noul and `choices` choice cases (four options) on short English states; expected answers are placeholders. */
export function unlabelled(nouls: number, choices: number, seed: number): EvalCase[] {
  const next = rng(seed);
  const words = (n: number) => Array.from({ length: n }, () => ENGLISH[Math.floor(next() * ENGLISH.length)]!).join(' ');
  const cases: EvalCase[] = [];
  for (let i = 0; i < nouls; i++) {
    cases.push({ id: `n-${i}`, task: `noul-${i % 5}`, state: `${words(6 + (i % 9))}.`, question: { type: 'noul', instructions: `Does the customer ask about ${CHOICES[i % 5]}?` }, expected: true });
  }
  for (let i = 0; i < choices; i++) {
    const labels = CHOICES.slice(i % 2, (i % 2) + 4);
    cases.push({
      id: `c-${i}`,
      task: `choice-${i % 2}`,
      state: `${words(5 + (i % 11))}.`,
      question: { type: 'choice', instructions: 'Which team should answer?', criteria: Object.fromEntries(labels.map((l) => [l, `${l} questions`])) },
      expected: labels[0]!,
    });
  }
  return cases;
}

/**
 * The cases labelled by drawing from softmax(logits / t) on checkpoint `dir` (served as `name`), and each
 * case's raw logits. `against`: the least likely option instead (labels that contradict the model).
 */
export async function labelled(dir: string, name: string, cases: EvalCase[], t: number, opts: { seed?: number; against?: boolean; sharpest?: boolean } = {}): Promise<{ cases: EvalCase[]; logits: Map<string, number[]> }> {
  const engine = engineServing(name, dir, { maxQueuedRows: 4096 });
  await engine.start();
  try {
    const { scored, skipped } = await scoreCases(engine, name, cases);
    if (skipped.length) throw new Error(`test cases do not fit ${name}: ${skipped[0]!.id} ${skipped[0]!.reason}`);
    const draw = new Prng(opts.seed ?? 1);
    const logits = new Map(scored.map((s) => [s.case.id, s.logits]));
    const out = scored.map((s) => {
      const p = softmax(s.logits, t);
      let label: number;
      if (opts.against) label = p.indexOf(Math.min(...p));
      else if (opts.sharpest) label = p.indexOf(Math.max(...p));
      else {
        let u = draw.uniform();
        label = 0;
        while (label < p.length - 1 && u >= p[label]!) u -= p[label++]!;
      }
      const key = s.keys[label]!;
      return { ...s.case, expected: s.type === 'noul' ? key === 'true' : key };
    });
    return { cases: out, logits };
  } finally {
    await engine.close();
  }
}

/** Cases as JSONL, the format `--cases` reads (and `npm run eval` and the hand-written set use). */
export function writeJsonl(file: string, cases: readonly EvalCase[]): string {
  fs.writeFileSync(file, cases.map((c) => JSON.stringify({ id: c.id, task: c.task, state: c.state, question: c.question, answer: c.expected })).join('\n') + '\n');
  return file;
}
