/**
 * Issue 30: the official MCP conformance suite (@modelcontextprotocol/conformance, run offline from
 * node_modules) against /mcp: every server scenario of every suite. It must pass all but the
 * scenarios in conformance-baseline.yml, each of which docs/mcp.md explains; the suite itself fails a
 * listed scenario that passes. The suite has no option for a header, so it reaches /mcp through a
 * proxy that adds the key (test/helpers/key-proxy.ts).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { keyProxy, type KeyProxy } from '../helpers/key-proxy.js';
import { serve, type Served } from './helpers.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SUITE = path.join(path.dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')), 'dist/index.js');
const BASELINE = path.join(HERE, 'conformance-baseline.yml');
// The suite loads fs.globSync (Node 22) at start; on older Node a loader hook supplies it (node20/register.mjs).
const NODE_ARGS = 'globSync' in fs ? [] : ['--import', path.join(HERE, 'node20/register.mjs')];

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

let s: Served;
let proxy: KeyProxy;
let out: string;
before(async () => {
  s = await serve();
  proxy = await keyProxy(s.url, (await s.account()).key);
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'sqa-conformance-'));
});
after(async () => {
  await proxy?.close();
  await s?.close();
  fs.rmSync(out, { recursive: true, force: true });
});

test('the MCP conformance suite passes against /mcp, but for the scenarios docs/mcp.md explains', async () => {
  const child = spawn(process.execPath, [...NODE_ARGS, SUITE, 'server', '--url', `${proxy.url}/mcp`, '--suite', 'all', '--expected-failures', BASELINE, '-o', out], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(status, 0, output.slice(-4000));

  // Read the checks back: what passed and what failed, scenario by scenario.
  const expectedFailures = new Set([...fs.readFileSync(BASELINE, 'utf8').matchAll(/^\s+- ([a-z0-9-]+)\s*$/gm)].map((m) => m[1]!));
  const results = new Map<string, Check[]>();
  for (const dir of fs.readdirSync(out)) {
    const scenario = dir.replace(/^server-/, '').replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, '');
    results.set(scenario, JSON.parse(fs.readFileSync(path.join(out, dir, 'checks.json'), 'utf8')) as Check[]);
  }
  for (const scenario of expectedFailures) {
    assert.ok(results.get(scenario)?.some((c) => c.status === 'FAILURE' || c.status === 'WARNING'), `${scenario} was run and fell short as documented`);
  }
  // the two stateless-by-design ones only warn (no session id); nothing of theirs fails
  for (const name of ['server-sse-polling', 'server-sse-multiple-streams']) assert.deepEqual(results.get(name)!.filter((c) => c.status === 'FAILURE'), [], name);
  const passed = [...results].filter(([name]) => !expectedFailures.has(name));
  for (const [name, checks] of passed) assert.deepEqual(checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING'), [], name);
  // the ones that matter to a tools-only server, each with a passing check
  for (const name of ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection']) {
    assert.ok(results.get(name)?.some((c) => c.status === 'SUCCESS'), `${name}: ${JSON.stringify(results.get(name))}`);
  }
});
