import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Command } from 'commander';
import { registerAccountCommands } from '../../src/cli/keys.js';
import { createGate } from '../../src/accounts/gate.js';
import { silentLog, testEnv, type TestEnv } from './helpers.js';

async function run(env: TestEnv, ...args: string[]): Promise<{ out: string; err: string }> {
  const program = new Command().exitOverride();
  registerAccountCommands(program, env.config);
  let out = '';
  let err = '';
  const o = process.stdout.write.bind(process.stdout);
  const e = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((s: string) => ((out += s), true)) as typeof process.stdout.write;
  process.stderr.write = ((s: string) => ((err += s), true)) as typeof process.stderr.write;
  try {
    await program.parseAsync(['node', 'structqa', ...args]);
  } finally {
    process.stdout.write = o;
    process.stderr.write = e;
  }
  return { out, err };
}

describe('structqa keys / accounts CLI', () => {
  let env: TestEnv;
  before(async () => {
    env = await testEnv('sqlite');
  });
  after(async () => {
    process.exitCode = 0;
    await env.cleanup();
  });

  it('keys create prints only the key on stdout; list, revoke, accounts list', async () => {
    const c = await run(env, 'keys', 'create', '--account', 'frank', '--allowance', '12345');
    const key = c.out.trim();
    assert.match(key, /^sqa_live_[0-9A-Za-z]{40}$/);
    assert.match(c.err, /shown only this once/);
    const l = await run(env, 'keys', 'list');
    assert.ok(l.out.includes(key.slice(0, 17)) && !l.out.includes(key));
    const a = await run(env, 'accounts', 'list', '--json');
    const accounts = JSON.parse(a.out);
    assert.equal(accounts.length, 1, 'the CLI never creates the default account');
    assert.equal(accounts[0].limits.monthlyAllowance, 12345);
    const gate = await createGate(env.config, silentLog, { bootstrap: false });
    await gate.authenticate(`Bearer ${key}`);
    const r = await run(env, 'keys', 'revoke', key.slice(0, 17));
    assert.match(r.out, /Revoked key_/);
    await assert.rejects(gate.authenticate(`Bearer ${key}`), /revoked/);
    await gate.close();
    const bad = await run(env, 'keys', 'revoke', 'sqa_live_nothing');
    assert.match(bad.err, /No key matches/);
    assert.equal(process.exitCode, 1);
    process.exitCode = 0;
  });
});
