/** Shared test fixtures: configs for SQLite, PostgreSQL (fresh schema) and Redis (fresh prefix). */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import Fastify, { type FastifyInstance } from 'fastify';
import { loadConfig, type Config } from '../../src/config.js';
import { errorBody, toServiceError } from '../../src/http/errors.js';

export const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export type Backend = 'sqlite' | 'postgres';
export const BACKENDS: Backend[] = (process.env.TEST_BACKENDS?.split(',') as Backend[] | undefined) ?? ['sqlite', 'postgres'];

export const silentLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

export function recordingLog() {
  const lines: { level: string; obj: object; msg?: string }[] = [];
  const rec = (level: string) => (obj: object, msg?: string) => void lines.push({ level, obj, msg });
  return { lines, info: rec('info'), warn: rec('warn'), error: rec('error') };
}

export function rand(n = 8): string {
  return crypto.randomBytes(n).toString('hex');
}

export interface TestEnv {
  config: Config;
  cleanup(): Promise<void>;
}

/** A config on a fresh SQLite file or a fresh PostgreSQL schema; Redis with a fresh key prefix when `redis`. */
export async function testEnv(backend: Backend, opts: { redis?: boolean; env?: Record<string, string>; schema?: string } = {}): Promise<TestEnv> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqa-test-'));
  const schema = opts.schema ?? `t_${rand(6)}`;
  const env: Record<string, string> = {
    STRUCTQA_DATA_DIR: dir,
    STRUCTQA_MONTHLY_ALLOWANCE: '1000',
    STRUCTQA_REQUESTS_PER_SECOND: '1000',
    STRUCTQA_PROCESSED_TOKENS_PER_SECOND: '10000000',
    STRUCTQA_IN_FLIGHT: '1000',
    ...opts.env,
  };
  if (backend === 'postgres') {
    env.DATABASE_URL = PG_URL;
    env.STRUCTQA_DATABASE_SCHEMA = schema;
  }
  if (opts.redis) {
    env.REDIS_URL = env.REDIS_URL ?? REDIS_URL;
    env.STRUCTQA_REDIS_PREFIX = `sqa-test-${rand(6)}:`;
  }
  const config = loadConfig(env);
  return {
    config,
    async cleanup() {
      if (backend === 'postgres') await dropSchema(schema);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

/** A bare Fastify app rendering ServiceErrors like the service's app does. */
export function miniApp(): FastifyInstance {
  const app = Fastify({ logger: false });
  app.setErrorHandler(async (error, _request, reply) => {
    const e = toServiceError(error, 1 << 20);
    reply.code(e.status).headers({ 'x-service-error-code': e.code, ...e.headers });
    return errorBody(e);
  });
  app.setNotFoundHandler(async (_request, reply) => {
    reply.code(404).header('x-service-error-code', 'not_found');
    return { detail: 'Not Found' };
  });
  return app;
}

/** A charge; its request id is made unique (the ledger holds one record per request id), its body keeps the name given. */
export function charge(requestId: string, tokens: number, model = 'core-0.3.20') {
  return { requestId: `${requestId}-${rand(6)}`, model, processedTokens: tokens, inputTokens: Math.floor(tokens / 2), outputTokens: 1, responseBody: JSON.stringify({ id: requestId, tokens }) };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
