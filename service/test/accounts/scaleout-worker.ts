/**
 * One "replica" for the scale-out test: its own Gate (own PostgreSQL pool, own Redis connection),
 * driven by the parent over IPC. Configuration comes from the environment like the service's.
 */
import { createGate } from '../../src/accounts/gate.js';
import type { Admission } from '../../src/accounts/types.js';
import { loadConfig } from '../../src/config.js';
import { ServiceError } from '../../src/errors.js';

const log = { info: () => undefined, warn: (o: object, m?: string) => console.error('warn', m, o), error: (o: object, m?: string) => console.error('error', m, o) };
const gate = await createGate(loadConfig(), log, { bootstrap: false });
const held: Admission[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Msg =
  | { op: 'burst'; seq: number; key: string; cost: number; idemKeys: (string | null)[]; holdMs: number; retries: number }
  | { op: 'hold'; seq: number; key: string; n: number }
  | { op: 'releaseHeld'; seq: number }
  | { op: 'close'; seq: number };

async function one(apiKey: string, cost: number, idem: string | null, holdMs: number, retries: number) {
  const account = await gate.authenticate(`Bearer ${apiKey}`);
  for (let attempt = 0; ; attempt++) {
    try {
      const adm = await gate.admit(account, { processedTokens: cost, idempotencyKey: idem ?? undefined });
      if (adm.replay) return { outcome: 'replay' };
      await sleep(holdMs);
      await adm.commit({ requestId: `req_${process.pid}_${Math.random()}`, model: 'core-0.3.20', processedTokens: cost, inputTokens: cost, outputTokens: 1, responseBody: `{"by":${process.pid}}` });
      return { outcome: 'committed' };
    } catch (e) {
      if (e instanceof ServiceError && e.status === 429 && attempt < retries) {
        await sleep(Number(e.headers['retry-after-ms']));
        continue;
      }
      if (e instanceof ServiceError) return { outcome: e.code };
      throw e;
    }
  }
}

process.on('message', (raw) => {
  const msg = raw as Msg;
  void (async () => {
    try {
      if (msg.op === 'burst') {
        const outs = await Promise.all(msg.idemKeys.map((k) => one(msg.key, msg.cost, k, msg.holdMs, msg.retries)));
        const counts: Record<string, number> = {};
        for (const o of outs) counts[o.outcome] = (counts[o.outcome] ?? 0) + 1;
        process.send!({ seq: msg.seq, counts });
      } else if (msg.op === 'hold') {
        const account = await gate.authenticate(`Bearer ${msg.key}`);
        const outs = await Promise.allSettled(Array.from({ length: msg.n }, () => gate.admit(account, { processedTokens: 1 })));
        const counts: Record<string, number> = {};
        for (const o of outs) {
          if (o.status === 'fulfilled') held.push(o.value);
          const k = o.status === 'fulfilled' ? 'admitted' : (o.reason as ServiceError).code;
          counts[k] = (counts[k] ?? 0) + 1;
        }
        process.send!({ seq: msg.seq, counts });
      } else if (msg.op === 'releaseHeld') {
        await Promise.all(held.splice(0).map((a) => a.release()));
        process.send!({ seq: msg.seq, counts: {} });
      } else {
        await gate.close();
        process.send!({ seq: msg.seq, counts: {} });
        process.disconnect();
      }
    } catch (e) {
      process.send!({ seq: msg.seq, error: String((e as Error).stack ?? e) });
    }
  })();
});
process.send!({ seq: 0, ready: true });
