/**
 * Issue 20, item 3: a graceful stop answers calls that arrive during the drain with the contract's 529
 * and its headers (not Fastify's bare 503), and a client stalled mid-request cannot keep the process
 * past its grace period: it exits 0.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import type { Admission } from '../../src/accounts/types.js';
import { startService } from '../../src/server.js';
import { FixtureGate, TEST_KEY } from '../helpers/gate.js';
import { testConfig } from '../helpers/checkpoints.js';
import { startServer } from '../helpers/server.js';

/** TEST FIXTURE: a gate whose first admission waits until the test lets it go. */
class HoldingGate extends FixtureGate {
  private letGo = () => {};
  private reached = () => {};
  /** Resolves when the first call is being admitted. */
  readonly held = new Promise<void>((r) => (this.reached = r));
  private readonly gateOpen = new Promise<void>((r) => (this.letGo = r));
  release(): void {
    this.letGo();
  }
  override async admit(): Promise<Admission> {
    this.reached();
    await this.gateOpen;
    return super.admit();
  }
  override async enter() {
    return { admit: () => this.admit(), leave: async () => undefined };
  }
}

/** Read HTTP/1.1 responses off a raw socket. */
function responses(socket: net.Socket): () => Promise<{ status: number; headers: Record<string, string>; body: string }> {
  let buffer = '';
  const waiting: (() => void)[] = [];
  socket.on('data', (d) => {
    buffer += d.toString();
    waiting.splice(0).forEach((w) => w());
  });
  socket.on('close', () => waiting.splice(0).forEach((w) => w()));
  return async () => {
    for (;;) {
      const end = buffer.indexOf('\r\n\r\n');
      if (end >= 0) {
        const [statusLine, ...lines] = buffer.slice(0, end).split('\r\n');
        const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
        const length = Number(headers['content-length'] ?? 0);
        if (buffer.length >= end + 4 + length) {
          const body = buffer.slice(end + 4, end + 4 + length);
          buffer = buffer.slice(end + 4 + length);
          return { status: Number(statusLine!.split(' ')[1]), headers, body };
        }
      }
      if (socket.destroyed) throw new Error(`connection closed; unread: ${buffer}`);
      await new Promise<void>((r) => waiting.push(r));
    }
  };
}

test('a call arriving on a busy keep-alive connection after the stop began gets 529 overloaded with its headers', async () => {
  const config = await testConfig();
  const gate = new HoldingGate();
  const service = await startService(config, { gate, logger: false });
  await service.ready;
  const port = Number(new URL(service.url).port);
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  const next = responses(socket);
  const body = JSON.stringify({ state: 'The parcel is late.', questions: { q: { type: 'noul' } } });
  const request = `POST /v1/systemone HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  socket.write(request);
  await gate.held; // the first is being answered: the connection is busy, not idle
  const stopped = service.stop();
  await new Promise((r) => setTimeout(r, 50));
  socket.write(request); // a call arriving on that keep-alive connection during the drain
  await new Promise((r) => setTimeout(r, 50));
  gate.release();
  const first = await next();
  assert.equal(first.status, 200, first.body);
  const late = await next();
  assert.equal(late.status, 529, late.body);
  assert.equal(late.headers['x-service-error-code'], 'overloaded');
  assert.match(late.headers['x-request-id'] ?? '', /^req_/);
  assert.ok(Number(late.headers['retry-after']) >= 1);
  assert.ok(Number(late.headers['retry-after-ms']) >= 1);
  assert.equal(late.headers['connection'], 'close');
  assert.equal(JSON.parse(late.body).detail.error_type, 'overloaded');
  await stopped;
  socket.destroy();
});

test('SIGTERM with a client stalled mid-request: the process exits 0 within its grace period', async () => {
  const server = await startServer({ env: { STRUCTQA_SHUTDOWN_GRACE_MS: '8000' } });
  const stalled = net.connect(server.port, '127.0.0.1');
  await new Promise((resolve, reject) => stalled.once('connect', resolve).once('error', reject));
  stalled.on('error', () => {});
  // headers, then a body that never comes
  stalled.write(`POST /v1/systemone HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.firstKey}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"state": "`);
  const slowloris = net.connect(server.port, '127.0.0.1');
  slowloris.on('error', () => {});
  await new Promise((r) => slowloris.once('connect', r));
  slowloris.write('GET /livez HTTP/1.1\r\nHost: x\r\nX-Slow: '); // headers never finished
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(await server.stop('SIGTERM'), 0, server.output());
  stalled.destroy();
  slowloris.destroy();
});
