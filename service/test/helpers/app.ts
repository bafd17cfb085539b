/** Build the real app (real engine on the fixture checkpoints) around a given gate, without listening. */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { createGate, type AccountsGate } from '../../src/accounts/gate.js';
import type { Gate } from '../../src/accounts/types.js';
import type { Config } from '../../src/config.js';
import { buildApp } from '../../src/http/app.js';
import { Metrics } from '../../src/http/metrics.js';
import { ModelRouter } from '../../src/routing/models.js';
import { createEngine } from '../../src/server.js';
import type { Engine } from '../../src/engine/engine.js';
import { FixtureGate, TEST_KEY } from './gate.js';
import { testConfig } from './checkpoints.js';
import { silentLog } from '../accounts/helpers.js';

export interface TestApp {
  app: FastifyInstance;
  metrics: Metrics;
  engine: Engine;
  gate: Gate;
  config: Config;
  auth: { authorization: string };
  close(): Promise<void>;
}

export async function testApp(
  opts: { env?: Record<string, string>; gate?: Gate; start?: boolean; plugins?: ((app: FastifyInstance) => Promise<void>)[] } = {},
): Promise<TestApp> {
  const config = await testConfig(opts.env);
  const metrics = new Metrics();
  const engine = createEngine(config, metrics);
  const gate = opts.gate ?? new FixtureGate();
  const app = await buildApp({ config, engine, router: new ModelRouter(config.models), gate, metrics, logger: false, plugins: opts.plugins });
  if (opts.start !== false) await engine.start();
  return {
    app,
    metrics,
    engine,
    gate,
    config,
    auth: { authorization: `Bearer ${TEST_KEY}` },
    close: async () => {
      await app.close();
      await engine.close();
    },
  };
}

/** The real app around a real accounts gate (SQLite, or PostgreSQL when `env` names one); close() closes both. */
export type AccountsTestApp = TestApp & { gate: AccountsGate };

export async function testAppWithAccounts(
  env: Record<string, string>,
  plugins?: (gate: AccountsGate) => ((app: FastifyInstance) => Promise<void>)[],
): Promise<AccountsTestApp> {
  const gate = await createGate(await testConfig(env), silentLog, { bootstrap: false });
  const served = await testApp({ env, gate, plugins: plugins?.(gate) });
  return {
    ...served,
    gate,
    close: async () => {
      await served.close();
      await gate.close();
    },
  };
}

/** The real app around a real accounts gate on a fresh SQLite file, listening on a loopback port (raw-socket tests). */
export async function listeningAppWithAccounts(
  env: Record<string, string> = {},
  plugins?: (gate: AccountsGate) => ((app: FastifyInstance) => Promise<void>)[],
): Promise<AccountsTestApp & { port: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sqa-live-'));
  const served = await testAppWithAccounts({ STRUCTQA_DATA_DIR: dir, ...env }, plugins);
  await served.app.listen({ port: 0, host: '127.0.0.1' });
  return {
    ...served,
    port: (served.app.server.address() as AddressInfo).port,
    close: async () => {
      await served.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
