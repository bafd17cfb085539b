/**
 * A refused call, as an MCP tool error a model can act on: the service's error code and status, its
 * message, the numbers the refusal carries, and what to do next (wait N seconds, split the state, …).
 *
 * One shape for both carriers: the /mcp endpoint turns a thrown ServiceError into a Refusal, the stdio
 * bridge an HTTP error response from the service; both hold the same `{"detail": …}` body, so a
 * refusal reads the same whichever way the call went.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ServiceError } from '../errors.js';
import { errorBody, toServiceError } from '../http/errors.js';

export class Refusal extends Error {
  constructor(
    /** HTTP status the same refusal has on /v1/systemone (the bridge's own failures: 0). */
    readonly status: number,
    /** The service's fine code (`x-service-error-code`), or the bridge's `connection_error` / `timeout`. */
    readonly code: string,
    /** The HTTP error body: `{"detail": {...}}`, or `{"detail": [issues]}` for a request that fails the schema. */
    readonly body: unknown,
    /** The delay the service asked for before a retry. */
    readonly retryAfterMs?: number,
    readonly requestId?: string,
  ) {
    super(messageOf(body) ?? code);
    this.name = 'Refusal';
  }

  /** What the HTTP route would answer for whatever a call threw (anything unexpected is an internal_error). */
  static from(error: unknown, requestId?: string): Refusal {
    // (a body over the size limit is refused before any tool runs: no limit to name here)
    const e = error instanceof ServiceError ? error : toServiceError(error, 0);
    const retry = e.headers['retry-after-ms'];
    return new Refusal(e.status, e.code, errorBody(e), retry === undefined ? undefined : Number(retry), requestId);
  }
}

type Detail = Record<string, unknown>;

const isRecord = (v: unknown): v is Detail => typeof v === 'object' && v !== null && !Array.isArray(v);
const detailOf = (body: unknown): unknown => (isRecord(body) ? body.detail : undefined);

function messageOf(body: unknown): string | undefined {
  const detail = detailOf(body);
  if (isRecord(detail) && typeof detail.message === 'string') return detail.message;
  if (Array.isArray(detail)) return issuesText(detail);
  return undefined;
}

/** `questions.q.choice.criteria: Should have at least 2 item(s)`, as the clients print a 422's `detail[]`. */
function issuesText(issues: unknown[]): string {
  return issues
    .map((i) => {
      const issue = isRecord(i) ? i : {};
      const loc = Array.isArray(issue.loc) ? issue.loc.filter((x) => x !== 'body').join('.') : '';
      const msg = typeof issue.msg === 'string' ? issue.msg : 'invalid';
      return loc ? `${loc}: ${msg}` : msg;
    })
    .join('; ');
}

const seconds = (ms: number): string => `${Math.max(0.1, Math.ceil(ms / 100) / 10)} s`;

/** What a model should do about a refusal, in a sentence or two. */
export function advice(r: Refusal): string {
  const detail = detailOf(r.body);
  const d: Detail = isRecord(detail) ? detail : {};
  const wait = r.retryAfterMs ?? (typeof d.retry_after_ms === 'number' ? d.retry_after_ms : undefined) ?? 1000;
  switch (r.code) {
    case 'state_too_long':
      return stateTooLongAdvice(d);
    case 'too_many_questions': {
      const limit = Number(d.limit);
      const count = Number(d.count);
      return `Nothing was charged. Split the ${count} questions over ${Math.ceil(count / limit)} calls of at most ${limit} questions each, with the same state.`;
    }
    case 'processed_token_cap':
      return 'Nothing was charged. Send fewer questions per call (split them over several calls with the same state), or a shorter state.';
    case 'payload_too_large':
      return 'Nothing was charged. Send a shorter state: split it into chunks and ask the questions about each chunk in its own call.';
    case 'invalid_request':
    case 'invalid_json':
      return 'Nothing was charged. Fix the arguments as the message says (see the tool\'s input schema) and call again.';
    case 'unknown_model': {
      const names = Array.isArray(d.accepted_models) ? d.accepted_models.join(', ') : '';
      return `Nothing was charged. Use one of these model names, or leave "model" out (legacy-latest): ${names}.`;
    }
    case 'rate_limited':
      return `Nothing was charged. Wait ${seconds(wait)}, then call again with the same arguments.`;
    case 'in_flight_limit':
      return `Nothing was charged. The account already has ${String(d.limit)} calls running: wait ${seconds(wait)} (or until one of them returns), then call again.`;
    case 'overloaded':
    case 'starting':
    case 'storage_unavailable':
      return `Nothing was charged. The service is busy or starting: wait ${seconds(wait)}, then call again with the same arguments.`;
    case 'allowance_exhausted':
      return (
        `Do not call again before ${String(d.resets_at)} (UTC): until then every call is refused. ` +
        `Tell the user; the tool "usage" (or the page ${String(d.usage_view ?? '/app/usage')}) shows the account's usage.`
      );
    case 'missing_api_key':
    case 'invalid_api_key':
      return 'The key is missing or wrong; retrying will not help. The user must set SERVICE_API_KEY to a key of this structqa service.';
    case 'connection_error':
    case 'timeout':
      return 'The service did not answer (the call was retried). Tell the user to check that it is running; try again later.';
    case 'internal_error':
      return `A fault in the service${r.requestId ? ` (request id ${r.requestId})` : ''}. Try once more; if it fails again, report the request id.`;
    default:
      return 'The call was refused; see the message.';
  }
}

/** Per question room and overflow, the smallest room, and how many chunks to split the state into. */
function stateTooLongAdvice(d: Detail): string {
  const questions = isRecord(d.questions) ? d.questions : {};
  const rooms = Object.entries(questions).map(([name, q]) => ({ name, room: Number((q as Detail).room), overflow: Number((q as Detail).overflow) }));
  const none = rooms.filter((q) => q.room <= 0).map((q) => q.name);
  if (none.length > 0) {
    return `Nothing was charged. Question(s) ${none.join(', ')} leave no room for any state: shorten their instructions or options.`;
  }
  const room = Math.min(...rooms.map((q) => q.room));
  const stateTokens = Number(d.state_tokens);
  // Cutting by length only approximates the tokenizer's count: one part more than the bare quotient.
  const parts = Math.ceil(stateTokens / room) + 1;
  const each = rooms.map((q) => `${q.name}: room ${q.room}${q.overflow > 0 ? `, over by ${q.overflow}` : ''}`).join('; ');
  return (
    `Nothing was cut and nothing was charged. The state is ${stateTokens} tokens of ${String(d.model)}; the smallest room is ${room} tokens (${each}). ` +
    `Split the state into at least ${parts} consecutive parts of about equal length (at paragraph or sentence ends), ` +
    'call again once per part with the same questions, and combine the answers (for example, the highest noul when the question is whether any part says something).'
  );
}

/** The tool error: text for the model (code, message, what to do, the numbers) and the same as structured content. */
export function toolError(r: Refusal): CallToolResult {
  const detail = detailOf(r.body);
  const error: Detail = {
    code: r.code,
    status: r.status,
    message: r.message,
    ...(Array.isArray(detail) ? { issues: detail } : isRecord(detail) ? withoutRepeats(detail) : {}),
    ...(r.retryAfterMs !== undefined ? { retry_after_ms: r.retryAfterMs } : {}),
    ...(r.requestId ? { request_id: r.requestId } : {}),
  };
  const text = `Refused: ${r.code}${r.status ? ` (HTTP ${r.status})` : ''}. ${r.message}\nWhat to do: ${advice(r)}\nDetails: ${JSON.stringify(error)}`;
  return { isError: true, content: [{ type: 'text', text }], structuredContent: { error } };
}

function withoutRepeats(detail: Detail): Detail {
  const { message: _message, ...rest } = detail;
  return rest;
}
