/**
 * @structqa/client: TypeScript client for structqa, a System One-compatible service.
 * No runtime dependencies beyond Node 20's fetch.
 */

export { Client, Models, ENV, VERSION, DEFAULT_MODEL, DEFAULT_TIMEOUT_MS } from './client.js';
export type { ClientOptions, CallOptions, Fetch, RawResult } from './client.js';
export { noul, choice, score, validateQuestions } from './questions.js';
export * from './errors.js';
export {
  DEFAULT_RETRY_POLICY,
  resolvePolicy,
  isRetryable,
  shouldRetry,
  serverRetryDelayMs,
  backoffMs,
  retryDelayMs,
  remainingBudget,
  resolveDeadline,
  attemptTimeout,
  decideRetry,
} from './retry.js';
export type { RetryPolicy, FailureKind, HeaderSource, RetryDecision } from './retry.js';
export {
  askInChunks,
  splitText,
  chunkCharBudget,
  planChunks,
  combineAnswers,
  combineResponses,
  choiceConfidence,
  scoreConfidence,
} from './chunking.js';
export type { ChunkOptions, Chunk, ChunkedResult, CombinedResponse, CombineOptions, NoulCombination } from './chunking.js';
export type * from './types.js';
