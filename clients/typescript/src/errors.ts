/**
 * Every error the client throws, one class per condition.
 *
 *   StructqaError                         anything this library throws
 *    ├── APIError                         a non-2xx response: status, code, message, body, requestId, retryAfterMs
 *    │    ├── BadRequestError             400  unknown_model
 *    │    ├── AuthenticationError         401  invalid_api_key
 *    │    ├── AllowanceExhaustedError     402  allowance_exhausted        (never retried)
 *    │    ├── PermissionDeniedError       403  missing_api_key (403 like the earlier service)
 *    │    ├── NotFoundError               404
 *    │    ├── PayloadTooLargeError        413  payload_too_large
 *    │    │    ├── StateTooLongError           state_too_long      (questions: {name: {room, overflow}}, stateTokens, model)
 *    │    │    ├── TooManyQuestionsError       too_many_questions  (limit)
 *    │    │    └── ProcessedTokenCapError      processed_token_cap (cost, cap, model)
 *    │    ├── UnprocessableEntityError    422  invalid_request, invalid_json (issues = detail[])
 *    │    ├── RateLimitError              429  rate_limited, in_flight_limit   (retried)
 *    │    └── InternalServerError         5xx  internal_error …          (retried)
 *    │         └── OverloadedError        529  overloaded, starting      (retried)
 *    ├── APIConnectionError               no response: DNS, refused, reset, body cut (retried)
 *    │    └── APITimeoutError             one attempt ran past its timeout (retried)
 *    ├── APIUserAbortError                the caller's AbortSignal fired
 *    └── DeadlineExceededError            the caller's overall deadline ran out (no attempt or wait passes it)
 *
 * The 413 family is chosen by the `x-service-error-code` header (falling back to `detail.error_type`
 * in the body), every other class by status. Any other status (408, 409, …) is a plain `APIError`.
 */

/** Base class of every error this library throws. */
export class StructqaError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** One FastAPI-style validation problem from a 422 `detail[]`. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
  [extra: string]: unknown;
}

/** Room a question leaves for state, and how far the state went over it (from `state_too_long`). */
export interface QuestionRoom {
  /** Tokens of state this question can hold. */
  room: number;
  /** Tokens of state beyond the room (0 when it fits). */
  overflow: number;
}

/** Headers as read from a `Response`: only `get` is needed. */
export interface HeaderLike {
  get(name: string): string | null;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The `detail` object of `{"detail": {...}}`, or undefined for other bodies. */
export function errorDetail(body: unknown): Record<string, unknown> | undefined {
  if (isRecord(body) && isRecord(body.detail)) return body.detail;
  return undefined;
}

/** The request id: `x-request-id`, else the earlier service's `x-typesafe-request-id`. */
export function requestIdFrom(headers: HeaderLike | undefined): string | undefined {
  if (!headers) return undefined;
  return headers.get('x-request-id') || headers.get('x-typesafe-request-id') || undefined;
}

/** The machine code: `x-service-error-code`, else `detail.error_type`, else undefined. */
export function errorCodeFrom(headers: HeaderLike | undefined, body: unknown): string | undefined {
  const header = headers?.get('x-service-error-code');
  if (header) return header;
  const detail = errorDetail(body);
  if (detail && typeof detail.error_type === 'string') return detail.error_type;
  if (isRecord(body) && Array.isArray(body.detail)) return 'invalid_request';
  return undefined;
}

function describeIssues(issues: unknown[]): string | undefined {
  const parts = issues.flatMap((e) => {
    if (!isRecord(e) || typeof e.msg !== 'string') return [];
    const loc = Array.isArray(e.loc) ? e.loc.filter((x) => x !== 'body').join('.') : '';
    return [loc ? `${loc}: ${e.msg}` : e.msg];
  });
  return parts.length > 0 ? parts.join('; ') : undefined;
}

/** A human message from any of the common error envelopes; raw text is cut to 200 characters. */
export function messageFrom(status: number, body: unknown): string {
  let text: string | undefined;
  if (typeof body === 'string') text = body || undefined;
  else if (isRecord(body)) {
    const { error, message, detail } = body;
    if (typeof error === 'string') text = error;
    else if (isRecord(error) && typeof error.message === 'string') text = error.message;
    else if (typeof message === 'string') text = message;
    else if (typeof detail === 'string') text = detail;
    else if (isRecord(detail) && typeof detail.message === 'string') text = detail.message;
    else if (Array.isArray(detail)) text = describeIssues(detail);
  }
  if (text === undefined && body !== undefined) {
    const raw = typeof body === 'string' ? body : JSON.stringify(body);
    text = raw.length > 200 ? `${raw.slice(0, 200)}…` : raw;
  }
  return text === undefined ? `${status} status code (no body)` : `${status} ${text}`;
}

/** What an `APIError` is built from. */
export interface APIErrorInit {
  status: number;
  body: unknown;
  headers: HeaderLike;
  /** Server retry delay in ms from `retry-after-ms` / `Retry-After`, if any. */
  retryAfterMs?: number;
}

/** A non-2xx HTTP response. */
export class APIError extends StructqaError {
  /** HTTP status. */
  readonly status: number;
  /** `x-service-error-code` (else `detail.error_type`), e.g. `state_too_long`. */
  readonly code: string | undefined;
  /** Parsed JSON body, or the text when it is not JSON, or undefined when empty. */
  readonly body: unknown;
  /** Response headers. */
  readonly headers: HeaderLike;
  /** `x-request-id` / `x-typesafe-request-id`. */
  readonly requestId: string | undefined;
  /** The delay the server asked for before a retry, in ms (`retry-after-ms`, else `Retry-After`). */
  readonly retryAfterMs: number | undefined;

  constructor(init: APIErrorInit, message?: string) {
    super(message ?? messageFrom(init.status, init.body));
    this.status = init.status;
    this.body = init.body;
    this.headers = init.headers;
    this.code = errorCodeFrom(init.headers, init.body);
    this.requestId = requestIdFrom(init.headers);
    this.retryAfterMs = init.retryAfterMs;
  }

  /** The `detail` object of the body, when the body has one. */
  get detail(): Record<string, unknown> | undefined {
    return errorDetail(this.body);
  }

  /** The subclass for a response: 413 by code, everything else by status. */
  static fromResponse(init: APIErrorInit): APIError {
    const { status } = init;
    const code = errorCodeFrom(init.headers, init.body);
    switch (status) {
      case 400:
        return new BadRequestError(init);
      case 401:
        return new AuthenticationError(init);
      case 402:
        return new AllowanceExhaustedError(init);
      case 403:
        return new PermissionDeniedError(init);
      case 404:
        return new NotFoundError(init);
      case 413:
        if (code === 'state_too_long') return new StateTooLongError(init);
        if (code === 'too_many_questions') return new TooManyQuestionsError(init);
        if (code === 'processed_token_cap') return new ProcessedTokenCapError(init);
        return new PayloadTooLargeError(init);
      case 422:
        return new UnprocessableEntityError(init);
      case 429:
        return new RateLimitError(init);
      case 529:
        return new OverloadedError(init);
    }
    if (status >= 500 && status <= 599) return new InternalServerError(init);
    return new APIError(init);
  }
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** 400: the body is not JSON, or the model name is not accepted (`acceptedModels`). */
export class BadRequestError extends APIError {
  /** For `unknown_model`: the names the server accepts. */
  get acceptedModels(): string[] | undefined {
    const v = this.detail?.accepted_models;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined;
  }
}

/** 401: no key, or a malformed, unknown, revoked or earlier-service key. */
export class AuthenticationError extends APIError {}

/** 402: the monthly free allowance is used up. Never retried: wait for `resetsAt` (UTC). */
export class AllowanceExhaustedError extends APIError {
  get allowance(): number | undefined {
    return num(this.detail?.allowance);
  }
  get used(): number | undefined {
    return num(this.detail?.used);
  }
  /** When the allowance resets (ISO 8601, UTC). */
  get resetsAt(): string | undefined {
    return str(this.detail?.resets_at);
  }
  /** Path of the usage web page, e.g. `/app/usage`. */
  get usageView(): string | undefined {
    return str(this.detail?.usage_view);
  }
}

/** 403. */
export class PermissionDeniedError extends APIError {}

/** 404. */
export class NotFoundError extends APIError {}

/** 413: the request is over a size limit. The subclasses say which. */
export class PayloadTooLargeError extends APIError {
  /** For `payload_too_large`: the body byte limit. */
  get limitBytes(): number | undefined {
    return num(this.detail?.limit_bytes);
  }
}

/**
 * 413 `state_too_long`: the state does not fit the room of at least one question. Nothing was
 * answered or charged. Split the state (see `askInChunks`) so each chunk fits every question's room.
 */
export class StateTooLongError extends PayloadTooLargeError {
  /** Per question: the room for state (tokens) and how far the state went over it. */
  get questions(): Record<string, QuestionRoom> {
    const out: Record<string, QuestionRoom> = {};
    const q = this.detail?.questions;
    if (isRecord(q)) {
      for (const [name, v] of Object.entries(q)) {
        if (isRecord(v)) out[name] = { room: num(v.room) ?? 0, overflow: num(v.overflow) ?? 0 };
      }
    }
    return out;
  }
  /** The state's length in the checkpoint's tokens. */
  get stateTokens(): number | undefined {
    return num(this.detail?.state_tokens);
  }
  /** The checkpoint whose tokenizer and window were used. */
  get model(): string | undefined {
    return str(this.detail?.model);
  }
  /** The smallest room over all questions: a chunk of state must fit this to fit every question. */
  get minRoom(): number | undefined {
    const rooms = Object.values(this.questions).map((q) => q.room);
    return rooms.length > 0 ? Math.min(...rooms) : undefined;
  }
}

/** 413 `too_many_questions`: more questions than `limit` (32) in one call. */
export class TooManyQuestionsError extends PayloadTooLargeError {
  get limit(): number | undefined {
    return num(this.detail?.limit);
  }
}

/** 413 `processed_token_cap`: questions × longest sequence is over the checkpoint's cap. */
export class ProcessedTokenCapError extends PayloadTooLargeError {
  get cost(): number | undefined {
    return num(this.detail?.cost);
  }
  get cap(): number | undefined {
    return num(this.detail?.cap);
  }
  get model(): string | undefined {
    return str(this.detail?.model);
  }
}

/** 422: the request breaks the schema. `issues` is the FastAPI-style `detail[]`. */
export class UnprocessableEntityError extends APIError {
  get issues(): ValidationIssue[] {
    const d = isRecord(this.body) ? this.body.detail : undefined;
    return Array.isArray(d) ? (d.filter(isRecord) as ValidationIssue[]) : [];
  }
}

/** 429 `rate_limited` / `in_flight_limit`. Retried after `retryAfterMs`. */
export class RateLimitError extends APIError {}

/** 5xx. Retried. */
export class InternalServerError extends APIError {}

/** 529 `overloaded` / `starting`: the queue is full or checkpoints are loading. Retried after `retryAfterMs`. */
export class OverloadedError extends InternalServerError {}

/** No HTTP response: connection refused or reset, DNS, or the body was cut. */
export class APIConnectionError extends StructqaError {
  constructor(message = 'Connection error.', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** One attempt (request and body) took longer than its timeout. */
export class APITimeoutError extends APIConnectionError {
  readonly timeoutMs: number;
  constructor(timeoutMs: number, options?: { cause?: unknown }) {
    super(`Request timed out after ${timeoutMs}ms.`, options);
    this.timeoutMs = timeoutMs;
  }
}

/** The caller aborted through its `AbortSignal`. */
export class APIUserAbortError extends StructqaError {
  constructor(message = 'Request was aborted.', options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * The caller's overall deadline ran out, or a retry wait would have run past it. `lastError` (also
 * `cause`) is the failure that would otherwise have been retried, when there was one.
 */
export class DeadlineExceededError extends StructqaError {
  /** Attempts made before giving up. */
  readonly attempts: number;
  /** The failure of the last attempt, if any. */
  readonly lastError: unknown;
  constructor(attempts: number, lastError?: unknown, detail?: string) {
    const why = lastError instanceof Error ? `; last error: ${lastError.message}` : '';
    super(`Deadline exceeded after ${attempts} attempt(s)${detail ? ` (${detail})` : ''}${why}`, {
      cause: lastError,
    });
    this.attempts = attempts;
    this.lastError = lastError;
  }
}
