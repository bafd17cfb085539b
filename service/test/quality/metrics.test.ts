import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { test } from 'node:test';
import { parseJsonl, parseTomlSuite } from '../../src/quality/cases.js';
import {
  argmax,
  brier,
  brierCase,
  ece,
  macroAccuracy,
  microAccuracy,
  percentile,
  reliabilityBins,
  rocAuc,
} from '../../src/quality/metrics.js';
import { crc32, Raster } from '../../src/quality/png.js';

const close = (a: number, b: number, eps = 1e-12) => assert.ok(Math.abs(a - b) <= eps, `${a} != ${b}`);

test('rocAuc: perfect, inverted, and chance rankings', () => {
  close(rocAuc([0.1, 0.2, 0.8, 0.9], [false, false, true, true]), 1);
  close(rocAuc([0.9, 0.8, 0.2, 0.1], [false, false, true, true]), 0);
  close(rocAuc([0.3, 0.9, 0.2, 0.8], [false, true, true, false]), 0.5);
});

test('rocAuc: ties count one half', () => {
  // all scores equal: every positive/negative pair is a tie
  close(rocAuc([0.5, 0.5, 0.5, 0.5], [true, false, true, false]), 0.5);
  // pairs (pos, neg): (0.7 vs 0.3) win, (0.7 vs 0.7) tie, (0.3 vs 0.3) tie, (0.3 vs 0.7) loss → (1 + .5 + .5 + 0) / 4
  close(rocAuc([0.7, 0.3, 0.3, 0.7], [true, true, false, false]), 0.5);
  // positives 0.8, 0.5; negatives 0.5, 0.2 → pairs: win, win, tie, win = 3.5 / 4
  close(rocAuc([0.8, 0.5, 0.5, 0.2], [true, true, false, false]), 0.875);
});

test('rocAuc: brute force agrees on random data with many ties', () => {
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const scores = Array.from({ length: 200 }, () => Math.round(rnd() * 10) / 10);
  const labels = scores.map((s) => rnd() < s);
  let wins = 0;
  let pairs = 0;
  scores.forEach((sp, i) => {
    if (!labels[i]) return;
    scores.forEach((sn, j) => {
      if (labels[j]) return;
      pairs++;
      wins += sp > sn ? 1 : sp === sn ? 0.5 : 0;
    });
  });
  close(rocAuc(scores, labels), wins / pairs, 1e-9);
});

test('rocAuc: NaN without both classes', () => {
  assert.ok(Number.isNaN(rocAuc([0.2, 0.9], [true, true])));
  assert.ok(Number.isNaN(rocAuc([], [])));
});

test('ece: zero when perfectly calibrated, |acc − conf| otherwise', () => {
  // 4 cases at confidence 0.75, 3 correct: calibrated
  close(ece([0.75, 0.75, 0.75, 0.75], [true, true, true, false]), 0);
  // all at 0.9, half correct → |0.5 − 0.9|
  close(ece([0.9, 0.9, 0.9, 0.9], [true, false, true, false]), 0.4);
  // two bins, weighted by size: bin A (0.95 ×1, correct) gap 0.05; bin B (0.55 ×3, 0 correct) gap 0.55
  close(ece([0.95, 0.55, 0.55, 0.55], [true, false, false, false]), (1 / 4) * 0.05 + (3 / 4) * 0.55);
});

test('reliabilityBins: 15 equal-width bins, 1.0 in the last bin', () => {
  const bins = reliabilityBins([0, 0.0666, 0.0667, 0.5, 1], [true, false, true, true, false]);
  assert.equal(bins.length, 15);
  assert.equal(bins[0]!.count, 2); // 0 and 0.0666 < 1/15
  assert.equal(bins[1]!.count, 1); // 0.0667 ≥ 1/15
  assert.equal(bins[7]!.count, 1); // 0.5 → floor(7.5)
  assert.equal(bins[14]!.count, 1); // 1.0 clamped into the last bin
  close(bins[0]!.accuracy, 0.5);
  close(bins[0]!.confidence, 0.0333);
  assert.ok(Number.isNaN(bins[3]!.accuracy));
  assert.equal(bins.reduce((s, b) => s + b.count, 0), 5);
});

test('brier: multi-class sum of squares, missing expected option counts 1', () => {
  close(brierCase({ a: 1, b: 0 }, 'a'), 0);
  close(brierCase({ a: 0, b: 1 }, 'a'), 2);
  close(brierCase({ a: 0.5, b: 0.3, c: 0.2 }, 'b'), 0.25 + 0.49 + 0.04);
  close(brierCase({ true: 0.8, false: 0.2 }, 'true'), 2 * 0.2 ** 2); // noul: 2·(p − y)²
  close(brierCase({ a: 0.6, b: 0.4 }, 'z'), 0.36 + 0.16 + 1);
  close(brier([{ probabilities: { a: 1, b: 0 }, expected: 'a' }, { probabilities: { a: 0, b: 1 }, expected: 'a' }]), 1);
  close(brier([{ probabilities: { '0': 1 / 3, '1': 1 / 3, '2': 1 / 3 }, expected: '1' }]), 2 / 3);
});

test('micro vs macro accuracy', () => {
  // task A: 8/10 correct; task B: 0/2 correct → micro 8/12, macro (0.8 + 0) / 2
  const items = [
    ...Array.from({ length: 10 }, (_, i) => ({ group: 'A', correct: i < 8 })),
    { group: 'B', correct: false },
    { group: 'B', correct: false },
  ];
  close(microAccuracy(items), 8 / 12);
  close(macroAccuracy(items), 0.4);
  assert.ok(Number.isNaN(macroAccuracy([])));
});

test('percentile (nearest rank) and argmax', () => {
  const xs = Array.from({ length: 100 }, (_, i) => 100 - i); // 1..100 shuffled order
  assert.equal(percentile(xs, 50), 50);
  assert.equal(percentile(xs, 95), 95);
  assert.equal(percentile(xs, 99), 99);
  assert.equal(percentile([3], 99), 3);
  assert.equal(argmax({ '0': 0.2, '1': 0.5, '2': 0.3 }), '1');
  assert.equal(argmax({ a: 0.5, b: 0.5 }), 'a');
});

test('suite loaders: TOML tasks and JSONL lines', () => {
  const toml = `
[[task]]
id = "t1"
type = "choice"
[task.question]
instructions = "Pick"
[task.question.criteria]
a = "A"
b = "B"
[[task.cases]]
state = "s1"
expected = "b"

[[task]]
id = "t2"
type = "score"
[task.question]
instructions = "How much"
criteria = ["low", "high"]
[[task.cases]]
state = "s2"
expected = 1
`;
  const cases = parseTomlSuite(toml);
  assert.equal(cases.length, 2);
  assert.deepEqual(cases[0], { id: 't1#0', task: 't1', state: 's1', question: { type: 'choice', instructions: 'Pick', criteria: { a: 'A', b: 'B' } }, expected: 'b' });
  assert.equal(cases[1]!.expected, 1);
  assert.throws(() => parseTomlSuite(toml.replace('expected = "b"', 'expected = "c"')), /not a label/);
  const jsonl = [
    JSON.stringify({ id: 'en-x-0', lang: 'en', state: { a: 1 }, question: { type: 'noul', instructions: 'q?' }, answer: true }),
    '',
    JSON.stringify({ id: 'fr-y-3', task: 'y', lang: 'fr', state: 's', question: { type: 'score', instructions: 'q', criteria: ['a', 'b'] }, answer: 0 }),
  ].join('\n');
  const j = parseJsonl(jsonl);
  assert.equal(j.length, 2);
  assert.equal(j[0]!.task, 'en-x');
  assert.equal(j[0]!.lang, 'en');
  assert.equal(j[1]!.task, 'y');
  // instructions may be any JSON value, as the API accepts; null is refused
  const structured = { question: "What is the customer's tone?", note: 'Only one label applies.' };
  const k = parseJsonl(JSON.stringify({ id: 'x-1', state: 's', question: { type: 'noul', instructions: structured }, answer: false }));
  assert.deepEqual(k[0]!.question.instructions, structured);
  const oneSided = parseJsonl(JSON.stringify({ id: 'x-3', state: 's', question: { type: 'noul', criteria: { true: 'It is about money' } }, answer: true }));
  assert.deepEqual(oneSided[0]!.question.criteria, { true: 'It is about money' }, 'noul criteria are sent as given');
  assert.throws(() => parseJsonl(JSON.stringify({ id: 'x-2', state: 's', question: { type: 'noul', instructions: null }, answer: false })), /not null/);
});

test('png: valid signature, chunk CRCs, decodable pixels', () => {
  assert.equal(crc32(Buffer.from('123456789')), 0xcbf43926);
  const img = new Raster(3, 2);
  img.set(1, 0, [255, 0, 0]);
  const png = img.toPng();
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  let off = 8;
  const chunks: string[] = [];
  let idat = Buffer.alloc(0);
  while (off < png.length) {
    const len = png.readUInt32BE(off);
    const type = png.toString('ascii', off + 4, off + 8);
    const data = png.subarray(off + 8, off + 8 + len);
    assert.equal(png.readUInt32BE(off + 8 + len), crc32(png.subarray(off + 4, off + 8 + len)), `CRC of ${type}`);
    if (type === 'IDAT') idat = Buffer.concat([idat, data]);
    chunks.push(type);
    off += 12 + len;
  }
  assert.deepEqual(chunks, ['IHDR', 'IDAT', 'IEND']);
  const raw = zlib.inflateSync(idat);
  assert.equal(raw.length, 2 * (1 + 3 * 3));
  assert.deepEqual([...raw.subarray(0, 10)], [0, 255, 255, 255, 255, 0, 0, 255, 255, 255]);
});

