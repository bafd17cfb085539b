/**
 * Downloads that outlive one `models pull`: every file a pull downloads lives in the models folder's hidden
 * `.partial/` folder until the whole pull has succeeded, so a pull that did not finish (the connection gave
 * out, it was stopped with Ctrl-C, killed or crashed, its import failed) is resumed by the next pull of the
 * same files: an unfinished file with a range request (hub.ts), a finished one by checking it again.
 *
 *   <models>/.partial/<owner>--<name>/<key>-<file name>        the bytes so far (or the whole file)
 *   <models>/.partial/<owner>--<name>/<key>-<file name>.json   what the hub said the file is (ETag, size, sha256 or git blob id)
 *   <models>/.partial/<owner>--<name>/<key>-<file name>.lock   the pid of the pull using it
 *
 * `<key>` is the file's sha256 when the listing gives one (the same content under any revision), else a hash of
 * the commit (or the revision), the path and the size. Only a file whose content the hub identifies (an LFS
 * sha256, a git blob id) is kept, and it is checked whole before it is used. A pull that succeeds, or whose
 * repository is refused, leaves nothing here; `rm -r <models>/.partial` removes whatever is left.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { CheckpointError } from './errors.js';
import { alive, onInterrupt } from './files.js';

export const PARTIAL_DIR = '.partial';

/** What the first response said the file is: a resumed response must say the same, and the whole file match it. */
export interface PartialIdentity {
  etag?: string;
  size?: number;
  sha256?: string;
  gitSha1?: string;
}

export interface PartialDownload {
  /** Where the bytes are written. */
  file: string;
  /** The bytes an earlier pull kept and what they were said to be; undefined (and nothing on disk) when there are none. */
  resumable(): Promise<{ have: number; identity: PartialIdentity } | undefined>;
  /** Records the file's identity once the hub has said it, so a later pull can resume these bytes. */
  identify(identity: PartialIdentity): Promise<void>;
  /** The bytes are no good (another file, a failed check): removed. */
  discard(): Promise<void>;
  /** The whole, checked file, also at `dest` (a hard link; a copy where links fail); kept here until `done`. */
  place(dest: string): Promise<void>;
  /** The pull is over: `keep` leaves what a later pull can use (an identified file, whole or not), else removes it. */
  done(keep: boolean): Promise<void>;
}

/** Claims the partial download of one repository file for this pull (another live pull using it is an error). */
export async function claimPartial(
  modelsDir: string,
  repo: string,
  file: { path: string; sha256?: string; size?: number; revision: string },
): Promise<PartialDownload> {
  const dir = path.join(modelsDir, PARTIAL_DIR, repo.replace('/', '--'));
  const key = file.sha256 ?? createHash('sha256').update(`${file.revision}\0${file.path}\0${file.size ?? ''}`).digest('hex');
  const base = path.join(dir, `${key.slice(0, 16)}-${path.basename(file.path)}`);
  const meta = `${base}.json`;
  const lock = `${base}.lock`;
  await fsp.mkdir(dir, { recursive: true });
  for (;;) {
    try {
      await fsp.writeFile(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const pid = Number(await fsp.readFile(lock, 'utf8').catch(() => ''));
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
        throw new CheckpointError(`${repo}: ${file.path} is being downloaded into ${dir} by another structqa models pull (pid ${pid}); wait for it to finish, or remove ${lock} if no pull is running`);
      }
      await fsp.rm(lock, { force: true }); // left by a pull that is gone
    }
  }
  const unlock = onInterrupt(() => fs.rmSync(lock, { force: true }));
  let identified = false;

  const discard = async (): Promise<void> => {
    identified = false;
    await Promise.all([fsp.rm(base, { force: true }), fsp.rm(meta, { force: true })]);
  };

  return {
    file: base,
    async resumable() {
      const identity = await fsp.readFile(meta, 'utf8').then((t) => JSON.parse(t) as PartialIdentity, () => undefined);
      const have = fs.existsSync(base) ? fs.statSync(base).size : 0;
      if (!identity || !(identity.sha256 || identity.gitSha1) || have === 0 || (identity.size !== undefined && have > identity.size)) {
        await discard();
        return undefined;
      }
      identified = true;
      return { have, identity };
    },
    async identify(identity) {
      identified = Boolean(identity.sha256 || identity.gitSha1);
      if (identified) await fsp.writeFile(meta, JSON.stringify(identity));
      else await fsp.rm(meta, { force: true });
    },
    discard,
    async place(dest) {
      await fsp.link(base, dest).catch(() => fsp.copyFile(base, dest));
    },
    async done(keep) {
      const have = fs.existsSync(base) ? fs.statSync(base).size : 0;
      if (!keep || !identified || have === 0) await discard();
      unlock();
      await fsp.rm(lock, { force: true });
      for (const d of [dir, path.dirname(dir)]) await fsp.rmdir(d).catch(() => {}); // only when empty
    },
  };
}
