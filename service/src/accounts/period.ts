/** Monthly allowance periods: calendar months in UTC; a period resets at 00:00 UTC on the 1st. */

/** 'YYYY-MM' of the UTC month holding `ms`. */
export function periodOf(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** 'YYYY-MM-DD' (UTC) of `ms`. */
export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function periodStart(ms: number): Date {
  const d = new Date(ms);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
}

/** The instant the allowance of the month holding `ms` resets: 00:00 UTC on the next 1st. */
export function periodEnd(ms: number): Date {
  const d = new Date(ms);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
}

/** Every UTC day of the period holding `ms`, from the 1st up to and including `ms`'s day. */
export function daysSoFar(ms: number): string[] {
  const out: string[] = [];
  const start = periodStart(ms).getTime();
  const today = dayOf(ms);
  for (let t = start; ; t += 86_400_000) {
    const day = dayOf(t);
    out.push(day);
    if (day >= today) break;
  }
  return out;
}
