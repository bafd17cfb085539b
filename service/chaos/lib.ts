/**
 * Chaos suite plumbing: a tally of every response (status counts, 5xx that are not the documented
 * retryable 529/503 with Retry-After, responses missing the contract headers), clients that retry the
 * way the contract's clients do, and the summary table. Loopback only.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export { sleep };

export interface Outcome {
  status?: number;
  headers?: Headers;
  text?: string;
  /** A connection error (refused, reset, attempt timeout): clients retry those. */
  error?: string;
  ms: number;
}

export class Tally {
  requests = 0;
  statuses = new Map<string, number>();
  /** Status ≥ 500 other than 529/503 carrying Retry-After. */
  bad5xx: string[] = [];
  /** Responses without x-request-id, or errors without x-service-error-code. */
  missingHeaders: string[] = [];

  record(o: Outcome, what = ''): void {
    this.requests++;
    const label = o.status === undefined ? 'conn' : String(o.status);
    this.statuses.set(label, (this.statuses.get(label) ?? 0) + 1);
    if (o.status === undefined || !o.headers) return;
    if (!o.headers.get('x-request-id')) this.missingHeaders.push(`${o.status} ${what}`);
    else if (o.status >= 400 && !o.headers.get('x-service-error-code')) this.missingHeaders.push(`${o.status} ${what}`);
    const retryable = (o.status === 529 || o.status === 503) && o.headers.get('retry-after') !== null;
    if (o.status >= 500 && !retryable) this.bad5xx.push(`${o.status} ${what} ${o.text?.slice(0, 160) ?? ''}`);
  }

  merge(other: Tally): void {
    this.requests += other.requests;
    for (const [k, v] of other.statuses) this.statuses.set(k, (this.statuses.get(k) ?? 0) + v);
    this.bad5xx.push(...other.bad5xx);
    this.missingHeaders.push(...other.missingHeaders);
  }

  get statusText(): string {
    return [...this.statuses].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}:${v}`).join(' ');
  }
}

export async function send(url: string, init: RequestInit & { timeoutMs?: number } = {}): Promise<Outcome> {
  const started = performance.now();
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(init.timeoutMs ?? 10_000) });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, ms: performance.now() - started };
  } catch (err) {
    return { error: (err as Error).message, ms: performance.now() - started };
  }
}

export function systemOne(base: string, key: string, body: unknown, headers: Record<string, string> = {}, method = 'POST'): Promise<Outcome> {
  return send(`${base}/v1/systemone`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: method === 'GET' || method === 'HEAD' ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** The delay a 429/529/503 asks for (retry-after-ms, then Retry-After), capped. */
export function retryDelay(o: Outcome, capMs = 2000): number {
  const ms = Number(o.headers?.get('retry-after-ms') ?? NaN);
  if (Number.isFinite(ms)) return Math.min(capMs, Math.max(10, ms));
  const s = Number(o.headers?.get('retry-after') ?? NaN);
  return Number.isFinite(s) ? Math.min(capMs, s * 1000) : 200;
}

/**
 * One call as the contract's clients make it: one Idempotency-Key for all attempts, 10 s per attempt,
 * retry connection errors, 429, 529 and 503 after the delay asked, until `deadline`. True when answered.
 */
export async function callUntilAnswered(
  target: () => string,
  key: string,
  body: unknown,
  idempotencyKey: string,
  deadline: number,
  tally: Tally,
): Promise<boolean> {
  while (Date.now() < deadline) {
    const o = await systemOne(target(), key, body, { 'idempotency-key': idempotencyKey });
    tally.record(o, idempotencyKey);
    if (o.status === 200) return true;
    if (o.status === undefined) await sleep(200);
    else if ([429, 503, 529].includes(o.status)) await sleep(retryDelay(o));
    else return false;
  }
  return false;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

export interface ScenarioResult {
  name: string;
  tally: Tally;
  seconds: number;
  ledger?: { records: number; answered: number };
  bystander?: { quietP50: number; floodP50: number };
  /** The server's CPU time per refused request (and per parsed one, for scale), ms. */
  cpu?: { perRefusedMs: number; perParsedMs?: number };
  soak?: unknown;
  checks: Check[];
}

export function table(results: ScenarioResult[]): string {
  const rows = [
    ['scenario', 'requests', 'statuses', '5xx', 'no headers', 'ledger / answered', 'bystander p50', 'CPU / refused', 's', 'result'],
    ...results.map((r) => [
      r.name,
      String(r.tally.requests),
      r.tally.statusText,
      String(r.tally.bad5xx.length),
      String(r.tally.missingHeaders.length),
      r.ledger ? `${r.ledger.records} / ${r.ledger.answered}` : '',
      r.bystander ? `${r.bystander.quietP50.toFixed(1)} → ${r.bystander.floodP50.toFixed(1)} ms` : '',
      r.cpu ? `${r.cpu.perRefusedMs.toFixed(2)} ms` : '',
      r.seconds.toFixed(1),
      r.checks.every((c) => c.ok) ? 'ok' : 'FAIL',
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  const line = (row: string[]) => '| ' + row.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ') + ' |';
  return [line(rows[0]!), '|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|', ...rows.slice(1).map(line)].join('\n');
}
