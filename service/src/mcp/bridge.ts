/**
 * `structqa mcp`: the tools of mcp/tools.ts over stdio, for desktop assistants that start an MCP
 * server as a child process. Each tool call is forwarded to a running service over HTTP with the
 * TypeScript client library (@structqa/client): its timeouts, its retries of 429/529/5xx/connection
 * errors honouring Retry-After, and one Idempotency-Key per call reused by its retries, so a retried
 * call is charged once. A refusal the service gives after the retries comes back as the same tool
 * error the /mcp endpoint gives.
 *
 * The service reads a state's objects as the caller wrote them (integer-like key order, `1.0`;
 * engine/source-json.ts), which JSON.parse and JSON.stringify lose. So the bridge keeps the text of each
 * system_one call's arguments as it came in on stdin and sends that text, not a re-serialised copy; and
 * it hands back the service's response text as it came (a number label in Python's form, `1.0`, would not
 * survive a parse either): the answer is the one POST /v1/systemone gives for the same arguments.
 */
import { randomUUID } from 'node:crypto';
import { Transform, type Readable, type TransformCallback, type Writable } from 'node:stream';
import { findNodeAtLocation, parseTree } from 'jsonc-parser';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
// The client library lives in this repository as TypeScript source (clients/typescript), run by tsx like
// the service itself; it has no runtime dependencies.
import {
  APIError,
  APIUserAbortError,
  Client,
  DeadlineExceededError,
  APIConnectionError,
  APITimeoutError,
  type ClientOptions,
} from '../../../clients/typescript/src/index.js';
import { Refusal } from './refusals.js';
import { createToolServer, type ToolBackend } from './tools.js';

export interface BridgeOptions {
  /** The service root (default: SERVICE_BASE_URL, as the client reads it). The key: SERVICE_API_KEY. */
  baseURL?: string;
  timeoutMs?: number;
  maxRetries?: number;
  deadlineMs?: number;
  maxQuestions: number;
  stdin?: Readable;
  stdout?: Writable;
  /** Diagnostics (never stdout: that is the protocol's). */
  log?: (line: string) => void;
  /** For tests. */
  fetch?: ClientOptions['fetch'];
}

/**
 * The text of system_one calls' arguments as they arrived, by their JSON.stringify form (which is
 * what the client library would send). Bounded: a call that never reaches the service leaves its entry
 * only until newer calls push it out.
 */
export class ArgumentTexts {
  private readonly texts = new Map<string, string>();
  constructor(private readonly max = 64) {}

  /** Note one JSON-RPC line from the client. */
  noteLine(line: string): void {
    if (!line.includes('tools/call') || !line.includes('system_one')) return;
    const tree = parseTree(line);
    if (!tree || findNodeAtLocation(tree, ['method'])?.value !== 'tools/call' || findNodeAtLocation(tree, ['params', 'name'])?.value !== 'system_one') return;
    const args = findNodeAtLocation(tree, ['params', 'arguments']);
    if (!args || args.type !== 'object') return;
    const text = line.slice(args.offset, args.offset + args.length);
    let canonical: string;
    try {
      canonical = JSON.stringify(JSON.parse(text));
    } catch {
      return; // not JSON after all: the SDK refuses the line itself
    }
    this.texts.delete(canonical);
    this.texts.set(canonical, text);
    if (this.texts.size > this.max) this.texts.delete(this.texts.keys().next().value as string);
  }

  /** The text as sent for a body the client library wrote with JSON.stringify (else that body). */
  exact(body: string): string {
    return this.texts.get(body) ?? body;
  }

  forget(body: string): void {
    this.texts.delete(body);
  }
}

/** Passes stdin through unchanged, noting each complete line. */
function lineTap(texts: ArgumentTexts): Transform {
  let pending = '';
  return new Transform({
    transform(chunk: Buffer, _encoding: string, done: TransformCallback) {
      pending += chunk.toString('utf8');
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        texts.noteLine(pending.slice(0, nl));
        pending = pending.slice(nl + 1);
      }
      done(null, chunk);
    },
  });
}

/** The client library's failure as the refusal the /mcp endpoint would give. */
export function refusalOf(error: unknown): unknown {
  const cause = error instanceof DeadlineExceededError && error.lastError !== undefined ? error.lastError : error;
  if (cause instanceof APIError) {
    return new Refusal(cause.status, cause.code ?? `http_${cause.status}`, cause.body, cause.retryAfterMs, cause.requestId);
  }
  if (cause instanceof APIUserAbortError) return error; // the MCP client cancelled the call
  if (cause instanceof APITimeoutError || error instanceof DeadlineExceededError) {
    return new Refusal(0, 'timeout', { detail: { message: (error as Error).message } });
  }
  if (cause instanceof APIConnectionError) return new Refusal(0, 'connection_error', { detail: { message: cause.message } });
  return error;
}

/** The response texts of system_one calls in progress, by the Idempotency-Key each call sends. */
export type ResponseTexts = Map<string, string | undefined>;

/** The tools' backend over HTTP; `responses` is filled by the client's fetch (runBridge). */
export function httpBackend(client: Client, texts: ArgumentTexts, responses: ResponseTexts, maxQuestions: number): ToolBackend {
  const forwarded = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      throw refusalOf(error);
    }
  };
  return {
    maxQuestions,
    async systemOne(args, signal) {
      const sent = JSON.stringify(args);
      const idempotencyKey = randomUUID(); // the client's one key for this call and its retries, chosen here to find its answer
      responses.set(idempotencyKey, undefined);
      try {
        // (request, not systemOne: the body goes as given, so the text swap in runBridge finds it)
        const res = await forwarded(() => client.request('POST', '/v1/systemone', { body: args, signal, idempotencyKey }));
        return responses.get(idempotencyKey) ?? JSON.stringify(res.body);
      } finally {
        texts.forget(sent);
        responses.delete(idempotencyKey);
      }
    },
    listModels: async () => ({ models: await forwarded(() => client.models.list()) }),
    usage: async (month) => forwarded(() => client.usage(month === undefined ? {} : { month: String(month) })),
  };
}

/** Start the bridge; resolves when stdin closes (the MCP client went away). */
export async function runBridge(options: BridgeOptions): Promise<void> {
  const texts = new ArgumentTexts();
  const responses: ResponseTexts = new Map();
  const baseFetch = options.fetch ?? ((input: string, init?: RequestInit) => globalThis.fetch(input, init));
  const client = new Client({
    baseURL: options.baseURL,
    timeoutMs: options.timeoutMs,
    maxRetries: options.maxRetries,
    deadlineMs: options.deadlineMs,
    // the arguments' text as written goes out; a system_one answer's text as written comes back
    fetch: async (input, init) => {
      const res = await baseFetch(input, init && typeof init.body === 'string' ? { ...init, body: texts.exact(init.body) } : init);
      const key = (init?.headers as Record<string, string> | undefined)?.['Idempotency-Key'];
      if (key !== undefined && responses.has(key) && res.ok) responses.set(key, await res.clone().text());
      return res;
    },
  });
  const stdin = options.stdin ?? process.stdin;
  const tap = lineTap(texts);
  stdin.pipe(tap);
  const server = createToolServer(httpBackend(client, texts, responses, options.maxQuestions));
  await server.connect(new StdioServerTransport(tap, options.stdout ?? process.stdout));
  options.log?.(`structqa mcp: serving MCP on stdio, forwarding to ${client.baseURL}`);
  await new Promise<void>((resolve) => tap.once('end', resolve));
  await server.close();
}
