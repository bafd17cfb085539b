import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

/** Every file under a folder, relative, with '/' separators (links followed); [] for a folder that is not there. */
export function listFiles(dir: string): string[] {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) return [];
  return fs
    .readdirSync(dir, { recursive: true })
    .map(String)
    .filter((rel) => fs.statSync(path.join(dir, rel)).isFile())
    .map((rel) => rel.split(path.sep).join('/'));
}

/**
 * What an interrupted command must undo (a temporary folder, a child process, a lock): `structqa models`
 * runs these when it is stopped (Ctrl-C, SIGTERM) before it exits, so a stopped pull or import leaves what
 * a failed one leaves. Each registration returns its own removal, for when the work ends normally.
 */
const onStop = new Set<() => void>();

export function onInterrupt(undo: () => void): () => void {
  onStop.add(undo);
  return () => void onStop.delete(undo);
}

export function runInterruptHandlers(): void {
  for (const undo of [...onStop].reverse()) {
    try {
      undo();
    } catch {
      // best effort: the process is exiting
    }
  }
  onStop.clear();
}

/** Whether a process of this id exists (one of another user's counts). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the hidden work folders a pull or an import left in the models folder when it was killed outright
 * (`.<name>.pull-<pid>-<hex>`, `.<name>.import-<pid>-<hex>`, whose process is gone): a stopped or failed one
 * removes its own.
 */
export function removeStaleWorkFolders(modelsDir: string): void {
  if (!fs.existsSync(modelsDir)) return;
  for (const entry of fs.readdirSync(modelsDir)) {
    const m = /^\..+\.(?:pull|import)-(\d+)-[0-9a-f]{8}$/.exec(entry);
    if (m && Number(m[1]) !== process.pid && !alive(Number(m[1]))) fs.rmSync(path.join(modelsDir, entry), { recursive: true, force: true });
  }
}

/**
 * A hidden work folder for the checkpoint `name` inside the models folder (the same file system as the
 * target, so the finished checkpoint moves into place by a rename): `remove()` removes it (nothing when it
 * has been moved), and so does an interrupt. Stale work folders of killed commands are removed first.
 */
export async function workFolder(modelsDir: string, name: string, kind: 'pull' | 'import'): Promise<{ dir: string; remove(): Promise<void> }> {
  await fsp.mkdir(modelsDir, { recursive: true });
  removeStaleWorkFolders(modelsDir);
  const dir = path.join(modelsDir, `.${name}.${kind}-${process.pid}-${randomBytes(4).toString('hex')}`);
  await fsp.mkdir(dir);
  const forget = onInterrupt(() => fs.rmSync(dir, { recursive: true, force: true }));
  return {
    dir,
    async remove() {
      forget();
      await fsp.rm(dir, { recursive: true, force: true });
    },
  };
}
