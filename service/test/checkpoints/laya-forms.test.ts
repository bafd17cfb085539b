/**
 * Issue 31: Laya's own request forms — a choice's criteria as a list of labels, a score level as a bare
 * number or boolean — accepted and answered exactly as laya 0.4.15 answers them. Checkpoints built by
 * laya's own classes (training/laya/fixture.py) and imported by `structqa models import`'s code; laya's
 * own answers as the reference: `Agent.system_one` as its server writes it (training/laya/system_one.py:
 * answer keys, `choice` as JSON text, legend, probabilities rounded to 4 places, the batch it ran) and its
 * unrounded probabilities and token ids (training/laya/reference.py).
 * FIXTURES: random weights prove the format and the arithmetic, nothing about answer quality.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { findNodeAtLocation, parseTree } from 'jsonc-parser';
import { answeredJson } from '../../src/engine/labels.js';
import { readManifest } from '../../src/engine/manifest.js';
import { parseSourceJson } from '../../src/engine/source-json.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { engineServing } from '../helpers/checkpoints.js';
import { importedCheckpoint, importPython, LAYA_CACHE, layaCheckpoint, layaReference, runReference, type LayaFamily, type LayaLayout } from '../helpers/laya.js';
import { LAYA_FORM_EDGES, layaFormBodies, SCRIPTS, type Request } from '../helpers/requests.js';

const TOLERANCE = 1e-4;
const SYSTEM_ONE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../training/laya/system_one.py');

/** laya's `system_one` on each body: its server's answer text, or its refusal. */
interface LayaServed {
  answer?: string;
  choices?: Record<string, string>;
  processed_tokens?: number;
  refused?: string;
}

function layaSystemOne(src: string, bodies: string[]): LayaServed[] {
  return runReference(SYSTEM_ONE, src, JSON.stringify(bodies), LAYA_CACHE) as LayaServed[];
}

interface LayaAnswerJson {
  answers: Record<string, { type: string; noul?: number; probabilities?: Record<string, number>; legend?: Record<string, string> }>;
  usage: { input_tokens: number };
}

/** The raw JSON text of one value in a JSON text (a number keeps its written form). */
function rawAt(text: string, location: string[]): string {
  const node = findNodeAtLocation(parseTree(text)!, location);
  assert.ok(node, `${location.join('.')} missing in ${text.slice(0, 200)}`);
  return text.slice(node.offset, node.offset + node.length);
}

async function compare(family: LayaFamily, layout: LayaLayout, bodies: string[]): Promise<{ questions: number; worst: number; cut: number }> {
  const dir = await importedCheckpoint(family, layout);
  const manifest = readManifest(dir);
  const src = layaCheckpoint(family, layout);
  const served = layaSystemOne(src, bodies);
  const unrounded = layaReference(src, `[${bodies.join(',\n')}]`);
  const engine = engineServing(manifest.name, dir, { maxQueuedRows: 4096 });
  await engine.start();
  let questions = 0;
  let cut = 0;
  let worst = 0;
  try {
    for (const [i, body] of bodies.entries()) {
      const req = parseSourceJson(body) as Request; // as the HTTP layer parses it
      const laya = served[i]!;
      assert.equal(laya.refused, undefined, `laya refused request ${i}: ${laya.refused} (${body})`);
      const layaText = laya.answer!;
      const layaJson = JSON.parse(layaText) as LayaAnswerJson;
      const prepared = await engine.prepare(manifest.name, req.questions, req.state);
      const answered = await engine.answer(prepared);
      const ours = answeredJson(answered);
      let anyCut = false;
      prepared.names.forEach((name, j) => {
        const where = `request ${i} ${name} (${body})`;
        const want = unrounded[i]![name]!;
        assert.equal(want.truncated, false, `${where}: laya cut the state`);
        if (want.head_cut) {
          anyCut = true; // laya cut an option or the head: out of the engine's scope (it never cuts)
          return;
        }
        assert.deepEqual([...prepared.laidOut.rows[j]!.ids], want.ids, `${where}: token ids differ from laya's`);
        const a = answered.answers[name]!;
        const l = layaJson.answers[name]!;
        assert.equal(a.type, l.type);
        // probabilities in option order against laya's unrounded ones, and by key against its answer
        const keys = prepared.laidOut.heads[j]!.keys;
        const got = a.type === 'noul' ? [1 - a.noul, a.noul] : keys.map((key) => a.probabilities[key]!);
        got.forEach((p, k) => {
          const d = Math.abs(p - want.probabilities[k]!);
          worst = Math.max(worst, d);
          assert.ok(d <= TOLERANCE, `${where} option ${k}: ${p} vs laya ${want.probabilities[k]}`);
        });
        if (a.type === 'noul') {
          assert.ok(Math.abs(a.noul - l.noul!) <= TOLERANCE, `${where}: noul ${a.noul} vs laya's answer ${l.noul}`);
          return;
        }
        // keyed exactly as laya's server keys them
        assert.deepEqual(Object.keys(a.probabilities).sort(), Object.keys(l.probabilities!).sort(), `${where}: answer keys`);
        for (const [key, p] of Object.entries(a.probabilities)) {
          assert.ok(Math.abs(p - l.probabilities![key]!) <= TOLERANCE, `${where} ${key}: ${p} vs laya's answer ${l.probabilities![key]}`);
        }
        if (a.type === 'choice') {
          // the label itself, in Python's number form, unless the top two are closer than the tolerance
          const mine = rawAt(ours, ['answers', name, 'choice']);
          const theirs = laya.choices![name]!;
          if (mine !== theirs) {
            const sorted = [...want.probabilities].sort((x, y) => y - x);
            assert.ok(sorted[0]! - sorted[1]! <= 2 * TOLERANCE, `${where}: choice ${mine} vs laya ${theirs}`);
          }
        } else {
          const levels = req.questions[name]!.criteria as unknown[];
          levels.forEach((level, k) => {
            // objects and arrays are echoed as the earlier service echoes them; everything else reads as laya writes it
            if (level !== null && typeof level === 'object') assert.deepEqual(a.legend[String(k)], level, where);
            else assert.equal(a.legend[String(k)], l.legend![String(k)], `${where}: legend ${k}`);
          });
        }
        questions++;
      });
      if (anyCut) cut++;
      else {
        assert.equal(answered.usage.processed_tokens, laya.processed_tokens, `request ${i}: processed tokens (${body})`);
        assert.equal(answered.usage.input_tokens, layaJson.usage.input_tokens, `request ${i}: input tokens (${body})`);
      }
    }
  } finally {
    await engine.close();
  }
  assert.ok(cut <= bodies.length / 5, `${cut} requests were cut by laya: the generator should stay inside its budgets`);
  return { questions, worst, cut };
}

const body = (type: string, criteria: string): string =>
  `{"state": "The customer asks for a refund of the second charge.", "questions": {"q": {"type": "${type}", "instructions": "Which one fits?", "criteria": ${criteria}}}}`;

describe("Laya's request forms answered as laya answers them (issue 31)", { timeout: 30 * 60_000 }, () => {
  before(() => {
    importPython();
  });

  it('ModernBERT-shaped, marker layout: 150 bodies with list-form criteria and number levels among ordinary ones; keys, choice, legend, ids and token counts as laya; probabilities within 1e-4', async () => {
    const mask = readManifest(await importedCheckpoint('modernbert', 'sequential')).special_tokens.mask;
    const { questions, worst, cut } = await compare('modernbert', 'sequential', layaFormBodies(150, 31, [], mask));
    assert.ok(questions >= 180, String(questions));
    process.stdout.write(`# modernbert sequential: ${questions} questions, max |Δp| ${worst.toExponential(2)}, ${cut} requests cut by laya\n`);
  });

  it('mmBERT-shaped, parallel option layout, English and eight other scripts: 120 bodies', async () => {
    const mask = readManifest(await importedCheckpoint('mmbert', 'parallel')).special_tokens.mask;
    const { questions, worst } = await compare('mmbert', 'parallel', layaFormBodies(120, 32, Object.keys(SCRIPTS), mask));
    assert.ok(questions >= 130, String(questions));
    process.stdout.write(`# mmbert parallel: ${questions} questions, max |Δp| ${worst.toExponential(2)}\n`);
  });

  describe('the edges: accepted and refused as laya does, except where the contract decides', () => {
    let t: TestApp;
    before(async () => {
      t = await testApp(); // validation comes before any model: the fixtures serve
    });
    after(async () => {
      await t.close();
    });

    it('laya 0.4.15 and the service give the verdicts of the table; both-accepted edges are answered as laya answers them', async () => {
      const bodies = LAYA_FORM_EDGES.map((e) => body(e.type, e.criteria));
      const served = layaSystemOne(layaCheckpoint('modernbert', 'sequential'), bodies);
      for (const [i, edge] of LAYA_FORM_EDGES.entries()) {
        assert.equal(served[i]!.refused === undefined, edge.laya, `laya on ${edge.type} ${edge.name}: ${served[i]!.refused ?? 'answered'}`);
        const res = await t.app.inject({ method: 'POST', url: '/v1/systemone', payload: bodies[i], headers: { ...t.auth, 'content-type': 'application/json' } });
        assert.equal(res.statusCode, edge.service, `service on ${edge.type} ${edge.name}: ${res.body.slice(0, 300)}`);
        if (edge.service === 422) {
          assert.equal(res.headers['x-service-error-code'], 'invalid_request');
          const detail = (res.json() as { detail: { loc: (string | number)[]; msg: string; type: string }[] }).detail;
          assert.equal(detail.length, 1);
          assert.deepEqual(detail[0]!.loc.slice(0, 5), ['body', 'questions', 'q', edge.type, 'criteria'], JSON.stringify(detail));
          assert.ok(detail[0]!.msg.length > 0);
        }
      }
      const both = LAYA_FORM_EDGES.filter((e) => e.laya && e.service === 200).map((e) => body(e.type, e.criteria));
      await compare('modernbert', 'sequential', both);
    });

    it('every generated body is valid for the service, and an answered list-form call carries its labels as laya does over HTTP', async () => {
      for (const b of layaFormBodies(60, 33, Object.keys(SCRIPTS), '[MASK]')) {
        const res = await t.app.inject({ method: 'POST', url: '/v1/systemone', payload: b, headers: { ...t.auth, 'content-type': 'application/json' } });
        assert.equal(res.statusCode, 200, `${res.body.slice(0, 300)} (${b})`);
      }
      const res = await t.app.inject({
        method: 'POST',
        url: '/v1/systemone',
        headers: { ...t.auth, 'content-type': 'application/json' },
        payload: body('choice', '[12345678901234567890, 7.0, 1e16, -0.0]'),
      });
      assert.equal(res.statusCode, 200);
      const choice = rawAt(res.body, ['answers', 'q', 'choice']);
      assert.ok(['12345678901234567890', '7.0', '1e+16', '-0.0'].includes(choice), choice);
      assert.deepEqual(Object.keys((res.json() as { answers: { q: { probabilities: object } } }).answers.q.probabilities).sort(), ['-0.0', '12345678901234567890', '1e+16', '7.0']);
      // past the double range a label has no JSON form (laya's server fails writing its answer): refused
      const inf = await t.app.inject({ method: 'POST', url: '/v1/systemone', headers: { ...t.auth, 'content-type': 'application/json' }, payload: body('choice', '["a", 1e400]') });
      assert.equal(inf.statusCode, 422, inf.body);
      assert.deepEqual((inf.json() as { detail: { loc: unknown[] }[] }).detail[0]!.loc, ['body', 'questions', 'q', 'choice', 'criteria', 1]);
    });
  });
});
