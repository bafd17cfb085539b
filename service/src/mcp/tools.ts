/**
 * The MCP tools — `system_one`, `list_models`, `usage` — and the MCP server that offers them, over a
 * ToolBackend: in the service (mcp/endpoint.ts: the same call as POST /v1/systemone) or in the stdio
 * bridge (mcp/bridge.ts: over HTTP with the client library).
 *
 * Input and output schemas are the very schema objects that validate /v1/systemone and describe
 * /v1/models and /v1/usage (schemas/systemone.ts, http/routes/usage.ts), written out as JSON Schema
 * here at listing time, so a change there is a change here. The low-level SDK `Server` is used
 * because its tools take JSON Schema as it is; `McpServer` would want a second copy of each schema
 * in Zod.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { UsageQuery, UsageReportSchema } from '../http/routes/usage.js';
import { DEFAULT_MODEL, type ModelEntry } from '../routing/models.js';
import { ChoiceQuestion, ModelList, NoulQuestion, ScoreQuestion, SystemOneRequest, SystemOneResponse } from '../schemas/systemone.js';
import { Refusal, toolError } from './refusals.js';

export const SERVER_INFO = { name: 'structqa', version: '0.1.0' } as const;

/** What the tools run on. Each method answers, or throws a Refusal (anything else is an internal error). */
export interface ToolBackend {
  /** The exact response body POST /v1/systemone gives for this request body. */
  systemOne(args: Record<string, unknown>, signal: AbortSignal): Promise<string>;
  listModels(): Promise<{ models: ModelEntry[] }>;
  /** GET /v1/usage for the month (YYYY-MM) or this one; absent where the service has no accounts. */
  usage?(month: unknown): Promise<unknown>;
  /** The maximum number of questions per call. */
  readonly maxQuestions: number;
  /** The request id a refusal quotes, where one request carries the calls. */
  readonly requestId?: string;
  /** Called with every tool call's outcome code ('' when answered): metrics and logs. */
  onToolCall?(tool: string, code: string, error?: unknown): void;
}

/** A schema object as plain JSON Schema (TypeBox's symbol keys dropped). */
const jsonSchema = (schema: object): Record<string, unknown> => JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;

/** The `error` a refused call carries as structured content (mcp/refusals.ts). */
const RefusalSchema = {
  type: 'object',
  title: 'Refusal',
  properties: {
    error: {
      type: 'object',
      properties: {
        code: { type: 'string', description: "The service's error code (x-service-error-code), e.g. state_too_long, rate_limited." },
        status: { type: 'integer', description: 'The HTTP status the same refusal has on /v1/systemone.' },
        message: { type: 'string' },
        retry_after_ms: { type: 'number', description: 'Wait this long before calling again.' },
        request_id: { type: 'string' },
      },
      required: ['code', 'status', 'message'],
      additionalProperties: true,
    },
  },
  required: ['error'],
};

/** An output schema: the answer, or a refusal (a tool error's structured content). */
const answerOr = (answer: object): Tool['outputSchema'] => ({ type: 'object', anyOf: [jsonSchema(answer), RefusalSchema] });

const schemaText = (schema: { description?: string; properties?: Record<string, { description?: string } | undefined> }): string =>
  [schema.description, schema.properties?.criteria?.description].filter(Boolean).join(' ');

/** `system_one`'s description, for a model to read. */
function systemOneDescription(models: ModelEntry[] | undefined, maxQuestions: number): string {
  const names = models?.map((m) => m.name).join(', ');
  return [
    'Answer typed questions about one text (the "state": a string, or a JSON object/array) in one call, with structqa\'s classifier checkpoints ' +
      '(they score; they do not write text). "questions" maps names you choose to questions; each answer comes back under its name.',
    '',
    'Question types:',
    `- noul — ${schemaText(NoulQuestion)} {"type":"noul","instructions":"Does the customer ask for money back?"} → {"type":"noul","noul":0.93}: the probability that the statement holds.`,
    `- choice — ${schemaText(ChoiceQuestion)} {"type":"choice","instructions":"Which team should handle it?","criteria":{"billing":"payments, invoices","technical":null}} → {"type":"choice","choice":"billing","probabilities":{"billing":0.8,"technical":0.2},"confidence":0.6}.`,
    `- score — ${schemaText(ScoreQuestion)} {"type":"score","instructions":"How upset is the customer?","criteria":["calm","annoyed","furious"]} → {"type":"score","score":1.4,"legend":{"0":"calm",…},"probabilities":{"0":0.1,"1":0.4,"2":0.5},"confidence":0.3}: score is the expected level (0 = the first).`,
    'Instructions and descriptions may be text or JSON. The result is {"model": the checkpoint that answered, "answers": {...}, "usage": {...}}.',
    '',
    `Limits (nothing is ever truncated): at most ${maxQuestions} questions per call. Each question leaves room for a bounded number of state tokens ` +
      '(the checkpoint\'s window less the question and its options: a few hundred tokens on the English checkpoint); a longer state is refused with ' +
      'state_too_long, which gives every question\'s room: split the state into parts that fit and ask about each part. ' +
      'A call\'s processed tokens (rows × longest sequence) must stay within the checkpoint\'s cap (processed_token_cap otherwise: fewer questions per call).',
    'Every answered call is metered: its processed tokens count against the account\'s monthly allowance (tool "usage").',
    'Refusals are tool errors carrying the service\'s error code and what to do: rate_limited, in_flight_limit, overloaded, starting → wait the given seconds and call again; ' +
      'allowance_exhausted → stop until the reset time; state_too_long → split the state; too_many_questions → split the questions; ' +
      'invalid_request → fix the arguments; unknown_model → use a listed name.',
    '',
    `"model" is optional (default ${DEFAULT_MODEL}: English text goes to the English checkpoint, other languages to the multilingual one).` +
      (names ? ` Accepted names: ${names}.` : ' Tool "list_models" lists the accepted names.'),
  ].join('\n');
}

/** The tools, described with what the backend knows now (the accepted model names). */
export async function listTools(backend: ToolBackend): Promise<Tool[]> {
  const models = await backend.listModels().then(
    (m) => m.models,
    () => undefined, // the descriptions name the models when they can; the tools work either way
  );
  const tools: Tool[] = [
    {
      name: 'system_one',
      title: 'Answer typed questions about a text',
      description: systemOneDescription(models, backend.maxQuestions),
      inputSchema: jsonSchema(SystemOneRequest) as Tool['inputSchema'],
      outputSchema: answerOr(SystemOneResponse),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    {
      name: 'list_models',
      title: 'List the accepted model names',
      description: 'Every model name system_one accepts, with what it selects: routing aliases (pick the checkpoint by the text\'s language) and checkpoints. Free: not metered.',
      inputSchema: { type: 'object', properties: {} },
      outputSchema: answerOr(ModelList),
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
  ];
  if (backend.usage) {
    tools.push({
      name: 'usage',
      title: "The account's allowance and usage",
      description:
        "The account's monthly allowance of processed tokens, how much is used and remaining, when it resets (UTC), usage by day and by model, " +
        'and the account\'s rate, token-rate and in-flight limits. For this month, or "month": "YYYY-MM". Free: not metered.',
      inputSchema: jsonSchema(UsageQuery) as Tool['inputSchema'],
      outputSchema: answerOr(UsageReportSchema),
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    });
  }
  return tools;
}

const answered = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], structuredContent: JSON.parse(text) as Record<string, unknown> });
const answeredValue = (value: unknown): CallToolResult => answered(JSON.stringify(value));

/** Run one tool call; a refusal becomes a tool error, never a protocol error. */
export async function callTool(backend: ToolBackend, name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
  let run: () => Promise<CallToolResult>;
  if (name === 'system_one') run = async () => answered(await backend.systemOne(args, signal));
  else if (name === 'list_models') run = async () => answeredValue(await backend.listModels());
  else if (name === 'usage' && backend.usage) {
    const usage = backend.usage.bind(backend);
    run = async () => answeredValue(await usage(args.month));
  } else throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
  try {
    const result = await run();
    backend.onToolCall?.(name, '');
    return result;
  } catch (error) {
    const refusal = error instanceof Refusal ? error : Refusal.from(error, backend.requestId);
    backend.onToolCall?.(name, refusal.code, error);
    return toolError(refusal);
  }
}

/** How a model should use this server (the `instructions` of the initialize result). */
export const INSTRUCTIONS =
  'structqa answers typed questions about a text: the probability that a statement holds (noul), a distribution over named options (choice), ' +
  'or an expected level on a scale (score), several questions in one call (tool system_one). Calls are metered against a monthly allowance (tool usage). ' +
  'Refusals are tool errors with a code and what to do next.';

/** An MCP server offering the tools over `backend` (one per connection, or per request when stateless). */
export function createToolServer(backend: ToolBackend): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await listTools(backend) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => callTool(backend, request.params.name, request.params.arguments ?? {}, extra.signal));
  return server;
}
