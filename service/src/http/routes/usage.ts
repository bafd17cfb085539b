/**
 * GET /v1/usage (API key): the caller's allowance, used, remaining, reset time, usage by day and by
 * model for the current UTC month, or `?month=YYYY-MM`.
 * GET /app/usage: the usage page (no key needed to load it; it asks for the key and calls /v1/usage).
 */
import type { FastifyInstance } from 'fastify';
import type { AccountsGate } from '../../accounts/gate.js';
import { InvalidRequest } from '../../errors.js';
import { errorResponses } from '../../schemas/systemone.js';
import { USAGE_PAGE_HEADERS, USAGE_PAGE_HTML } from '../usage-page/page.js';

export type UsageGate = Pick<AccountsGate, 'authenticate' | 'usage'>;

/** The answer of GET /v1/usage (also the MCP tool `usage`'s output schema). */
export const UsageReportSchema = {
  type: 'object',
  properties: {
    account: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' } } },
    period: { type: 'string', description: 'UTC month, YYYY-MM' },
    period_start: { type: 'string', format: 'date-time' },
    resets_at: { type: 'string', format: 'date-time', description: '00:00 UTC on the 1st of the next month' },
    allowance: { type: 'integer' },
    used: { type: 'integer' },
    reserved: { type: 'integer', description: 'tokens of admitted calls still running' },
    remaining: { type: 'integer' },
    requests: { type: 'integer' },
    by_day: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          date: { type: 'string' },
          processed_tokens: { type: 'integer' },
          requests: { type: 'integer' },
          by_model: { type: 'object', additionalProperties: { type: 'integer' } },
        },
      },
    },
    by_model: {
      type: 'array',
      items: { type: 'object', properties: { model: { type: 'string' }, processed_tokens: { type: 'integer' }, requests: { type: 'integer' } } },
    },
    limits: {
      type: 'object',
      properties: {
        monthly_allowance: { type: 'integer' },
        requests_per_second: { type: 'integer' },
        processed_tokens_per_second: { type: 'integer' },
        in_flight: { type: 'integer' },
      },
    },
    usage_view: { type: 'string' },
    generated_at: { type: 'string', format: 'date-time' },
  },
} as const;

/** GET /v1/usage's query (also the MCP tool `usage`'s input schema); parseMonth checks the month's form. */
export const UsageQuery = { type: 'object', properties: { month: { type: 'string', description: 'YYYY-MM (UTC), from 1970-01 (422 otherwise); default: this month' } } } as const;

export function parseMonth(raw: unknown): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  // From 1970 (no usage is older; and Date.UTC would read years 0–99 as 1900–1999).
  if (typeof raw !== 'string' || !/^\d{4}-(0[1-9]|1[0-2])$/.test(raw) || Number(raw.slice(0, 4)) < 1970) {
    throw new InvalidRequest([{ loc: ['query', 'month'], msg: 'month must be YYYY-MM, from 1970-01', type: 'value_error' }]);
  }
  return raw;
}

export async function usageRoutes(app: FastifyInstance, opts: { gate: UsageGate }): Promise<void> {
  const { gate } = opts;

  app.get(
    '/v1/usage',
    {
      schema: {
        summary: "The caller's monthly allowance and usage",
        operationId: 'usage_v1_usage_get',
        security: [{ HTTPBearer: [] }],
        querystring: UsageQuery,
        response: { 200: UsageReportSchema, ...errorResponses([401, 403, 422, 503]) },
      },
    },
    async (request, reply) => {
      const account = await gate.authenticate(request.headers.authorization);
      const month = parseMonth((request.query as { month?: unknown } | undefined)?.month);
      reply.header('cache-control', 'no-store');
      return gate.usage(account, month);
    },
  );

  app.get('/app/usage', { schema: { summary: 'Usage page (HTML)', produces: ['text/html'] } as object }, async (_request, reply) => {
    reply.headers(USAGE_PAGE_HEADERS);
    return reply.send(USAGE_PAGE_HTML);
  });
}
