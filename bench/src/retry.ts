/** How the bench's clients wait before retrying a refused call: the server's own Retry-After first. */

/**
 * Milliseconds to wait before attempt `attempt + 1`: `retry-after-ms` if the server sent one, else
 * `retry-after` (seconds), else an exponential backoff from 250 ms, capped at 8 s.
 */
export function retryDelay(header: (name: string) => string | null | undefined, attempt: number): number {
  for (const [name, scale] of [['retry-after-ms', 1], ['retry-after', 1000]] as const) {
    const raw = header(name);
    const value = Number(raw);
    if (raw !== undefined && raw !== null && raw !== '' && Number.isFinite(value) && value >= 0) return value * scale;
  }
  return Math.min(8000, 250 * 2 ** attempt);
}
