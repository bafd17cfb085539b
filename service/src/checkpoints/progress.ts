/**
 * What `models pull` and `models import` show while they work: steps as lines with the elapsed time, and
 * measured work (a file's bytes, an agreement check's rows) as a cli-progress bar on a terminal, or as a
 * plain line every few seconds otherwise (a log file, CI), each with done of total, rate and time left.
 */
import cliProgress from 'cli-progress';

export type ProgressUnit = 'bytes' | 'rows';

export interface Progress {
  /** A step starting, a warning or a result: one line. */
  line(text: string): void;
  /** A measured piece of work; `total` undefined when unknown. */
  task(label: string, total: number | undefined, unit: ProgressUnit): ProgressTask;
}

export interface ProgressTask {
  update(done: number): void;
  end(): void;
}

const NO_TASK: ProgressTask = { update: () => {}, end: () => {} };

/** Lines only, to a log function (what library callers and tests get by default). */
export function lineProgress(log: (line: string) => void = () => {}): Progress {
  return { line: log, task: () => NO_TASK };
}

/**
 * The command line's progress on a stream: `[m:ss] text` lines, and for a task a bar redrawn in place on a
 * terminal or a plain line every `everyMs` otherwise (and one when it ends).
 */
export function streamProgress(write: (text: string) => void, opts: { tty: boolean; everyMs?: number; stream?: NodeJS.WritableStream } = { tty: false }): Progress {
  const t0 = Date.now();
  const clock = (): string => duration((Date.now() - t0) / 1000);
  let active: ProgressTask | undefined;
  const stream = opts.tty && opts.stream ? opts.stream : ({ isTTY: false, columns: 200, write: (s: string) => (write(s), true) } as unknown as NodeJS.WritableStream);
  return {
    line(text) {
      active?.end();
      write(`[${clock()}] ${text}\n`);
    },
    task(label, total, unit) {
      active?.end();
      const bar = new cliProgress.SingleBar({
        stream,
        noTTYOutput: !opts.tty,
        notTTYSchedule: opts.everyMs ?? 5000,
        hideCursor: false,
        clearOnComplete: false,
        barsize: 24,
        etaBuffer: 20,
        format: (options, params) => {
          const elapsed = (Date.now() - params.startTime) / 1000;
          const rate = elapsed > 0 ? params.value / elapsed : 0;
          const known = total !== undefined && total > 0;
          const amount = unit === 'bytes' ? `${bytes(params.value)}${known ? ` of ${bytes(total)}` : ''}` : `${params.value}${known ? ` of ${total}` : ''} rows`;
          const speed = unit === 'bytes' ? `${bytes(rate)}/s` : `${rate.toFixed(rate < 10 ? 2 : 0)} rows/s`;
          const left = known && Number.isFinite(params.eta) && params.value > 0 ? `, ${duration(params.value >= total ? 0 : params.eta)} left` : '';
          const drawn = opts.tty && known ? `${cliProgress.Format.BarFormat(params.progress, options)} ` : '';
          return `[${clock()}] ${label} ${drawn}${amount}, ${speed}${left}`;
        },
      });
      bar.start(total ?? 0, 0);
      let ended = false;
      const task: ProgressTask = {
        update: (done) => bar.update(done),
        end: () => {
          if (ended) return;
          ended = true;
          bar.stop();
          if (opts.tty) write('\n');
          if (active === task) active = undefined;
        },
      };
      active = task;
      return task;
    },
  };
}

export function bytes(n: number): string {
  if (n < 1024) return `${Math.round(n)} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(2)} GB`;
}

export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  return s >= 3600 ? `${Math.floor(s / 3600)}:${String(Math.floor(s / 60) % 60).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}` : `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}
