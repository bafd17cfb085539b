/**
 * Start the whole service in one process: listen first (so that callers get 529 `starting` rather
 * than refused connections), then build missing fixture checkpoints, load and warm the checkpoints,
 * and become ready. `stop()` stops accepting, lets in-flight calls finish, then closes the engine.
 */
import fs from 'node:fs';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Gate } from './accounts/types.js';
import type { Config } from './config.js';
import { Engine, type EngineOptions } from './engine/engine.js';
import { ensureFixtures } from './fixtures/build.js';
import { buildApp } from './http/app.js';
import { isAnswering } from './http/in-handler.js';
import { Metrics } from './http/metrics.js';
import { ModelRouter } from './routing/models.js';

/** During a stop, a connection not being answered this long after the stop began is closed (stalled sender). */
export const DRAIN_STALL_MS = 1000;
/** Every connection is closed this long before the grace period ends, so that the stop finishes inside it. */
export const DRAIN_MARGIN_MS = 2000;

export interface RunningService {
  app: FastifyInstance;
  engine: Engine;
  url: string;
  /** Resolves when every checkpoint is loaded and warmed. */
  ready: Promise<void>;
  stop(): Promise<void>;
}

export interface ServiceParts {
  gate: Gate;
  plugins?: ((app: FastifyInstance) => Promise<void>)[];
  logger?: boolean | object;
  loggerInstance?: FastifyBaseLogger;
}

export function createEngine(config: Config, metrics: Metrics): Engine {
  return new Engine({
    checkpoints: config.models.checkpoints,
    ...engineSettings(config),
    onBatch: (checkpoint, s) => {
      metrics.batchRows.observe({ checkpoint }, s.rows);
      metrics.batchSeconds.observe({ checkpoint }, s.seconds);
      metrics.modelTokens.inc({ checkpoint, kind: 'real' }, s.realTokens);
      metrics.modelTokens.inc({ checkpoint, kind: 'padding' }, s.paddedTokens - s.realTokens);
    },
  });
}

/** How the engine runs its checkpoints, from the configuration (the server's, and `models calibrate`'s). */
export function engineSettings(config: Config): Omit<EngineOptions, 'checkpoints' | 'onBatch'> {
  return {
    threads: config.engine.threads,
    lanes: config.engine.lanes,
    laneThreads: config.engine.laneThreads,
    wideSession: config.engine.wideSession,
    singleSessionAboveMiB: config.engine.singleSessionAboveMiB,
    sharedWeightsDir: config.engine.sharedWeightsDir,
    memory: { arena: config.engine.ortArena, prepack: config.engine.ortPrepack },
    startingRetryMs: config.engine.startingRetryMs,
    batcher: {
      tokenBudget: config.engine.batchTokenBudget,
      attentionBudget: config.engine.batchAttentionBudget,
      maxRows: config.engine.batchMaxRows,
      inlineMaxTokens: config.engine.inlineMaxTokens,
      maxQueuedRows: config.engine.queueMaxRows,
      maxQueueWaitMs: config.engine.queueMaxWaitMs,
      overloadedRetryMs: config.engine.overloadedRetryMs,
    },
  };
}

/** Build the fixture checkpoints the configuration points at, when their folders are missing. */
export async function prepareCheckpoints(config: Config): Promise<string[]> {
  const missing = Object.values(config.models.checkpoints).some((c) => !fs.existsSync(c.dir));
  if (!missing || !config.models.buildFixturesIfMissing) return [];
  return ensureFixtures(config.models.dir, {
    en: config.models.englishCheckpoint,
    multilingual: config.models.multilingualCheckpoint,
  });
}

export async function startService(config: Config, parts: ServiceParts): Promise<RunningService> {
  fs.mkdirSync(config.dataDir, { recursive: true });
  const metrics = new Metrics();
  const engine = createEngine(config, metrics);
  const router = new ModelRouter(config.models);
  const app = await buildApp({ config, engine, router, gate: parts.gate, metrics, plugins: parts.plugins, logger: parts.logger, loggerInstance: parts.loggerInstance });
  const connections = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://127.0.0.1:${port}`;

  const ready = (async () => {
    const built = await prepareCheckpoints(config);
    if (built.length > 0) app.log.info({ built }, 'built fixture checkpoints (random weights: mechanics only, not answer quality)');
    await engine.start({ onWaiting: (dir) => app.log.warn({ dir }, 'waiting for checkpoint files to appear') });
    for (const [name, c] of engine.checkpoints) {
      app.log.info(
        { checkpoint: name, precision: c.precision, weights: c.weights, fixture: c.manifest.fixture, window: c.manifest.window },
        c.precision !== 'int8' ? 'checkpoint loaded' : c.manifest.files.model_int8 ? 'checkpoint loaded with its int8 graph (opted in)' : 'checkpoint loaded (an int8 graph)',
      );
    }
    app.log.info({ url }, 'ready');
  })();
  ready.catch((error) => app.log.error({ err: error }, 'checkpoints failed to load; /readyz stays unready'));

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      // Stop accepting and wait for in-flight requests. Keep-alive connections that go idle after
      // their last response would otherwise hold the close until their timeout: close them as they idle.
      // So would a connection that has not sent a byte yet (HTTP clients open spare ones): Node counts
      // it as awaiting its headers, which closeIdleConnections leaves open, so close those too.
      // Calls that arrive meanwhile get 529 (http/app.ts). A client stalled part-way through sending a
      // request would hold the stop until the grace period ran out: after DRAIN_STALL_MS every
      // connection that is not being answered is closed, and before the grace period ends every
      // connection is, so the process always exits 0 in time.
      const began = Date.now();
      const sweep = setInterval(() => {
        app.server.closeIdleConnections();
        const stalledOnes = Date.now() - began >= DRAIN_STALL_MS;
        for (const socket of connections) if (socket.bytesRead === 0 || (stalledOnes && !isAnswering(socket))) socket.destroy();
      }, 100);
      const lastCall = setTimeout(() => app.server.closeAllConnections(), Math.max(0, config.shutdownGraceMs - DRAIN_MARGIN_MS));
      try {
        await app.close();
      } finally {
        clearInterval(sweep);
        clearTimeout(lastCall);
      }
      await engine.close();
      await parts.gate.close();
    })());
  return { app, engine, url, ready, stop };
}
