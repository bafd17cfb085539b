/**
 * Issue 30: `structqa mcp --url URL`, the stdio bridge, driven by the official SDK's own stdio client
 * against a running service: the same tools as /mcp, the HTTP route's answers, one usage record per
 * call, the same tool errors as /mcp, and the client library's retries.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { EVERY_TYPE, httpSystemOne, mcpClient, serve, textOf, type Served } from './helpers.js';

const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/structqa.js');

/** The environment a desktop assistant gives the bridge: the key, and nothing of the test's SERVICE_* settings. */
function bridgeEnv(key: string | undefined): Record<string, string> {
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !e[0].startsWith('SERVICE_')));
  return key ? { ...env, SERVICE_API_KEY: key } : env;
}

async function bridgeClient(url: string, key: string, ...flags: string[]): Promise<Client> {
  const client = new Client({ name: 'structqa-test', version: '0.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--url', url, ...flags], env: bridgeEnv(key), stderr: 'ignore' }));
  return client;
}

let s: Served;
let key: string;
let accountId: string;
let bridge: Client;
let direct: Client;
before(async () => {
  s = await serve();
  ({ key, id: accountId } = await s.account());
  bridge = await bridgeClient(s.url, key);
  direct = await mcpClient(s.url, key);
});
after(async () => {
  await bridge?.close();
  await direct?.close();
  await s?.close();
});

const call = async (c: Client, args: Record<string, unknown>, name = 'system_one') => (await c.callTool({ name, arguments: args })) as CallToolResult;
const withoutRequestId = (r: CallToolResult) => {
  const { request_id: _id, ...error } = (r.structuredContent as { error: Record<string, unknown> }).error;
  return error;
};

describe('the stdio bridge', () => {
  test('lists the very tools /mcp lists: names, schemas, descriptions, hints', async () => {
    assert.deepEqual((await bridge.listTools()).tools, (await direct.listTools()).tools);
  });

  test('answers what POST /v1/systemone answers, and each call is one usage record', async () => {
    const before = await s.gate.totals({ accountId });
    let tokens = 0;
    for (const model of ['legacy-latest', 'core-multilingual-0.3.20']) {
      const args = { ...EVERY_TYPE, model };
      const r = await call(bridge, args);
      assert.equal(r.isError, undefined, textOf(r));
      assert.equal(textOf(r), (await httpSystemOne(s.url, key, JSON.stringify(args))).text);
      tokens += (r.structuredContent as { usage: { processed_tokens: number } }).usage.processed_tokens;
    }
    const after = await s.gate.totals({ accountId });
    // two bridge calls, two HTTP calls to compare with
    assert.equal(after.records - before.records, 4);
    assert.equal(after.processedTokens - before.processedTokens, 2 * tokens);
  });

  test('sends the arguments as written (integer-like key order, 1.0) and hands back the answer as written (a number label 7.0)', async () => {
    const asWritten = '{"model":"core-0.3.20","state":{"10":"ten","2":1.0},"questions":{"q":{"type":"choice","instructions":"Which?","criteria":{"10":"ten","2":"two","b":null}},"n":{"type":"choice","instructions":"Which number?","criteria":[7.0,3.0]}}}';
    const child = spawn(process.execPath, [BIN, 'mcp', '--url', s.url], { env: bridgeEnv(key), stdio: ['pipe', 'pipe', 'ignore'] });
    const lines: string[] = [];
    let buffer = '';
    const answered = new Promise<string>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
          lines.push(buffer.slice(0, nl));
          buffer = buffer.slice(nl + 1);
          const message = JSON.parse(lines.at(-1)!) as { id?: number; result?: CallToolResult };
          if (message.id === 2) resolve(textOf(message.result!));
        }
      });
    });
    child.stdin.write('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}\n');
    child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    child.stdin.write(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"system_one","arguments":${asWritten}}}\n`);
    const viaBridge = await answered;
    child.stdin.end();
    assert.equal(viaBridge, (await httpSystemOne(s.url, key, asWritten)).text);
    assert.match(viaBridge, /"choice":[73]\.0,/);
    assert.notEqual(viaBridge, (await httpSystemOne(s.url, key, JSON.stringify(JSON.parse(asWritten)))).text);
  });

  test('a refusal is the tool error /mcp gives (402 and 413 are not retried)', async () => {
    const poor = await s.account({ monthlyAllowance: 1 });
    const poorBridge = await bridgeClient(s.url, poor.key);
    const poorDirect = await mcpClient(s.url, poor.key);
    try {
      const cases: Record<string, unknown>[] = [
        EVERY_TYPE, // allowance_exhausted
        { model: 'core-0.3.20', state: 'word '.repeat(1500), questions: EVERY_TYPE.questions }, // state_too_long (checked before the allowance)
        { state: 'x', questions: { q: { type: 'choice', criteria: { only: null } } } }, // invalid_request
      ];
      for (const args of cases) {
        const viaBridge = await call(poorBridge, args);
        const viaMcp = await call(poorDirect, args);
        assert.equal(viaBridge.isError, true);
        assert.deepEqual(withoutRequestId(viaBridge), withoutRequestId(viaMcp));
        assert.equal(textOf(viaBridge).split('\nDetails:')[0], textOf(viaMcp).split('\nDetails:')[0]);
      }
      assert.equal((await s.gate.totals({ accountId: poor.id })).records, 0);
    } finally {
      await poorBridge.close();
      await poorDirect.close();
    }
  });

  test('a wrong key is refused: a tool error that says to set SERVICE_API_KEY', async () => {
    const wrong = await bridgeClient(s.url, 'sqa_live_' + 'x'.repeat(40));
    try {
      const r = await call(wrong, EVERY_TYPE);
      assert.equal(r.isError, true);
      assert.equal((r.structuredContent as { error: { code: string } }).error.code, 'invalid_api_key');
      assert.match(textOf(r), /SERVICE_API_KEY/);
    } finally {
      await wrong.close();
    }
  });

  test('retries 529 with the client library (honouring retry-after-ms), then gives the tool error', async () => {
    const cold = await serve({ start: false, env: { STRUCTQA_STARTING_RETRY_MS: '50' } });
    const a = await cold.account();
    const c = await bridgeClient(cold.url, a.key, '--max-retries', '2');
    try {
      const r = await call(c, EVERY_TYPE);
      assert.equal((r.structuredContent as { error: { code: string } }).error.code, 'starting');
      const metrics = await (await fetch(new URL('/metrics', cold.url))).text();
      assert.match(metrics, /structqa_http_requests_total\{route="\/v1\/systemone",method="POST",status="529",code="starting"\} 3/);
    } finally {
      await c.close();
      await cold.close();
    }
  });

  test('bad input: one line on stderr, exit status 2', async () => {
    for (const [args, env, says] of [
      [['--url', 'not-a-url'], bridgeEnv(key), /--url must be an http\(s\) URL/],
      [['--url', s.url], bridgeEnv(undefined), /SERVICE_API_KEY/],
      [['--url', s.url, '--max-retries', '-1'], bridgeEnv(key), /--max-retries/],
    ] as const) {
      const child = spawn(process.execPath, [BIN, 'mcp', ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
      assert.equal(status, 2, stderr);
      assert.match(stderr, says);
      assert.equal(stderr.trim().split('\n').length, 1, stderr);
    }
  });
});
