/**
 * Issue 30: POST /mcp driven by the official SDK's own client, against the real app, engine (fixture
 * checkpoints: random weights, so these tests look at mechanics, not answer quality) and accounts gate.
 * The tools answer exactly what POST /v1/systemone answers, each answered call is one usage record,
 * every refusal is a tool error with the service's code and what to do, and the key is required.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ModelList, SystemOneRequest } from '../../src/schemas/systemone.js';
import { UsageQuery } from '../../src/http/routes/usage.js';
import { EVERY_TYPE, httpSystemOne, mcpClient, serve, textOf, type Served } from './helpers.js';

let s: Served;
let key: string;
let accountId: string;
let client: Client;
before(async () => {
  s = await serve();
  ({ key, id: accountId } = await s.account());
  client = await mcpClient(s.url, key);
});
after(async () => {
  await client?.close();
  await s?.close();
});

const plain = (schema: object): unknown => JSON.parse(JSON.stringify(schema));
const call = async (c: Client, args: Record<string, unknown>, name = 'system_one') => (await c.callTool({ name, arguments: args })) as CallToolResult;
const refusalOf = (r: CallToolResult) => (r.structuredContent as { error: Record<string, any> }).error;

/** A tools/call posted as raw text (the SDK's client would re-serialise the arguments). */
async function rawToolCall(argumentsText: string, auth = key): Promise<CallToolResult> {
  const res = await fetch(new URL('/mcp', s.url), {
    method: 'POST',
    headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    body: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"system_one","arguments":${argumentsText}}}`,
  });
  assert.equal(res.status, 200);
  return ((await res.json()) as { result: CallToolResult }).result;
}

describe('tools', () => {
  test('system_one, list_models and usage, with the schemas that validate the HTTP routes', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['system_one', 'list_models', 'usage']);
    const [systemOne, listModels, usage] = tools;
    assert.deepEqual(systemOne!.inputSchema, plain(SystemOneRequest));
    assert.deepEqual(usage!.inputSchema, plain(UsageQuery));
    assert.deepEqual((listModels!.outputSchema as unknown as { anyOf: unknown[] }).anyOf[0], plain(ModelList));
    // the description a model reads: the types, the limits, what to do on refusals, every model name
    const text = systemOne!.description!;
    for (const part of ['noul', 'choice', 'score', 'at most 32 questions', 'state_too_long', 'split the state', 'rate_limited', 'allowance_exhausted']) assert.ok(text.includes(part), part);
    for (const m of ((await (await fetch(new URL('/v1/models', s.url))).json()) as { models: { name: string }[] }).models) assert.ok(text.includes(m.name), m.name);
  });

  test('the answers are the HTTP route\'s, text for text, for every question type and model name', async () => {
    for (const model of ['legacy-latest', 'core-0.3.20', 'core-multilingual', 'jev-latest', undefined]) {
      const args = { ...EVERY_TYPE, ...(model ? { model } : {}) };
      const viaMcp = await call(client, args);
      assert.equal(viaMcp.isError, undefined, textOf(viaMcp));
      const viaHttp = await httpSystemOne(s.url, key, JSON.stringify(args));
      assert.equal(viaHttp.status, 200);
      assert.equal(textOf(viaMcp), viaHttp.text, String(model));
      assert.deepEqual(viaMcp.structuredContent, JSON.parse(viaHttp.text));
    }
  });

  test('a state read as written (integer-like keys in their order, 1.0 as 1.0) and number labels answered as written, as by the HTTP route', async () => {
    const asWritten = '{"model":"core-0.3.20","state":{"10":"ten","2":1.0},"questions":{"q":{"type":"choice","instructions":"Which?","criteria":{"10":"ten","2":"two","b":null}},"n":{"type":"choice","instructions":"Which number?","criteria":[7.0,3.0]}}}';
    const reordered = '{"model":"core-0.3.20","state":{"2":1,"10":"ten"},"questions":{"q":{"type":"choice","instructions":"Which?","criteria":{"2":"two","10":"ten","b":null}},"n":{"type":"choice","instructions":"Which number?","criteria":[7.0,3.0]}}}';
    const viaMcp = textOf(await rawToolCall(asWritten));
    assert.equal(viaMcp, (await httpSystemOne(s.url, key, asWritten)).text);
    assert.match(viaMcp, /"choice":[73]\.0,/); // laya's number label, in Python's form
    // JSON.parse makes both the same value; the checkpoint reads two different texts
    assert.notEqual(viaMcp, textOf(await rawToolCall(reordered)));
  });

  test('list_models and usage answer what GET /v1/models and GET /v1/usage answer', async () => {
    const models = await call(client, {}, 'list_models');
    assert.deepEqual(models.structuredContent, await (await fetch(new URL('/v1/models', s.url))).json());
    const usage = await call(client, {}, 'usage');
    const http = (await (await fetch(new URL('/v1/usage', s.url), { headers: { authorization: `Bearer ${key}` } })).json()) as Record<string, unknown>;
    assert.deepEqual({ ...(usage.structuredContent as object), generated_at: 0 }, { ...http, generated_at: 0 });
    const bad = await call(client, { month: '2026-13' }, 'usage');
    assert.equal(bad.isError, true);
    assert.equal(refusalOf(bad).code, 'invalid_request');
  });
});

describe('metering', () => {
  test('an answered MCP call is one usage record of its processed tokens, shown by /v1/usage; a refused one is none', async () => {
    const before = await s.gate.totals({ accountId });
    const usageBefore = (await s.gate.usage({ id: accountId, name: '', limits: {} as never })).requests;
    const answered = await call(client, EVERY_TYPE);
    const tokens = (answered.structuredContent as { usage: { processed_tokens: number } }).usage.processed_tokens;
    await call(client, { state: 'x', questions: { q: { type: 'choice', criteria: { only: null } } } }); // refused: invalid
    await call(client, { ...EVERY_TYPE, model: 'no-such-model' }); // refused: unknown model
    const after = await s.gate.totals({ accountId });
    assert.equal(after.records - before.records, 1);
    assert.equal(after.processedTokens - before.processedTokens, tokens);
    assert.equal(after.openReservations, 0);
    const report = (await (await fetch(new URL('/v1/usage', s.url), { headers: { authorization: `Bearer ${key}` } })).json()) as { requests: number; used: number };
    assert.equal(report.requests, usageBefore + 1);
  });
});

describe('refusals are tool errors with the code and what to do', () => {
  const assertRefusal = (r: CallToolResult, code: string, status: number, ...says: string[]) => {
    assert.equal(r.isError, true, JSON.stringify(r));
    const error = refusalOf(r);
    assert.equal(error.code, code);
    assert.equal(error.status, status);
    const text = textOf(r);
    assert.ok(text.startsWith(`Refused: ${code} (HTTP ${status}).`), text);
    for (const s of says) assert.ok(text.toLowerCase().includes(s.toLowerCase()), `${code}: "${s}" in ${text}`);
    return error;
  };

  test('state_too_long: every question\'s room, and how many parts to split the state into', async () => {
    const r = await call(client, { model: 'core-0.3.20', state: 'word '.repeat(1500), questions: EVERY_TYPE.questions });
    const error = assertRefusal(r, 'state_too_long', 413, 'Split the state into at least', 'room', 'nothing was charged');
    for (const name of Object.keys(EVERY_TYPE.questions)) assert.ok(error.questions[name].room > 0 && error.questions[name].overflow > 0);
    const room = Math.min(...Object.values(error.questions as Record<string, { room: number }>).map((q) => q.room));
    assert.ok(textOf(r).includes(`at least ${Math.ceil(error.state_tokens / room) + 1} consecutive parts`));
  });

  test('too_many_questions, processed_token_cap, invalid_request, unknown_model', async () => {
    const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`q${i}`, EVERY_TYPE.questions.refund]));
    assertRefusal(await call(client, { state: 'x', questions: many(33) }), 'too_many_questions', 413, 'over 2 calls of at most 32');
    assertRefusal(await call(client, { model: 'core-0.3.20', state: 'word '.repeat(400), questions: many(10) }), 'processed_token_cap', 413, 'fewer questions');
    const invalid = assertRefusal(
      await call(client, { state: 'x', questions: { q: { type: 'score', criteria: ['only one'] } } }),
      'invalid_request',
      422,
      'questions.q.score.criteria',
      'Fix the arguments',
    );
    assert.deepEqual(invalid.issues[0].loc, ['body', 'questions', 'q', 'score', 'criteria']);
    assertRefusal(await call(client, { ...EVERY_TYPE, model: 'gpt-5' }), 'unknown_model', 400, 'legacy-latest', 'core-multilingual-0.3.20');
  });

  test('allowance_exhausted (402): not before the reset time', async () => {
    const poor = await s.account({ monthlyAllowance: 1 });
    const c = await mcpClient(s.url, poor.key);
    const error = assertRefusal(await call(c, EVERY_TYPE), 'allowance_exhausted', 402, 'Do not call again before', 'usage');
    assert.equal(error.allowance, 1);
    await c.close();
    assert.equal((await s.gate.totals({ accountId: poor.id })).records, 0);
  });

  test('rate_limited and in_flight_limit (429): wait the seconds given', async () => {
    const slow = await s.account({ requestsPerSecond: 1 });
    const c = await mcpClient(s.url, slow.key);
    assert.equal((await call(c, EVERY_TYPE)).isError, undefined);
    // the test's clock stands still: the bucket does not refill
    const error = assertRefusal(await call(c, EVERY_TYPE), 'rate_limited', 429, 'Wait ', 'call again');
    assert.ok(error.retry_after_ms > 0);
    await c.close();

    const narrow = await s.account({ inFlight: 1 });
    const n = await mcpClient(s.url, narrow.key);
    const held = await s.gate.enter({ id: narrow.id, name: '', limits: (await s.gate.getAccount(narrow.id))!.limits }, {});
    assertRefusal(await call(n, EVERY_TYPE), 'in_flight_limit', 429, 'calls running', 'then call again');
    await held.leave();
    assert.equal((await call(n, EVERY_TYPE)).isError, undefined);
    await n.close();
  });

  test('starting and overloaded (529): wait and call again', async () => {
    const cold = await serve({ start: false });
    const full = await serve({ env: { STRUCTQA_QUEUE_MAX_ROWS: '1' } });
    try {
      for (const [served, code] of [[cold, 'starting'], [full, 'overloaded']] as const) {
        const a = await served.account();
        const c = await mcpClient(served.url, a.key);
        const error = assertRefusal(await call(c, EVERY_TYPE), code, 529, 'Wait ', 'call again');
        assert.ok(error.retry_after_ms > 0);
        await c.close();
        assert.equal((await served.gate.totals({ accountId: a.id })).records, 0);
      }
    } finally {
      await cold.close();
      await full.close();
    }
  });

  test('the refusals are counted by tool and code in /metrics', async () => {
    const metrics = await (await fetch(new URL('/metrics', s.url))).text();
    assert.match(metrics, /structqa_mcp_tool_calls_total\{tool="system_one",code="state_too_long"\} 1/);
    assert.match(metrics, /structqa_mcp_tool_calls_total\{tool="system_one",code=""\} \d+/);
    assert.match(metrics, /structqa_http_requests_total\{route="\/mcp",method="POST",status="200",code="state_too_long"\} 1/);
  });
});

describe('HTTP', () => {
  test('no key: 403 missing_api_key; a wrong key: 401 invalid_api_key; both with WWW-Authenticate: Bearer', async () => {
    for (const [auth, status, code, says] of [
      [undefined, 403, 'missing_api_key', 'Must supply an API key'],
      ['sqa_live_' + 'x'.repeat(40), 401, 'invalid_api_key', 'authentication_error'],
    ] as const) {
      // what an MCP client shows: the status and the service's error body
      await assert.rejects(mcpClient(s.url, auth), (e: unknown) => e instanceof StreamableHTTPError && e.code === status && e.message.includes(says));
      const res = await fetch(new URL('/mcp', s.url), {
        method: 'POST',
        headers: { ...(auth ? { authorization: `Bearer ${auth}` } : {}), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      });
      assert.equal(res.status, status);
      assert.equal(res.headers.get('x-service-error-code'), code);
      assert.equal(res.headers.get('www-authenticate'), 'Bearer');
    }
  });

  test('a browser page of another origin is refused before its key is read; this machine\'s pages and configured origins are not', async () => {
    const post = (origin: string, url = s.url) =>
      fetch(new URL('/mcp', url), {
        method: 'POST',
        headers: { origin, authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
        body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      });
    const evil = await post('http://evil.example.com');
    assert.equal(evil.status, 403);
    assert.equal(evil.headers.get('x-service-error-code'), 'forbidden');
    assert.equal((await post('http://localhost:3000')).status, 200);
    assert.equal((await post('http://[::1]')).status, 200);
    const allowing = await serve({ start: false, env: { STRUCTQA_MCP_ALLOWED_ORIGINS: 'https://agents.example.com, https://other.example.com' } });
    try {
      const a = await allowing.account();
      const ok = await fetch(new URL('/mcp', allowing.url), {
        method: 'POST',
        headers: { origin: 'https://agents.example.com', authorization: `Bearer ${a.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      });
      assert.equal(ok.status, 200);
    } finally {
      await allowing.close();
    }
  });

  test('stateless: no session id; GET and DELETE are 405 with Allow: POST; a body over the limit is 413', async () => {
    const res = await fetch(new URL('/mcp', s.url), {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}',
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('mcp-session-id'), null);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    for (const method of ['GET', 'DELETE']) {
      const r = await fetch(new URL('/mcp', s.url), { method, headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' } });
      assert.equal(r.status, 405);
      assert.equal(r.headers.get('allow'), 'POST');
    }
    const big = await fetch(new URL('/mcp', s.url), {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'system_one', arguments: { state: 'x'.repeat(s.config.bodyLimitBytes), questions: EVERY_TYPE.questions } } }),
    });
    assert.equal(big.status, 413);
    assert.equal(big.headers.get('x-service-error-code'), 'payload_too_large');
  });

  test('STRUCTQA_MCP=0: no endpoint', async () => {
    const off = await serve({ start: false, env: { STRUCTQA_MCP: '0' } });
    try {
      const a = await off.account();
      const res = await fetch(new URL('/mcp', off.url), { method: 'POST', headers: { authorization: `Bearer ${a.key}`, 'content-type': 'application/json' }, body: '{}' });
      assert.equal(res.status, 404);
    } finally {
      await off.close();
    }
  });
});
