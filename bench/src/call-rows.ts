/** Raw batches made of the HTTP calls' own rows, in the order the bench takes them. */

/**
 * A source of `size`-row batches that walks `rows` round and round, each batch sorted by length as
 * the service's batcher sorts what it takes: raw then pads as the service pads, and runs distinct
 * rows as the service does (one row repeated runs a few per cent faster, docs/performance.md).
 */
export function rowCycle<R extends { ids: ArrayLike<number> }>(rows: readonly R[]): (size: number) => R[] {
  if (rows.length === 0) throw new Error('rowCycle needs at least one row');
  let next = 0;
  return (size) => {
    const batch = Array.from({ length: size }, () => rows[next++ % rows.length]!);
    return batch.sort((a, b) => a.ids.length - b.ids.length);
  };
}
