/** Table tests of the pure retry and deadline rules, with a fake clock and injected randomness. */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  DEFAULT_RETRY_POLICY as P,
  type FailureKind,
  attemptTimeout,
  backoffMs,
  decideRetry,
  remainingBudget,
  resolveDeadline,
  resolvePolicy,
  retryDelayMs,
  serverRetryDelayMs,
  shouldRetry,
} from '../src/index.js';

const NOW = Date.UTC(2026, 10, 22, 5, 0, 0); // the fake clock
const noJitter = () => 0;
const fullJitter = () => 0.999999;

describe('shouldRetry', () => {
  const table: [FailureKind | number, number, boolean][] = [
    [429, 0, true],
    [529, 0, true],
    [408, 0, true],
    [500, 0, true],
    [502, 1, true],
    [503, 2, false], // retries exhausted (maxRetries 2)
    [599, 0, true],
    [402, 0, false], // allowance: never retried
    [400, 0, false],
    [401, 0, false],
    [403, 0, false],
    [404, 0, false],
    [409, 0, false],
    [413, 0, false],
    [422, 0, false],
    [{ kind: 'connection' }, 0, true],
    [{ kind: 'connection' }, 1, true],
    [{ kind: 'connection' }, 2, false],
    [{ kind: 'timeout' }, 0, true],
    [{ kind: 'abort' }, 0, false],
    [{ kind: 'status', status: 529 }, 1, true],
  ];
  for (const [failure, attempt, expected] of table) {
    it(`${JSON.stringify(failure)} after attempt ${attempt} → ${expected}`, () => {
      assert.equal(shouldRetry(failure, attempt, P), expected);
    });
  }
  it('maxRetries 0 disables retries; policy switches turn kinds off', () => {
    assert.equal(shouldRetry(529, 0, resolvePolicy(P, { maxRetries: 0 })), false);
    assert.equal(shouldRetry({ kind: 'timeout' }, 0, resolvePolicy(P, { retryTimeouts: false })), false);
    assert.equal(shouldRetry({ kind: 'connection' }, 0, resolvePolicy(P, { retryConnectionErrors: false })), false);
    assert.equal(shouldRetry(429, 4, resolvePolicy(P, { maxRetries: 5 })), true);
  });
  it('no 4xx other than 408 and 429 is ever retried (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 400, max: 499 }), fc.nat(1), (status, attempt) => {
        assert.equal(shouldRetry(status, attempt, P), status === 408 || status === 429);
      }),
    );
  });
});

describe('serverRetryDelayMs', () => {
  const httpDate = new Date(NOW + 7000).toUTCString();
  const past = new Date(NOW - 7000).toUTCString();
  const table: [Record<string, string>, number | undefined][] = [
    [{}, undefined],
    [{ 'retry-after-ms': '250' }, 250],
    [{ 'Retry-After-Ms': '250' }, 250], // case-insensitive
    [{ 'retry-after-ms': '0' }, 0],
    [{ 'retry-after-ms': '1500.5' }, 1500.5],
    [{ 'retry-after-ms': '250', 'retry-after': '9' }, 250], // ms wins
    [{ 'retry-after-ms': '-1', 'retry-after': '2' }, 2000], // bad ms → seconds
    [{ 'retry-after-ms': 'soon', 'retry-after': '2' }, 2000],
    [{ 'retry-after-ms': '' , 'retry-after': '3' }, 3000],
    [{ 'retry-after': '2' }, 2000],
    [{ 'retry-after': '0.5' }, 500],
    [{ 'retry-after': '-3' }, undefined],
    [{ 'retry-after': httpDate }, 7000], // HTTP date relative to the fake clock
    [{ 'retry-after': past }, 0],
    [{ 'retry-after': 'whenever' }, undefined],
  ];
  for (const [headers, expected] of table) {
    it(`${JSON.stringify(headers)} → ${expected}`, () => {
      assert.equal(serverRetryDelayMs(headers, NOW), expected);
      assert.equal(serverRetryDelayMs(new Headers(headers), NOW), expected);
    });
  }
});

describe('backoffMs and retryDelayMs', () => {
  const table: [string, Record<string, string> | undefined, number, () => number, number][] = [
    ['attempt 0, no jitter', undefined, 0, noJitter, 500],
    ['attempt 1, no jitter', undefined, 1, noJitter, 1000],
    ['attempt 2, no jitter', undefined, 2, noJitter, 2000],
    ['attempt 3, no jitter', undefined, 3, noJitter, 4000],
    ['attempt 4 is capped at 5 s', undefined, 4, noJitter, 5000],
    ['attempt 10 is capped at 5 s', undefined, 10, noJitter, 5000],
    ['attempt 0, full jitter takes off 25 %', undefined, 0, fullJitter, 375],
    ['attempt 4, full jitter', undefined, 4, fullJitter, 3750],
    ['attempt 1, half jitter', undefined, 1, () => 0.5, 875],
    ['retry-after-ms is used as given', { 'retry-after-ms': '1234' }, 0, fullJitter, 1234],
    ['Retry-After seconds', { 'retry-after': '3' }, 2, noJitter, 3000],
    ['exactly 60 s is honoured', { 'retry-after-ms': '60000' }, 0, noJitter, 60000],
    ['over 60 s falls back to backoff', { 'retry-after-ms': '60001' }, 1, noJitter, 1000],
    ['Retry-After 120 s falls back to backoff', { 'retry-after': '120' }, 0, noJitter, 500],
    ['unusable header falls back to backoff', { 'retry-after': 'later' }, 0, noJitter, 500],
  ];
  for (const [name, headers, attempt, random, expected] of table) {
    it(name, () => assert.equal(retryDelayMs(headers, attempt, P, random, NOW), expected));
  }
  it('respectRetryAfter false ignores server delays', () => {
    assert.equal(retryDelayMs({ 'retry-after-ms': '10' }, 0, resolvePolicy(P, { respectRetryAfter: false }), noJitter, NOW), 500);
  });
  it('backoff stays within [75 %, 100 %] of the capped exponential (property)', () => {
    fc.assert(
      fc.property(fc.nat(20), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempt, r) => {
        const full = Math.min(500 * 2 ** attempt, 5000);
        const d = backoffMs(attempt, P, () => r);
        assert.ok(d <= full && d >= Math.floor(full * 0.75), `${d} for ${full}`);
      }),
    );
  });
});

describe('remainingBudget, resolveDeadline, attemptTimeout', () => {
  const budget: [number | undefined, number, number][] = [
    [undefined, NOW, Infinity],
    [NOW + 1000, NOW, 1000],
    [NOW + 1000, NOW + 999, 1],
    [NOW + 1000, NOW + 1000, 0],
    [NOW + 1000, NOW + 5000, 0], // never negative
  ];
  for (const [deadline, now, expected] of budget) {
    it(`remainingBudget(${deadline === undefined ? 'none' : `+${deadline - NOW}`}, +${now - NOW}) = ${expected}`, () =>
      assert.equal(remainingBudget(deadline, now), expected));
  }
  it('resolveDeadline takes the earlier of a budget and an absolute time', () => {
    assert.equal(resolveDeadline(NOW), undefined);
    assert.equal(resolveDeadline(NOW, 3000), NOW + 3000);
    assert.equal(resolveDeadline(NOW, undefined, NOW + 10), NOW + 10);
    assert.equal(resolveDeadline(NOW, 3000, NOW + 10), NOW + 10);
    assert.equal(resolveDeadline(NOW, 5, NOW + 10), NOW + 5);
  });
  const clip: [string, number, number | undefined, number, { timeoutMs: number | undefined; clipped: boolean }][] = [
    ['no deadline: the per-attempt timeout', 10_000, undefined, NOW, { timeoutMs: 10_000, clipped: false }],
    ['deadline far away', 10_000, NOW + 60_000, NOW, { timeoutMs: 10_000, clipped: false }],
    ['deadline sooner than the timeout clips it', 10_000, NOW + 2500, NOW, { timeoutMs: 2500, clipped: true }],
    ['deadline reached: no attempt', 10_000, NOW + 2500, NOW + 2500, { timeoutMs: undefined, clipped: true }],
    ['deadline passed: no attempt', 10_000, NOW, NOW + 1, { timeoutMs: undefined, clipped: true }],
  ];
  for (const [name, per, deadline, now, expected] of clip) {
    it(`attemptTimeout: ${name}`, () => assert.deepEqual(attemptTimeout(per, deadline, now), expected));
  }
});

describe('decideRetry (the whole rule)', () => {
  const table: [string, Parameters<typeof decideRetry>[0], ReturnType<typeof decideRetry>][] = [
    ['529 with retry-after-ms', { failure: { kind: 'status', status: 529 }, attempt: 0, headers: { 'retry-after-ms': '300' }, now: NOW }, { retry: true, delayMs: 300 }],
    ['429 with Retry-After', { failure: { kind: 'status', status: 429 }, attempt: 1, headers: { 'retry-after': '1' }, now: NOW }, { retry: true, delayMs: 1000 }],
    ['503 without headers: backoff', { failure: { kind: 'status', status: 503 }, attempt: 1, now: NOW, random: noJitter }, { retry: true, delayMs: 1000 }],
    ['402 never', { failure: { kind: 'status', status: 402 }, attempt: 0, now: NOW }, { retry: false, reason: 'not_retryable' }],
    ['422 never', { failure: { kind: 'status', status: 422 }, attempt: 0, now: NOW }, { retry: false, reason: 'not_retryable' }],
    ['third failure: exhausted', { failure: { kind: 'status', status: 529 }, attempt: 2, now: NOW }, { retry: false, reason: 'retries_exhausted' }],
    ['wait ending before the deadline', { failure: { kind: 'status', status: 529 }, attempt: 0, headers: { 'retry-after-ms': '999' }, deadline: NOW + 1000, now: NOW }, { retry: true, delayMs: 999 }],
    ['wait ending at the deadline', { failure: { kind: 'status', status: 529 }, attempt: 0, headers: { 'retry-after-ms': '1000' }, deadline: NOW + 1000, now: NOW }, { retry: false, reason: 'deadline' }],
    ['wait past the deadline', { failure: { kind: 'connection' }, attempt: 0, deadline: NOW + 100, now: NOW, random: noJitter }, { retry: false, reason: 'deadline' }],
    ['timeout, no deadline', { failure: { kind: 'timeout' }, attempt: 0, now: NOW, random: fullJitter }, { retry: true, delayMs: 375 }],
    ['abort never', { failure: { kind: 'abort' }, attempt: 0, now: NOW }, { retry: false, reason: 'not_retryable' }],
  ];
  for (const [name, args, expected] of table) {
    it(name, () => assert.deepEqual(decideRetry(args), expected));
  }
  it('no retry is ever planned to end at or past the deadline (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(408, 429, 500, 503, 529),
        fc.nat(1),
        fc.nat(120_000),
        fc.option(fc.nat(90_000), { nil: undefined }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (status, attempt, left, serverMs, r) => {
          const headers = serverMs === undefined ? undefined : { 'retry-after-ms': String(serverMs) };
          const d = decideRetry({ failure: { kind: 'status', status }, attempt, headers, deadline: NOW + left, now: NOW, random: () => r });
          if (d.retry) assert.ok(NOW + d.delayMs < NOW + left);
          else assert.equal(d.reason, 'deadline');
        },
      ),
    );
  });
});
