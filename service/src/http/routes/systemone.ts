/**
 * POST /v1/systemone: key (403/401) → in-flight slot and request rate (429; from the key alone, before
 * the body is read: a caller over its limits costs only the bytes it sends) → body (422/413) → the call
 * itself (calls/systemone.ts: question count, Idempotency-Key, readiness, replay, limits, model, state,
 * allowance, queue, answer, usage record), shared with the MCP tool `system_one`. This file is the HTTP
 * side: the arrival, headers, replays, a client that hangs up.
 */
import type { FastifyInstance } from 'fastify';
import type { Account, Arrival } from '../../accounts/types.js';
import { answerSystemOne, type SystemOneDeps } from '../../calls/systemone.js';
import { CallTiming } from '../../engine/timing.js';
import { SystemOneRequest, SystemOneResponse, errorResponses } from '../../schemas/systemone.js';
import { callerGone } from '../caller-gone.js';
import { requestArrivals } from '../request-arrivals.js';

declare module 'fastify' {
  interface FastifyRequest {
    account?: Account;
    /** The call's slot and request, counted from its key before its body was read. */
    arrival?: Arrival;
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
      onRequest: async (request, reply) => {
        request.timing = new CallTiming(requestArrivals.get(request.raw));
        request.timing.mark('receive');
        request.account = await gate.authenticate(request.headers.authorization);
        if (gate.arrive) {
          // Freed when the exchange ends, unless the call's entry took it over (then settling the call
          // frees it) — also when it ended while the slot was being taken (a Redis round trip).
          let ended = false;
          reply.raw.once('close', () => {
            ended = true;
            void request.arrival?.leave();
          });
          request.arrival = await gate.arrive(request.account);
          if (ended) void request.arrival.leave();
        }
        request.timing.mark('auth'); // the key, and the slot and request rate it is counted against
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
          arrival: request.arrival,
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
