/**
 * `npm run eval-check`: checks the hand-written evaluation set (eval/handwritten) — format, unique
 * ids, repeated states, contamination with training data (src/set-check.ts), rows that do not fit the
 * model window (src/set-fit.ts) — and prints its counts per language, domain, file and type. Exit
 * status 1 when a line is malformed, a state leaked or a case does not fit.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { HANDWRITTEN_DIR } from './eval.js';
import { checkSet, formatCounts } from './set-check.js';
import { windowOverflows } from './set-fit.js';

export const TRAINING_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../training');

const USAGE = `usage: npm run eval-check

Checks the hand-written evaluation set (eval/handwritten): format, unique ids, repeated states,
contamination with training data, cases longer than the model window; prints its counts per language,
domain, file and type. It takes no other option.

exit status: 0 clean; 1 a malformed line, a leaked state or a case that does not fit; 2 bad arguments`;

/** --help prints the usage; anything else given is one line and exit status 2. */
function readArgs(): void {
  let help = false;
  try {
    help = parseArgs({ options: { help: { type: 'boolean', short: 'h' } } }).values.help ?? false;
  } catch (e) {
    process.stderr.write(`npm run eval-check: ${(e as Error).message.split('\n')[0]} (--help for usage)\n`);
    process.exit(2);
  }
  if (help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  readArgs();
  const r = checkSet(HANDWRITTEN_DIR, TRAINING_DIR);
  process.stdout.write(`${formatCounts(r.cases)}\n`);
  if (r.warnings.length) process.stdout.write(`\n${r.warnings.length} warnings\n${r.warnings.map((w) => `  ${w}`).join('\n')}\n`);
  if (r.problems.length) process.stdout.write(`\n${r.problems.length} problems\n${r.problems.map((p) => `  ${p}`).join('\n')}\n`);
  if (r.contamination.length) {
    process.stdout.write(`\n${r.contamination.length} states found in training data\n${r.contamination.map((c) => `  ${c.id} in ${path.relative(TRAINING_DIR, c.source)}: "${c.overlap}"`).join('\n')}\n`);
  }
  const over = await windowOverflows(r.cases);
  if (over.length) {
    process.stdout.write(`\n${over.length} cases longer than the model window (the server answers 413 state_too_long)\n${over.map((o) => `  ${o.id}: ${o.tokens} tokens > ${o.window} (${o.checkpoint})`).join('\n')}\n`);
  }
  process.exitCode = r.problems.length || r.contamination.length || over.length ? 1 : 0;
}
