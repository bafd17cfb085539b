/**
 * Language routing: cd service && node --import tsx --test test/routing/language.test.ts
 * Sample and numbers: docs/language-detection.md, bench/data/language-sample.jsonl.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { detectLanguage, stateText, linguisticText, MAX_TEXT_CHARS } from '../../src/routing/language.js';

interface Sample {
  id: string;
  expected: string;
  kind: string;
  state: unknown;
  split?: string;
}

const sampleUrl = new URL('../../../bench/data/language-sample.jsonl', import.meta.url);
const samples: Sample[] = readFileSync(fileURLToPath(sampleUrl), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as Sample);

const expectEnglish = (lang: string): boolean => lang === 'en' || lang === 'und';

test('the sample is what the docs describe', () => {
  assert.ok(samples.length >= 400, `${samples.length} states`);
  const langs = new Set(samples.map((s) => s.expected).filter((l) => l !== 'und'));
  assert.ok(langs.size >= 20, `${langs.size} languages`);
});

test('routing accuracy on the sample is at least 98%', () => {
  // Measured 99.2% (490/494): 99.5% on the 436 development states, 96.6% on the 58 held-out
  // ones. 98% leaves room for a few more misses after a detector update, and is above the best
  // bare detector (eld large, 97.6%), so losing the service's rule (script, ids, short text)
  // fails the test.
  const wrong = samples.filter((s) => detectLanguage(s.state).english !== expectEnglish(s.expected));
  const acc = 1 - wrong.length / samples.length;
  assert.ok(acc >= 0.98, `routing accuracy ${(acc * 100).toFixed(1)}%: ${wrong.map((s) => s.id).join(', ')}`);
});

test('no non-English state of the sample is sent to the English checkpoint, except the known ones', () => {
  // The costly direction: the English checkpoint handles other languages badly. Known misses,
  // both held out (docs/language-detection.md, known failures): Arabizi (Arabic in Latin letters
  // and digits) and a one-word German reply that the short-text rule keeps English.
  const known = new Set(['holdout-48', 'holdout-57']);
  const wrong = samples.filter((s) => !expectEnglish(s.expected) && detectLanguage(s.state).english);
  assert.deepEqual(wrong.map((s) => s.id).filter((id) => !known.has(id)), []);
});

test('every state written mostly in a non-Latin script is routed by script', () => {
  const nonLatinShare = (t: string): number => {
    const letters = t.match(/\p{L}/gu)?.length ?? 0;
    const latin = t.match(/\p{Script=Latin}/gu)?.length ?? 0;
    return letters === 0 ? 0 : (letters - latin) / letters;
  };
  // (Romanized Hindi and Arabizi in the held-out states are written in Latin letters: not here.)
  for (const s of samples.filter((x) => x.expected !== 'en' && nonLatinShare(stateText(x.state)) >= 0.5)) {
    const d = detectLanguage(s.state);
    assert.equal(d.english, false, s.id);
    assert.match(d.reason, /^script:/, s.id);
  }
});

test('short-text rule: nothing to detect goes to the English checkpoint as und', () => {
  for (const s of ['', '   ', '404', '12345', '-42', '3.14159', '2026-11-22', '!!!', '👍', '😀😀😀', '🔥🚀✨',
    'jane.doe@example.com', '550e8400-e29b-41d4-a716-446655440000', 'https://example.com/orders/8812',
    'ORD-2026-0042', '+1 (555) 010-9999', 'x']) {
    const d = detectLanguage(s);
    assert.deepEqual(d, { language: 'und', english: true, reason: 'no-text' }, JSON.stringify(s));
  }
});

test('short-text rule: short Latin text with an unreliable non-English guess stays English', () => {
  for (const s of ['ok', 'OK', 'no']) {
    const d = detectLanguage(s);
    assert.equal(d.english, true, s);
    assert.equal(d.language, 'en', s);
  }
  for (const s of ['Thanks!', 'thank you', 'Where is my order?', 'Refund please']) {
    assert.equal(detectLanguage(s).english, true, s);
  }
});

test('short-text rule: two non-Latin letters are enough to leave English', () => {
  const cases: Array<[string, string]> = [['谢谢', 'zh'], ['ありがとう', 'ja'], ['감사합니다', 'ko'], ['תודה', 'he'],
    ['شكرا', 'ar'], ['धन्यवाद', 'hi'], ['ขอบคุณ', 'th'], ['Ευχαριστώ', 'el']];
  for (const [s, lang] of cases) assert.deepEqual(detectLanguage(s), { language: lang, english: false, reason: detectLanguage(s).reason }, s);
  assert.equal(detectLanguage('Спасибо').english, false);
});

test('short non-English Latin phrases the detector calls reliably are routed multilingual', () => {
  for (const s of ['Merci beaucoup', 'Danke schön', 'Gracias por todo', 'Dziękuję bardzo', 'Tack så mycket']) {
    assert.equal(detectLanguage(s).english, false, s);
  }
});

test('English text with a short foreign name or a non-Latin aside stays English', () => {
  assert.equal(detectLanguage('Our Tokyo office (東京オフィス) will close early on Friday for the holiday.').english, true);
  assert.equal(detectLanguage('Please forward this to Mr. Nguyễn Văn Minh in the Hanoi branch.').english, true);
});

test('JSON states: string values count, keys and numbers do not', () => {
  const fr = { ticket: { subject: 'Double prélèvement sur ma carte', body: "J'ai été débité deux fois pour la même commande." }, priority: 'high' };
  assert.equal(stateText(fr), "Double prélèvement sur ma carte\nJ'ai été débité deux fois pour la même commande.\nhigh");
  assert.deepEqual(detectLanguage(fr), { language: 'fr', english: false, reason: 'detector' });
  // English keys with no text values: nothing to detect.
  assert.deepEqual(detectLanguage({ amount: 12.5 }), { language: 'und', english: true, reason: 'no-text' });
  assert.deepEqual(detectLanguage({ customer_name_field: 1, shipping_address_line: true, notes: null }), { language: 'und', english: true, reason: 'no-text' });
  assert.equal(detectLanguage([{ from: 'klient', text: 'Dzień dobry, moja przesyłka się spóźnia.' }]).language, 'pl');
  // The same object sent as a JSON string is read the same way (keys skipped).
  assert.equal(stateText(JSON.stringify(fr)), stateText(fr));
  assert.equal(detectLanguage(JSON.stringify({ description: 'Моё замовлення досі не надійшло' })).english, false);
});

test('stateText caps, survives cycles and deep nesting, and never splits a surrogate pair', () => {
  const long = 'word '.repeat(10000);
  assert.equal(stateText(long).length, MAX_TEXT_CHARS);
  assert.equal(stateText({ a: long, b: 'later' }).length, MAX_TEXT_CHARS);
  const emoji = '😀'.repeat(5000);
  const capped = stateText(emoji);
  assert.ok(capped.length <= MAX_TEXT_CHARS && capped.length % 2 === 0);
  const cyclic: Record<string, unknown> = { text: 'Bonjour à tous' };
  cyclic.self = cyclic;
  assert.equal(stateText(cyclic), 'Bonjour à tous');
  let deep: unknown = 'Guten Morgen, wie geht es Ihnen heute?';
  for (let i = 0; i < 2000; i++) deep = { nested: [deep] };
  assert.equal(stateText(deep), 'Guten Morgen, wie geht es Ihnen heute?');
  assert.equal(detectLanguage(deep).language, 'de');
  // Deeper than the node budget: no stack overflow, no text reached, English default.
  for (let i = 0; i < 100000; i++) deep = [deep];
  assert.equal(stateText(deep), '');
  assert.deepEqual(detectLanguage(deep), { language: 'und', english: true, reason: 'no-text' });
  assert.equal(stateText(42), '');
  assert.equal(stateText(null), '');
});

test('linguisticText drops ids, numbers, emails and URLs but keeps unspaced scripts', () => {
  assert.equal(linguisticText('mail bob@x.com re ORD-12 at https://a.b/c now').replace(/\s+/g, ' '), 'mail re at now');
  assert.equal(linguisticText('注文してから2週間たちます'), '注文してから2週間たちます');
});

test('never throws, always answers the same shape (fast-check)', () => {
  const shape = (d: ReturnType<typeof detectLanguage>): void => {
    assert.equal(typeof d.language, 'string');
    assert.ok(d.language.length > 0);
    assert.equal(typeof d.english, 'boolean');
    assert.equal(typeof d.reason, 'string');
  };
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string({ unit: 'binary', maxLength: 300 }), // lone surrogates included
        fc.string({ unit: 'grapheme', maxLength: 300 }),
        fc.jsonValue({ maxDepth: 6 }),
        fc.anything({ withBigInt: true, withMap: true, withSet: true, withTypedArray: true, withSparseArray: true, withNullPrototype: true }),
      ),
      (state) => {
        shape(detectLanguage(state));
        assert.equal(typeof stateText(state), 'string');
      },
    ),
    { numRuns: 2000 },
  );
});

test('never throws on hostile objects', () => {
  const throwing = new Proxy({}, { ownKeys: () => { throw new Error('boom'); } });
  const getter = { get text(): string { throw new Error('boom'); } };
  for (const s of [throwing, getter, { a: throwing, b: 'Hola, ¿cómo estás hoy?' }, Symbol('x'), () => 1, 10n, undefined]) {
    const d = detectLanguage(s);
    assert.equal(typeof d.english, 'boolean');
  }
});

test('huge states are fast (the detector sees the first few KB only)', () => {
  const huge = 'Das Paket ist leider noch nicht angekommen. '.repeat(200000); // ~9 MB
  const t0 = performance.now();
  const d = detectLanguage(huge);
  const ms = performance.now() - t0;
  assert.equal(d.language, 'de');
  assert.ok(ms < 100, `${ms.toFixed(1)} ms`);
  const bigJson = JSON.stringify({ rows: Array.from({ length: 50000 }, (_, i) => ({ id: i, note: 'ok' })) });
  const t1 = performance.now();
  detectLanguage(bigJson);
  assert.ok(performance.now() - t1 < 100);
});

test('per-call cost over the sample is reported and bounded', () => {
  const texts = samples.map((s) => s.state);
  for (const t of texts) detectLanguage(t); // warm-up
  const runs: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t0 = performance.now();
    for (const t of texts) detectLanguage(t);
    runs.push(((performance.now() - t0) * 1000) / texts.length);
  }
  runs.sort((a, b) => a - b);
  const median = runs[2] as number;
  console.log(`detectLanguage: ${median.toFixed(1)} µs/call (median of 5 runs over ${texts.length} states)`);
  // Measured ~40-80 µs on a loaded 2-core box; 1 ms is a loose bound against pathological regressions.
  assert.ok(median < 1000, `${median.toFixed(1)} µs/call`);
});
