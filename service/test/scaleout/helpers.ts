/** Client-side helpers for the live-server scale-out and crash tests: timed calls, admin requests. */
import { PG_URL, rand, REDIS_URL } from '../accounts/helpers.js';
import { ADMIN_TOKEN } from '../helpers/server.js';

export const STATE = 'The parcel arrived two days late and the box was damaged.';

/** `n` noul questions; with the same STATE every call of `n` questions costs the same. */
export function questions(n: number): Record<string, { type: string; instructions: string }> {
  return Object.fromEntries(Array.from({ length: n }, (_, i) => [`q${i}`, { type: 'noul', instructions: `Is statement number ${i} true?` }]));
}

export interface CallResult {
  /** 0 when no response arrived (connection refused/reset). */
  status: number;
  /** x-service-error-code, when an error. */
  code?: string;
  requestId?: string;
  replay: boolean;
  body?: string;
  processedTokens?: number;
  retryAfterMs?: number;
  /** performance.now() when the request was sent and when the response (or the failure) arrived. */
  sent: number;
  recv: number;
  error?: string;
  server?: string;
  idempotencyKey?: string;
}

export async function call(url: string, key: string, opts: { n?: number; idempotencyKey?: string; timeoutMs?: number } = {}): Promise<CallResult> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  if (opts.idempotencyKey) headers['idempotency-key'] = opts.idempotencyKey;
  const sent = performance.now();
  try {
    const res = await fetch(`${url}/v1/systemone`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ state: STATE, questions: questions(opts.n ?? 1) }),
      signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000),
    });
    const body = await res.text();
    const recv = performance.now();
    let processedTokens: number | undefined;
    if (res.status === 200) processedTokens = (JSON.parse(body) as { usage: { processed_tokens: number } }).usage.processed_tokens;
    const ra = res.headers.get('retry-after-ms');
    return {
      status: res.status,
      code: res.headers.get('x-service-error-code') ?? undefined,
      requestId: res.headers.get('x-request-id') ?? undefined,
      replay: res.headers.get('x-idempotent-replay') === 'true',
      body,
      processedTokens,
      retryAfterMs: ra === null ? undefined : Number(ra),
      sent,
      recv,
      server: url,
      idempotencyKey: opts.idempotencyKey,
    };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    return { status: 0, replay: false, sent, recv: performance.now(), error: e.cause?.code ?? e.cause?.message ?? e.message, server: url, idempotencyKey: opts.idempotencyKey };
  }
}

export async function admin(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** A new account with these limits and one key, through `POST /admin/keys` of `url`. */
export async function newAccount(
  url: string,
  limits: { monthly_allowance: number; requests_per_second: number; processed_tokens_per_second: number; in_flight: number },
): Promise<{ key: string; accountId: string; account: string }> {
  const account = `so-${Math.random().toString(36).slice(2, 10)}`;
  const r = await admin(url, 'POST', '/admin/keys', { account, create_account: true, ...limits });
  if (r.status !== 201) throw new Error(`POST /admin/keys: ${r.status} ${JSON.stringify(r.json)}`);
  return { key: r.json.key as string, accountId: r.json.account_id as string, account };
}

export async function usage(url: string, key: string): Promise<{ used: number; reserved: number; requests: number; remaining: number }> {
  const res = await fetch(`${url}/v1/usage`, { headers: { authorization: `Bearer ${key}` } });
  if (res.status !== 200) throw new Error(`GET /v1/usage: ${res.status}`);
  return (await res.json()) as { used: number; reserved: number; requests: number; remaining: number };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function tally(results: CallResult[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of results) {
    const k = r.status === 200 ? (r.replay ? '200_replay' : '200') : r.status === 0 ? `no_response:${r.error}` : `${r.status}:${r.code}`;
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

/** Largest number of the intervals [a, b) that overlap at one instant. */
export function maxOverlap(intervals: [number, number][]): number {
  const ev: [number, number][] = [];
  for (const [a, b] of intervals) if (b > a) ev.push([a, 1], [b, -1]);
  ev.sort((x, y) => x[0] - y[0] || x[1] - y[1]); // ends before starts at the same instant
  let cur = 0;
  let max = 0;
  for (const [, d] of ev) max = Math.max(max, (cur += d));
  return max;
}

/**
 * Settings for replicas that share state: a fresh PostgreSQL schema and Redis prefix (dropped by the
 * test), and a Redis problem shown as 529, never as silently per-replica limits.
 */
export function sharedStateEnv(): { schema: string; prefix: string; env: Record<string, string> } {
  const schema = `t_${rand(6)}`;
  const prefix = `sqa-test-${rand(6)}:`;
  return {
    schema,
    prefix,
    env: {
      DATABASE_URL: PG_URL,
      STRUCTQA_DATABASE_SCHEMA: schema,
      REDIS_URL,
      STRUCTQA_REDIS_PREFIX: prefix,
      STRUCTQA_REDIS_FAILURE_MODE: 'closed',
    },
  };
}
