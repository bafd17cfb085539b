/**
 * Compare npm language detectors on bench/data/language-sample.jsonl.
 *
 *   npx tsx bench/src/language-detect.ts [--rounds N] [--json]
 *
 * Every detector sees the same text: stateText(state) from service/src/routing/language.ts.
 * Metrics: overall accuracy (ISO 639-1 exact, 'und' must be answered by "no language"),
 * routing accuracy (English vs non-English, the decision that matters; an undetected result
 * routes to English, as the service does: only *detected* non-English goes multilingual),
 * accuracy per kind, and speed: µs per call, median over rounds, detectors interleaved per round.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { commandLine, numberOption } from '../../service/src/cli/args.js';
import { franc } from 'franc';
import { franc as francMin } from 'franc-min';
import { eld as eldExtraSmall } from 'eld/extrasmall';
import { eld as eldSmall } from 'eld/small';
import { eld as eldMedium } from 'eld/medium';
import { eld as eldLarge } from 'eld/large';
import * as tinyldLight from 'tinyld';
import * as tinyldHeavy from 'tinyld/heavy';
import lande from 'lande';
import { stateText, detectLanguage } from '../../service/src/routing/language.js';

const require = createRequire(import.meta.url);
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const LanguageDetect = require('languagedetect') as any;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const cld3 = require('cld3-asm') as any;

interface Sample {
  id: string;
  expected: string;
  kind: string;
  state: unknown;
  /** 'holdout': written after the service's rule was set, never used to tune it. */
  split?: string;
}

const here = dirname(fileURLToPath(import.meta.url));
const samples: Sample[] = readFileSync(join(here, '../data/language-sample.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as Sample);

/** ISO 639-3 (franc, lande) and legacy codes (cld3) to ISO 639-1. Unknown codes pass through. */
const ISO3: Record<string, string> = {
  eng: 'en', fra: 'fr', deu: 'de', spa: 'es', por: 'pt', ita: 'it', nld: 'nl', pol: 'pl', tur: 'tr',
  rus: 'ru', ukr: 'uk', arb: 'ar', ara: 'ar', heb: 'he', hin: 'hi', cmn: 'zh', zho: 'zh', jpn: 'ja',
  kor: 'ko', tha: 'th', vie: 'vi', ind: 'id', zlm: 'ms', msa: 'ms', swh: 'sw', swa: 'sw', ell: 'el',
  swe: 'sv', ces: 'cs', slk: 'sk', ron: 'ro', fin: 'fi', dan: 'da', nob: 'nb', nno: 'nn', cat: 'ca',
  glg: 'gl', bul: 'bg', bel: 'be', srp: 'sr', hrv: 'hr', bos: 'bs', slv: 'sl', hun: 'hu', est: 'et',
  lav: 'lv', lit: 'lt', pes: 'fa', fas: 'fa', urd: 'ur', mar: 'mr', nep: 'ne', afr: 'af', tgl: 'tl',
  fil: 'tl', yue: 'zh', ast: 'ast', sco: 'sco', und: 'und',
};
function norm(code: string | undefined | null): string {
  if (!code) return 'und';
  let c = code.toLowerCase();
  if (c.startsWith('zh')) return 'zh';
  if (c === 'iw') return 'he';
  if (c === 'in') return 'id';
  if (c === 'ji') return 'yi';
  if (c.length === 3) c = ISO3[c] ?? c;
  return c;
}

type Detect = (text: string) => string;

async function makeDetectors(): Promise<Array<[string, Detect]>> {
  const ld = new LanguageDetect();
  ld.setLanguageType('iso2');
  const cldFactory = await cld3.loadModule();
  const cldId = cldFactory.create(0, 4096);
  return [
    ['franc 6.2.0', (t) => norm(franc(t))],
    ['franc-min 6.2.0', (t) => norm(francMin(t))],
    ['eld 2.1.0 (extrasmall)', (t) => norm(eldExtraSmall.detect(t).language)],
    ['eld 2.1.0 (small)', (t) => norm(eldSmall.detect(t).language)],
    ['eld 2.1.0 (medium)', (t) => norm(eldMedium.detect(t).language)],
    ['eld 2.1.0 (large)', (t) => norm(eldLarge.detect(t).language)],
    ['tinyld 1.3.4 (light)', (t) => norm(tinyldLight.detect(t))],
    ['tinyld 1.3.4 (heavy)', (t) => norm(tinyldHeavy.detect(t))],
    ['cld3-asm 4.0.0', (t) => {
      const r = cldId.findLanguage(t);
      return r && r.language !== 'und' ? norm(r.language) : 'und';
    }],
    ['languagedetect 2.0.0', (t) => {
      const r = ld.detect(t, 1) as Array<[string, number]>;
      return norm(r[0]?.[0]);
    }],
    ['lande 1.0.10', (t) => norm(lande(t)[0]?.[0])],
    // The service's rule (script first, short-text rule, eld medium) — what actually routes.
    ['service detectLanguage', (t) => detectLanguage(t).language],
  ];
}

const routesEnglish = (lang: string): boolean => lang === 'en' || lang === 'und';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

async function main(): Promise<void> {
  const USAGE = `usage: npx tsx bench/src/language-detect.ts [--rounds 15] [--json] [--errors]

npm language detectors compared on bench/data/language-sample.jsonl: accuracy, routing accuracy
(English or not), accuracy per kind, µs per call (median over rounds).

  --rounds N   speed rounds (default 15)
  --json       the table as JSON
  --errors     every misrouted sample
  -h, --help   this text`;
  const { values } = commandLine({ rounds: { type: 'string', default: '15' }, json: { type: 'boolean' }, errors: { type: 'boolean' } }, USAGE);
  const rounds = numberOption('rounds', values.rounds, USAGE, { min: 1 });
  const asJson = values.json ?? false;

  const texts = samples.map((s) => stateText(s.state));
  const detectors = await makeDetectors();
  const kinds = [...new Set(samples.map((s) => s.kind))];

  interface Row {
    name: string;
    acc: number;
    route: number;
    routeDev: number;
    routeHold: number;
    byKind: Record<string, number>;
    us: number;
    errors: string[];
  }
  const rows: Row[] = [];
  for (const [name, detect] of detectors) {
    let ok = 0;
    let routeOk = 0;
    const split: { dev: [number, number]; hold: [number, number] } = { dev: [0, 0], hold: [0, 0] };
    const kindOk: Record<string, [number, number]> = {};
    const errors: string[] = [];
    samples.forEach((s, i) => {
      let got: string;
      try {
        got = detect(texts[i] as string);
      } catch (e) {
        got = `throw:${(e as Error).message}`;
      }
      const k = (kindOk[s.kind] ??= [0, 0]);
      k[1]++;
      if (got === s.expected) {
        ok++;
        k[0]++;
      }
      const r = routesEnglish(got) === routesEnglish(s.expected);
      const sp = s.split === 'holdout' ? split.hold : split.dev;
      sp[1]++;
      if (r) sp[0]++;
      if (r) routeOk++;
      else errors.push(`${s.id}: expected ${s.expected}, got ${got}`);
    });
    const byKind: Record<string, number> = {};
    for (const [k, [a, n]] of Object.entries(kindOk)) byKind[k] = a / n;
    rows.push({ name, acc: ok / samples.length, route: routeOk / samples.length, routeDev: (split.dev[0] ?? 0) / (split.dev[1] ?? 1), routeHold: (split.hold[0] ?? 0) / (split.hold[1] || 1), byKind, us: 0, errors });
  }

  // Speed: interleave detectors in each round so they share machine conditions.
  for (let w = 0; w < 2; w++) for (const [, d] of detectors) for (const t of texts) d(t); // warm-up
  const perRound: number[][] = detectors.map(() => []);
  for (let r = 0; r < rounds; r++) {
    detectors.forEach(([, d], j) => {
      const t0 = process.hrtime.bigint();
      for (const t of texts) d(t);
      const dt = Number(process.hrtime.bigint() - t0) / 1000;
      perRound[j]?.push(dt / texts.length);
    });
  }
  rows.forEach((row, j) => (row.us = median(perRound[j] ?? [0])));

  if (asJson) {
    console.log(JSON.stringify(rows, null, 2));
    return;
  }
  const pct = (x: number): string => (100 * x).toFixed(1).padStart(5);
  console.log(`sample: ${samples.length} states, ${new Set(samples.map((s) => s.expected)).size - 1} languages + und; kinds: ${kinds.map((k) => `${k}=${samples.filter((s) => s.kind === k).length}`).join(' ')}`);
  const nHold = samples.filter((s) => s.split === 'holdout').length;
  console.log(`split: ${samples.length - nHold} development states (the service's rule was tuned on these), ${nHold} held-out states (written afterwards)`);
  console.log(`speed: median of ${rounds} rounds over the whole sample, µs per call; node ${process.version}\n`);
  const head = ['detector'.padEnd(24), 'route%', 'r.dev%', 'r.hold%', ' acc%', ...kinds.map((k) => k.slice(0, 5).padStart(5)), 'µs/call'];
  console.log(`| ${head.join(' | ')} |`);
  console.log(`|${head.map((h, i) => (i === 0 ? '-'.repeat(h.length + 2) : '-'.repeat(h.length + 1) + ':')).join('|')}|`);
  for (const r of rows) {
    const cells = [r.name.padEnd(24), pct(r.route).padStart(6), pct(r.routeDev).padStart(6), pct(r.routeHold).padStart(7), pct(r.acc), ...kinds.map((k) => pct(r.byKind[k] ?? 0)), r.us.toFixed(1).padStart(7)];
    console.log(`| ${cells.join(' | ')} |`);
  }
  const verbose = values.errors ?? false;
  for (const r of rows) {
    if (verbose || r.name.startsWith('service') || r.name.startsWith('eld 2.1.0 (medium)')) {
      console.log(`\nrouting errors, ${r.name} (${r.errors.length}):`);
      for (const e of r.errors) console.log(`  ${e}`);
    }
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
