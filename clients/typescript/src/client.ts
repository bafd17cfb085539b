/** The HTTP client: settings, one request loop with retries and a deadline, and the three routes. */

import { randomUUID } from 'node:crypto';
import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  DeadlineExceededError,
  StructqaError,
  requestIdFrom,
} from './errors.js';
import { validateQuestions } from './questions.js';
import {
  DEFAULT_RETRY_POLICY,
  type FailureKind,
  type RetryPolicy,
  attemptTimeout,
  decideRetry,
  resolveDeadline,
  resolvePolicy,
  serverRetryDelayMs,
} from './retry.js';
import type { ModelCard, Questions, SystemOneRequest, SystemOneResponse, UsageReport } from './types.js';

export const VERSION = '0.1.0';

/** Environment variables read when the option is not given. */
export const ENV = { baseURL: 'SERVICE_BASE_URL', apiKey: 'SERVICE_API_KEY' } as const;

export const DEFAULT_MODEL = 'legacy-latest';
export const DEFAULT_TIMEOUT_MS = 10_000;

/** A `fetch` compatible with Node 20's global one. */
export type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

export interface ClientOptions {
  /** Service root, e.g. `http://127.0.0.1:8080` (no `/v1`). Default: `SERVICE_BASE_URL`. */
  baseURL?: string;
  /** API key. Default: `SERVICE_API_KEY`. */
  apiKey?: string;
  /** Model for calls that name none. Default `legacy-latest`. */
  model?: string;
  /** Timeout of one attempt (request and body), ms. Default 10000. */
  timeoutMs?: number;
  /** Retries after the first attempt. Default 2. Shorthand for `retry.maxRetries`. */
  maxRetries?: number;
  /** Default overall budget of one call, ms, covering every attempt and wait. Default: none. */
  deadlineMs?: number;
  /** Finer retry settings (backoff, statuses, …). */
  retry?: Partial<RetryPolicy>;
  /** Custom fetch (tests, proxies). Default: global `fetch`. */
  fetch?: Fetch;
  /** Headers sent with every request. */
  defaultHeaders?: Record<string, string>;
  /** Clock (ms since epoch). For tests. */
  now?: () => number;
  /** Wait used between retries. For tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Source of jitter in [0,1). For tests. */
  random?: () => number;
}

export interface CallOptions {
  /** Cancels the call, including retry waits (`APIUserAbortError`). */
  signal?: AbortSignal;
  /** Overall budget of this call, ms from now. Overrides the client's `deadlineMs`. */
  deadlineMs?: number;
  /** Overall deadline as an absolute time (ms since epoch); the earlier of this and `deadlineMs` wins. */
  deadlineAt?: number;
  /** Idempotency-Key for this call (POST only). Default: a fresh UUID per call, reused by its retries. */
  idempotencyKey?: string;
  /** Timeout of one attempt, ms. */
  timeoutMs?: number;
  /** Retries for this call. */
  maxRetries?: number;
  /** Extra headers for this call. */
  headers?: Record<string, string>;
}

/** A raw successful exchange, for routes without a typed method. */
export interface RawResult {
  status: number;
  headers: Headers;
  body: unknown;
  requestId: string | undefined;
  /** Attempts made (1 = no retry). */
  attempts: number;
}

const readEnv = (name: string): string | undefined => {
  const v = typeof process !== 'undefined' ? process.env[name]?.trim() : undefined;
  return v ? v : undefined;
};

const defaultSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

function parseBody(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function positiveMs(name: string, v: number | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!Number.isFinite(v) || v <= 0) throw new StructqaError(`${name} must be a positive number of ms, got ${String(v)}.`);
  return v;
}

/** `GET /v1/models`. */
export class Models {
  constructor(private readonly client: Client) {}
  /** Every model name the service accepts. */
  async list(options: CallOptions = {}): Promise<ModelCard[]> {
    const res = await this.client.request('GET', '/v1/models', options);
    const body = res.body as { models?: unknown } | undefined;
    if (!body || !Array.isArray(body.models)) {
      throw new StructqaError('Unexpected response from GET /v1/models; expected {"models": [...]}.');
    }
    return body.models as ModelCard[];
  }
}

/** Client for structqa (and any System One-compatible server). */
export class Client {
  readonly baseURL: string;
  readonly model: string;
  readonly timeoutMs: number;
  readonly deadlineMs: number | undefined;
  readonly retry: RetryPolicy;
  readonly defaultHeaders: Readonly<Record<string, string>>;
  readonly models: Models;
  readonly #apiKey: string;
  readonly #fetch: Fetch;
  readonly #now: () => number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #random: () => number;

  constructor(options: ClientOptions = {}) {
    const baseURL = options.baseURL?.trim() || readEnv(ENV.baseURL);
    if (!baseURL) {
      throw new StructqaError(`No base URL: pass \`baseURL\` or set ${ENV.baseURL} (the service root, e.g. http://127.0.0.1:8080).`);
    }
    const apiKey = options.apiKey?.trim() || readEnv(ENV.apiKey);
    if (!apiKey) throw new StructqaError(`No API key: pass \`apiKey\` or set ${ENV.apiKey}.`);
    this.baseURL = baseURL.replace(/\/+$/, '');
    this.#apiKey = apiKey;
    this.model = options.model ?? DEFAULT_MODEL;
    this.timeoutMs = positiveMs('timeoutMs', options.timeoutMs) ?? DEFAULT_TIMEOUT_MS;
    this.deadlineMs = positiveMs('deadlineMs', options.deadlineMs);
    this.retry = resolvePolicy(DEFAULT_RETRY_POLICY, {
      ...options.retry,
      ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
    });
    this.defaultHeaders = { ...options.defaultHeaders };
    const f = options.fetch ?? (typeof globalThis.fetch === 'function' ? (i: string, init?: RequestInit) => globalThis.fetch(i, init) : undefined);
    if (!f) throw new StructqaError('No global fetch in this runtime; pass `fetch`.');
    this.#fetch = f;
    this.#now = options.now ?? Date.now;
    this.#sleep = options.sleep ?? defaultSleep;
    this.#random = options.random ?? Math.random;
    this.models = new Models(this);
  }

  /**
   * Answer named questions about the state in one call. Answers are typed per question type.
   *
   * @throws StructqaError (before sending) for no questions or a bad score list; `APIError`
   *   subclasses for error responses (after retries); `APIConnectionError`/`APITimeoutError`;
   *   `DeadlineExceededError`; `APIUserAbortError`.
   */
  async systemOne<const Q extends Questions>(
    request: SystemOneRequest<Q>,
    options: CallOptions = {},
  ): Promise<SystemOneResponse<Q>> {
    validateQuestions(request.questions);
    const body = { ...request, model: request.model ?? this.model };
    const res = await this.request('POST', '/v1/systemone', { ...options, body });
    const parsed = res.body as Record<string, unknown> | undefined;
    if (!parsed || typeof parsed !== 'object' || typeof parsed.answers !== 'object' || parsed.answers === null) {
      throw new StructqaError('Unexpected response from POST /v1/systemone; expected {"model","answers","usage"}.');
    }
    return { ...(parsed as object), requestId: res.requestId } as SystemOneResponse<Q>;
  }

  /**
   * `GET /v1/usage`: the caller's allowance, used, remaining, reset time and usage by day and model,
   * for this UTC month or `month` (YYYY-MM).
   */
  async usage(options: CallOptions & { month?: string } = {}): Promise<UsageReport> {
    const { month, ...call } = options;
    const path = month === undefined ? '/v1/usage' : `/v1/usage?month=${encodeURIComponent(month)}`;
    const res = await this.request('GET', path, call);
    if (!res.body || typeof res.body !== 'object') {
      throw new StructqaError('Unexpected response from GET /v1/usage; expected a JSON object.');
    }
    return res.body as UsageReport;
  }

  /**
   * One call with retries and the deadline: the loop every method uses. Public for routes without a
   * typed method and for end-to-end tests. Throws on any non-2xx response.
   */
  async request(
    method: 'GET' | 'POST',
    path: string,
    options: CallOptions & { body?: unknown } = {},
  ): Promise<RawResult> {
    const policy =
      options.maxRetries === undefined ? this.retry : resolvePolicy(this.retry, { maxRetries: options.maxRetries });
    const perAttempt = positiveMs('timeoutMs', options.timeoutMs) ?? this.timeoutMs;
    const deadline = resolveDeadline(this.#now(), options.deadlineMs ?? this.deadlineMs, options.deadlineAt);
    const url = `${this.baseURL}${path}`;
    const headers: Record<string, string> = {
      ...this.defaultHeaders,
      ...options.headers,
      Authorization: `Bearer ${this.#apiKey}`,
      Accept: 'application/json',
      'User-Agent': `structqa-client-ts/${VERSION}`,
    };
    let payload: string | undefined;
    if (options.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      payload = JSON.stringify(options.body);
    }
    if (method === 'POST') headers['Idempotency-Key'] = options.idempotencyKey ?? randomUUID();
    const { signal } = options;

    let lastError: unknown;
    for (let attempt = 0; ; attempt++) {
      if (signal?.aborted) throw new APIUserAbortError(undefined, { cause: signal.reason });
      const { timeoutMs, clipped } = attemptTimeout(perAttempt, deadline, this.#now());
      if (timeoutMs === undefined) throw new DeadlineExceededError(attempt, lastError, 'no time left for an attempt');
      const attemptHeaders = attempt === 0 ? headers : { ...headers, 'X-Retry-Count': String(attempt) };

      let failure: FailureKind;
      let error: Error;
      let responseHeaders: Headers | undefined;
      try {
        const res = await this.#attempt(url, { method, headers: attemptHeaders, body: payload }, timeoutMs, signal);
        if (res.status >= 200 && res.status < 300) {
          return {
            status: res.status,
            headers: res.headers,
            body: parseBody(res.text),
            requestId: requestIdFrom(res.headers),
            attempts: attempt + 1,
          };
        }
        responseHeaders = res.headers;
        error = APIError.fromResponse({
          status: res.status,
          body: parseBody(res.text),
          headers: res.headers,
          retryAfterMs: serverRetryDelayMs(res.headers, this.#now()),
        });
        failure = { kind: 'status', status: res.status };
      } catch (err) {
        if (err instanceof APIUserAbortError) throw err;
        if (err instanceof APITimeoutError && clipped) {
          throw new DeadlineExceededError(attempt + 1, err, 'the attempt was cut at the deadline');
        }
        error = err as Error;
        failure = err instanceof APITimeoutError ? { kind: 'timeout' } : { kind: 'connection' };
      }

      const decision = decideRetry({
        failure,
        attempt,
        headers: responseHeaders,
        policy,
        deadline,
        now: this.#now(),
        random: this.#random,
      });
      if (!decision.retry) {
        if (decision.reason === 'deadline') {
          throw new DeadlineExceededError(attempt + 1, error, 'the retry wait would pass the deadline');
        }
        throw error;
      }
      lastError = error;
      try {
        await this.#sleep(decision.delayMs, signal);
      } catch (err) {
        throw new APIUserAbortError(undefined, { cause: err });
      }
    }
  }

  /** One round trip including the body, under `timeoutMs`; the caller's signal aborts it too. */
  async #attempt(
    url: string,
    init: RequestInit,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<{ status: number; headers: Headers; text: string }> {
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal?.reason);
    if (signal?.aborted) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    try {
      const res = await this.#fetch(url, { ...init, signal: controller.signal });
      const text = await res.text();
      return { status: res.status, headers: res.headers, text };
    } catch (err) {
      if (signal?.aborted) throw new APIUserAbortError(undefined, { cause: err });
      if (timedOut) throw new APITimeoutError(timeoutMs, { cause: err });
      const detail = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
      throw new APIConnectionError(`Connection error: ${detail}`, { cause: err });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }
}
