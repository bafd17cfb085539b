/** When each raw request reached JavaScript (the HTTP server's `request` event): the start of its `receive` phase. */
export const requestArrivals = new WeakMap<object, number>();
