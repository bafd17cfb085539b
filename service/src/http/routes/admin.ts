/**
 * Admin routes: accounts and keys, guarded by STRUCTQA_ADMIN_TOKEN (`Authorization: Bearer <token>`).
 *
 * - Token not configured: every /admin route answers 404 (the admin surface does not exist).
 * - Token configured, header missing or wrong: 403 forbidden. The token is compared in constant time.
 *
 *   GET    /admin/accounts                     list accounts with their effective limits
 *   POST   /admin/accounts                     {name, monthly_allowance?, requests_per_second?, processed_tokens_per_second?, in_flight?}
 *   PATCH  /admin/accounts/:account            same limit fields (null = back to the configured default)
 *   GET    /admin/accounts/:account/usage      usage report (?month=YYYY-MM)
 *   GET    /admin/keys                         list keys (?account=NAME_OR_ID); never the keys themselves
 *   POST   /admin/keys                         {account, monthly_allowance?, create_account? = true} → 201 {key, …} (shown once)
 *   DELETE /admin/keys/:ref                    revoke by key id or visible prefix (never the whole key: 422)
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AccountError, type AccountsGate } from '../../accounts/gate.js';
import { classifyKey, constantTimeEqualSecret } from '../../accounts/keys.js';
import type { AccountRecord, KeyRecord, LimitOverrides } from '../../accounts/store.js';
import { Forbidden, InvalidRequest, NotFound } from '../../errors.js';
import { parseMonth } from './usage.js';

export interface AdminRouteOptions {
  gate: AccountsGate;
  /** config.accounts.adminToken */
  adminToken?: string;
}

const LIMIT_FIELDS: [string, keyof LimitOverrides][] = [
  ['monthly_allowance', 'monthlyAllowance'],
  ['requests_per_second', 'requestsPerSecond'],
  ['processed_tokens_per_second', 'processedTokensPerSecond'],
  ['in_flight', 'inFlight'],
];

function bodyObject(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null || body === '') return {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new InvalidRequest([{ loc: ['body'], msg: 'Input should be a JSON object', type: 'dict_type' }]);
  }
  return body as Record<string, unknown>;
}

function limitsFrom(body: Record<string, unknown>): LimitOverrides {
  const out: LimitOverrides = {};
  for (const [field, key] of LIMIT_FIELDS) {
    const v = body[field];
    if (v === undefined) continue;
    if (v !== null && (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)) {
      throw new InvalidRequest([{ loc: ['body', field], msg: 'Input should be a non-negative integer or null', type: 'int_type' }]);
    }
    out[key] = v as number | null;
  }
  return out;
}

function accountJson(a: AccountRecord) {
  return {
    id: a.id,
    name: a.name,
    created_at: a.createdAt,
    limits: {
      monthly_allowance: a.limits.monthlyAllowance,
      requests_per_second: a.limits.requestsPerSecond,
      processed_tokens_per_second: a.limits.processedTokensPerSecond,
      in_flight: a.limits.inFlight,
    },
    overrides: {
      monthly_allowance: a.overrides.monthlyAllowance,
      requests_per_second: a.overrides.requestsPerSecond,
      processed_tokens_per_second: a.overrides.processedTokensPerSecond,
      in_flight: a.overrides.inFlight,
    },
  };
}

function keyJson(k: KeyRecord) {
  return { id: k.id, prefix: k.prefix, account_id: k.accountId, account: k.accountName, created_at: k.createdAt, revoked_at: k.revokedAt };
}

async function accountErrors<T>(loc: (string | number)[], fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AccountError) {
      if (/^No (account|key)/.test(err.message)) throw new NotFound(err.message);
      throw new InvalidRequest([{ loc, msg: err.message, type: 'value_error' }]);
    }
    throw err;
  }
}

export async function adminRoutes(app: FastifyInstance, opts: AdminRouteOptions): Promise<void> {
  const { gate, adminToken } = opts;

  const guard = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!adminToken) return reply.callNotFound();
    const m = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    if (!m || !constantTimeEqualSecret(m[1]!, adminToken)) throw new Forbidden('A valid admin token is required (Authorization: Bearer <STRUCTQA_ADMIN_TOKEN>).');
  };
  const route = { onRequest: guard, schema: { hide: true } };

  app.get('/admin/accounts', route, async () => ({ accounts: (await gate.listAccounts()).map(accountJson) }));

  app.post('/admin/accounts', route, async (request, reply) => {
    const body = bodyObject(request.body);
    if (typeof body.name !== 'string') throw new InvalidRequest([{ loc: ['body', 'name'], msg: 'Field required', type: 'missing' }]);
    const name = body.name;
    const account = await accountErrors(['body', 'name'], () => gate.createAccount(name, limitsFrom(body)));
    reply.code(201);
    return accountJson(account);
  });

  app.patch('/admin/accounts/:account', route, async (request) => {
    const ref = (request.params as { account: string }).account;
    const body = bodyObject(request.body);
    return accountJson(await accountErrors(['path', 'account'], () => gate.updateLimits(ref, limitsFrom(body))));
  });

  app.get('/admin/accounts/:account/usage', route, async (request) => {
    const ref = (request.params as { account: string }).account;
    const account = await gate.getAccount(ref);
    if (!account) throw new NotFound(`No account named or with id ${JSON.stringify(ref)}.`);
    return gate.usage({ id: account.id, name: account.name, limits: account.limits }, parseMonth((request.query as { month?: unknown }).month));
  });

  app.get('/admin/keys', route, async (request) => {
    const ref = (request.query as { account?: string }).account;
    return { keys: (await accountErrors(['query', 'account'], () => gate.listKeys(ref || undefined))).map(keyJson) };
  });

  app.post('/admin/keys', route, async (request, reply) => {
    const body = bodyObject(request.body);
    if (typeof body.account !== 'string' || body.account === '') {
      throw new InvalidRequest([{ loc: ['body', 'account'], msg: 'Field required', type: 'missing' }]);
    }
    const ref = body.account;
    const create = body.create_account === undefined ? true : body.create_account === true;
    const out = await accountErrors(['body', 'account'], () => gate.createKey(ref, { create, limits: limitsFrom(body) }));
    reply.code(201).header('cache-control', 'no-store');
    return { key: out.key, ...keyJson(out.record), account_created: out.created, note: 'The key is shown only this once; only its hash is stored.' };
  });

  app.delete('/admin/keys/:ref', route, async (request) => {
    const ref = (request.params as { ref: string }).ref;
    // A whole key in a URL lands in proxies' logs and shell histories: only ids and prefixes here.
    if (classifyKey(ref) === 'ours') {
      throw new InvalidRequest([
        { loc: ['path', 'ref'], msg: 'Name the key by its id (key_…) or its visible prefix (sqa_live_ and 8 characters), never the whole key', type: 'value_error' },
      ]);
    }
    return keyJson(await accountErrors(['path', 'ref'], () => gate.revokeKey(ref)));
  });
}
