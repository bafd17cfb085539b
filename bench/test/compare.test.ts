import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareSettings } from '../src/compare.js';

test('--compare: pairs, none, or inline off by default while inline runs are on', () => {
  const table: { option: string | undefined; inlineOn: boolean; expected: Record<string, string> | undefined }[] = [
    { option: undefined, inlineOn: true, expected: { STRUCTQA_INLINE_MAX_TOKENS: '0' } },
    { option: undefined, inlineOn: false, expected: undefined },
    { option: 'none', inlineOn: true, expected: undefined },
    { option: 'STRUCTQA_LANES=1', inlineOn: true, expected: { STRUCTQA_LANES: '1' } },
    { option: 'STRUCTQA_LANES=1, STRUCTQA_BATCH_TOKEN_BUDGET=2048', inlineOn: false, expected: { STRUCTQA_LANES: '1', STRUCTQA_BATCH_TOKEN_BUDGET: '2048' } },
  ];
  for (const { option, inlineOn, expected } of table) assert.deepEqual(compareSettings(option, inlineOn), expected, `${option} ${inlineOn}`);
});

test('--compare refuses what is not a STRUCTQA_ setting with a value', () => {
  for (const bad of ['LANES=1', 'STRUCTQA_LANES', 'PATH=/tmp']) assert.throws(() => compareSettings(bad, true), /STRUCTQA_NAME=VALUE/, bad);
});
