/**
 * POST /v1/systemone: key (403/401) → body (422/413) → the call itself (calls/systemone.ts: question
 * count, Idempotency-Key, readiness, limits, model, state, allowance, queue, answer, usage record),
 * shared with the MCP tool `system_one`. This file is the HTTP side: headers, replays, a client that hangs up.
 */
import type { FastifyInstance } from 'fastify';
import type { Account } from '../../accounts/types.js';
import { answerSystemOne, type SystemOneDeps } from '../../calls/systemone.js';
import { CallTiming } from '../../engine/timing.js';
import { SystemOneRequest, SystemOneResponse, errorResponses } from '../../schemas/systemone.js';
import { callerGone } from '../caller-gone.js';
import { requestArrivals } from '../request-arrivals.js';

declare module 'fastify' {
  interface FastifyRequest {
    account?: Account;
    timing?: CallTiming;
  }
}

export async function systemOneRoutes(
  app: FastifyInstance,
  deps: SystemOneDeps,
): Promise<void> {
  const { gate } = deps;

  app.post(
    '/v1/systemone',
    {
      schema: {
        summary: 'Answer typed questions about one state',
        operationId: 'systemone_v1_systemone_post',
        security: [{ HTTPBearer: [] }],
        body: SystemOneRequest,
        response: { 200: SystemOneResponse, ...errorResponses([400, 401, 402, 403, 413, 422, 429, 500, 529]) },
      },
      // Authentication comes first: a call without a valid key learns nothing about its body.
      onRequest: async (request) => {
        request.timing = new CallTiming(requestArrivals.get(request.raw));
        request.timing.mark('receive');
        request.account = await gate.authenticate(request.headers.authorization);
        request.timing.mark('auth');
      },
    },
    async (request, reply) => {
      const timing = request.timing!;
      timing.mark('parse');
      const gone = callerGone(request, reply);
      try {
        const outcome = await answerSystemOne(deps, {
          account: request.account!,
          body: request.body as SystemOneRequest,
          requestId: request.id,
          timing,
          signal: gone.signal,
          idempotencyKey: request.headers['idempotency-key'],
          requestHash: request.bodyHash,
          bodyChars: request.bodyChars ?? 0,
        });
        if (outcome.kind === 'replay') {
          return reply.code(outcome.status as 200).type('application/json; charset=utf-8').header('x-idempotent-replay', 'true').send(outcome.body);
        }
        reply.type('application/json; charset=utf-8').header('server-timing', timing.header());
        return reply.send(outcome.payload);
      } finally {
        gone.dispose();
      }
    },
  );
}
