/**
 * Every error the service answers with, as one class per contract §6 row.
 *
 *   ServiceError (status, code, extra body fields, extra headers)
 *    ├── InvalidJson              422 invalid_json      (FastAPI's json_invalid detail[] list)
 *    ├── InvalidRequest           422 invalid_request   (FastAPI-style detail[] list)
 *    ├── UnknownModel             400 unknown_model     (error_type api_usage_error)
 *    ├── MissingApiKey            403 missing_api_key   (error_type authentication_error)
 *    ├── InvalidApiKey            401 invalid_api_key   (error_type authentication_error)
 *    ├── AllowanceExhausted       402 allowance_exhausted
 *    ├── StateTooLong             413 state_too_long
 *    ├── TooManyQuestions         413 too_many_questions
 *    ├── ProcessedTokenCap        413 processed_token_cap
 *    ├── PayloadTooLarge          413 payload_too_large
 *    ├── RateLimited              429 rate_limited      (Retry-After, retry-after-ms)
 *    ├── InFlightLimit            429 in_flight_limit   (Retry-After, retry-after-ms)
 *    ├── Overloaded               529 overloaded        (Retry-After, retry-after-ms)
 *    ├── Starting                 529 starting          (Retry-After, retry-after-ms)
 *    ├── ClientGone (engine)      499 client_gone       (the caller hung up; logged, never sent)
 *    ├── InternalError            500 internal_error    (request id only)
 *    ├── IdempotencyKeyReused     400 idempotency_key_reused (same key, different body: Stripe's rule)
 *    ├── MethodNotAllowed         405 method_not_allowed (Allow)
 *    ├── StorageUnavailable       503 storage_unavailable (Retry-After, retry-after-ms; the database is unreachable)
 *    │   a request refused before any route (Node's HTTP parser, Fastify's router; http/protocol-errors.ts):
 *    ├── BadRequest               400 bad_request       (malformed request line, headers, chunked body, URL encoding, a body that ends early)
 *    ├── RequestTimeout           408 request_timeout   (the request did not arrive within the server's time)
 *    ├── UriTooLong               414 uri_too_long
 *    └── HeadersTooLarge          431 headers_too_large
 *
 * The HTTP layer turns any ServiceError into `{"detail": {"error_type", "message", ...extra}}` with the
 * header `x-service-error-code`; anything else becomes InternalError with no internals exposed.
 * Status and `error_type` follow the earlier service where outside evidence shows what it does (its
 * official clients, the jevcompat and Bud conformance suites); the header keeps this service's fine
 * code. Each such choice and its evidence: docs/conformance.md.
 */

export type ErrorCode =
  | 'invalid_json'
  | 'invalid_request'
  | 'unknown_model'
  | 'missing_api_key'
  | 'invalid_api_key'
  | 'allowance_exhausted'
  | 'state_too_long'
  | 'too_many_questions'
  | 'processed_token_cap'
  | 'payload_too_large'
  | 'rate_limited'
  | 'in_flight_limit'
  | 'overloaded'
  | 'starting'
  | 'not_found'
  | 'forbidden'
  | 'client_gone'
  | 'internal_error'
  | 'idempotency_key_reused'
  | 'method_not_allowed'
  | 'storage_unavailable'
  | 'bad_request'
  | 'request_timeout'
  | 'uri_too_long'
  | 'headers_too_large';

export class ServiceError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    /** Extra fields placed beside `error_type` and `message` in `detail`. */
    readonly extra: Record<string, unknown> = {},
    /** Extra response headers (Retry-After, WWW-Authenticate, …). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }

  /** The body's `detail.error_type`: the fine code unless the earlier service is known to say otherwise. */
  get errorType(): string {
    return this.code;
  }
}

/** One FastAPI-style validation problem: `loc` starts with "body". */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/**
 * 422 with FastAPI's own list for a body it cannot decode (`json_invalid` at `["body", position]`), as
 * the earlier service answers and the jevcompat suite expects; the header still says invalid_json.
 */
export class InvalidJson extends ServiceError {
  constructor(message = 'The request body is not valid JSON.') {
    super(422, 'invalid_json', message);
  }

  get issues(): ValidationIssue[] {
    const position = /position (\d+)/.exec(this.message)?.[1];
    return [{ loc: position === undefined ? ['body'] : ['body', Number(position)], msg: this.message, type: 'json_invalid' }];
  }
}

export class InvalidRequest extends ServiceError {
  constructor(readonly issues: ValidationIssue[]) {
    super(422, 'invalid_request', issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '));
  }
}

export class UnknownModel extends ServiceError {
  constructor(model: string, accepted: string[]) {
    super(400, 'unknown_model', `Unknown model: ${model}`, { model, accepted_models: accepted });
  }

  /** What the earlier service answered for an unknown model (reference §4.1). */
  override get errorType(): string {
    return 'api_usage_error';
  }
}

const bearer = { 'www-authenticate': 'Bearer' };

/** 403 like the earlier service (reference §4.1; Bud's conformance test asserts it). */
export class MissingApiKey extends ServiceError {
  constructor(message = 'Must supply an API key in the Authorization header: "Bearer <key>".') {
    super(403, 'missing_api_key', message, {}, bearer);
  }

  override get errorType(): string {
    return 'authentication_error';
  }
}

export class InvalidApiKey extends ServiceError {
  constructor(message = 'Cannot authenticate with the server. Please check your API key and try again.') {
    super(401, 'invalid_api_key', message, {}, bearer);
  }

  override get errorType(): string {
    return 'authentication_error';
  }
}

export class AllowanceExhausted extends ServiceError {
  constructor(info: { allowance: number; used: number; resets_at: string; usage_view: string }) {
    super(
      402,
      'allowance_exhausted',
      `The monthly free allowance of ${info.allowance} processed tokens is used up; it resets at ${info.resets_at}.`,
      info,
    );
  }
}

export interface QuestionRoom {
  /** Tokens of state this question can hold. */
  room: number;
  /** Tokens of state beyond the room (0 when it fits). */
  overflow: number;
}

export class StateTooLong extends ServiceError {
  constructor(model: string, stateTokens: number, questions: Record<string, QuestionRoom>) {
    const over = Object.entries(questions).filter(([, q]) => q.overflow > 0).length;
    super(
      413,
      'state_too_long',
      `The state is ${stateTokens} tokens for ${model} and does not fit the room of ${over} question(s); ` +
        'nothing is truncated: split the state into chunks that fit each question\'s room.',
      { model, state_tokens: stateTokens, questions },
    );
  }
}

export class TooManyQuestions extends ServiceError {
  constructor(count: number, limit: number) {
    super(413, 'too_many_questions', `${count} questions in one call; the limit is ${limit}.`, { limit, count });
  }
}

export class ProcessedTokenCap extends ServiceError {
  constructor(model: string, cost: number, cap: number) {
    super(
      413,
      'processed_token_cap',
      `This call would process ${cost} tokens (rows × longest sequence; a row per question, or per group of a split choice question's options) on ${model}; the cap is ${cap}. ` +
        'Send fewer questions or a shorter state.',
      { model, cost, cap },
    );
  }
}

export class PayloadTooLarge extends ServiceError {
  constructor(limitBytes: number) {
    super(413, 'payload_too_large', `The request body is larger than ${limitBytes} bytes.`, { limit_bytes: limitBytes });
  }
}

/** Retry headers in both forms the earlier clients read; seconds are rounded up so waiting them suffices. */
export function retryHeaders(retryAfterMs: number): Record<string, string> {
  const ms = Math.max(0, Math.ceil(retryAfterMs));
  return { 'retry-after': String(Math.ceil(ms / 1000)), 'retry-after-ms': String(ms) };
}

export class RateLimited extends ServiceError {
  constructor(retryAfterMs: number, message = 'The account request or token rate limit is reached.') {
    super(429, 'rate_limited', message, { retry_after_ms: Math.ceil(retryAfterMs) }, retryHeaders(retryAfterMs));
  }
}

export class InFlightLimit extends ServiceError {
  constructor(retryAfterMs: number, limit: number) {
    super(
      429,
      'in_flight_limit',
      `The account already has ${limit} requests in flight.`,
      { limit, retry_after_ms: Math.ceil(retryAfterMs) },
      retryHeaders(retryAfterMs),
    );
  }
}

export class Overloaded extends ServiceError {
  constructor(retryAfterMs: number, message = 'The inference queue is full; retry after a short delay.') {
    super(529, 'overloaded', message, {}, retryHeaders(retryAfterMs));
  }
}

export class Starting extends ServiceError {
  constructor(retryAfterMs: number) {
    super(529, 'starting', 'The checkpoints are still loading; retry after a short delay.', {}, retryHeaders(retryAfterMs));
  }
}

export class NotFound extends ServiceError {
  constructor(message = 'Not Found') {
    super(404, 'not_found', message);
  }
}

export class Forbidden extends ServiceError {
  constructor(message = 'Forbidden') {
    super(403, 'forbidden', message);
  }
}

export class InternalError extends ServiceError {
  constructor() {
    super(500, 'internal_error', 'Internal error; quote the request id when reporting it.');
  }
}

/** Stripe's rule: an Idempotency-Key names one request; the same key with another body is refused, not replayed. */
export class IdempotencyKeyReused extends ServiceError {
  constructor() {
    super(
      400,
      'idempotency_key_reused',
      'This Idempotency-Key was already used with a different request body; use a new key for a new request.',
    );
  }
}

export class MethodNotAllowed extends ServiceError {
  constructor(method: string, allowed: string[]) {
    super(405, 'method_not_allowed', `Method ${method} is not allowed here; allowed: ${allowed.join(', ')}.`, { allowed }, { allow: allowed.join(', ') });
  }
}

/** The accounts database cannot be reached: retryable, never charged (nothing was recorded). */
export class StorageUnavailable extends ServiceError {
  constructor(retryAfterMs = 1000) {
    super(503, 'storage_unavailable', 'The accounts database is unreachable; retry after a short delay.', {}, retryHeaders(retryAfterMs));
  }
}

/**
 * A request the HTTP layer could not read as one (contract §6: 400 bad_request): a malformed request
 * line or header, bad chunked framing, a body shorter than its Content-Length, a URL that is not valid
 * percent-encoding, an HTTP/1.1 request without exactly one Host. 400 rather than the 501/505 the RFCs
 * suggest for an unknown method, transfer coding or version: bad input never gets a 5xx (clients retry those).
 */
export class BadRequest extends ServiceError {
  constructor(message = 'The request is not valid HTTP.') {
    super(400, 'bad_request', message);
  }
}

/** The request's headers or body did not arrive within the server's time (RFC 9110 §15.5.9). */
export class RequestTimeout extends ServiceError {
  constructor() {
    super(408, 'request_timeout', 'The request did not arrive in time; send it again.');
  }
}

/** The request target is longer than the server reads (RFC 9110 §15.5.15). */
export class UriTooLong extends ServiceError {
  constructor(message = 'The request target (URI) is too long.') {
    super(414, 'uri_too_long', message);
  }
}

/** The request line and headers together are over the server's limit (RFC 6585 §5). */
export class HeadersTooLarge extends ServiceError {
  constructor(limitBytes: number) {
    super(431, 'headers_too_large', `The request's headers are larger than ${limitBytes} bytes.`, { limit_bytes: limitBytes });
  }
}
