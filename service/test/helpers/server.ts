/**
 * Start the real service as a child process (`structqa serve`) on a free port with its own data
 * folder and the shared fixture checkpoints, for tests that need a live server (earlier SDKs,
 * clients, scale-out).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixtureModels, SHARED_WEIGHTS_CACHE } from './checkpoints.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.resolve(here, '../../bin/structqa.js');
export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

export interface LiveServer {
  url: string;
  port: number;
  dataDir: string;
  firstKey: string;
  process: ChildProcess;
  output: () => string;
  /** Wait for /readyz 200. */
  ready(timeoutMs?: number): Promise<void>;
  /** A new key for a new account with these limits (admin route). */
  createKey(limits?: Record<string, number>): Promise<string>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface StartOptions {
  env?: Record<string, string>;
  waitReady?: boolean;
  dataDir?: string;
  port?: number;
  /** Point the service at an empty models folder: it listens but stays `starting` (529) until checkpoints appear there. */
  holdStarting?: boolean;
}

export async function startServer(opts: StartOptions = {}): Promise<LiveServer> {
  const models = await fixtureModels();
  const port = opts.port ?? (await freePort());
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'structqa-test-'));
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    STRUCTQA_DATA_DIR: dataDir,
    STRUCTQA_SHARED_WEIGHTS_DIR: SHARED_WEIGHTS_CACHE,
    STRUCTQA_MODELS_DIR: opts.holdStarting ? path.join(dataDir, 'models-pending') : models,
    STRUCTQA_ENGLISH_DIR: 'fixture-en',
    STRUCTQA_MULTILINGUAL_DIR: 'fixture-multilingual',
    STRUCTQA_BUILD_FIXTURES: '0',
    STRUCTQA_ADMIN_TOKEN: ADMIN_TOKEN,
    LOG_LEVEL: 'warn',
    ...opts.env,
  };
  const child = spawn(process.execPath, [BIN, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout!.on('data', (d) => (log += d));
  child.stderr!.on('data', (d) => (log += d));
  const url = `http://127.0.0.1:${port}`;

  const waitFor = async (check: () => Promise<boolean>, timeoutMs: number, what: string) => {
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
      if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}) before ${what}:\n${log}`);
      if (await check().catch(() => false)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`server not ${what} within ${timeoutMs} ms:\n${log}`);
  };
  await waitFor(async () => (await fetch(`${url}/livez`)).ok, 60_000, 'listening');
  const keyFile = path.join(dataDir, 'first-api-key.txt');
  const firstKey = fs.existsSync(keyFile) ? (/sqa_live_[A-Za-z0-9]+/.exec(fs.readFileSync(keyFile, 'utf8'))?.[0] ?? '') : '';

  const server: LiveServer = {
    url,
    port,
    dataDir,
    firstKey,
    process: child,
    output: () => log,
    ready: (timeoutMs = 120_000) => waitFor(async () => (await fetch(`${url}/readyz`)).status === 200, timeoutMs, 'ready'),
    async createKey(limits = {}) {
      const res = await fetch(`${url}/admin/keys`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ account: `acct-${Math.random().toString(36).slice(2, 10)}`, create_account: true, ...limits }),
      });
      if (res.status !== 201) throw new Error(`admin key creation failed: ${res.status} ${await res.text()}`);
      const body = (await res.json()) as { key: string };
      return body.key;
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null) return child.exitCode;
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill(signal);
      return exited;
    },
  };
  if (opts.waitReady !== false && !opts.holdStarting) await server.ready();
  return server;
}
