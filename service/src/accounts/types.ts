/**
 * The seam between the HTTP layer and accounts/limits/storage (issue 4).
 *
 * The /v1/systemone route calls, in order:
 *   1. `gate.authenticate(authorization header)`        → Account, or throws MissingApiKey / InvalidApiKey
 *   2. (validation, routing, token accounting: the cost of the call is now known)
 *   3. `gate.admit(account, {processedTokens, idempotencyKey})` → Admission, or throws
 *      AllowanceExhausted (402), RateLimited / InFlightLimit (429). Admission reserves the tokens
 *      against the allowance and holds one in-flight slot, so two calls racing for the last tokens
 *      of an allowance cannot both pass.
 *   4. the engine runs; then exactly one of `admission.commit(charge)` (answered: one usage record)
 *      or `admission.release()` (rejected / failed / client gone: no charge). Both free the slot.
 *
 * When `admission.replay` is set, an earlier call with the same Idempotency-Key was already answered
 * and charged: the route sends that stored response again and charges nothing.
 */

export interface AccountLimits {
  /** Monthly free allowance in processed tokens; resets 00:00 UTC on the 1st. */
  monthlyAllowance: number;
  /** Requests per second (token bucket, burst = one second's worth). */
  requestsPerSecond: number;
  /** Processed tokens per second (token bucket, burst = one second's worth). */
  processedTokensPerSecond: number;
  /** Concurrent requests. */
  inFlight: number;
}

export interface Account {
  id: string;
  name: string;
  limits: AccountLimits;
}

export interface Charge {
  requestId: string;
  model: string;
  processedTokens: number;
  inputTokens: number;
  outputTokens: number;
  /** The exact response body sent, kept so an idempotent retry can be answered identically. */
  responseBody: string;
}

export interface Admission {
  replay?: { status: number; body: string };
  commit(charge: Charge): Promise<void>;
  release(): Promise<void>;
}

/**
 * A call let in before its text is looked at: its in-flight slot is held and its request counted.
 * Then exactly one of `admit(processedTokens)` (token rate and allowance; a refusal frees the slot) or
 * `leave()` (the call stops before that: frees the slot).
 */
export interface Entry {
  /** An earlier call with this Idempotency-Key and body was answered: send this again, charge nothing. */
  replay?: { status: number; body: string };
  admit(processedTokens: number): Promise<Admission>;
  leave(): Promise<void>;
}

/**
 * A call counted from its key alone, before its body is read: its in-flight slot is held and its
 * request counted against the request rate. A caller over its limits is refused (429) at no cost but
 * the bytes it sends: nothing of its body is parsed or hashed.
 */
export interface Arrival {
  /** Frees the slot, unless `enter` took the arrival over (then its entry frees it). Safe to call more than once. */
  leave(): Promise<void>;
}

export interface Gate {
  authenticate(authorization: string | undefined): Promise<Account>;
  /** Before the body: in-flight slot and request rate (429). Optional: without it `enter` does both. */
  arrive?(account: Account): Promise<Arrival>;
  /**
   * Before any text work: replay, then (unless `arrival` holds them already) the in-flight slot and the
   * request rate, and the metered text work of an oversized body from the token rate (401s are done; 429 here).
   */
  enter(account: Account, call: { idempotencyKey?: string; requestHash?: string; textWorkTokens?: number; arrival?: Arrival }): Promise<Entry>;
  admit(account: Account, call: { processedTokens: number; idempotencyKey?: string; requestHash?: string }): Promise<Admission>;
  /** Whether the accounts storage answers now (readiness); absent: always. */
  ready?(): Promise<boolean>;
  close(): Promise<void>;
}
