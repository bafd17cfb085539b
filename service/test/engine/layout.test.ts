import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ProcessedTokenCap, StateTooLong } from '../../src/errors.js';
import { buildHeads, layOut, tokenizeState } from '../../src/engine/layout.js';
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
