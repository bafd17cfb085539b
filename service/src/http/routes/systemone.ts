/**
 * POST /v1/systemone. Order of checks: key (403/401) → in-flight slot and request rate (429; from
 * the key alone, before the body is read: a caller over its limits costs only the bytes it sends) →
 * body (422/413) → question count (413) → Idempotency-Key (422) → readiness (529) → replay, and the
 * metered text work of an oversized body (429; before any text work) → model name (400) → state and
 * cap (413) → token rate and allowance (429/402) → queue (529) → answer. Exactly one usage record per
 * answered call; none for a rejected or abandoned one.
 */
import type { FastifyInstance } from 'fastify';
import type { Account, Arrival, Gate } from '../../accounts/types.js';
import type { Config } from '../../config.js';
import type { Engine } from '../../engine/engine.js';
import { answeredJson } from '../../engine/labels.js';
import { CallTiming } from '../../engine/timing.js';
import type { Question } from '../../engine/render.js';
import { ClientGone } from '../../engine/batcher.js';
import { InvalidRequest, TooManyQuestions } from '../../errors.js';
import type { ModelRouter } from '../../routing/models.js';
import { SystemOneRequest, SystemOneResponse, errorResponses } from '../../schemas/systemone.js';
import type { Metrics } from '../metrics.js';
import { textWorkTokens } from '../body.js';
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
  opts: { config: Config; engine: Engine; router: ModelRouter; gate: Gate; metrics: Metrics },
): Promise<void> {
  const { config, engine, router, gate, metrics } = opts;

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
      const body = request.body as SystemOneRequest;
      const timing = request.timing!;
      timing.mark('parse');
      const names = Object.keys(body.questions);
      if (names.length > config.engine.maxQuestions) throw new TooManyQuestions(names.length, config.engine.maxQuestions);

      // A caller that hangs up is not run and not charged: its rows are dropped from the queue.
      const gone = new AbortController();
      const onClose = () => {
        if (!reply.raw.writableFinished) gone.abort();
      };
      reply.raw.once('close', onClose);
      if (request.raw.socket?.destroyed) gone.abort();
      try {
        const key = idempotencyKey(request.headers['idempotency-key']);
        engine.assertReady();
        // Admission before any text work: a replay, the in-flight slot and the request rate are settled
        // before language detection and tokenizing, so a flood of large states is limited like any other.
        const entry = await gate.enter(request.account!, {
          idempotencyKey: key,
          requestHash: request.bodyHash,
          textWorkTokens: textWorkTokens(request.bodyChars ?? 0),
          arrival: request.arrival,
        });
        const sendReplay = (replay: { status: number; body: string }) =>
          reply.code(replay.status as 200).type('application/json; charset=utf-8').header('x-idempotent-replay', 'true').send(replay.body);
        if (entry.replay) return sendReplay(entry.replay);
        let route: ReturnType<ModelRouter['route']>;
        let prepared: Awaited<ReturnType<Engine['prepare']>>;
        try {
          route = router.route(body.model, body.state);
          timing.mark('route');
          prepared = await engine.prepare(route.checkpoint, body.questions as Record<string, Question>, body.state);
          timing.mark('tokenize');
        } catch (error) {
          await entry.leave();
          throw error;
        }
        const admission = await entry.admit(prepared.laidOut.processedTokens); // a refusal frees the slot
        if (admission.replay) return sendReplay(admission.replay);
        timing.mark('admit');
        let settled = false;
        try {
          if (gone.signal.aborted) throw new ClientGone();
          const answered = await engine.answer(prepared, { signal: gone.signal, route, timing });
          const payload = answeredJson(answered); // laya-form number labels in Python's number form (engine/labels.ts)
          timing.mark('answer');
          await admission.commit({
            requestId: request.id,
            model: answered.model,
            processedTokens: answered.usage.processed_tokens,
            inputTokens: answered.usage.input_tokens,
            outputTokens: answered.usage.output_tokens,
            responseBody: payload,
          });
          settled = true;
          timing.mark('record');
          metrics.processedTokens.inc({ checkpoint: answered.model }, answered.usage.processed_tokens);
          reply.type('application/json; charset=utf-8').header('server-timing', timing.header());
          return reply.send(payload);
        } finally {
          if (!settled) await admission.release();
        }
      } finally {
        reply.raw.off('close', onClose);
      }
    },
  );
}

/** Longest Idempotency-Key accepted (Stripe's limit); a longer one is refused, never cut (two long keys would collide). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

function idempotencyKey(value: string | string[] | undefined): string | undefined {
  const v = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!v) return undefined;
  if (v.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    throw new InvalidRequest([
      { loc: ['header', 'idempotency-key'], msg: `String should have at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`, type: 'string_too_long' },
    ]);
  }
  return v;
}
