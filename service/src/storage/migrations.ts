/**
 * Numbered schema migrations, one list of statements per dialect. Append new migrations with the
 * next number; never edit an applied one. Times are BIGINT milliseconds since the epoch (UTC) in
 * both dialects; token counts are BIGINT (the pg driver returns them as strings: callers use Number()).
 */
export interface Migration {
  version: number;
  name: string;
  sqlite: string[];
  postgres: string[];
}

/** Statements both dialects accept as written. */
const V1_COMMON = [
  `CREATE TABLE accounts (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL UNIQUE,
     monthly_allowance BIGINT,
     requests_per_second INTEGER,
     processed_tokens_per_second BIGINT,
     in_flight INTEGER,
     created_at BIGINT NOT NULL
   )`,
  `CREATE TABLE api_keys (
     id TEXT PRIMARY KEY,
     account_id TEXT NOT NULL REFERENCES accounts(id),
     prefix TEXT NOT NULL,
     hash TEXT NOT NULL UNIQUE,
     created_at BIGINT NOT NULL,
     revoked_at BIGINT
   )`,
  `CREATE INDEX api_keys_account ON api_keys (account_id)`,
  `CREATE INDEX api_keys_prefix ON api_keys (prefix)`,
  // One counter row per account and month: used = committed tokens, reserved = admitted, not yet settled.
  `CREATE TABLE account_periods (
     account_id TEXT NOT NULL REFERENCES accounts(id),
     period TEXT NOT NULL,
     used BIGINT NOT NULL DEFAULT 0,
     reserved BIGINT NOT NULL DEFAULT 0,
     PRIMARY KEY (account_id, period)
   )`,
  `CREATE TABLE reservations (
     id TEXT PRIMARY KEY,
     account_id TEXT NOT NULL REFERENCES accounts(id),
     period TEXT NOT NULL,
     tokens BIGINT NOT NULL,
     idempotency_key TEXT,
     created_at BIGINT NOT NULL,
     expires_at BIGINT NOT NULL,
     UNIQUE (account_id, idempotency_key)
   )`,
  `CREATE INDEX reservations_expiry ON reservations (expires_at)`,
  `CREATE TABLE usage_records (
     id TEXT PRIMARY KEY,
     request_id TEXT NOT NULL,
     account_id TEXT NOT NULL REFERENCES accounts(id),
     period TEXT NOT NULL,
     day TEXT NOT NULL,
     created_at BIGINT NOT NULL,
     model TEXT NOT NULL,
     processed_tokens BIGINT NOT NULL,
     input_tokens BIGINT NOT NULL,
     output_tokens BIGINT NOT NULL,
     idempotency_key TEXT,
     response_status INTEGER,
     response_body TEXT,
     UNIQUE (account_id, idempotency_key)
   )`,
  `CREATE INDEX usage_records_period ON usage_records (account_id, period, day)`,
];

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'accounts, keys, allowance counters, reservations, usage records',
    sqlite: V1_COMMON,
    postgres: V1_COMMON,
  },
  {
    // Stripe's idempotency rule: a key is bound to the body it first came with (SHA-256 of the body).
    version: 2,
    name: 'request hash of idempotent calls',
    sqlite: [`ALTER TABLE reservations ADD COLUMN request_hash TEXT`, `ALTER TABLE usage_records ADD COLUMN request_hash TEXT`],
    postgres: [`ALTER TABLE reservations ADD COLUMN request_hash TEXT`, `ALTER TABLE usage_records ADD COLUMN request_hash TEXT`],
  },
  {
    // A call whose commit's acknowledgement was lost learns the fate of its usage record by its request
    // id (accounts/gate.ts), and writing it again can never make a second one.
    version: 3,
    name: 'one usage record per request id',
    sqlite: [`CREATE UNIQUE INDEX usage_records_request ON usage_records (request_id)`],
    postgres: [`CREATE UNIQUE INDEX usage_records_request ON usage_records (request_id)`],
  },
];
