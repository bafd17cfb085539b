import fs from 'node:fs';
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
