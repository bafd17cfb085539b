/** Whatever was thrown → the status, body and headers the contract (§6) names for it. */
import {
  BadRequest,
  InternalError,
  InvalidJson,
  InvalidRequest,
  PayloadTooLarge,
  ServiceError,
} from '../errors.js';
import { toIssues, type AjvError } from './validation.js';

interface FastifyLikeError {
  code?: string;
  statusCode?: number;
  validation?: AjvError[];
  message?: string;
}

/** `body`: the parsed request body, when there is one (validation problems inside a question name its type). */
export function toServiceError(error: unknown, bodyLimitBytes: number, body?: unknown): ServiceError {
  if (error instanceof ServiceError) return error;
  const e = (error ?? {}) as FastifyLikeError;
  if (Array.isArray(e.validation)) return new InvalidRequest(toIssues(e.validation, body));
  if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new PayloadTooLarge(bodyLimitBytes);
  // a body whose size is not its Content-Length (Node's parser refuses most before Fastify sees them)
  if (e.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') return new BadRequest('The request body does not match its Content-Length.');
  if (e.statusCode === 400 || e.code?.startsWith('FST_ERR_CTP')) {
    return new InvalidJson(`The request body is not valid JSON: ${e.message ?? 'parse error'}`);
  }
  return new InternalError();
}

export function errorBody(error: ServiceError): unknown {
  if (error instanceof InvalidRequest || error instanceof InvalidJson) return { detail: error.issues };
  return { detail: { error_type: error.errorType, message: error.message, ...error.extra } };
}
