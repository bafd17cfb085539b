/**
 * Issue 32, item 3: a flood costs its bytes, not CPU. A caller over its request rate or in-flight
 * limit is refused (429) from its key alone, before its body is read: no body of a refused call is
 * parsed or hashed (structqa_request_bodies_parsed_total counts the ones that are), and the answer is
 * readable after the whole body was sent. The Idempotency-Key replay still holds for admitted calls.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import type { AccountsGate } from '../../src/accounts/gate.js';
import type { Metrics } from '../../src/http/metrics.js';
import { listeningAppWithAccounts, type AccountsTestApp } from '../helpers/app.js';
import { exchange } from '../helpers/raw-http.js';

let served: AccountsTestApp;
let gate: AccountsGate;
let port: number;

before(async () => {
  ({ port, ...served } = await listeningAppWithAccounts());
  gate = served.gate;
});
after(() => served.close());

const parsed = async (metrics: Metrics) => (await metrics.bodiesParsed.get()).values[0]?.value ?? 0;

/** A 1 MB body (just under the limit) as JSON: a state of ~1 MB. */
const MEGABYTE = JSON.stringify({ state: 'lorem ipsum dolor sit amet '.repeat(38_000), questions: { q: { type: 'noul' } } });

function call(key: string, body: string, extra = ''): Promise<import('../helpers/raw-http.js').RawResponse> {
  return exchange(port, [`POST /v1/systemone HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n`, body]);
}

test('1 MB bodies past the request rate are refused 429 unparsed, and the 429 is read after the whole body', async () => {
  assert.ok(MEGABYTE.length > 1_000_000 && MEGABYTE.length < served.config.bodyLimitBytes);
  const { key } = await gate.createKey('flooder', { create: true, limits: { requestsPerSecond: 1, processedTokensPerSecond: 1_000_000_000 } });
  const before = await parsed(served.metrics);
  const statuses: number[] = [];
  for (let i = 0; i < 12; i++) {
    const res = await call(key, MEGABYTE);
    assert.equal(res.error, undefined, `call ${i}: ${res.error}`);
    statuses.push(res.status!);
    if (res.status === 429) {
      assert.equal(res.headers['x-service-error-code'], 'rate_limited');
      assert.ok(Number(res.headers['retry-after-ms']) > 0);
      assert.match(res.headers['x-request-id'] ?? '', /^req_/);
    }
  }
  const refused = statuses.filter((s) => s === 429).length;
  const admitted = statuses.length - refused;
  assert.ok(refused >= 9, `statuses ${statuses.join(',')}`);
  // every admitted body was parsed (and then refused for its size: 413 state_too_long); no refused one was
  assert.equal((await parsed(served.metrics)) - before, admitted, `statuses ${statuses.join(',')}`);
});

test('a call past the in-flight limit is refused 429 before its body is read', async () => {
  const { key } = await gate.createKey('inflight', { create: true, limits: { inFlight: 1 } });
  const arrival = await gate.arrive!((await gate.authenticate(`Bearer ${key}`))!); // holds the one slot
  try {
    const before = await parsed(served.metrics);
    const res = await call(key, MEGABYTE);
    assert.equal(res.status, 429, res.raw.slice(0, 200));
    assert.equal(res.headers['x-service-error-code'], 'in_flight_limit');
    assert.equal((await parsed(served.metrics)) - before, 0);
  } finally {
    await arrival.leave();
  }
  // the slot is free again, and a refused or answered call gives its own back
  const body = JSON.stringify({ state: 'The parcel is late.', questions: { q: { type: 'noul' } } });
  for (let i = 0; i < 3; i++) assert.equal((await call(key, body)).status, 200);
});

test('the Idempotency-Key replay still holds for admitted calls (and a replay is not parsed twice into a charge)', async () => {
  const { key, account } = await gate.createKey('replays', { create: true });
  const body = JSON.stringify({ state: 'The parcel is late.', questions: { q: { type: 'noul' } } });
  const first = await call(key, body, 'Idempotency-Key: k-1\r\n');
  assert.equal(first.status, 200, first.raw.slice(0, 300));
  const again = await call(key, body, 'Idempotency-Key: k-1\r\n');
  assert.equal(again.status, 200);
  assert.equal(again.headers['x-idempotent-replay'], 'true');
  assert.equal(again.body, first.body);
  const other = await call(key, body.replace('late', 'early'), 'Idempotency-Key: k-1\r\n');
  assert.equal(other.status, 400);
  assert.equal(other.headers['x-service-error-code'], 'idempotency_key_reused');
  assert.equal((await gate.totals({ accountId: account.id })).records, 1);
});

test('a connection that ends while its slot is being taken gives the slot back', async () => {
  const { key } = await gate.createKey('ended', { create: true, limits: { inFlight: 1 } });
  const arrive = gate.arrive!.bind(gate);
  // the slot taken slowly (as over a Redis round trip), the client gone meanwhile
  gate.arrive = async (account) => {
    await new Promise((r) => setTimeout(r, 300));
    return arrive(account);
  };
  try {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.write(`POST /v1/systemone HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Length: 10\r\n\r\n`);
    await new Promise((r) => setTimeout(r, 50));
    socket.destroy();
    await new Promise((r) => setTimeout(r, 500));
  } finally {
    gate.arrive = arrive;
  }
  const body = JSON.stringify({ state: 'The parcel is late.', questions: { q: { type: 'noul' } } });
  const res = await call(key, body);
  assert.equal(res.status, 200, res.raw.slice(0, 300));
});
