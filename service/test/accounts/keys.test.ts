import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { createGate, type AccountsGate } from '../../src/accounts/gate.js';
import { classifyKey, generateKey, hashKey, KEY_PREFIX, parseBearer } from '../../src/accounts/keys.js';
import { ServiceError } from '../../src/errors.js';
import { BACKENDS, recordingLog, silentLog, testEnv, type TestEnv } from './helpers.js';

describe('key format', () => {
  it('keys are sqa_live_ + 40 base62, unique, hashed with sha256', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const k = generateKey();
      assert.match(k, /^sqa_live_[0-9A-Za-z]{40}$/);
      assert.equal(classifyKey(k), 'ours');
      seen.add(k);
    }
    assert.equal(seen.size, 200);
    assert.match(hashKey('x'), /^[0-9a-f]{64}$/);
  });
  it('classifies the earlier service keys as foreign', () => {
    for (const k of ['ts_abc123', 'tsk_live_abcdef', 'sk-abcdef0123', 'typesafe_key', 'abc']) assert.equal(classifyKey(k), 'foreign');
    assert.equal(classifyKey('sqa_live_short'), 'ours_malformed');
    assert.equal(classifyKey(KEY_PREFIX + '!'.repeat(40)), 'ours_malformed');
  });
  it('parses Authorization headers', () => {
    assert.deepEqual(parseBearer(undefined), {});
    assert.deepEqual(parseBearer('  '), {});
    assert.deepEqual(parseBearer('Bearer'), {});
    assert.deepEqual(parseBearer('Bearer abc'), { token: 'abc' });
    assert.deepEqual(parseBearer('bearer   abc  '), { token: 'abc' });
    assert.ok(parseBearer('Basic dXNlcjpwYXNz').malformed);
    assert.ok(parseBearer('Bearer a b').malformed);
    assert.ok(parseBearer('abc').malformed);
  });
});

async function rejects(p: Promise<unknown>, status: number, code: string, message?: RegExp): Promise<ServiceError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof ServiceError, `expected ServiceError, got ${e}`);
    assert.equal(e.status, status);
    assert.equal(e.code, code);
    if (message) assert.match(e.message, message);
    return e;
  }
  assert.fail(`expected ${code}`);
}

for (const backend of BACKENDS) {
  describe(`keys and accounts (${backend})`, () => {
    let env: TestEnv;
    let gate: AccountsGate;
    const log = recordingLog();
    before(async () => {
      env = await testEnv(backend);
      gate = await createGate(env.config, log);
    });
    after(async () => {
      await gate.close();
      await env.cleanup();
    });

    it('first start creates the default account, logs its key once and writes it 0600', async () => {
      const file = env.config.accounts.firstKeyFile;
      const key = fs.readFileSync(file, 'utf8').trim();
      assert.match(key, /^sqa_live_/);
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
      const msg = log.lines.find((l) => l.msg?.includes('First start'));
      // the log line names the file and the visible prefix, never the key (issue 20)
      assert.ok(msg?.msg?.includes(key.slice(0, 17)) && msg.msg.includes(file) && !msg.msg.includes(key), msg?.msg);
      const account = await gate.authenticate(`Bearer ${key}`);
      assert.equal(account.name, 'default');
      assert.equal(account.limits.monthlyAllowance, 1000);
      // A second start on the same store creates nothing.
      fs.rmSync(file);
      const again = await createGate(env.config, silentLog);
      await again.close();
      assert.equal(fs.existsSync(file), false);
      assert.equal((await gate.listAccounts()).length, 1);
    });

    it('issues, verifies, lists and revokes keys', async () => {
      const { key, record, account, created } = await gate.createKey('alice', { create: true, limits: { monthlyAllowance: 5000 } });
      assert.equal(created, true);
      assert.equal(account.limits.monthlyAllowance, 5000);
      assert.equal(record.prefix, key.slice(0, 17));
      const a = await gate.authenticate(`Bearer ${key}`);
      assert.equal(a.id, account.id);
      const second = await gate.createKey('alice');
      assert.equal(second.created, false);
      const listed = await gate.listKeys('alice');
      assert.equal(listed.length, 2);
      assert.ok(listed.every((k) => !JSON.stringify(k).includes(key)), 'listing never shows a key');
      // The database holds only the hash.
      const rows = await gate.db.query<{ hash: string; prefix: string }>('SELECT hash, prefix FROM api_keys');
      assert.ok(rows.some((r) => r.hash === hashKey(key)));
      assert.ok(!JSON.stringify(rows).includes(key));

      const revoked = await gate.revokeKey(record.prefix);
      assert.ok(revoked.revokedAt);
      await rejects(gate.authenticate(`Bearer ${key}`), 401, 'invalid_api_key', /unknown or has been revoked/);
      await gate.authenticate(`Bearer ${second.key}`);
      await gate.revokeKey(second.record.id);
      await rejects(gate.authenticate(`Bearer ${second.key}`), 401, 'invalid_api_key');
      await assert.rejects(gate.revokeKey('sqa_live_zzzzzzzz'), /No key/);
      await assert.rejects(gate.createKey('nobody'), /No account/);
    });

    it('refuses a missing key with 403, malformed, unknown and earlier-service keys with 401, all with WWW-Authenticate', async () => {
      const e1 = await rejects(gate.authenticate(undefined), 403, 'missing_api_key');
      assert.equal(e1.headers['www-authenticate'], 'Bearer');
      await rejects(gate.authenticate('Bearer '), 403, 'missing_api_key');
      const e2 = await rejects(gate.authenticate('Basic Zm9vOmJhcg=='), 401, 'invalid_api_key');
      assert.equal(e2.headers['www-authenticate'], 'Bearer');
      for (const k of ['ts_0123456789abcdef', 'tsk_live_abcdef0123456789', 'sk-0123456789abcdef']) {
        await rejects(gate.authenticate(`Bearer ${k}`), 401, 'invalid_api_key', /earlier System One service.*separate/);
      }
      await rejects(gate.authenticate('Bearer sqa_live_tooshort'), 401, 'invalid_api_key', /malformed/);
      await rejects(gate.authenticate(`Bearer ${generateKey()}`), 401, 'invalid_api_key', /unknown/);
    });

    it('accounts carry limits; unset limits follow the configuration', async () => {
      const acct = await gate.createAccount('bob', { requestsPerSecond: 3 });
      assert.equal(acct.limits.requestsPerSecond, 3);
      assert.equal(acct.limits.inFlight, 1000);
      const updated = await gate.updateLimits('bob', { requestsPerSecond: null, inFlight: 2 });
      assert.equal(updated.limits.requestsPerSecond, 1000);
      assert.equal(updated.limits.inFlight, 2);
      await assert.rejects(gate.createAccount('bob'), /already exists/);
      await assert.rejects(gate.createAccount('bad name!'), /Account names/);
    });
  });
}
