/** Prometheus metrics (prom-client), one registry per app so tests and replicas do not collide. */
import client from 'prom-client';

export class Metrics {
  readonly registry = new client.Registry();
  readonly requests = new client.Counter({
    name: 'structqa_http_requests_total',
    help: 'HTTP requests by route, method, status and error code.',
    labelNames: ['route', 'method', 'status', 'code'] as const,
    registers: [this.registry],
  });
  readonly latency = new client.Histogram({
    name: 'structqa_http_request_duration_seconds',
    help: 'HTTP request latency by route, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  readonly bodiesParsed = new client.Counter({
    name: 'structqa_request_bodies_parsed_total',
    help: 'Request bodies hashed and parsed as JSON. A call refused from its key (401/403/429) before its body is read adds none.',
    registers: [this.registry],
  });
  readonly mcpToolCalls = new client.Counter({
    name: 'structqa_mcp_tool_calls_total',
    help: 'MCP tool calls by tool and outcome code ("" when answered; a refusal\'s error code otherwise). One /mcp request may carry several.',
    labelNames: ['tool', 'code'] as const,
    registers: [this.registry],
  });
  readonly queueDepth = new client.Gauge({
    name: 'structqa_queue_rows',
    help: 'Rows waiting in each checkpoint batcher.',
    labelNames: ['checkpoint'] as const,
    registers: [this.registry],
  });
  readonly processedTokens = new client.Counter({
    name: 'structqa_processed_tokens_total',
    help: 'Processed tokens (questions × longest sequence) of answered calls, by checkpoint.',
    labelNames: ['checkpoint'] as const,
    registers: [this.registry],
  });
  readonly modelTokens = new client.Counter({
    name: 'structqa_model_tokens_total',
    help: 'Tokens run through the model, real and padded, by checkpoint.',
    labelNames: ['checkpoint', 'kind'] as const,
    registers: [this.registry],
  });
  readonly batchRows = new client.Histogram({
    name: 'structqa_batch_rows',
    help: 'Rows per model run.',
    labelNames: ['checkpoint'] as const,
    buckets: [1, 2, 4, 8, 16, 32, 64, 128],
    registers: [this.registry],
  });
  readonly batchSeconds = new client.Histogram({
    name: 'structqa_batch_seconds',
    help: 'Model run time per batch.',
    labelNames: ['checkpoint'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [this.registry],
  });

  constructor() {
    client.collectDefaultMetrics({ register: this.registry, prefix: 'structqa_' });
  }
}
