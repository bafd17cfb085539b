/**
 * The real service for the MCP tests: the app with its usage routes around a real accounts gate
 * (SQLite, a clock the test holds still so rate buckets never refill between two calls), listening on
 * a port so that the SDK's own clients can reach it; and those clients.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import { createGate, type AccountsGate } from '../../src/accounts/gate.js';
import type { LimitOverrides } from '../../src/accounts/store.js';
import type { Config } from '../../src/config.js';
import type { Engine } from '../../src/engine/engine.js';
import { buildApp } from '../../src/http/app.js';
import { Metrics } from '../../src/http/metrics.js';
import { usageRoutes } from '../../src/http/routes/usage.js';
import { ModelRouter } from '../../src/routing/models.js';
import { createEngine } from '../../src/server.js';
import { silentLog } from '../accounts/helpers.js';
import { testConfig } from '../helpers/checkpoints.js';

export interface Served {
  app: FastifyInstance;
  engine: Engine;
  gate: AccountsGate;
  config: Config;
  /** http://127.0.0.1:PORT */
  url: string;
  /** A new account (its own allowance and limits; large ones by default) and its key. */
  account(limits?: LimitOverrides): Promise<{ id: string; key: string }>;
  close(): Promise<void>;
}

const GENEROUS: LimitOverrides = { monthlyAllowance: 10_000_000, requestsPerSecond: 1000, processedTokensPerSecond: 10_000_000, inFlight: 100 };

export async function serve(opts: { env?: Record<string, string>; start?: boolean } = {}): Promise<Served> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqa-mcp-'));
  const config = await testConfig({ STRUCTQA_DATA_DIR: dir, ...opts.env });
  const now = Date.now();
  const gate = await createGate(config, silentLog, { bootstrap: false, clock: () => now });
  const metrics = new Metrics();
  const engine = createEngine(config, metrics);
  const app = await buildApp({ config, engine, router: new ModelRouter(config.models), gate, metrics, logger: false, plugins: [(a) => usageRoutes(a, { gate })] });
  if (opts.start !== false) await engine.start();
  await app.listen({ port: 0, host: '127.0.0.1' });
  let n = 0;
  return {
    app,
    engine,
    gate,
    config,
    url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    async account(limits = {}) {
      const made = await gate.createKey(`mcp-${process.pid}-${++n}`, { create: true, limits: { ...GENEROUS, ...limits } });
      return { id: made.account.id, key: made.key };
    },
    async close() {
      await app.close();
      await engine.close();
      await gate.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The SDK's own client on /mcp with this key (none: no Authorization header). */
export async function mcpClient(url: string, key?: string): Promise<Client> {
  const client = new Client({ name: 'structqa-test', version: '0.0.0' });
  const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', url), { requestInit: { headers } }));
  return client;
}

/** POST /v1/systemone with this exact body text: status and the exact response text. */
export async function httpSystemOne(url: string, key: string, body: string): Promise<{ status: number; text: string; code: string | null }> {
  const res = await fetch(new URL('/v1/systemone', url), { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body });
  return { status: res.status, text: await res.text(), code: res.headers.get('x-service-error-code') };
}

export const textOf = (result: CallToolResult | Record<string, unknown>): string => {
  const content = (result as CallToolResult).content;
  const first = content[0];
  if (!first || first.type !== 'text') throw new Error(`no text content: ${JSON.stringify(result)}`);
  return first.text;
};

/** A call with every question type, as a test sends it to both routes. */
export const EVERY_TYPE = {
  state: 'I was charged twice for my subscription this month and nobody answers my emails.',
  questions: {
    refund: { type: 'noul', instructions: 'Does the customer ask for money back?', criteria: { true: 'asks for a refund', false: null } },
    team: { type: 'choice', instructions: 'Which team should handle it?', criteria: { billing: 'payments, invoices', technical: 'bugs, errors', sales: null } },
    anger: { type: 'score', instructions: 'How upset is the customer?', criteria: ['calm', { level: 'annoyed' }, 'furious'] },
  },
};
