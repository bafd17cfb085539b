/** The chunking helper: pure splitting and combining rules, then `askInChunks` on a room-enforcing fake server. */

import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import fc from 'fast-check';
import {
  type Answer,
  Client,
  StateTooLongError,
  askInChunks,
  choice,
  choiceConfidence,
  chunkCharBudget,
  combineAnswers,
  noul,
  score,
  scoreConfidence,
  splitText,
} from '../src/index.js';
import { type FakeServer, roomEnforcingHandler, startFakeServer } from './fixtures/fake-server.js';

const close = (a: number, b: number, eps = 1e-9) => assert.ok(Math.abs(a - b) <= eps, `${a} ≉ ${b}`);

describe('splitText', () => {
  const table: [string, string, number, string[]][] = [
    ['fits: one trimmed chunk', '  hello world  ', 20, ['hello world']],
    ['empty', '   \n\n ', 5, []],
    ['paragraphs packed greedily', 'aaa bbb\n\nccc\n\nddd eee', 12, ['aaa bbb\n\nccc', 'ddd eee']],
    ['paragraph too long → sentences', 'One two. Three four! Five six?\n\nSeven.', 20, ['One two. Three four!', 'Five six?', 'Seven.']],
    ['sentence too long → words', 'alpha beta gamma delta epsilon', 12, ['alpha beta', 'gamma delta', 'epsilon']],
    ['word too long → characters', 'abcdefghij', 4, ['abcd', 'efgh', 'ij']],
    ['CJK sentences split after full stops', '今天下雨。明天晴天。后天多云。', 6, ['今天下雨。', '明天晴天。', '后天多云。']],
    ['no surrogate pair is cut', '😀😀😀😀', 2, ['😀😀', '😀😀']],
  ];
  for (const [name, text, max, expected] of table) {
    it(name, () => assert.deepEqual(splitText(text, max), expected));
  }

  it('chunks are within budget, substrings of the text, in order, and lose nothing (property)', () => {
    const word = fc.stringMatching(/^[a-z]{1,12}$/);
    const sentence = fc.array(word, { minLength: 1, maxLength: 12 }).map((ws) => `${ws.join(' ')}.`);
    const paragraph = fc.array(sentence, { minLength: 1, maxLength: 6 }).map((ss) => ss.join(' '));
    const doc = fc.array(paragraph, { minLength: 1, maxLength: 8 }).map((ps) => ps.join('\n\n'));
    fc.assert(
      fc.property(doc, fc.integer({ min: 1, max: 200 }), (text, max) => {
        const chunks = splitText(text, max);
        let from = 0;
        for (const c of chunks) {
          assert.ok(Array.from(c).length <= max, `chunk of ${c.length} > ${max}`);
          const at = text.indexOf(c, from);
          assert.ok(at >= 0, 'chunk is a substring, in order');
          from = at + c.length;
        }
        assert.equal(chunks.join('').replace(/\s/g, ''), text.replace(/\s/g, ''));
      }),
    );
  });
});

describe('chunkCharBudget', () => {
  const table: [number, number, number, number, number][] = [
    // room, stateTokens, stateChars, safety → chars
    [476, 952, 4000, 1, 2000],
    [476, 952, 4000, 0.9, 1800],
    [100, 1000, 4000, 0.9, 360],
    [476, 477, 1000, 1, 997], // just over: still shorter than the text
    [1000, 10, 50, 1, 49], // a confused estimate never returns the whole text
    [0, 10, 50, 0.9, 1],
    [10, 0, 50, 0.9, 25], // no token count: halve
  ];
  for (const [room, tokens, chars, safety, expected] of table) {
    it(`room ${room}, ${tokens} tokens, ${chars} chars, safety ${safety} → ${expected}`, () =>
      assert.equal(chunkCharBudget(room, tokens, chars, safety), expected));
  }
});

describe('combineAnswers', () => {
  const n1: Answer = { type: 'noul', noul: 0.2 };
  const n2: Answer = { type: 'noul', noul: 0.9 };
  const n3: Answer = { type: 'noul', noul: 0.4 };
  it('noul: max by default, mean and min on request', () => {
    assert.deepEqual(combineAnswers([n1, n2, n3]), { type: 'noul', noul: 0.9 });
    close((combineAnswers([n1, n2, n3], { noul: 'mean' }) as { noul: number }).noul, 0.5);
    assert.deepEqual(combineAnswers([n1, n2, n3], { noul: 'min' }), { type: 'noul', noul: 0.2 });
    assert.equal(combineAnswers([n1]), n1);
  });

  it('choice: averaged, renormalised, argmax, reference confidence', () => {
    const a: Answer = { type: 'choice', choice: 'x', probabilities: { x: 0.8, y: 0.2, z: 0 }, confidence: 0.7 };
    const b: Answer = { type: 'choice', choice: 'z', probabilities: { x: 0.1, y: 0.2, z: 0.7 }, confidence: 0.55 };
    const c = combineAnswers([a, b]) as { choice: string; probabilities: Record<string, number>; confidence: number };
    close(c.probabilities.x!, 0.45);
    close(c.probabilities.y!, 0.2);
    close(c.probabilities.z!, 0.35);
    assert.equal(c.choice, 'x');
    close(c.confidence, (0.45 - 1 / 3) / (2 / 3));
    // rounded inputs that do not sum to 1 are renormalised
    const r = combineAnswers([
      { type: 'choice', choice: 'p', probabilities: { p: 0.51, q: 0.5 }, confidence: 0 },
      { type: 'choice', choice: 'p', probabilities: { p: 0.51, q: 0.5 }, confidence: 0 },
    ]) as { probabilities: Record<string, number> };
    close(r.probabilities.p! + r.probabilities.q!, 1);
  });

  it('score: averaged probabilities, then the expectation', () => {
    const legend = { '0': 'calm', '1': 'annoyed', '2': 'angry' };
    const a: Answer = { type: 'score', score: 0.2, legend, probabilities: { '0': 0.8, '1': 0.2, '2': 0 }, confidence: 0.8 };
    const b: Answer = { type: 'score', score: 1.8, legend, probabilities: { '0': 0, '1': 0.2, '2': 0.8 }, confidence: 0.8 };
    const c = combineAnswers([a, b]) as { score: number; probabilities: Record<string, number>; legend: unknown; confidence: number };
    assert.deepEqual(Object.keys(c.probabilities), ['0', '1', '2']);
    close(c.probabilities['0']!, 0.4);
    close(c.probabilities['1']!, 0.2);
    close(c.probabilities['2']!, 0.4);
    close(c.score, 1);
    assert.deepEqual(c.legend, legend);
    close(c.confidence, scoreConfidence([0.4, 0.2, 0.4]));
  });

  it('reference confidence formulas reproduce the documented examples', () => {
    close(choiceConfidence([0.85, 0, 0.15]), 0.775); // documented 0.78
    close(scoreConfidence([0, 1, 0]), 1);
    assert.equal(scoreConfidence([1 / 3, 1 / 3, 1 / 3]), 0); // floored at 0
    assert.equal(choiceConfidence([0.5, 0.5]), 0);
  });

  it('refuses mixed types', () => assert.throws(() => combineAnswers([n1, { type: 'choice', choice: 'a', probabilities: { a: 1 }, confidence: 1 }])));
});

describe('askInChunks against a fake server that enforces a room', () => {
  let server: FakeServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const questions = {
    refund: noul('Does the customer ask for a refund?'),
    topic: choice('Topic?', { refund: null, shipping: null, other: null }),
    anger: score('How angry?', ['calm', 'annoyed', 'furious']),
  };
  const filler = (i: number) => `Paragraph ${i} talks about weather and nothing in particular at considerable length here.`;

  it('answers in one call when the state fits', async () => {
    server = await startFakeServer(roomEnforcingHandler({ room: 100, needle: 'refund' }));
    const client = new Client({ baseURL: server.url, apiKey: 'k' });
    const res = await askInChunks(client, { state: 'I want a refund.', questions });
    assert.equal(res.chunks.length, 1);
    assert.equal(res.combined.answers.refund.noul, 0.9);
    assert.equal(server.requests.length, 1);
  });

  it('splits on state_too_long, every chunk fits, answers combine', async () => {
    const paragraphs = Array.from({ length: 12 }, (_, i) => filler(i));
    paragraphs[7] = 'I want a refund for the broken lamp, please send it soon.';
    const state = paragraphs.join('\n\n');
    server = await startFakeServer(roomEnforcingHandler({ room: { refund: 40, topic: 30, anger: 35 }, needle: 'refund' }));
    const client = new Client({ baseURL: server.url, apiKey: 'k' });
    const res = await askInChunks(client, { state, questions }, { idempotencyKey: 'job-7' });

    assert.ok(res.chunks.length > 1);
    for (const c of res.chunks) assert.ok(c.text.split(/\s+/).length <= 30, 'each chunk fits the smallest room');
    assert.equal(res.chunks.map((c) => c.text).join(' ').replace(/\s/g, ''), state.replace(/\s/g, ''));
    assert.equal(server.requests.filter((r) => r.n > 0 && (r.body as { state: string }).state === state).length, 0);

    const c = res.combined;
    assert.equal(c.answers.refund.noul, 0.9, 'max: holds if any chunk holds');
    const k = res.chunks.length;
    close(c.answers.topic.probabilities.refund, (0.7 + (k - 1) / 3) / k);
    assert.equal(c.answers.topic.choice, 'refund');
    close(c.answers.anger.score, [0, 1, 2].reduce((s, i) => s + i * c.answers.anger.probabilities[String(i)]!, 0));
    assert.equal(c.usage.input_tokens, res.chunks.reduce((s, ch) => s + ch.response.usage.input_tokens, 0));
    assert.deepEqual(c.models, ['core-0.3.20']);

    const keys = server.requests.map((r) => r.headers['idempotency-key']);
    assert.equal(keys[0], 'job-7');
    assert.equal(new Set(keys).size, keys.length, 'each chunk call has its own key');

    const mean = await askInChunks(client, { state, questions }, { noul: 'mean' });
    close(mean.combined.answers.refund.noul, (0.9 + 0.1 * (k - 1)) / k);
  });

  it('re-splits a chunk that still gets state_too_long', async () => {
    // Long words everywhere except one dense paragraph of one-letter words: the chars-per-token
    // estimate from the whole state is far too generous for that paragraph.
    const long = (i: number) => Array.from({ length: 20 }, () => `extraordinarily${i}`).join(' ');
    const dense = Array.from({ length: 60 }, () => 'a').join(' ') + ' refund';
    const state = [long(1), long(2), dense, long(3)].join('\n\n');
    server = await startFakeServer(roomEnforcingHandler({ room: 25, needle: 'refund' }));
    const client = new Client({ baseURL: server.url, apiKey: 'k' });
    const res = await askInChunks(client, { state, questions: { refund: questions.refund } });
    const rejected = server.requests.length - res.chunks.length;
    assert.ok(rejected >= 2, `the first call and at least one chunk were rejected (${rejected})`);
    for (const c of res.chunks) assert.ok(c.text.split(/\s+/).length <= 25);
    assert.equal(res.combined.answers.refund.noul, 0.9);
  });

  it('passes through what it cannot split', async () => {
    server = await startFakeServer(roomEnforcingHandler({ room: 3, needle: 'x' }));
    const client = new Client({ baseURL: server.url, apiKey: 'k' });
    await assert.rejects(askInChunks(client, { state: ['one two three four'] as never, questions }), StateTooLongError);
    const zero = await startFakeServer(roomEnforcingHandler({ room: 0, needle: 'x' }));
    try {
      const c0 = new Client({ baseURL: zero.url, apiKey: 'k' });
      await assert.rejects(askInChunks(c0, { state: 'one two', questions }), StateTooLongError);
    } finally {
      await zero.close();
    }
  });
});
