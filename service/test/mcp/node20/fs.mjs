// Node's fs, plus the globSync that Node 20 lacks: it fails loudly if anything ever calls it (only the
// suite's tier-check command does, which npm test does not run).
import fs from 'node:fs';

export * from 'node:fs';
export default fs;
export function globSync() {
  throw new Error('fs.globSync needs Node 22: run the conformance suite\'s tier-check command on Node 22 or later');
}
