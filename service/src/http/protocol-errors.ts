/**
 * Requests refused before any route, answered like every other error (contract §6): the JSON error
 * body, `x-request-id` = `x-typesafe-request-id`, `x-service-error-code`, and the status the HTTP
 * specification names.
 *
 * - Node's HTTP parser (the server's 'clientError'): headers over the limit → 431 headers_too_large,
 *   a request line that alone overflows it → 414 uri_too_long, the request not in within the server's
 *   time → 408 request_timeout, anything else it cannot read (a malformed request line or header, bad
 *   chunked framing, a body that ends before its Content-Length, conflicting framing headers) → 400
 *   bad_request. Nothing can follow on that connection: the response is followed by a lingering close
 *   (http/linger.ts), so a client still sending reads the answer instead of a reset.
 * - Fastify's router (`frameworkErrors`): a URL that is not valid percent-encoding → 400, a path
 *   parameter over its length → 414.
 * - An HTTP/1.1 request without exactly one Host (RFC 9112 §3.2) → 400 (Node's own check answers a
 *   bare 400 without our headers, so it is made here instead).
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { BadRequest, HeadersTooLarge, InternalError, PayloadTooLarge, RequestTimeout, UriTooLong, type ServiceError } from '../errors.js';
import { errorBody } from './errors.js';
import { isLingering, lingerClose, type LingerOptions } from './linger.js';
import type { Metrics } from './metrics.js';
import { newRequestId } from './request-id.js';

/** A request line longer than this inside a header overflow is reported as 414 rather than 431 (nginx's 8 KiB buffer). */
const LONG_REQUEST_LINE = 8 * 1024;

interface ParserError extends Error {
  code?: string;
  reason?: string;
  rawPacket?: Buffer;
}

/** What Node's HTTP parser refused → the contract's error. */
export function parserError(err: ParserError, maxHeaderBytes: number, bodyLimitBytes: number): ServiceError {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return requestLineOverflows(err.rawPacket) ? new UriTooLong() : new HeadersTooLarge(maxHeaderBytes);
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new RequestTimeout();
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      // what Node itself answers (413): the chunk extensions are part of the body's size
      return new PayloadTooLarge(bodyLimitBytes);
    default:
      return new BadRequest(`The request is not valid HTTP/1.1: ${(err.reason ?? err.message ?? 'parse error').replace(/^Parse Error: /, '')}.`);
  }
}

/** Whether the bytes the parser stopped in start a request whose request line alone is long (no CRLF within LONG_REQUEST_LINE). */
function requestLineOverflows(packet: Buffer | undefined): boolean {
  if (!packet || !/^[A-Za-z]+ /.test(packet.subarray(0, 16).toString('latin1'))) return false;
  const end = packet.indexOf('\n');
  return end < 0 ? packet.length > LONG_REQUEST_LINE : end > LONG_REQUEST_LINE;
}

/** The raw bytes of an error response on a connection no Fastify reply exists for. */
export function rawErrorResponse(error: ServiceError, requestId: string): string {
  const body = JSON.stringify(errorBody(error));
  const headers: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    'x-request-id': requestId,
    'x-typesafe-request-id': requestId,
    'x-service-error-code': error.code,
    ...error.headers,
    date: new Date().toUTCString(),
    connection: 'close',
  };
  const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}`);
  return `HTTP/1.1 ${error.status} ${statusText(error.status)}\r\n${lines.join('\r\n')}\r\n\r\n${body}`;
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 413: 'Payload Too Large', 414: 'URI Too Long', 431: 'Request Header Fields Too Large' };
const statusText = (status: number) => STATUS_TEXT[status] ?? 'Error';

/** The server's 'clientError' handler (Fastify's `clientErrorHandler` option). */
export function clientErrorHandler(deps: { log: () => FastifyBaseLogger; metrics: Metrics; linger: LingerOptions; maxHeaderBytes: number; bodyLimitBytes: number }) {
  return (connectionError: Error, socket: Socket): void => {
    const err = connectionError as ParserError;
    // A reset connection, or one already closing after an answer (it keeps feeding the parser, which
    // keeps failing): nothing to say.
    if (err.code === 'ECONNRESET' || socket.destroyed || isLingering(socket)) return;
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    const error = parserError(err, deps.maxHeaderBytes, deps.bodyLimitBytes);
    // As Node's own handler: answer only when no response has begun on this connection (a response
    // half sent cannot be followed by another one).
    if (socket.writable && !inFlight?.headersSent) {
      const id = newRequestId();
      socket.write(rawErrorResponse(error, id));
      deps.metrics.requests.inc({ route: 'unparsed', method: '', status: String(error.status), code: error.code });
      deps.log().info({ reqId: id, code: error.code, status: error.status, parser: err.code }, error.message);
    }
    lingerClose(socket, deps.linger);
  };
}

/** Fastify's `frameworkErrors` option: errors its router raises before any hook runs. */
export function frameworkErrorHandler(error: Error & { code?: string }, request: FastifyRequest, reply: FastifyReply): void {
  const serviceError =
    error.code === 'FST_ERR_BAD_URL'
      ? new BadRequest('The request target is not valid percent-encoding.')
      : error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? new UriTooLong('A path segment of the request target is too long.')
        : new InternalError();
  request.errorCode = serviceError.code;
  request.log.info({ code: serviceError.code, status: serviceError.status }, serviceError.message);
  void reply
    .code(serviceError.status)
    .headers({ 'x-request-id': request.id, 'x-typesafe-request-id': request.id, 'x-service-error-code': serviceError.code, ...serviceError.headers })
    .send(errorBody(serviceError));
}

/** RFC 9112 §3.2: an HTTP/1.1 request carries exactly one Host. */
export function hostProblem(raw: IncomingMessage): BadRequest | undefined {
  if (raw.httpVersionMajor !== 1 || raw.httpVersionMinor < 1) return undefined;
  let hosts = 0;
  for (let i = 0; i < raw.rawHeaders.length; i += 2) if (raw.rawHeaders[i]!.toLowerCase() === 'host') hosts++;
  if (hosts === 1) return undefined;
  return new BadRequest(hosts === 0 ? 'An HTTP/1.1 request must carry a Host header.' : 'An HTTP/1.1 request must carry exactly one Host header.');
}
