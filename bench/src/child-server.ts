/**
 * Pieces the bench scripts share to run `structqa serve` as a child process (bench.ts, server-ab.ts,
 * server-memory.ts): a free port, the rate limits out of the way, readiness, the first key, and the
 * settings given on the command line.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** Rate and in-flight limits high enough never to refuse a bench call. */
export const NO_LIMITS = {
  STRUCTQA_REQUESTS_PER_SECOND: '1000000',
  STRUCTQA_PROCESSED_TOKENS_PER_SECOND: '1000000000',
  STRUCTQA_IN_FLIGHT: '10000',
} as const;

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

/** Polls `/readyz` every 200 ms, at most `tries` times. */
export async function waitReady(url: string, tries: number): Promise<void> {
  for (let i = 0; i < tries && (await fetch(`${url}/readyz`).catch(() => undefined))?.status !== 200; i++) {
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The API key a fresh data directory's first start wrote. */
export function firstKey(dataDir: string): string {
  return /sqa_live_[A-Za-z0-9]+/.exec(fs.readFileSync(path.join(dataDir, 'first-api-key.txt'), 'utf8'))![0];
}

/** One `NAME=VALUE` setting from the command line, split at its first `=` (a value may hold more). */
export function setting(arg: string): [string, string] {
  const at = arg.indexOf('=');
  if (at <= 0) throw new Error(`settings are NAME=VALUE, got ${JSON.stringify(arg)}`);
  return [arg.slice(0, at).trim(), arg.slice(at + 1).trim()];
}
