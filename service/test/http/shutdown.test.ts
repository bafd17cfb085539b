/** Graceful shutdown: SIGTERM stops accepting, lets in-flight calls finish and charge, then exits 0. */
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { startServer } from '../helpers/server.js';

test('SIGTERM finishes in-flight calls before the process exits', async () => {
  const server = await startServer();
  const questions = Object.fromEntries(
    Array.from({ length: 32 }, (_, i) => [`q${i}`, { type: 'noul', instructions: `Is statement ${i} true of this text?` }]),
  );
  const body = JSON.stringify({ state: 'A support ticket about a delayed parcel. '.repeat(4), questions });
  const headers = { authorization: `Bearer ${server.firstKey}`, 'content-type': 'application/json' };
  const inFlight = Array.from({ length: 3 }, () => fetch(`${server.url}/v1/systemone`, { method: 'POST', headers, body }));
  await new Promise((r) => setTimeout(r, 150)); // the calls are queued or running
  const exited = server.stop('SIGTERM');
  const responses = await Promise.all(inFlight);
  for (const res of responses) {
    assert.equal(res.status, 200);
    const json = (await res.json()) as { answers: Record<string, unknown> };
    assert.equal(Object.keys(json.answers).length, 32);
  }
  assert.equal(await exited, 0, server.output());
  await assert.rejects(fetch(`${server.url}/livez`));
});

test('a connection that has not sent a request does not hold the stop', async () => {
  const server = await startServer();
  const silent = net.connect(server.port, '127.0.0.1');
  await new Promise((resolve, reject) => silent.once('connect', resolve).once('error', reject));
  const closed = new Promise((resolve) => silent.once('close', resolve));
  silent.on('error', () => {});
  // Exit code 0 is a clean stop; the grace period running out exits 1.
  assert.equal(await server.stop('SIGTERM'), 0, server.output());
  await closed;
});
