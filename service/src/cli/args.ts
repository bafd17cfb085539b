/**
 * Command lines of the scripts a newcomer runs (`npm run chaos`, `npm run bench`, the bench scripts):
 * Node's own parser (util.parseArgs) with the two rules every command here follows — `--help` / `-h`
 * prints the usage on stdout and exits 0; an unknown option, a missing value or a bad value prints one
 * line on stderr and exits 2.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

export type Options = NonNullable<ParseArgsConfig['options']>;

/** One line about what is wrong and where the usage is, exit 2 (the convention for bad command lines). */
export function usageError(message: string, usage: string): never {
  // "usage: npm run chaos -- [--fast] …" → "npm run chaos -- --help" (the words before the first option or placeholder)
  const words = usage.split('\n')[0]!.replace(/^usage:\s*/, '').split(/\s+/);
  const end = words.findIndex((w) => w.startsWith('[') || /^[A-Z][A-Z_.…]*$/.test(w));
  const command = words.slice(0, end < 0 ? words.length : end).join(' ');
  // Node's parser adds advice about positionals to its first sentence: the first sentence is enough.
  const line = message.replace(/\. To specify a positional argument.*$/, '');
  process.stderr.write(`${line} (usage: ${command ? `${command} --help` : '--help'})\n`);
  process.exit(2);
}

/**
 * Parses `argv` (default: the process's arguments) against `options`; `--help` is added. `usage`: the
 * whole help text, its first line the synopsis.
 */
export function commandLine<O extends Options>(
  options: O,
  usage: string,
  opts: { allowPositionals?: boolean; argv?: string[] } = {},
): { values: ReturnType<typeof parseArgs<{ options: O; allowPositionals: boolean }>>['values']; positionals: string[] } {
  let parsed;
  try {
    parsed = parseArgs({
      args: opts.argv ?? process.argv.slice(2),
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: opts.allowPositionals ?? false,
      strict: true,
    });
  } catch (error) {
    usageError((error as Error).message.split('\n')[0]!, usage);
  }
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(usage.endsWith('\n') ? usage : `${usage}\n`);
    process.exit(0);
  }
  return parsed as never;
}

/** A numeric option: an integer (or any finite number with `real`) within [min, max], else exit 2. */
export function numberOption(name: string, raw: string | undefined, usage: string, bounds: { min?: number; max?: number; real?: boolean } = {}): number {
  const value = Number(raw);
  const { min = -Infinity, max = Infinity, real = false } = bounds;
  if (raw === undefined || raw.trim() === '' || !Number.isFinite(value) || (!real && !Number.isInteger(value)) || value < min || value > max) {
    usageError(`--${name} must be ${real ? 'a number' : 'an integer'}${min > -Infinity ? ` ≥ ${min}` : ''}${max < Infinity ? ` ≤ ${max}` : ''}, got ${JSON.stringify(raw)}`, usage);
  }
  return value;
}
