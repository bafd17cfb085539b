/**
 * What MCP costs per call: the same 1-question call through POST /v1/systemone, through POST /mcp
 * (a tools/call of system_one: a fresh SDK server and transport per request, JSON-RPC around the
 * answer) and through the stdio bridge (`structqa mcp`: a JSON-RPC line to a child process, which
 * forwards it over HTTP with the client library). One server; the three carriers take turns, in
 * rotating order, one call each per round (a different state each round), so they see the same host.
 * Prints each carrier's p50 and p90 latency and the median of its per-round difference to the HTTP call.
 *
 *   npx tsx bench/src/mcp-overhead.ts [--checkpoint DIR] [--rounds 200] [--state-words 90]
 *
 * DIR (default: the bundled English checkpoint) is served as the English checkpoint beside the
 * multilingual fixture, as `npm run bench` serves it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BUNDLED_CHECKPOINTS_DIR, ENGLISH_CHECKPOINT } from '../../service/src/config.js';
import { ensureFixtures } from '../../service/src/fixtures/index.js';
import { firstKey, freePort, NO_LIMITS, waitReady } from './child-server.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.resolve(here, '../../service/bin/structqa.js');
const MODELS = path.resolve(here, '../../service/.cache/fixtures');

const { values: args } = parseArgs({
  options: {
    checkpoint: { type: 'string', default: path.join(BUNDLED_CHECKPOINTS_DIR, ENGLISH_CHECKPOINT) },
    rounds: { type: 'string', default: '200' },
    'state-words': { type: 'string', default: '90' },
  },
});
const ROUNDS = Number(args.rounds);
const WORDS = 'the customer wrote that their order arrived late and the package was damaged so they want a refund or a replacement as soon as possible because the item was a gift'.split(' ');
const state = (salt: number) => Array.from({ length: Number(args['state-words']) - 2 }, (_, i) => WORDS[(i * 7 + salt) % WORDS.length]).join(' ') + ` ticket ${salt}`;
const request = (salt: number) => ({ model: ENGLISH_CHECKPOINT, state: state(salt), questions: { q: { type: 'noul', instructions: 'Does the customer ask for a refund?' } } });
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))]!;
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

function post(url: string, headers: Record<string, string>, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => (res.statusCode === 200 ? resolve(text) : reject(new Error(`HTTP ${res.statusCode}: ${text}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

await ensureFixtures(MODELS, { en: 'core-0.3.20', multilingual: 'core-multilingual-0.3.20' });
const port = await freePort();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'structqa-mcp-bench-'));
const server = spawn(process.execPath, [BIN, 'serve'], {
  env: {
    ...process.env, PORT: String(port), HOST: '127.0.0.1', STRUCTQA_DATA_DIR: dataDir, STRUCTQA_MODELS_DIR: MODELS,
    STRUCTQA_BUILD_FIXTURES: '0', LOG_LEVEL: 'warn', ...NO_LIMITS, STRUCTQA_MONTHLY_ALLOWANCE: '1000000000000',
    STRUCTQA_SHARED_WEIGHTS_DIR: path.resolve(here, '../../service/.cache/ort-cache'),
    STRUCTQA_ENGLISH_DIR: path.resolve(args.checkpoint!), STRUCTQA_MULTILINGUAL_DIR: 'fixture-multilingual',
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const bridge = { child: undefined as ReturnType<typeof spawn> | undefined };
try {
  const url = `http://127.0.0.1:${port}`;
  await waitReady(url, 1500);
  const key = firstKey(dataDir);
  const auth = { authorization: `Bearer ${key}` };
  const mcpHeaders = { ...auth, accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

  // The bridge: one child process, JSON-RPC lines in and out, answers matched by id.
  const child = spawn(process.execPath, [BIN, 'mcp', '--url', url], { env: { ...process.env, SERVICE_API_KEY: key }, stdio: ['pipe', 'pipe', 'ignore'] });
  bridge.child = child;
  const waiting = new Map<number, (line: string) => void>();
  let buffer = '';
  child.stdout!.on('data', (d: Buffer) => {
    buffer += d.toString();
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      const id = (JSON.parse(line) as { id?: number }).id;
      if (id !== undefined) waiting.get(id)?.(line);
    }
  });
  let nextId = 1;
  const rpc = (method: string, params: unknown) =>
    new Promise<string>((resolve) => {
      const id = nextId++;
      waiting.set(id, resolve);
      child.stdin!.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  await rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } });
  child.stdin!.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');

  const isError = (text: string) => (JSON.parse(text) as { result?: { isError?: boolean } }).result?.isError === true;
  const carriers: { name: string; call: (salt: number) => Promise<void> }[] = [
    { name: 'POST /v1/systemone', call: async (salt) => void (await post(`${url}/v1/systemone`, auth, JSON.stringify(request(salt)))) },
    {
      name: 'POST /mcp (tools/call)',
      call: async (salt) => {
        const text = await post(`${url}/mcp`, mcpHeaders, JSON.stringify({ jsonrpc: '2.0', id: salt, method: 'tools/call', params: { name: 'system_one', arguments: request(salt) } }));
        if (isError(text)) throw new Error(text);
      },
    },
    {
      name: 'structqa mcp (stdio bridge)',
      call: async (salt) => {
        const text = await rpc('tools/call', { name: 'system_one', arguments: request(salt) });
        if (isError(text)) throw new Error(text);
      },
    },
  ];
  const times = carriers.map(() => [] as number[]);
  let salt = 0;
  for (let r = 0; r < 20; r++) for (const c of carriers) await c.call(salt++); // warm: V8, arenas, the database
  const loadStart = os.loadavg()[0]!;
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < carriers.length; k++) {
      const i = (k + r) % carriers.length; // rotate which carrier goes first
      const t0 = performance.now();
      await carriers[i]!.call(salt++);
      times[i]!.push(performance.now() - t0);
    }
  }
  const loadEnd = os.loadavg()[0]!;
  console.log(`${ROUNDS} rounds of one 1-question call per carrier (${args['state-words']}-word states), checkpoint ${args.checkpoint}`);
  console.log(`load average (1 min): ${loadStart.toFixed(2)} at the start, ${loadEnd.toFixed(2)} at the end`);
  console.log('carrier                         p50 ms   p90 ms   median of (this − HTTP) per round, ms');
  carriers.forEach((c, i) => {
    const diffs = times[i]!.map((t, r) => t - times[0]![r]!);
    console.log(`${c.name.padEnd(30)} ${quantile(times[i]!, 0.5).toFixed(2).padStart(7)}  ${quantile(times[i]!, 0.9).toFixed(2).padStart(7)}   ${i === 0 ? '—' : quantile(diffs, 0.5).toFixed(2)}`);
  });
} finally {
  bridge.child?.stdin?.end();
  bridge.child?.kill();
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  fs.rmSync(dataDir, { recursive: true, force: true });
  agent.destroy();
}
