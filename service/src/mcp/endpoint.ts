/**
 * POST /mcp: the Model Context Protocol over Streamable HTTP (the official SDK's transport), with the
 * tools of mcp/tools.ts answered in this process by the same call as POST /v1/systemone
 * (calls/systemone.ts): the same key, limits, refusals and usage records.
 *
 * Stateless: every POST gets a fresh SDK server and transport, and answers with plain JSON (no SSE
 * stream, no Mcp-Session-Id), so any replica behind the load balancer can take any request and nothing
 * is held between them. GET (a server-to-client stream) and DELETE (ending a session) have nothing to
 * do here: they get 405 with `Allow: POST`, which the SDK's clients take as "no stream, no sessions".
 *
 * Before the key is read: a request from a browser page (an Origin header) is refused unless the page
 * is this machine's own or its origin is allowed (STRUCTQA_MCP_ALLOWED_ORIGINS): DNS-rebinding
 * protection, as the MCP transport spec asks. Then the key (403 missing_api_key / 401 invalid_api_key,
 * as on every route), then the body (the service's one parser: size limit, nesting bound), then the
 * JSON-RPC message. A refused tool call is an MCP tool error (isError) with the service's error code.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccountsGate } from '../accounts/gate.js';
import type { Account } from '../accounts/types.js';
import { answerSystemOne, type SystemOneDeps } from '../calls/systemone.js';
import { CallTiming } from '../engine/timing.js';
import { Forbidden, InvalidRequest, ServiceError } from '../errors.js';
import { callerGone } from '../http/caller-gone.js';
import { listModels } from '../http/routes/models.js';
import { parseMonth } from '../http/routes/usage.js';
import { toIssues, type AjvError } from '../http/validation.js';
import { SystemOneRequest } from '../schemas/systemone.js';
import { Refusal } from './refusals.js';
import { createToolServer, type ToolBackend } from './tools.js';

export const MCP_PATH = '/mcp';

/** Pages served from this machine: a DNS-rebinding page's origin is the attacker's name, never these. */
const LOOPBACK_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/i;

export function originAllowed(origin: string | undefined, allowed: readonly string[]): boolean {
  return origin === undefined || LOOPBACK_ORIGIN.test(origin) || allowed.includes(origin);
}

/** The request headers the SDK's transport reads (content negotiation, protocol version, session). */
const FORWARDED_HEADERS = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id'];

type UsageSource = Pick<AccountsGate, 'usage'>;
const hasUsage = (gate: unknown): gate is UsageSource => typeof (gate as Partial<UsageSource>).usage === 'function';

export async function mcpRoutes(app: FastifyInstance, deps: SystemOneDeps): Promise<void> {
  const { config, engine, router, gate, metrics } = deps;

  app.post(
    MCP_PATH,
    {
      schema: { summary: 'Model Context Protocol (Streamable HTTP, stateless): tools system_one, list_models, usage (docs/mcp.md)', security: [{ HTTPBearer: [] }] },
      onRequest: async (request) => {
        const origin = request.headers.origin;
        if (!originAllowed(origin, config.mcp.allowedOrigins)) {
          throw new Forbidden(`Origin ${origin} may not call ${MCP_PATH}; allow it with STRUCTQA_MCP_ALLOWED_ORIGINS.`);
        }
        request.account = await gate.authenticate(request.headers.authorization);
      },
    },
    async (request, reply) => {
      const gone = callerGone(request, reply);
      const server = createToolServer(backendFor(request, request.account!, gone.signal));
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      try {
        await server.connect(transport);
        const response = await transport.handleRequest(webRequest(request), { parsedBody: request.body });
        return await send(reply, response);
      } finally {
        gone.dispose();
        await server.close();
      }
    },
  );

  /** The tools' backend for one request: its account, its request id, the caller's hang-up. */
  function backendFor(request: FastifyRequest, account: Account, callerGoneSignal: AbortSignal): ToolBackend {
    const validate = request.compileValidationSchema(SystemOneRequest, 'body');
    return {
      maxQuestions: config.engine.maxQuestions,
      requestId: request.id,
      async systemOne(args, signal) {
        if (!validate(args)) throw new InvalidRequest(toIssues((validate.errors ?? []) as AjvError[], args));
        const outcome = await answerSystemOne(deps, {
          account,
          body: args as SystemOneRequest,
          requestId: request.id,
          timing: new CallTiming(),
          signal: AbortSignal.any([signal, callerGoneSignal]),
          // The text this call's arguments hold, as the route meters its body's.
          bodyChars: JSON.stringify(args).length,
        });
        // No Idempotency-Key reaches the core from here, so there is never a replay to send.
        if (outcome.kind !== 'answered') throw new Error('unexpected idempotent replay on /mcp');
        return outcome.payload;
      },
      listModels: async () => listModels(engine, router),
      usage: hasUsage(gate) ? async (month) => gate.usage(account, parseMonth(month)) : undefined,
      onToolCall(tool, code, error) {
        metrics.mcpToolCalls.inc({ tool, code });
        if (!code) return;
        request.errorCode = code; // the request's metrics and log line carry the refusal's code
        if (error instanceof ServiceError || error instanceof Refusal) request.log.info({ tool, code }, (error as Error).message);
        else request.log.error({ tool, err: error }, 'MCP tool call failed');
      },
    };
  }
}

/** The Fastify request as the Web Request the SDK's transport reads (its body is already parsed). */
function webRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const name of FORWARDED_HEADERS) {
    const value = request.headers[name];
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new Request(new URL(request.url, 'http://localhost'), { method: request.method, headers });
}

async function send(reply: FastifyReply, response: Response): Promise<FastifyReply> {
  reply.code(response.status);
  response.headers.forEach((value, name) => void reply.header(name, value));
  const text = response.body ? await response.text() : '';
  return reply.send(text);
}
