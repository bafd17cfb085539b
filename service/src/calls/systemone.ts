/**
 * One metered /v1/systemone call, whoever carries it: the HTTP route (http/routes/systemone.ts) and
 * the MCP tool `system_one` (mcp/endpoint.ts) both call `answerSystemOne`, so their limits, refusals
 * and usage records cannot drift apart.
 *
 * Order of checks, after the key and a schema-valid body: question count (413) → Idempotency-Key
 * (422) → readiness (529) → replay, the in-flight slot and request rate (429; unless the carrier's
 * arrival counted them before the body was read), an oversized body's text work (429) → model name
 * (400) → state and cap (413) → token rate and allowance (429/402) → queue (529) → answer. Exactly one
 * usage record per answered call; none for a rejected or abandoned one.
 */
import type { Account, Arrival, Gate } from '../accounts/types.js';
import type { Config } from '../config.js';
import { ClientGone } from '../engine/batcher.js';
import type { Engine } from '../engine/engine.js';
import { answeredJson } from '../engine/labels.js';
import type { Question } from '../engine/render.js';
import type { CallTiming } from '../engine/timing.js';
import { InvalidRequest, TooManyQuestions } from '../errors.js';
import { textWorkTokens } from '../http/body.js';
import type { Metrics } from '../http/metrics.js';
import type { ModelRouter } from '../routing/models.js';
import type { SystemOneRequest } from '../schemas/systemone.js';

export interface SystemOneDeps {
  config: Config;
  engine: Engine;
  router: ModelRouter;
  gate: Gate;
  metrics: Metrics;
}

export interface SystemOneCall {
  account: Account;
  /** The request, already valid against the SystemOneRequest schema. */
  body: SystemOneRequest;
  /** Recorded with the usage record. */
  requestId: string;
  timing: CallTiming;
  /** Fires when the caller has gone: its rows are dropped from the queue and nothing is charged. */
  signal: AbortSignal;
  /** The raw Idempotency-Key header, if the carrier has one. */
  idempotencyKey?: string | string[];
  /** Hash of the request text (an Idempotency-Key names one request). */
  requestHash?: string;
  /** Characters of the request text, metered from the token rate before any text work. */
  bodyChars: number;
  /** The slot and request already counted from the key before the body was read (the HTTP route's). */
  arrival?: Arrival;
}

export type SystemOneOutcome =
  /** Answered and charged: `payload` is the exact response body. */
  | { kind: 'answered'; payload: string }
  /** An earlier call with this Idempotency-Key and body was answered: send its response again, uncharged. */
  | { kind: 'replay'; status: number; body: string };

/** Answer one call, or throw the ServiceError that refuses it (nothing charged then). */
export async function answerSystemOne(deps: SystemOneDeps, call: SystemOneCall): Promise<SystemOneOutcome> {
  const { config, engine, router, gate, metrics } = deps;
  const { body, timing, signal } = call;
  const names = Object.keys(body.questions);
  if (names.length > config.engine.maxQuestions) throw new TooManyQuestions(names.length, config.engine.maxQuestions);

  const key = idempotencyKey(call.idempotencyKey);
  engine.assertReady();
  // Admission before any text work: a replay, the in-flight slot and the request rate are settled
  // before language detection and tokenizing, so a flood of large states is limited like any other.
  const entry = await gate.enter(call.account, {
    idempotencyKey: key,
    requestHash: call.requestHash,
    textWorkTokens: textWorkTokens(call.bodyChars),
    arrival: call.arrival,
  });
  if (entry.replay) return { kind: 'replay', ...entry.replay };
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
  if (admission.replay) return { kind: 'replay', ...admission.replay };
  timing.mark('admit');
  let settled = false;
  try {
    if (signal.aborted) throw new ClientGone();
    const answered = await engine.answer(prepared, { signal, route, timing });
    const payload = answeredJson(answered); // laya-form number labels in Python's number form (engine/labels.ts)
    timing.mark('answer');
    await admission.commit({
      requestId: call.requestId,
      model: answered.model,
      processedTokens: answered.usage.processed_tokens,
      inputTokens: answered.usage.input_tokens,
      outputTokens: answered.usage.output_tokens,
      responseBody: payload,
    });
    settled = true;
    timing.mark('record');
    metrics.processedTokens.inc({ checkpoint: answered.model }, answered.usage.processed_tokens);
    return { kind: 'answered', payload };
  } finally {
    if (!settled) await admission.release();
  }
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
