/**
 * Serve an imported Decima checkpoint with the engine and compare every answer with Decima's own (either
 * runtime: reference.py's PyTorch or ONNX answers), question by question: the same token ids (so the same
 * text) and every probability within 1e-4. Questions Decima cuts or refuses are left out of the calls (the
 * engine refuses them) and counted.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readManifest } from '../../src/engine/manifest.js';
import { parseSourceJson } from '../../src/engine/source-json.js';
import { testApp, type TestApp } from './app.js';
import { engineServing } from './checkpoints.js';
import type { DecimaAnswer } from './decima.js';
import type { Request } from './requests.js';

export const TOLERANCE = 1e-4;
// Decima reads at most 256 state tokens (the question included) and 48 per option (its question copy
// included): shorter states and instructions than the Laya tests' keep most questions inside them.
export const DECIMA_WORDS = { state: 30, instructions: 6 };

export interface Compared {
  rows: number;
  worst: number;
  spread: number;
  /** Questions per type compared. */
  types: Record<string, number>;
}

export async function compareServed(dir: string, reference: Record<string, DecimaAnswer>[], texts: string[], label: string, leftOut = 0.1): Promise<Compared> {
  const manifest = readManifest(dir);
  const reqs = texts.map((t) => parseSourceJson(t) as Request);
  const engine = engineServing(manifest.name, dir, { maxQueuedRows: 4096 });
  await engine.start();
  let rows = 0;
  let worst = 0;
  let spread = 0;
  let skipped = 0;
  const types: Record<string, number> = {};
  const reasons = { cut: 0, refused: 0 };
  try {
    for (const [i, req] of reqs.entries()) {
      const want = reference[i]!;
      // questions Decima refuses or cuts are refused by the engine (422): leave them out of the call
      const questions = Object.fromEntries(Object.entries(req.questions).filter(([name]) => !want[name]!.error && !want[name]!.cut));
      skipped += Object.keys(req.questions).length - Object.keys(questions).length;
      for (const [name] of Object.entries(req.questions)) if (want[name]!.cut || want[name]!.error) reasons[want[name]!.error ? 'refused' : 'cut']++;
      if (Object.keys(questions).length === 0) continue;
      const prepared = await engine.prepare(manifest.name, questions, req.state);
      const answered = await engine.answer(prepared);
      prepared.names.forEach((name, j) => {
        const w = want[name]!;
        assert.deepEqual([...prepared.laidOut.rows[j]!.ids], w.ids, `request ${i} ${name}: token ids differ from decima's (${texts[i]})`);
        const a = answered.answers[name]!;
        const got = a.type === 'noul' ? [1 - a.noul, a.noul] : prepared.laidOut.heads[j]!.keys.map((key) => a.probabilities[key]!);
        assert.equal(got.length, w.probabilities!.length);
        got.forEach((p, k) => {
          const d = Math.abs(p - w.probabilities![k]!);
          worst = Math.max(worst, d);
          assert.ok(d <= TOLERANCE, `request ${i} ${name} option ${k}: ${p} vs decima ${w.probabilities![k]} (${texts[i]})`);
        });
        spread = Math.max(spread, Math.max(...got) - Math.min(...got));
        types[a.type] = (types[a.type] ?? 0) + 1;
        rows++;
      });
    }
  } finally {
    await engine.close();
  }
  process.stdout.write(`# ${label}: left out ${JSON.stringify(reasons)}\n`);
  assert.ok(skipped <= rows * leftOut, `${skipped} questions were cut or refused by decima (${rows} compared): the generator should stay inside its budgets`);
  return { rows, worst, spread, types };
}

/**
 * The imported folder served over HTTP as `core-0.3.20`: one body as a client writes it (integer-like keys
 * out of order and 1.0, which JSON.parse would lose) answered as `reference` answers it, within the wire's
 * 4-decimal rounding; too long a state is 413, too long an option 422. `more` runs further checks on the
 * same app before it closes.
 */
export async function checkServedOverHttp(
  imported: string,
  reference: (body: string) => Record<string, DecimaAnswer>,
  label: string,
  more: (t: TestApp) => Promise<void> = async () => {},
): Promise<void> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'structqa-decima-http-'));
  const dir = path.join(tmp, 'core-0.3.20');
  fs.cpSync(imported, dir, { recursive: true });
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
  fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ ...manifest, name: 'core-0.3.20' }));
  const t = await testApp({ env: { STRUCTQA_ENGLISH_DIR: dir } });
  try {
    const body = '{"model": "core-0.3.20", "state": {"10": "refund please", "2": 1.0, "order": [7, "late"]}, "questions": {' +
      '"team": {"type": "choice", "instructions": "Which team?", "criteria": {"billing": "money back", "tech": null, "9": {"x": 2.50}}},' +
      '"refund": {"type": "noul", "criteria": {"true": "asks for money back"}},' +
      '"urgency": {"type": "score", "instructions": "How urgent?", "criteria": ["low", "medium", "high"]}}}';
    const res = await t.app.inject({ method: 'POST', url: '/v1/systemone', payload: body, headers: { ...t.auth, 'content-type': 'application/json' } });
    assert.equal(res.statusCode, 200, res.body);
    const got = res.json() as { answers: Record<string, { noul?: number; probabilities?: Record<string, number> }> };
    const want = reference(`[${body}]`);
    const close = (a: number, b: number) => assert.ok(Math.abs(a - b) <= 1e-4 + 5e-5, `${a} vs ${label} ${b}`); // the wire rounds to 4 decimals
    ['billing', 'tech', '9'].forEach((k, i) => close(got.answers['team']!.probabilities![k]!, want['team']!.probabilities![i]!));
    close(got.answers['refund']!.noul!, want['refund']!.probabilities![1]!);
    ['0', '1', '2'].forEach((k, i) => close(got.answers['urgency']!.probabilities![k]!, want['urgency']!.probabilities![i]!));
    await more(t);
    const long = await t.app.inject({ method: 'POST', url: '/v1/systemone', headers: t.auth,
      payload: { model: 'core-0.3.20', state: 'refund order late '.repeat(200), questions: { n: { type: 'noul', instructions: 'late' } } } });
    assert.equal(long.statusCode, 413, long.body);
    const option = await t.app.inject({ method: 'POST', url: '/v1/systemone', headers: t.auth,
      payload: { model: 'core-0.3.20', state: 'hi', questions: { c: { type: 'choice', instructions: 'x', criteria: { a: 'refund '.repeat(60), b: null } } } } });
    assert.equal(option.statusCode, 422, option.body);
  } finally {
    await t.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
