/**
 * A Hugging Face-compatible hub over HTTP: the repository listing and resumable, verified file downloads.
 *
 * A download that breaks off (a dropped connection, a short body) is resumed from the bytes already on disk
 * with an HTTP range request (`Range: bytes=N-`, as huggingface_hub resumes), and retried as long as
 * each attempt brings more bytes; a server that ignores the range (200), a file that changed (another ETag,
 * another total), or a range it cannot satisfy (416) starts the file again from zero. The whole file is
 * still checked: its size against the listing, an LFS file's sha256, a git file's blob id. The bytes live in
 * the models folder's `.partial/` (partial.ts) until the pull succeeds, so the next pull after one that was
 * stopped, killed or failed resumes them the same way (and checks a finished file again instead of fetching it).
 */
import { createHash, type Hash } from 'node:crypto';
import fs from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { CheckpointError, errorText } from './errors.js';
import type { PartialDownload, PartialIdentity } from './partial.js';
import type { ProgressTask } from './progress.js';

export interface Sibling {
  rfilename: string;
  size?: number;
  lfs?: { sha256?: string; oid?: string; size?: number };
}

export interface RepoInfo {
  sha?: string;
  lastModified?: string;
  siblings?: Sibling[];
}

export interface Hub {
  fetch: typeof fetch;
  headers: Record<string, string>;
  /** Attempts per request for transient failures (network errors, 429, 5xx, short or corrupt bodies). */
  attempts: number;
  /** Base delay between attempts, ms (doubled each time). */
  retryDelayMs: number;
}

/** One HTTP GET with redirects followed by hand (so the hub's own headers are seen). */
export async function request(hub: Hub, url: string, what: string, extra: Record<string, string> = {}): Promise<Response & { hubHeaders: Headers }> {
  let current = new URL(url);
  const origin = current.origin;
  let hubHeaders: Headers | undefined;
  for (let hop = 0; hop < 6; hop++) {
    const h = { ...hub.headers, ...extra };
    if (current.origin !== origin) delete h['authorization'];
    let res: Response;
    try {
      res = await hub.fetch(current, { headers: h, redirect: 'manual' });
    } catch (e) {
      throw new CheckpointError(`${what}: cannot reach ${current.origin} (${errorText(e)})`, { retryable: true });
    }
    hubHeaders ??= res.headers;
    if ([301, 302, 303, 307, 308].includes(res.status)) {
      const location = res.headers.get('location');
      await res.body?.cancel().catch(() => {});
      if (!location) throw new CheckpointError(`${what}: redirect without a location`, { status: res.status });
      current = new URL(location, current);
      continue;
    }
    if (res.ok || res.status === 416) return Object.assign(res, { hubHeaders });
    const code = res.headers.get('x-error-code');
    const message = res.headers.get('x-error-message');
    await res.body?.cancel().catch(() => {});
    const detail = message ? ` (${message})` : code ? ` (${code})` : '';
    if (res.status === 401 || res.status === 403) {
      throw new CheckpointError(
        `${what}: ${res.status === 401 ? 'unauthorized' : 'forbidden'}${detail}. The repository may not exist, be private or ` +
          `gated: check the name, ${hub.headers['authorization'] ? 'check that HF_TOKEN has access' : 'set HF_TOKEN to a token with access'}.`,
        { status: res.status },
      );
    }
    if (res.status === 404) {
      const kind = code === 'RevisionNotFound' ? 'revision not found' : code === 'EntryNotFound' ? 'file not found' : 'not found';
      throw new CheckpointError(`${what}: ${kind}${detail} (HTTP 404)`, { status: 404 });
    }
    const retryable = res.status === 408 || res.status === 429 || res.status >= 500;
    throw new CheckpointError(`${what}: HTTP ${res.status}${detail}`, { status: res.status, retryable });
  }
  throw new CheckpointError(`${what}: too many redirects`);
}

export async function repoInfo(hub: Hub, url: string, where: string, endpoint: string): Promise<RepoInfo> {
  return withRetries(hub, async () => {
    const res = await request(hub, url, where);
    try {
      return (await res.json()) as RepoInfo;
    } catch {
      throw new CheckpointError(`${where}: the hub's file listing is not JSON (is ${endpoint} a Hugging Face-compatible hub?)`);
    }
  });
}

/**
 * Downloads `url` to `dest` through `part` (its bytes so far, kept across pulls: partial.ts), resuming after a
 * break; returns the file's size and sha256 once the whole file matches what the hub says it is.
 */
export async function downloadFile(hub: Hub, url: string, dest: string, sibling: Sibling, what: string, task: ProgressTask, part: PartialDownload): Promise<{ size: number; sha256: string }> {
  // what the whole file must be: the listing's size and sha256, else what the hub's headers say (the first response's)
  let expected: PartialIdentity = {};
  let have = 0;
  const kept = await part.resumable();
  if (kept) {
    // an earlier pull's bytes: resumed if the hub still says the same ETag and total; a whole file is checked again
    ({ have, identity: expected } = kept);
    if (have === expected.size) {
      const sha256 = await verified(part.file, have, expected, what).catch(() => undefined);
      if (sha256) {
        task.update(have);
        await part.place(dest);
        return { size: have, sha256 };
      }
      await part.discard();
      have = 0;
    }
  }
  // keep trying while attempts bring bytes; `attempts` failures in a row without progress end it
  let fruitless = 0;
  for (let tries = 1; ; tries++) {
    const before = have;
    try {
      const got = await downloadOnce();
      await part.place(dest);
      return got;
    } catch (e) {
      const retryable = e instanceof CheckpointError ? e.retryable : true;
      have = fs.existsSync(part.file) ? fs.statSync(part.file).size : 0;
      fruitless = have > before ? 0 : fruitless + 1;
      if (!retryable || fruitless >= hub.attempts) {
        // what arrived stays in `part` for the next pull when the hub identified the file (the caller decides)
        if (e instanceof CheckpointError) {
          if (tries > 1) e.message += ` (after ${tries} attempts)`;
          throw e;
        }
        throw new CheckpointError(`${what}: ${errorText(e)}`);
      }
      await new Promise((r) => setTimeout(r, hub.retryDelayMs * 2 ** Math.max(0, fruitless - 1)));
    }
  }

  async function downloadOnce(): Promise<{ size: number; sha256: string }> {
    const resume = have > 0;
    // no If-Range: a hub's CDN has ETags of its own; the resolve hop's ETag, the total and the final hash decide
    const res = await request(hub, url, what, resume ? { range: `bytes=${have}-` } : {});
    const hubHeaders = res.hubHeaders;
    const linkedEtag = unquote(hubHeaders.get('x-linked-etag'));
    const fileEtag = linkedEtag ?? unquote(hubHeaders.get('etag'));
    const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(res.headers.get('content-range') ?? '');
    let offset = 0;
    if (res.status === 206 && range && Number(range[1]) === have && fileEtag === expected.etag && (expected.size === undefined || Number(range[3]) === expected.size)) {
      offset = have; // the rest of the same file
    } else if (res.status === 416 || res.status === 206) {
      // a range the server cannot serve, or the file changed: from zero
      await res.body?.cancel().catch(() => {});
      await part.discard();
      have = 0;
      throw new CheckpointError(`${what}: the hub could not resume the download (HTTP ${res.status}); starting it again`, { retryable: true });
    }
    if (offset === 0) {
      // the first response, or a server that ignored the range (200): the whole file, and its identity
      const contentLength = res.headers.get('content-encoding') ? undefined : intHeader(res.headers.get('content-length'));
      const total = sibling.lfs?.size ?? sibling.size ?? intHeader(hubHeaders.get('x-linked-size')) ?? contentLength;
      const sha256 = lower(sibling.lfs?.sha256) ?? (isHex(linkedEtag, 64) ? linkedEtag : undefined) ?? (isHex(fileEtag, 64) ? fileEtag : undefined);
      // A file kept in git (not LFS): the hub's ETag is its git blob id, sha1("blob <size>\0" + bytes).
      const gitSha1 = !sha256 && !linkedEtag && isHex(fileEtag, 40) && total !== undefined ? fileEtag : undefined;
      expected = { etag: fileEtag, size: total, sha256, gitSha1 };
      await part.identify(expected);
    }
    if (!res.body) throw new CheckpointError(`${what}: empty response`, { status: res.status, retryable: true });
    let size = offset;
    task.update(size);
    const tap = new Transform({
      transform(chunk: Buffer, _enc, done) {
        size += chunk.length;
        task.update(size);
        done(null, chunk);
      },
    });
    try {
      await pipeline(Readable.fromWeb(res.body as unknown as WebReadableStream<Uint8Array>), tap, fs.createWriteStream(part.file, { flags: offset > 0 ? 'a' : 'w' }));
    } catch (e) {
      throw new CheckpointError(`${what}: download interrupted after ${size} bytes (${errorText(e)})`, { retryable: true });
    }
    if (expected.size !== undefined && size !== expected.size) {
      if (size > expected.size) await part.discard();
      throw new CheckpointError(`${what}: truncated or oversized download: got ${size} bytes, expected ${expected.size}`, { retryable: true });
    }
    try {
      return { size, sha256: await verified(part.file, size, expected, what) };
    } catch (e) {
      await part.discard();
      throw e;
    }
  }
}

/** The file's sha256 once it matches the hub's sha256 or git blob id (hashed whole from disk: a resumed file too). */
async function verified(file: string, size: number, expected: PartialIdentity, what: string): Promise<string> {
  const digest = await hashOf(file, expected.gitSha1 ? size : undefined);
  if (expected.sha256 && digest.sha256 !== expected.sha256) {
    throw new CheckpointError(`${what}: sha256 mismatch: got ${digest.sha256}, expected ${expected.sha256}`, { retryable: true });
  }
  if (expected.gitSha1 && digest.gitSha1 !== expected.gitSha1) {
    throw new CheckpointError(`${what}: content does not match the hub's git blob id ${expected.gitSha1}`, { retryable: true });
  }
  return digest.sha256;
}

/** The file's sha256 (and its git blob id when `gitSize` is given), read back from disk: a resumed file is hashed whole. */
async function hashOf(file: string, gitSize?: number): Promise<{ sha256: string; gitSha1?: string }> {
  const sha256 = createHash('sha256');
  let sha1: Hash | undefined;
  if (gitSize !== undefined) {
    sha1 = createHash('sha1');
    sha1.update(`blob ${gitSize}\0`);
  }
  for await (const chunk of fs.createReadStream(file)) {
    sha256.update(chunk as Buffer);
    sha1?.update(chunk as Buffer);
  }
  return { sha256: sha256.digest('hex'), ...(sha1 ? { gitSha1: sha1.digest('hex') } : {}) };
}

export async function withRetries<T>(hub: Hub, run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (e) {
      const retryable = e instanceof CheckpointError ? e.retryable : true;
      if (!retryable || attempt >= hub.attempts) {
        if (e instanceof CheckpointError) {
          if (attempt > 1) e.message += ` (after ${attempt} attempts)`;
          throw e;
        }
        throw new CheckpointError(errorText(e));
      }
      await new Promise((r) => setTimeout(r, hub.retryDelayMs * 2 ** (attempt - 1)));
    }
  }
}

function intHeader(v: string | null): number | undefined {
  if (v === null || !/^\d+$/.test(v.trim())) return undefined;
  return Number(v.trim());
}

function unquote(v: string | null): string | undefined {
  if (!v) return undefined;
  return v.replace(/^W\//, '').replace(/^"|"$/g, '').toLowerCase();
}

function lower(v: string | undefined): string | undefined {
  return v ? v.toLowerCase() : undefined;
}

function isHex(v: string | undefined, length: number): v is string {
  return v !== undefined && v.length === length && /^[0-9a-f]+$/.test(v);
}
