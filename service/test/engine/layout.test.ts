import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import { ProcessedTokenCap, StateTooLong } from '../../src/errors.js';
import { buildHeads, groupOptions, layOut, tokenizeState } from '../../src/engine/layout.js';
import { WordTokenizer } from '../helpers/word-tokenizer.js';

const limits = { model: 'test', window: 32, processedTokenCap: 1000 };

test('a noul head is [CLS] head [SEP] [MASK] false… [MASK] true… [SEP], counted by hand', async () => {
  const tok = new WordTokenizer();
  const [head] = await buildHeads(tok, [{ type: 'noul', instructions: 'Is it urgent?' }]);
  // "noul question: Is it urgent?" = 5 words; options "false: no, the statement does not hold" = 7,
  // "true: yes, the statement holds" = 5; + CLS, SEP, 2 MASK, SEP = 5 → 22.
  assert.equal(head!.ids.length, 5 + 7 + 5 + 5);
  assert.equal(head!.ids[0], tok.special.cls);
  assert.equal(head!.ids[6], tok.special.sep);
  assert.deepEqual(head!.markers, [7, 15]);
  assert.equal(head!.ids[7], tok.special.mask);
  assert.equal(head!.ids[15], tok.special.mask);
  assert.equal(head!.ids.at(-1), tok.special.sep);
  assert.deepEqual(head!.keys, ['false', 'true']);
});

test('room = window − 1 − head; a state that fits exactly is accepted, one more token is not', async () => {
  const tok = new WordTokenizer();
  const heads = await buildHeads(tok, [{ type: 'noul', instructions: 'Is it urgent?' }]);
  const room = limits.window - 1 - heads[0]!.ids.length; // 32 − 1 − 22 = 9
  assert.equal(room, 9);
  const fits = await tokenizeState(tok, 'a b c d e f g h i');
  const call = layOut(['q'], heads, fits, tok.special.sep, limits);
  assert.equal(call.rows[0]!.ids.length, limits.window);
  assert.equal(call.rows[0]!.ids.at(-1), tok.special.sep);
  assert.equal(call.processedTokens, 32);
  const over = await tokenizeState(tok, 'a b c d e f g h i j');
  assert.throws(
    () => layOut(['q'], heads, over, tok.special.sep, limits),
    (e: unknown) => {
      assert.ok(e instanceof StateTooLong);
      assert.equal(e.status, 413);
      assert.deepEqual(e.extra['questions'], { q: { room: 9, overflow: 1 } });
      assert.equal(e.extra['state_tokens'], 10);
      return true;
    },
  );
});

test('state_too_long reports room and overflow for every question, including those that fit', async () => {
  const tok = new WordTokenizer();
  const heads = await buildHeads(tok, [
    { type: 'noul', instructions: 'short' },
    { type: 'choice', instructions: 'a much longer instruction that takes room', criteria: { x: 'one two three', y: null } },
  ]);
  const state = await tokenizeState(tok, Array.from({ length: 12 }, (_, i) => `w${i}`).join(' '));
  try {
    layOut(['a', 'b'], heads, state, tok.special.sep, limits);
    assert.fail('expected StateTooLong');
  } catch (e) {
    assert.ok(e instanceof StateTooLong);
    const q = e.extra['questions'] as Record<string, { room: number; overflow: number }>;
    assert.equal(q['a']!.room, 32 - 1 - heads[0]!.ids.length);
    assert.equal(q['a']!.overflow, Math.max(0, 12 - q['a']!.room));
    assert.equal(q['b']!.overflow, 12 - q['b']!.room);
  }
});

test('processed cost = questions × longest sequence, checked against the cap', async () => {
  const tok = new WordTokenizer();
  const heads = await buildHeads(tok, [
    { type: 'noul', instructions: 'one' },
    { type: 'noul', instructions: 'one two three' },
  ]);
  const state = await tokenizeState(tok, 'x y');
  const call = layOut(['a', 'b'], heads, state, tok.special.sep, limits);
  const longest = Math.max(...call.rows.map((r) => r.ids.length));
  assert.equal(call.processedTokens, 2 * longest);
  assert.equal(call.inputTokens, call.rows.reduce((s, r) => s + r.ids.length, 0));
  assert.throws(
    () => layOut(['a', 'b'], heads, state, tok.special.sep, { ...limits, processedTokenCap: 2 * longest - 1 }),
    (e: unknown) => e instanceof ProcessedTokenCap && e.extra['cost'] === 2 * longest,
  );
});

test('a literal mask token inside any text is replaced by a space, never read as a marker', async () => {
  const tok = new WordTokenizer();
  const [head] = await buildHeads(tok, [{ type: 'choice', instructions: 'pick [MASK] one', criteria: { a: 'x[MASK]y', b: null } }]);
  assert.equal(head!.ids.filter((id) => id === tok.special.mask).length, 2);
  const state = await tokenizeState(tok, 'hello [MASK] world');
  assert.ok(!state.includes(tok.special.mask));
});

test('a head longer than the window leaves no room: state_too_long even for an empty state', async () => {
  const tok = new WordTokenizer();
  const heads = await buildHeads(tok, [{ type: 'noul', instructions: Array.from({ length: 40 }, () => 'w').join(' ') }]);
  assert.throws(() => layOut(['q'], heads, [], tok.special.sep, limits), (e: unknown) => {
    assert.ok(e instanceof StateTooLong);
    assert.deepEqual((e.extra['questions'] as Record<string, unknown>)['q'], { room: 0, overflow: heads[0]!.ids.length + 1 - 32 });
    return true;
  });
});

describe('a choice question whose options do not fit one sequence beside the state', () => {
  // window 32. Head "choice question: pick" = CLS + 3 + SEP = 5 (the prefix); each option "oN: d" =
  // MASK + 2 words = 3 tokens; closing SEP 1. Ten options: 5 + 30 + 1 = 36 > 32 even without state.
  const criteria = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`o${i}:`, 'd']));
  const question = { type: 'choice' as const, instructions: 'pick', criteria };

  it('is split into rows of contiguous option groups that each fit, spread evenly', async () => {
    const tok = new WordTokenizer();
    const heads = await buildHeads(tok, [question]);
    const state = await tokenizeState(tok, 'a b c d e f'); // 6 tokens
    // Per row: 5 + options + 1 + 6 + 1 ≤ 32 → at most 19 option tokens = 6 options; 10 options → 2 rows of 5.
    const call = layOut(['q'], heads, state, tok.special.sep, limits);
    assert.deepEqual(call.rowsPerQuestion, [2]);
    assert.deepEqual(call.rows.map((r) => r.markers.length), [5, 5]);
    for (const row of call.rows) {
      assert.equal(row.ids.length, 5 + 15 + 1 + 6 + 1);
      assert.deepEqual(Array.from(row.ids.slice(0, 5)), heads[0]!.ids.slice(0, 5), 'every row starts with the head');
      assert.deepEqual(row.markers.map((m) => row.ids[m]), [3, 3, 3, 3, 3].map(() => tok.special.mask));
      assert.deepEqual(Array.from(row.ids.slice(-8)), [tok.special.sep, ...state, tok.special.sep]);
    }
    // Options in order: row 0 holds options 0–4, row 1 options 5–9 (their tokens, after each marker).
    const optionToken = (row: number, k: number) => call.rows[row]!.ids[call.rows[row]!.markers[k]! + 1];
    assert.equal(optionToken(0, 0), heads[0]!.ids[heads[0]!.markers[0]! + 1]);
    assert.equal(optionToken(1, 0), heads[0]!.ids[heads[0]!.markers[5]! + 1]);
    assert.equal(call.processedTokens, 2 * 28, 'every row is charged: rows × longest');
    assert.equal(call.inputTokens, 2 * 28);
  });

  it('reports the room of its tightest row, and of one option per row when even that cannot hold the state', async () => {
    const tok = new WordTokenizer();
    const heads = await buildHeads(tok, [question]);
    // One option per row: 5 + 3 + 1 + state + 1 ≤ 32 → room 22; 23 tokens do not fit.
    const fits = await tokenizeState(tok, Array.from({ length: 22 }, (_, i) => `w${i}`).join(' '));
    const call = layOut(['q'], heads, fits, tok.special.sep, limits);
    assert.equal(call.rows.length, 10);
    assert.equal(call.processedTokens, 10 * 32);
    const over = await tokenizeState(tok, Array.from({ length: 23 }, (_, i) => `w${i}`).join(' '));
    assert.throws(() => layOut(['q'], heads, over, tok.special.sep, limits), (e: unknown) => {
      assert.ok(e instanceof StateTooLong);
      assert.deepEqual((e.extra['questions'] as Record<string, unknown>)['q'], { room: 22, overflow: 1 });
      return true;
    });
  });

  it('counts every row against the processed-token cap', async () => {
    const tok = new WordTokenizer();
    const heads = await buildHeads(tok, [question, { type: 'noul', instructions: 'x' }]);
    const state = await tokenizeState(tok, 'a b c d e f');
    const call = layOut(['q', 'n'], heads, state, tok.special.sep, limits);
    assert.deepEqual(call.rowsPerQuestion, [2, 1]);
    const longest = Math.max(...call.rows.map((r) => r.ids.length));
    assert.equal(call.processedTokens, 3 * longest);
    assert.throws(
      () => layOut(['q', 'n'], heads, state, tok.special.sep, { ...limits, processedTokenCap: 3 * longest - 1 }),
      (e: unknown) => e instanceof ProcessedTokenCap,
    );
  });

  it('noul and score questions are never split: their room is the one-row room', async () => {
    const tok = new WordTokenizer();
    const heads = await buildHeads(tok, [{ type: 'score', instructions: 'how', criteria: Array.from({ length: 10 }, (_, i) => `level${i}`) }]);
    assert.throws(() => layOut(['s'], heads, [], tok.special.sep, limits), (e: unknown) => e instanceof StateTooLong);
  });
});

test('groupOptions: fewest rows, then the smallest widest group', () => {
  assert.deepEqual(groupOptions([3, 3, 3, 3, 3, 3, 3, 3, 3, 3], 19), [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]);
  assert.deepEqual(groupOptions([5, 1, 1, 1, 1, 1], 6), [[0], [1, 2, 3, 4, 5]]);
  assert.deepEqual(groupOptions([2, 2, 2], 100), [[0, 1, 2]]);
});
