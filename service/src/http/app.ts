/**
 * The Fastify application: request ids, logging, error rendering, metrics, OpenAPI, and the routes.
 * Dependencies (engine, router, gate) are passed in so tests can build an app around real parts.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import type { Gate } from '../accounts/types.js';
import type { Config } from '../config.js';
import type { Engine } from '../engine/engine.js';
import http from 'node:http';
import { InternalError, MethodNotAllowed, NotFound, Overloaded } from '../errors.js';
import { doneAnswering, startAnswering } from './in-handler.js';
import { isLingering, lingerAfterResponse } from './linger.js';
import { clientErrorHandler, frameworkErrorHandler, hostProblem } from './protocol-errors.js';
import type { ModelRouter } from '../routing/models.js';
import { parseBody, sha256 } from './body.js';
import { errorBody, toServiceError } from './errors.js';
import { Metrics } from './metrics.js';
import { requestArrivals } from './request-arrivals.js';
import { loggerOptions, redactKeys } from './redact.js';
import { newRequestId } from './request-id.js';
import { healthRoutes } from './routes/health.js';
import { modelRoutes } from './routes/models.js';
import { systemOneRoutes } from './routes/systemone.js';
import { mcpRoutes } from '../mcp/endpoint.js';
import { rememberSource } from '../engine/source-json.js';
import { schemaKeywords } from '../schemas/systemone.js';

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

/** `type/subtype` (RFC 9110 tokens), optionally followed by parameters. */
const MEDIA_TYPE = /^\s*[\w!#$%&'*+.^`|~-]+\/[\w!#$%&'*+.^`|~-]+\s*(;.*)?$/;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const metrics = deps.metrics ?? new Metrics();
  const app: FastifyInstance = Fastify({
    // Requests refused before any route answer like every other error (http/protocol-errors.ts).
    clientErrorHandler: clientErrorHandler({ log: () => app.log, metrics, linger: config.linger, maxHeaderBytes: http.maxHeaderSize, bodyLimitBytes: config.bodyLimitBytes }),
    frameworkErrors: frameworkErrorHandler,
    // Node's own Host check answers a bare 400; the onRequest hook below answers it with the contract's headers.
    http: { requireHostHeader: false },
    ...(deps.loggerInstance ? { loggerInstance: deps.loggerInstance } : { logger: deps.logger ?? loggerOptions(config.logLevel) }),
    genReqId: newRequestId,
    // one log line per request (in onResponse) instead of Fastify's two
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimitBytes,
    // During a graceful stop, late calls get the contract's 529 with its headers (the drain hook
    // below), not Fastify's bare 503.
    return503OnClosing: false,
    ajv: {
      customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, discriminator: true, allErrors: false, keywords: schemaKeywords },
    },
  });

  // The moment a request reaches JavaScript, before Fastify routes it: the start of its Server-Timing.
  app.server.prependListener('request', (raw) => requestArrivals.set(raw, performance.now()));
  // `Expect: 100-continue`: the interim 100 is sent only once the body is about to be read (preParsing
  // below), so a call refused from its headers (401, 413 by Content-Length, 429) is not invited to upload.
  app.server.on('checkContinue', (req, res) => app.server.emit('request', req, res));

  // Earlier clients always send JSON; every body is read by one parser whatever its declared type
  // (http/body.ts), so the same bytes give the same result (names are data, nesting is bounded).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (req, body, done) => {
    metrics.bodiesParsed.inc();
    try {
      req.bodyHash = sha256(body as string);
      req.bodyChars = (body as string).length;
      const value = parseBody(body as string, config.maxNestingDepth);
      // the client's key order and number texts, which the checkpoints' text depends on (engine/source-json.ts)
      rememberSource(value, body as string);
      done(null, value);
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  // Graceful stop: a call that reaches the service after the stop began (on a keep-alive connection,
  // or pipelined behind one being answered) is refused with 529 overloaded, its Retry-After and
  // `Connection: close` (Fastify adds it while closing), so the client retries on a fresh connection:
  // another replica, or this one restarted.
  let draining = false;
  app.addHook('preClose', async () => {
    draining = true;
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    reply.header('x-typesafe-request-id', request.id);
    // A request pipelined behind one refused while its body was arriving: the connection is closing.
    if (isLingering(request.raw.socket)) {
      reply.hijack();
      return;
    }
    const host = hostProblem(request.raw);
    if (host) throw host;
    // A declared type that is not even a media type ("", "json") would make Fastify refuse the body
    // before our parser sees it: read such a body like any other (the same bytes, the same result).
    const declared = request.headers['content-type'];
    if (declared !== undefined && !MEDIA_TYPE.test(declared)) request.headers['content-type'] = 'application/octet-stream';
    if (draining && request.url !== '/livez') {
      throw new Overloaded(config.engine.overloadedRetryMs, 'The service is stopping; retry the call (a fresh connection reaches a running replica).');
    }
  });
  app.addHook('preParsing', async (request, reply) => {
    const declared = Number(request.headers['content-length']);
    if (request.headers.expect?.toLowerCase() === '100-continue' && !(declared > config.bodyLimitBytes)) reply.raw.writeContinue();
  });
  // A response that goes out while its request's body is still arriving (refused from the headers, or
  // a 413 by Content-Length) closes the connection after it, lingering (http/linger.ts): the client
  // reads the answer instead of a reset.
  app.addHook('onSend', async (request, reply) => {
    if (!request.raw.complete) {
      reply.header('connection', 'close');
      lingerAfterResponse(request.raw, config.linger);
    }
  });
  app.addHook('preHandler', async (request) => startAnswering(request.raw.socket));
  app.addHook('onResponse', async (request) => doneAnswering(request.raw.socket));
  app.addHook('onRequestAbort', async (request) => doneAnswering(request.raw.socket));

  app.setErrorHandler(async (error, request, reply) => {
    // A request no route matches is a 404 or 405 whatever its body: Fastify reads the body of an
    // unmatched request too (and refuses one without a Content-Type for a method such as QUERY).
    if (request.is404 && !(error instanceof MethodNotAllowed)) {
      const wrongMethod = methodNotAllowed(request);
      if (!wrongMethod) return notFound(request, reply);
      error = wrongMethod;
    }
    const serviceError = toServiceError(error, config.bodyLimitBytes, request.body);
    // Only an unexpected failure is an error; an expected refusal (529 starting/overloaded, 503
    // storage_unavailable with its Retry-After, every 4xx) is the service working as documented.
    if (serviceError instanceof InternalError) request.log.error({ err: error }, 'request failed');
    else request.log.info({ code: serviceError.code, status: serviceError.status }, serviceError.message);
    request.errorCode = serviceError.code;
    reply.code(serviceError.status).headers({ 'x-service-error-code': serviceError.code, ...serviceError.headers });
    return errorBody(serviceError);
  });

  // Every route's path and methods, so that a known path with another method is a 405 with Allow.
  const known: { pattern: RegExp; methods: string[] }[] = [];
  app.addHook('onRoute', (route) => {
    const pattern = new RegExp(
      '^' + route.url.split('/').map((part) => (part.startsWith(':') ? '[^/]+' : part === '*' ? '.*' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/') + '/?$',
    );
    known.push({ pattern, methods: [route.method].flat().map(String) });
  });

  /** A known path asked with another method: 405 with Allow. */
  const methodNotAllowed = (request: FastifyRequest): MethodNotAllowed | undefined => {
    const path = request.url.split('?')[0]!;
    const allowed = [...new Set(known.filter((r) => r.pattern.test(path)).flatMap((r) => r.methods))].sort();
    // (a route that exists for this very method and sent itself here, like /admin without a token, stays a 404)
    return allowed.length > 0 && !allowed.includes(request.method) ? new MethodNotAllowed(request.method, allowed) : undefined;
  };
  const notFound = (request: FastifyRequest, reply: FastifyReply) => {
    const wrongMethod = methodNotAllowed(request);
    if (wrongMethod) throw wrongMethod;
    const error = new NotFound();
    request.errorCode = error.code;
    reply.code(404).header('x-service-error-code', error.code);
    return { detail: 'Not Found' };
  };
  app.setNotFoundHandler(async (request, reply) => notFound(request, reply));

  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const labels = { route, method: request.method, status: String(reply.statusCode) };
    metrics.requests.inc({ ...labels, code: request.errorCode ?? '' });
    metrics.latency.observe(labels, reply.elapsedTime / 1000);
    request.log.info(
      { method: request.method, url: redactKeys(request.url), status: reply.statusCode, code: request.errorCode, ms: Math.round(reply.elapsedTime * 10) / 10 },
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

  await app.register(healthRoutes, { engine: deps.engine, metrics, gate: deps.gate });
  await app.register(modelRoutes, { engine: deps.engine, router: deps.router });
  await app.register(systemOneRoutes, { config, engine: deps.engine, router: deps.router, gate: deps.gate, metrics });
  if (config.mcp.enabled) await app.register(mcpRoutes, { config, engine: deps.engine, router: deps.router, gate: deps.gate, metrics });
  for (const plugin of deps.plugins ?? []) await app.register(plugin);

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  return app;
}
