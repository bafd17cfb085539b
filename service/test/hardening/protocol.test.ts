/**
 * Issue 32, items 1 and 2: requests refused before any route (Node's HTTP parser, Fastify's router)
 * carry the contract like every other error — JSON error body, x-request-id = x-typesafe-request-id,
 * x-service-error-code, the status the HTTP specification names — and a response sent while the body
 * is still arriving is followed by a lingering close, so a client that writes its whole body and then
 * reads gets the 413 (or 403, 429) and its headers, not a reset; a slow or endless sender is cut off
 * at the bounds.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { parserError } from '../../src/http/protocol-errors.js';
import { adminRoutes } from '../../src/http/routes/admin.js';
import { listeningAppWithAccounts, type AccountsTestApp } from '../helpers/app.js';
import { exchange, type RawResponse } from '../helpers/raw-http.js';

const LINGER = { STRUCTQA_LINGER_TIME_MS: '3000', STRUCTQA_LINGER_TIMEOUT_MS: '1000', STRUCTQA_LINGER_MAX_BYTES: String(32 * 1024 * 1024) };

let served: AccountsTestApp;
let port: number;
let key: string;

before(async () => {
  ({ port, ...served } = await listeningAppWithAccounts(LINGER, (g) => [(app) => adminRoutes(app, { gate: g, adminToken: 'admin-token-of-the-protocol-test' })]));
  key = (await served.gate.createKey('protocol', { create: true })).key;
});
after(() => served.close());

/** The contract on an error response: status, fine code, JSON error body, both request-id headers. */
function assertContract(res: RawResponse, status: number, code: string, what: string, errorType = code): void {
  assert.equal(res.error, undefined, `${what}: the client saw ${res.error} (received ${JSON.stringify(res.raw.slice(0, 200))})`);
  assert.equal(res.status, status, `${what}: ${res.raw.slice(0, 300)}`);
  assert.equal(res.headers['x-service-error-code'], code, what);
  assert.match(res.headers['x-request-id'] ?? '', /^req_[0-9a-f]{32}$/, what);
  assert.equal(res.headers['x-typesafe-request-id'], res.headers['x-request-id'], what);
  assert.match(res.headers['content-type'] ?? '', /^application\/json/, what);
  const body = JSON.parse(res.body) as { detail: { error_type: string; message: string } };
  assert.equal(typeof body.detail.message, 'string', what);
  assert.equal(body.detail.error_type, errorType, what);
}

describe('requests refused before any route', () => {
  const post = (headers: string, body = '') => `POST /v1/systemone HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n${headers}\r\n${body}`;
  const cases: [string, () => (string | Buffer)[], number, string][] = [
    ['headers over the limit', () => [`GET /livez HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`], 431, 'headers_too_large'],
    ['a request line over the limit', () => [`GET /${'a'.repeat(40_000)} HTTP/1.1\r\nHost: x\r\n\r\n`], 414, 'uri_too_long'],
    ['a path segment over its limit', () => [`DELETE /admin/keys/${'k'.repeat(300)} HTTP/1.1\r\nHost: x\r\n\r\n`], 414, 'uri_too_long'],
    ['a malformed request line', () => ['GARBAGE\r\n\r\n'], 400, 'bad_request'],
    ['an unknown HTTP version', () => ['GET /livez HTTP/9.9\r\nHost: x\r\n\r\n'], 400, 'bad_request'],
    ['a control character in a header', () => ['GET /livez HTTP/1.1\r\nHost: x\r\nX-A: a\x01b\r\n\r\n'], 400, 'bad_request'],
    ['a URL that is not valid percent-encoding', () => ['GET /admin/keys/%E0%A4%A HTTP/1.1\r\nHost: x\r\n\r\n'], 400, 'bad_request'],
    ['HTTP/1.1 without Host', () => ['GET /livez HTTP/1.1\r\n\r\n'], 400, 'bad_request'],
    ['two Host headers', () => ['GET /livez HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n'], 400, 'bad_request'],
    ['a body that ends before its Content-Length', () => [post('Content-Type: application/json\r\nContent-Length: 100\r\n', '{"state":')], 400, 'bad_request'],
    ['bad chunked framing', () => [post('Transfer-Encoding: chunked\r\n', 'ZZZ\r\nabc\r\n0\r\n\r\n')], 400, 'bad_request'],
    ['Content-Length beside Transfer-Encoding', () => [post('Content-Length: 5\r\nTransfer-Encoding: chunked\r\n', '0\r\n\r\n')], 400, 'bad_request'],
    ['two Content-Lengths that differ', () => [post('Content-Length: 5\r\nContent-Length: 6\r\n', 'abcdef')], 400, 'bad_request'],
    ['a Content-Length that is not a number', () => [post('Content-Length: abc\r\n')], 400, 'bad_request'],
    ['an unknown transfer coding', () => [post('Transfer-Encoding: gzip\r\n')], 400, 'bad_request'],
    ['headers over the limit, then a body', () => [`POST /v1/systemone HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\nContent-Length: 2000000\r\n\r\n`, 'x'.repeat(2_000_000)], 431, 'headers_too_large'],
    ['bad chunked framing, then more body', () => [post('Transfer-Encoding: chunked\r\n', 'ZZZ\r\n'), 'y'.repeat(2_000_000)], 400, 'bad_request'],
  ];
  for (const [what, chunks, status, code] of cases) {
    test(`${what} → ${status} ${code} with the contract's body and headers`, async () => {
      assertContract(await exchange(port, chunks()), status, code, what);
    });
  }

  test("the parser's timeout is 408 request_timeout", () => {
    const error = parserError(Object.assign(new Error('timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), 16384, 1024);
    assert.equal(error.status, 408);
    assert.equal(error.code, 'request_timeout');
  });

  test('an HTTP/1.0 request without Host is served', async () => {
    const res = await exchange(port, ['GET /livez HTTP/1.0\r\n\r\n']);
    assert.equal(res.status, 200);
  });
});

describe('a response sent while the body is still arriving is readable (lingering close)', () => {
  // Larger than what the kernel buffers on loopback: closed at once, the client's send fails and the
  // answer waiting in its receive buffer is never read (EPIPE, ECONNRESET).
  const SIZE = 16_000_000;
  const big = 'x'.repeat(SIZE);
  const headers = (extra: string, auth = true) => `POST /v1/systemone HTTP/1.1\r\nHost: x\r\n${auth ? `Authorization: Bearer ${key}\r\n` : ''}${extra}\r\n`;
  const bodies: [string, Buffer][] = [
    ['a huge string inside JSON', Buffer.from(JSON.stringify({ state: big, questions: { q: { type: 'noul' } } }))],
    ['a body that is not JSON', Buffer.from(big)],
    ['bytes that are not UTF-8', Buffer.alloc(SIZE, 0xff)],
  ];
  for (const [what, body] of bodies) {
    test(`${what} over the limit, by Content-Length: the whole body sent, then 413 read`, async () => {
      const res = await exchange(port, [headers(`Content-Type: application/json\r\nContent-Length: ${body.length}\r\n`), body]);
      assertContract(res, 413, 'payload_too_large', what);
      assert.equal(res.headers.connection, 'close');
    });
    test(`${what} over the limit, chunked: the whole body sent, then 413 read`, async () => {
      const chunks: (string | Buffer)[] = [headers('Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n')];
      for (let at = 0; at < body.length; at += 256 * 1024) {
        const part = body.subarray(at, at + 256 * 1024);
        chunks.push(`${part.length.toString(16)}\r\n`, part, '\r\n');
      }
      chunks.push('0\r\n\r\n');
      assertContract(await exchange(port, chunks), 413, 'payload_too_large', `${what} (chunked)`);
    });
  }

  test('a body refused from its headers (no key): 403 read after the whole body', async () => {
    const res = await exchange(port, [headers(`Content-Length: ${big.length}\r\n`, false), big]);
    assertContract(res, 403, 'missing_api_key', 'no key', 'authentication_error');
  });

  test('Expect: 100-continue with a body over the limit: 413 at once, no invitation to send it', async () => {
    const res = await exchange(port, [headers('Expect: 100-continue\r\nContent-Length: 5000000\r\n')]);
    assertContract(res, 413, 'payload_too_large', 'expect');
    assert.ok(!res.raw.includes('100 Continue'), res.raw.slice(0, 200));
  });

  test('Expect: 100-continue within the limit: 100, then the answer', async () => {
    const body = JSON.stringify({ state: 'The parcel is late.', questions: { q: { type: 'noul' } } });
    const res = await exchange(port, [headers(`Expect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n`), body], { gapMs: 200 });
    assert.ok(res.raw.startsWith('HTTP/1.1 100 Continue'), res.raw.slice(0, 100));
    assert.equal(res.status, 200, res.raw.slice(0, 300));
  });

  /** A client that keeps sending after its 413 until the server closes; resolves with the bytes it got to send. */
  const sender = (opts: { chunk: number; everyMs: number }) =>
    new Promise<{ sent: number; response: string }>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      let sent = 0;
      let response = '';
      socket.on('data', (d) => (response += d.toString('latin1')));
      socket.on('error', () => undefined);
      socket.once('connect', () => {
        socket.write(headers('Content-Length: 1000000000\r\n'));
        const timer = setInterval(() => {
          if (socket.destroyed || !socket.writable) return;
          socket.write(Buffer.alloc(opts.chunk, 0x61));
          sent += opts.chunk;
        }, opts.everyMs);
        socket.once('close', () => {
          clearInterval(timer);
          resolve({ sent, response });
        });
      });
    });

  test('a client that trickles a body forever is closed at the time bound, after its 413', async () => {
    const { response } = await sender({ chunk: 10, everyMs: 50 });
    assert.match(response, /^HTTP\/1\.1 413/);
  });

  test('a client that streams a body past the byte bound is closed, after its 413', async () => {
    const { sent, response } = await sender({ chunk: 256 * 1024, everyMs: 1 });
    assert.match(response, /^HTTP\/1\.1 413/);
    assert.ok(sent < 1_000_000_000, `closed after ${sent} bytes`);
  });

  test('a client that goes silent mid-body is closed at the idle bound, after its 413', async () => {
    const res = await exchange(port, [headers('Content-Length: 5000000\r\n'), 'x'.repeat(1000)], { end: false });
    assertContract(res, 413, 'payload_too_large', 'silent');
  });
});
