/**
 * Where one call's time went, phase by phase, sent back as a `Server-Timing` header (W3C Server
 * Timing) so that a client or the bench can tell the model's own time from the service's.
 */
export class CallTiming {
  private readonly phases: [string, number][] = [];
  private last: number;
  private carved = 0;

  constructor(private readonly started = performance.now()) {
    this.last = started;
  }

  /** Close the phase that ran since the previous mark (or since the start), less what was carved out of it. */
  mark(name: string, now = performance.now()): void {
    this.phases.push([name, now - this.last - this.carved]);
    this.last = now;
    this.carved = 0;
  }

  /** Name a part of the phase in progress that was measured elsewhere (e.g. the model run in its thread). */
  carve(name: string, ms: number): void {
    this.phases.push([name, ms]);
    this.carved += ms;
  }

  /** `name;dur=ms` per phase in order, then `total` since the start, in milliseconds (3 decimals). */
  header(now = performance.now()): string {
    const parts = [...this.phases, ['total', now - this.started] as [string, number]];
    return parts.map(([name, ms]) => `${name};dur=${Math.max(0, ms).toFixed(3)}`).join(', ');
  }
}

/** Parse a `Server-Timing` header into milliseconds by name (the bench's reader). */
export function parseServerTiming(header: string | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of (header ?? '').split(',')) {
    const [name, ...params] = part.trim().split(';');
    const dur = params.map((p) => /^\s*dur=([0-9.]+)\s*$/.exec(p)).find(Boolean);
    if (name && dur) out[name] = (out[name] ?? 0) + Number(dur[1]);
  }
  return out;
}
