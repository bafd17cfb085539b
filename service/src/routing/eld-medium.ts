/**
 * eld's detector with its `medium` database, held compactly: the same detector and database as
 * `import { eld } from 'eld/medium'`, the same answers, about 12 MiB of RSS where that import costs
 * about 180 MiB.
 *
 * Why: eld ships its database as a 2 MB JavaScript object literal. V8 parses and compiles it, builds
 * a boilerplate and then a copy of its ~105,000 small objects, and the peak stays in the process's
 * RSS for good: it was most of what a server held before any checkpoint (issue 22,
 * docs/performance.md). Here a short-lived child process does that import once and packs the data
 * (`packDatabase`); the server reads the packed file (`unpackDatabase`) into a Map of n-grams and two
 * byte arrays, and gives eld's own detector a view of it in the shape eld reads (a Proxy that answers
 * `ngrams[key]` with the `{ language index: score }` object the literal holds).
 *
 * The packed file is cached in `service/.cache/eld/`, named by the database's content hash, so a new
 * eld version makes a new file. Where that folder cannot be written (a read-only image) the child
 * runs at each start (about 0.6 s); the container image packs it at build. If anything here fails,
 * the service falls back to `eld/medium` itself with a warning: the same answers, the old memory.
 *
 * Pack it into the cache by hand (what the image build runs):  node --import tsx service/src/routing/eld-medium.ts --cache
 *
 * eld's package exports name only its entry points, so `createEld` and the data file are reached by
 * path inside the installed package; `service/package.json` pins eld's exact version for that reason,
 * and test/routing/eld-medium.test.ts compares every answer with `eld/medium`'s.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Version of the packed layout below; part of the cache file's name. */
export const PACK_FORMAT = 1;

/** eld's data as its entry points hand it to `loadData`. */
export interface EldDatabase {
  type: string;
  languages: Record<string, string>;
  ngrams: Record<string, Record<string, number>>;
}

/** What this module uses of an eld instance (index.d.ts types the rest). */
export interface EldDetector {
  detect(text: string): { language: string; isReliable(): boolean; getScores(): Record<string, number> };
}

const HERE = fileURLToPath(import.meta.url);
const CACHE_DIR = path.resolve(path.dirname(HERE), '../../.cache/eld');
/** eld's `src` folder, found from one of its exported entry points. */
const ELD_SRC = path.dirname(path.dirname(fileURLToPath(import.meta.resolve('eld/medium'))));
const MEDIUM_FILE = path.join(ELD_SRC, 'ngrams', 'medium.js');

interface PackHeader {
  format: number;
  type: string;
  languages: Record<string, string>;
  /** Byte length of the keys section. */
  keyBytes: number;
  ngrams: number;
  pairs: number;
}

function byte(value: unknown, what: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 255) throw new Error(`eld database: ${what} ${JSON.stringify(value)} is not a byte; the packed format cannot hold it`);
  return n;
}

/**
 * The packed form: one line of JSON (PackHeader), then the n-grams in eld's order (UTF-8, joined by
 * "\n"), then one byte per n-gram (how many languages it scores), then two bytes per score (eld's
 * language index, the score). What does not fit is refused, never packed approximately.
 */
export function packDatabase(data: EldDatabase): Buffer {
  const keys = Object.keys(data.ngrams);
  const counts = new Uint8Array(keys.length);
  const pairs: number[] = [];
  keys.forEach((key, i) => {
    if (key.includes('\n')) throw new Error(`eld database: n-gram ${JSON.stringify(key)} holds a newline, the packed format's separator`);
    const scores = Object.entries(data.ngrams[key] as Record<string, number>);
    counts[i] = byte(scores.length, `the number of languages of n-gram ${JSON.stringify(key)}`);
    for (const [language, score] of scores) {
      if (!(language in data.languages)) throw new Error(`eld database: n-gram ${JSON.stringify(key)} scores unknown language ${language}`);
      pairs.push(byte(language, 'language index'), byte(score, 'score'));
    }
  });
  const keyBytes = Buffer.from(keys.join('\n'), 'utf8');
  const header: PackHeader = { format: PACK_FORMAT, type: data.type, languages: data.languages, keyBytes: keyBytes.length, ngrams: keys.length, pairs: pairs.length / 2 };
  return Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`, 'utf8'), keyBytes, counts, Uint8Array.from(pairs)]);
}

/** The packed form as eld reads a database: `ngrams[key]` is built on each lookup from the byte arrays. */
export function unpackDatabase(packed: Buffer): EldDatabase {
  const newline = packed.indexOf(0x0a);
  const header = JSON.parse(packed.toString('utf8', 0, newline)) as PackHeader;
  if (header.format !== PACK_FORMAT) throw new Error(`eld database: packed format ${header.format}, this service reads ${PACK_FORMAT}`);
  let at = newline + 1;
  const keys = packed.toString('utf8', at, (at += header.keyBytes)).split('\n');
  const counts = packed.subarray(at, (at += header.ngrams));
  const pairs = new Uint8Array(packed.subarray(at, (at += 2 * header.pairs)));
  if (keys.length !== header.ngrams || at !== packed.length) throw new Error('eld database: the packed file is truncated or malformed');
  // Each n-gram's first pair and its count in one small integer: (pair offset << 8) | count.
  const index = new Map<string, number>();
  let offset = 0;
  keys.forEach((key, i) => {
    const count = counts[i] as number;
    index.set(key, (offset << 8) | count);
    offset += count;
  });
  if (offset !== header.pairs) throw new Error('eld database: the packed counts do not add up to its scores');
  const ngrams = new Proxy({} as Record<string, Record<string, number>>, {
    get(_target, key) {
      const entry = typeof key === 'string' ? index.get(key) : undefined;
      if (entry === undefined) return undefined;
      // Integer keys: for..in visits them in ascending order, as it does the literal's objects.
      const scores: Record<number, number> = {};
      for (let p = 2 * (entry >> 8), end = p + 2 * (entry & 0xff); p < end; p += 2) scores[pairs[p] as number] = pairs[p + 1] as number;
      return scores;
    },
  });
  return { type: header.type, languages: header.languages, ngrams };
}

/** Where the packed medium database is cached: named by the installed database's content and the pack format. */
export function cacheFile(): string {
  const hash = createHash('sha256').update(fs.readFileSync(MEDIUM_FILE)).digest('hex').slice(0, 16);
  return path.join(CACHE_DIR, `medium-${hash}.v${PACK_FORMAT}.bin`);
}

/** The medium database: from the packed cache, or packed now by a child process (and cached where possible). */
function mediumDatabase(): EldDatabase {
  const cached = cacheFile();
  try {
    return unpackDatabase(fs.readFileSync(cached));
  } catch {
    /* not packed yet, or a damaged copy: pack it again */
  }
  const packed = execFileSync(process.execPath, ['--import', import.meta.resolve('tsx'), HERE], { maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'pipe'] });
  writeAtomically(cached, packed, { quiet: true });
  return unpackDatabase(packed);
}

function writeAtomically(file: string, data: Buffer, { quiet }: { quiet: boolean }): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(tmp, data);
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    if (!quiet) throw err;
  }
}

/** A new eld detector holding the medium database compactly; `eld/medium` itself if that fails. */
export async function createMediumDetector(): Promise<EldDetector> {
  try {
    const { createEld } = (await import(pathToFileURL(path.join(ELD_SRC, 'languageDetector.js')).href)) as {
      createEld: () => { instance: EldDetector; loadData: (data: EldDatabase) => string };
    };
    const { instance, loadData } = createEld();
    if (!loadData(mediumDatabase())) throw new Error('eld did not take the database');
    return instance;
  } catch (err) {
    process.emitWarning(`the compact eld database could not be loaded (${(err as Error).message}); using eld/medium, which holds about 170 MiB more`, { code: 'STRUCTQA_ELD_FALLBACK' });
    return (await import('eld/medium')).eld as EldDetector;
  }
}

// Run as a script: pack eld's medium database (the import whose memory this module keeps out of the
// server) into the cache (`--cache`) or to stdout (what mediumDatabase's child does).
if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === HERE) {
  const { ngramsData } = (await import(pathToFileURL(MEDIUM_FILE).href)) as { ngramsData: EldDatabase };
  const packed = packDatabase(ngramsData);
  if (process.argv[2] === '--cache') writeAtomically(cacheFile(), packed, { quiet: false });
  else process.stdout.write(packed);
}
