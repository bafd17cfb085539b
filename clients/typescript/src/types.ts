/** Wire types of the System One API as structqa serves it (contract §2–§3). */

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Text, a JSON object or array, or null (instructions, descriptions). */
export type Content = string | { [key: string]: JsonValue } | JsonValue[] | null;

/** Yes/no question: the answer is P(true). */
export interface NoulQuestion {
  type: 'noul';
  instructions?: Content;
  criteria?: { true?: Content; false?: Content } | null;
}

/** Option name → description (null: the name speaks for itself). */
export type ChoiceCriteria = { [option: string]: Content };

/** Pick one of named options. */
export interface ChoiceQuestion<C extends ChoiceCriteria = ChoiceCriteria> {
  type: 'choice';
  instructions?: Content;
  criteria: C;
}

/**
 * Ordered levels, low → high; level number = index. A level may also be a bare number or boolean
 * (laya's form, a structqa extension: the model reads it as laya does and the legend echoes it as text,
 * `3` → `"3"`); the earlier service's clients send descriptions only.
 */
export type ScoreCriteria = readonly (Content | number | boolean)[];

/** Rate on an ordered scale of 2..10 levels. */
export interface ScoreQuestion<S extends ScoreCriteria = ScoreCriteria> {
  type: 'score';
  instructions?: Content;
  criteria: S;
}

export type Question = NoulQuestion | ChoiceQuestion | ScoreQuestion;

/** Caller-chosen names → questions (at most 32 per call). */
export type Questions = { [name: string]: Question };

/** `{"type":"noul","noul":p}`: p = P(true); no confidence. */
export interface NoulAnswer {
  readonly type: 'noul';
  readonly noul: number;
}

/** The most probable option, every option's probability, and a confidence. */
export interface ChoiceAnswer<K extends string = string> {
  readonly type: 'choice';
  readonly choice: K;
  readonly probabilities: { readonly [option in K]: number };
  readonly confidence: number;
}

/** `score` = Σ i·pᵢ; `legend` echoes the levels keyed "0".."n-1"; `probabilities` keyed the same. */
export interface ScoreAnswer {
  readonly type: 'score';
  readonly score: number;
  readonly legend: { readonly [level: string]: Content };
  readonly probabilities: { readonly [level: string]: number };
  readonly confidence: number;
}

export type Answer = NoulAnswer | ChoiceAnswer | ScoreAnswer;

/** The answer type of a question type, keeping choice option names. */
export type AnswerFor<Q extends Question> = Q extends NoulQuestion
  ? NoulAnswer
  : Q extends ChoiceQuestion<infer C>
    ? ChoiceAnswer<keyof C & string>
    : Q extends ScoreQuestion
      ? ScoreAnswer
      : Answer;

export interface Usage {
  readonly input_tokens: number;
  readonly output_tokens: number;
  /** questions × longest per-question sequence: the amount charged. */
  readonly processed_tokens: number;
}

/** The 200 body of POST /v1/systemone plus the request id header. */
export interface SystemOneResponse<Q extends Questions = Questions> {
  /** The checkpoint actually used (aliases are resolved). */
  readonly model: string;
  readonly answers: { readonly [K in keyof Q]: AnswerFor<Q[K]> };
  readonly usage: Usage;
  /** From `x-request-id` (else `x-typesafe-request-id`). */
  readonly requestId: string | undefined;
}

/** State and questions for `systemOne`. */
export interface SystemOneRequest<Q extends Questions = Questions> {
  /** The text the questions are about (string, object or array). */
  state: string | { [key: string]: JsonValue } | JsonValue[];
  questions: Q;
  /** Model name or alias; default `legacy-latest` (or the client's `model`). */
  model?: string;
  /** Further top-level fields are sent as given (the server ignores unknown ones). */
  [extra: string]: unknown;
}

/** One entry of GET /v1/models. */
export interface ModelCard {
  readonly name: string;
  readonly description: string;
  /** YYYY-MM-DD. */
  readonly release_date: string;
  readonly [extra: string]: unknown;
}

/** GET /v1/usage: the caller's account usage for one UTC month. Fields are optional and kept as sent. */
export interface UsageReport {
  readonly account?: { readonly id: string; readonly name: string };
  /** UTC month, YYYY-MM. */
  readonly period?: string;
  readonly period_start?: string;
  /** 00:00 UTC on the 1st of the next month. */
  readonly resets_at?: string;
  /** Monthly free allowance, processed tokens. */
  readonly allowance?: number;
  readonly used?: number;
  /** Tokens of admitted calls still running. */
  readonly reserved?: number;
  readonly remaining?: number;
  readonly requests?: number;
  readonly by_day?: readonly {
    readonly date: string;
    readonly processed_tokens: number;
    readonly requests: number;
    readonly by_model?: { readonly [model: string]: number };
  }[];
  readonly by_model?: readonly { readonly model: string; readonly processed_tokens: number; readonly requests: number }[];
  readonly limits?: {
    readonly monthly_allowance?: number;
    readonly requests_per_second?: number;
    readonly processed_tokens_per_second?: number;
    readonly in_flight?: number;
  };
  /** Path of the usage web page. */
  readonly usage_view?: string;
  readonly generated_at?: string;
  readonly [field: string]: unknown;
}
