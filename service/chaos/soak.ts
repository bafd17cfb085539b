/**
 * The soak row of `npm run chaos` (opt-in: `--only soak --minutes N`): a server on the bundled
 * checkpoints under steady load for N minutes — 8 clients, one noul question a call, no
 * Idempotency-Key (as the earlier clients send) — with its memory sampled every few seconds: RSS, V8's
 * heap, memory outside the heap that V8 knows of (external: Buffers, ArrayBuffers) and the rest
 * (native: ONNX Runtime's arenas and sessions, glibc's heaps, thread stacks, code). It prints RSS over
 * time and the slope of the last half by least squares: memory that plateaus has a slope near 0.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BUNDLED_CHECKPOINTS_DIR, ENGLISH_CHECKPOINT, MULTILINGUAL_CHECKPOINT } from '../src/config.js';
import { sleep, systemOne, Tally, type ScenarioResult } from './lib.js';
import type { ChaosContext } from './scenarios.js';

export interface MemorySample {
  /** Minutes since the load began. */
  minute: number;
  rssMiB: number;
  heapUsedMiB: number;
  heapTotalMiB: number;
  externalMiB: number;
  /** RSS − V8's heap − external: everything V8 does not know of. */
  nativeMiB: number;
  /** RSS of glibc's main heap (`[heap]`), of the other anonymous mappings (thread arenas, V8's spaces, ONNX Runtime's arenas) and of mapped files. */
  mappings: { brkMiB: number; anonymousMiB: number; filesMiB: number; byFile: Record<string, number> };
  calls: number;
}

const STATES = [
  'The parcel arrived two days late and the box was crushed; I want a refund or a replacement.',
  'My invoice shows two charges for the same subscription this month. Please fix it.',
  'The app crashes whenever I open the settings page on my phone since the last update.',
  'Thanks for the quick help yesterday, everything works now and the team is happy.',
];

/** Least-squares slope of y over x (units of y per unit of x). */
export function slope(points: { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return NaN;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const sxy = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0);
  const sxx = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  return sxx === 0 ? NaN : sxy / sxx;
}

const MiB = 2 ** 20;

/** RSS by kind of mapping, from /proc/PID/smaps. */
function mappings(pid: number): MemorySample['mappings'] {
  const kb = { brk: 0, anonymous: 0, files: 0 };
  const byFile: Record<string, number> = {};
  let kind: keyof typeof kb = 'anonymous';
  let file = '';
  for (const line of fs.readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const m = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (m) {
      kind = m[1] === '[heap]' ? 'brk' : m[1]!.startsWith('/') ? 'files' : 'anonymous';
      file = kind === 'files' ? path.basename(m[1]!) : '';
    }
    const rss = /^Rss:\s+(\d+)/.exec(line);
    if (rss) {
      kb[kind] += Number(rss[1]);
      if (file) byFile[file] = (byFile[file] ?? 0) + Number(rss[1]) / 1024;
    }
  }
  return { brkMiB: kb.brk / 1024, anonymousMiB: kb.anonymous / 1024, filesMiB: kb.files / 1024, byFile };
}

async function sample(url: string, pid: number, minute: number, calls: number): Promise<MemorySample | undefined> {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const rss = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1]) * 1024;
    const metrics = await (await fetch(`${url}/metrics`)).text();
    const gauge = (name: string) => Number(new RegExp(`^structqa_${name} (\\S+)`, 'm').exec(metrics)?.[1] ?? NaN);
    const heapTotal = gauge('nodejs_heap_size_total_bytes');
    const external = gauge('nodejs_external_memory_bytes');
    return {
      minute,
      rssMiB: rss / MiB,
      heapUsedMiB: gauge('nodejs_heap_size_used_bytes') / MiB,
      heapTotalMiB: heapTotal / MiB,
      externalMiB: external / MiB,
      nativeMiB: (rss - heapTotal - external) / MiB,
      mappings: mappings(pid),
      calls,
    };
  } catch {
    return undefined;
  }
}

export async function soak(ctx: ChaosContext): Promise<ScenarioResult> {
  const started = performance.now();
  const minutes = ctx.minutes ?? 10;
  const server = await ctx.spawn({
    STRUCTQA_ENGLISH_DIR: path.join(BUNDLED_CHECKPOINTS_DIR, ENGLISH_CHECKPOINT),
    STRUCTQA_MULTILINGUAL_DIR: path.join(BUNDLED_CHECKPOINTS_DIR, MULTILINGUAL_CHECKPOINT),
    LOG_LEVEL: 'warn',
  });
  const pid = server.process.pid!;
  const { key, id } = await ctx.newAccount(
    { monthly_allowance: 1_000_000_000_000, requests_per_second: 100_000, processed_tokens_per_second: 1_000_000_000, in_flight: 64 },
    server.url,
  );
  const tally = new Tally();
  let answered = 0;
  let stopping = false;
  const clients = Array.from({ length: 8 }, async (_, c) => {
    for (let i = 0; !stopping; i++) {
      const state = `${STATES[(c + i) % STATES.length]} Ticket ${c}-${i}.`;
      const o = await systemOne(server.url, key, { state, questions: { q: { type: 'noul', instructions: 'Does the customer ask for money back?' } } });
      tally.record(o, 'soak');
      if (o.status === 200) answered++;
      else if (o.status === undefined || o.status >= 429) await sleep(100);
    }
  });
  const samples: MemorySample[] = [];
  const t0 = performance.now();
  const every = Math.min(15_000, Math.max(2000, (minutes * 60_000) / 120));
  while (performance.now() - t0 < minutes * 60_000) {
    await sleep(every);
    const s = await sample(server.url, pid, (performance.now() - t0) / 60_000, answered);
    if (s) {
      samples.push(s);
      ctx.log(
        `  soak ${s.minute.toFixed(1).padStart(5)} min: RSS ${s.rssMiB.toFixed(0)} MiB (heap ${s.heapUsedMiB.toFixed(0)}/${s.heapTotalMiB.toFixed(0)}, external ${s.externalMiB.toFixed(0)}, native ${s.nativeMiB.toFixed(0)}; brk ${s.mappings.brkMiB.toFixed(0)}, anonymous ${s.mappings.anonymousMiB.toFixed(0)}, files ${s.mappings.filesMiB.toFixed(0)}), ${s.calls} calls`,
      );
    }
  }
  stopping = true;
  await Promise.all(clients);
  const records = Number((await ctx.pg.query(`SELECT COUNT(*) AS n FROM ${ctx.schema}.usage_records WHERE account_id = $1`, [id])).rows[0].n);
  const half = samples.filter((s) => s.minute >= minutes / 2);
  const per = (f: (s: MemorySample) => number) => slope(half.map((s) => ({ x: s.minute, y: f(s) })));
  const soakStats = {
    minutes,
    callsPerSecond: answered / (minutes * 60),
    samples,
    slopeMiBPerMin: {
      rss: per((s) => s.rssMiB),
      heap: per((s) => s.heapUsedMiB),
      external: per((s) => s.externalMiB),
      native: per((s) => s.nativeMiB),
      brk: per((s) => s.mappings.brkMiB),
      anonymous: per((s) => s.mappings.anonymousMiB),
    },
  };
  await server.stop('SIGTERM');
  const first = half[0];
  const last = half.at(-1);
  // Which mapped files grew over the last half (mapped weights are paged in as new tokens' rows are read).
  const grown = Object.entries(last?.mappings.byFile ?? {})
    .map(([name, mib]) => [name, mib - (first?.mappings.byFile[name] ?? 0)] as const)
    .filter(([, d]) => Math.abs(d) >= 0.5)
    .sort((a, b) => b[1] - a[1]);
  const fmt = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(2)}`;
  return {
    name: `soak: 8 clients × 1 noul question, ${minutes} min (bundled checkpoints)`,
    tally,
    seconds: (performance.now() - started) / 1000,
    ledger: { records, answered },
    soak: soakStats,
    checks: [
      { name: 'ledger = answered calls', ok: records === answered, detail: `${records} records, ${answered} answered` },
      {
        name: 'RSS over the last half (slope by least squares)',
        ok: true,
        detail:
          `${first?.rssMiB.toFixed(0)} → ${last?.rssMiB.toFixed(0)} MiB from minute ${first?.minute.toFixed(1)} to ${last?.minute.toFixed(1)}; ` +
          `MiB/min: RSS ${fmt(soakStats.slopeMiBPerMin.rss)}, heap ${fmt(soakStats.slopeMiBPerMin.heap)}, external ${fmt(soakStats.slopeMiBPerMin.external)}, native ${fmt(soakStats.slopeMiBPerMin.native)} ` +
          `(brk ${fmt(soakStats.slopeMiBPerMin.brk)}, anonymous ${fmt(soakStats.slopeMiBPerMin.anonymous)}); ` +
          `${soakStats.callsPerSecond.toFixed(0)} calls/s; mapped files that grew: ${grown.map(([n, d]) => `${n} ${d >= 0 ? '+' : ''}${d.toFixed(1)} MiB`).join(', ') || 'none'}`,
      },
    ],
  };
}
