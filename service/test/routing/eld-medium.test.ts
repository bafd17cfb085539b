/**
 * The compact eld database answers exactly as `eld/medium` does:
 *   cd service && node --import tsx --test test/routing/eld-medium.test.ts
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { eld as reference } from 'eld/medium';
import { cacheFile, createMediumDetector, packDatabase, unpackDatabase, type EldDatabase } from '../../src/routing/eld-medium.js';
import { stateText } from '../../src/routing/language.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const jsonl = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { state: unknown });

/** Text nobody generated: the routing sample and every hand-written evaluation state (14 languages). */
function texts(): string[] {
  const files = [path.join(root, 'bench/data/language-sample.jsonl')];
  for (const dir of ['eval/handwritten/en', 'eval/handwritten/multi']) {
    for (const f of readdirSync(path.join(root, dir))) if (f.endsWith('.jsonl')) files.push(path.join(root, dir, f));
  }
  const out = files.flatMap((f) => jsonl(f).map((r) => stateText(r.state)));
  // Pieces too: short texts are where the reliability rule and the n-gram edges matter.
  return [...out, ...out.flatMap((t) => t.split(/[.\n!?。]/).filter((s) => s.trim() !== '').slice(0, 3))];
}

const answer = (d: { detect(t: string): { language: string; isReliable(): boolean; getScores(): Record<string, number> } }, t: string) => {
  const r = d.detect(t);
  return { language: r.language, reliable: r.isReliable(), scores: r.getScores() };
};

test('every answer on hand-written text in 14 languages is eld/medium\'s, scores included', async () => {
  const compact = await createMediumDetector();
  assert.notEqual(compact, reference, 'the compact detector is a detector of its own, not the fallback');
  const all = texts();
  assert.ok(all.length > 5000, `${all.length} texts`);
  let nonEnglish = 0;
  for (const t of all) {
    const want = answer(reference, t);
    assert.deepEqual(answer(compact, t), want, t.slice(0, 80));
    if (want.language !== 'en' && want.language !== '') nonEnglish++;
  }
  assert.ok(nonEnglish > 1000, `${nonEnglish} non-English answers among ${all.length}`);
});

test('and on arbitrary strings, from any script', async () => {
  const compact = await createMediumDetector();
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 60 }), (a, b) => {
      for (const t of [a, b, `${a} ${b}`]) assert.deepEqual(answer(compact, t), answer(reference, t));
    }),
    { numRuns: 400 },
  );
});

const tiny: EldDatabase = { type: 'T2', languages: { 0: 'en', 1: 'fr' }, ngrams: { ' the ': { 0: 80 }, ' le ': { 0: 6, 1: 120 } } };

test('a packed database reads back as the same n-gram scores', () => {
  const back = unpackDatabase(packDatabase(tiny));
  assert.equal(back.type, 'T2');
  assert.deepEqual(back.languages, tiny.languages);
  assert.deepEqual(back.ngrams[' the '], { 0: 80 });
  assert.deepEqual(back.ngrams[' le '], { 0: 6, 1: 120 });
  assert.deepEqual(Object.keys(back.ngrams[' le '] as object), ['0', '1']);
  assert.equal(back.ngrams[' les '], undefined);
});

test('what the packed format cannot hold is refused with the reason, never packed approximately', () => {
  const bad = (ngrams: EldDatabase['ngrams']) => () => packDatabase({ ...tiny, ngrams });
  assert.throws(bad({ ' x ': { 0: 256 } }), /score 256 is not a byte/);
  assert.throws(bad({ ' x ': { 0: 1.5 } }), /score 1.5 is not a byte/);
  assert.throws(bad({ ' x ': { 7: 1 } }), /unknown language 7/);
  assert.throws(bad({ 'a\nb': { 0: 1 } }), /holds a newline/);
  const packed = packDatabase(tiny);
  assert.throws(() => unpackDatabase(packed.subarray(0, packed.length - 1)), /truncated or malformed/);
  const headerEnd = packed.indexOf(0x0a);
  const otherFormat = Buffer.concat([Buffer.from(packed.toString('utf8', 0, headerEnd).replace('"format":1', '"format":9')), packed.subarray(headerEnd)]);
  assert.throws(() => unpackDatabase(otherFormat), /packed format 9/);
});

test('a damaged cached copy is packed again, not served and not a reason to fall back', async () => {
  const good = readFileSync(cacheFile());
  writeFileSync(cacheFile(), good.subarray(0, 1000));
  const compact = await createMediumDetector();
  assert.notEqual(compact, reference);
  assert.deepEqual(answer(compact, 'Je voudrais annuler ma commande, elle est arrivée en retard.'), answer(reference, 'Je voudrais annuler ma commande, elle est arrivée en retard.'));
  assert.ok(readFileSync(cacheFile()).equals(good), 'the cache holds the whole packed database again');
});
