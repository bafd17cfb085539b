/**
 * `npm run eval-check`: checks the hand-written evaluation set (eval/handwritten) — format, unique
 * ids, repeated states, contamination with training data (src/set-check.ts) — and prints its counts
 * per language, domain, file and type. Exit status 1 when a line is malformed or a state leaked.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HANDWRITTEN_DIR } from './eval.js';
import { checkSet, formatCounts } from './set-check.js';

export const TRAINING_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../training');

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const r = checkSet(HANDWRITTEN_DIR, TRAINING_DIR);
  process.stdout.write(`${formatCounts(r.cases)}\n`);
  if (r.warnings.length) process.stdout.write(`\n${r.warnings.length} warnings\n${r.warnings.map((w) => `  ${w}`).join('\n')}\n`);
  if (r.problems.length) process.stdout.write(`\n${r.problems.length} problems\n${r.problems.map((p) => `  ${p}`).join('\n')}\n`);
  if (r.contamination.length) {
    process.stdout.write(`\n${r.contamination.length} states found in training data\n${r.contamination.map((c) => `  ${c.id} in ${path.relative(TRAINING_DIR, c.source)}: "${c.overlap}"`).join('\n')}\n`);
  }
  process.exitCode = r.problems.length || r.contamination.length ? 1 : 0;
}
