/**
 * The Fastify application: request ids, logging, error rendering, metrics, OpenAPI, and the routes.
 * Dependencies (engine, router, gate) are passed in so tests can build an app around real parts.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import type { Gate } from '../accounts/types.js';
import type { Config } from '../config.js';
import type { Engine } from '../engine/engine.js';
import { NotFound, PayloadTooLarge } from '../errors.js';
import type { IncomingMessage } from 'node:http';
import type { ModelRouter } from '../routing/models.js';
import { errorBody, toServiceError } from './errors.js';
import { Metrics } from './metrics.js';
import { requestArrivals } from './request-arrivals.js';
import { newRequestId } from './request-id.js';
import { healthRoutes } from './routes/health.js';
import { modelRoutes } from './routes/models.js';
import { systemOneRoutes } from './routes/systemone.js';
import { parseSourceJson, rememberSource } from '../engine/source-json.js';

export interface AppDeps {
  config: Config;
  engine: Engine;
  router: ModelRouter;
  gate: Gate;
  metrics?: Metrics;
  /** Extra route plugins (accounts, usage, admin) registered after the core routes. */
  plugins?: ((app: FastifyInstance) => Promise<void>)[];
  logger?: boolean | object;
  /** A ready pino logger shared with the rest of the process (takes precedence over `logger`). */
  loggerInstance?: FastifyBaseLogger;
}

declare module 'fastify' {
  interface FastifyRequest {
    errorCode?: string;
  }
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const metrics = deps.metrics ?? new Metrics();
  const app = Fastify({
    ...(deps.loggerInstance ? { loggerInstance: deps.loggerInstance } : { logger: deps.logger ?? { level: config.logLevel } }),
    genReqId: newRequestId,
    // one log line per request (in onResponse) instead of Fastify's two
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimitBytes,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'ignore',
    ajv: {
      customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, discriminator: true, allErrors: false },
    },
  });

  // The moment a request reaches JavaScript, before Fastify routes it: the start of its Server-Timing.
  app.server.prependListener('request', (raw) => requestArrivals.set(raw, performance.now()));

  // Earlier clients always send JSON; accept a body whatever its declared type and parse it as JSON.
  app.removeContentTypeParser('text/plain');
  // Fastify's own JSON parser (prototype-poisoning checks) for application/json, plus the client's key
  // order and number texts, which the checkpoints' text depends on (engine/source-json.ts).
  const defaultJson = app.getDefaultJsonParser('error', 'ignore');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) =>
    defaultJson(req, body as string, (error, value) => {
      if (!error) rememberSource(value, body as string);
      done(error, value);
    }),
  );
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => {
    try {
      done(null, parseSourceJson(body as string));
    } catch (error) {
      (error as { statusCode?: number }).statusCode = 400;
      done(error as Error, undefined);
    }
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    reply.header('x-typesafe-request-id', request.id);
  });

  app.setErrorHandler(async (error, request, reply) => {
    const serviceError = toServiceError(error, config.bodyLimitBytes);
    if (serviceError.status >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.info({ code: serviceError.code, status: serviceError.status }, serviceError.message);
    request.errorCode = serviceError.code;
    // Fastify rejects an oversized body from its headers alone; read (and drop) the rest so a client
    // still uploading receives the 413 instead of a connection reset that it would retry.
    if (serviceError instanceof PayloadTooLarge) await drain(request.raw);
    reply.code(serviceError.status).headers({ 'x-service-error-code': serviceError.code, ...serviceError.headers });
    return errorBody(serviceError);
  });

  app.setNotFoundHandler(async (request, reply) => {
    const error = new NotFound();
    request.errorCode = error.code;
    reply.code(404).header('x-service-error-code', error.code);
    return { detail: 'Not Found' };
  });

  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const labels = { route, method: request.method, status: String(reply.statusCode) };
    metrics.requests.inc({ ...labels, code: request.errorCode ?? '' });
    metrics.latency.observe(labels, reply.elapsedTime / 1000);
    request.log.info(
      { method: request.method, url: request.url, status: reply.statusCode, code: request.errorCode, ms: Math.round(reply.elapsedTime * 10) / 10 },
      'request',
    );
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'structqa',
        version: '0.1.0',
        description: 'Structured question answering over one piece of text; wire-compatible with System One.',
      },
      components: { securitySchemes: { HTTPBearer: { type: 'http', scheme: 'bearer' } } },
    },
  });

  await app.register(healthRoutes, { engine: deps.engine, metrics });
  await app.register(modelRoutes, { engine: deps.engine, router: deps.router });
  await app.register(systemOneRoutes, { config, engine: deps.engine, router: deps.router, gate: deps.gate, metrics });
  for (const plugin of deps.plugins ?? []) await app.register(plugin);

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  return app;
}

/** Read and discard what is left of a request body, up to a bound in bytes and time. */
async function drain(raw: IncomingMessage, maxBytes = 64 * 1024 * 1024, timeoutMs = 10_000): Promise<void> {
  if (raw.readableEnded || raw.destroyed) return;
  await new Promise<void>((resolve) => {
    let seen = 0;
    const done = () => {
      clearTimeout(timer);
      raw.off('data', onData);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > maxBytes) done();
    };
    const timer = setTimeout(done, timeoutMs);
    raw.on('data', onData);
    raw.once('end', done);
    raw.once('close', done);
    raw.once('error', done);
    raw.resume();
  });
}

