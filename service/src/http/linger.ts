/**
 * Lingering close (nginx's `lingering_close`): a response sent while the client is still sending its
 * request (a 413 for a body over the limit, a 429 or 401 decided from the headers, a 431 from the
 * HTTP parser) is followed by a close. Closing a socket with unread bytes in it, or that receives more
 * after the close, makes the kernel answer with a reset — and a reset throws away the response the
 * client has not read yet, so a client that sends its whole body and then reads would see "connection
 * reset" instead of the 413. So the service sends the response and its FIN, then keeps reading and
 * discarding what the client still sends, until the client closes its side, the body ends, or a bound
 * is reached: `maxBytes` in all, `timeMs` in all, or `idleMs` without a byte (Config.linger). A slow or
 * endless sender holds the socket no longer than that.
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

export interface LingerOptions {
  /** The longest a connection lingers after its response, ms (nginx's lingering_time). */
  timeMs: number;
  /** The longest it waits for the next byte, ms (nginx's lingering_timeout). */
  idleMs: number;
  /** Bytes read and discarded at most. */
  maxBytes: number;
}

const lingering = new WeakSet<Socket>();

/** Whether this connection is closing after its last response (further requests on it are not served). */
export function isLingering(socket: Socket | null | undefined): boolean {
  return socket ? lingering.has(socket) : false;
}

/**
 * Half-close `socket` now (what was written goes out, then a FIN) and destroy it once the client has
 * closed its side, `body` (the refused request, when there is one) has ended, or a bound is reached.
 */
export function lingerClose(socket: Socket, opts: LingerOptions, body?: IncomingMessage): void {
  if (lingering.has(socket) || socket.destroyed) return;
  lingering.add(socket);
  if (body?.complete) {
    // The body ended meanwhile: nothing is left unread, close as Node would.
    socket.end(() => socket.destroy());
    return;
  }
  const startBytes = socket.bytesRead;
  let timer: NodeJS.Timeout | undefined;
  let watch: NodeJS.Timeout | undefined;
  const done = () => {
    clearTimeout(timer);
    clearInterval(watch);
    socket.setTimeout(0);
    socket.destroy();
  };
  timer = setTimeout(done, opts.timeMs);
  timer.unref();
  // Reads go straight from the socket to Node's HTTP parser (no 'data' events): count them by bytesRead.
  watch = setInterval(() => {
    if (socket.bytesRead - startBytes > opts.maxBytes) done();
  }, 50);
  watch.unref();
  socket.setTimeout(opts.idleMs, done);
  socket.once('end', done);
  socket.once('close', done);
  if (body) {
    body.once('end', done);
    body.once('error', done);
    // What the parser reads of the body is dropped as it comes (no listener keeps it).
    body.resume();
  }
  socket.end();
}

/**
 * For a response that is about to go out while its request's body is still arriving: close the
 * connection after it (`Connection: close`, set by the caller) by lingering instead of at once. Node
 * closes a `Connection: close` connection with `socket.destroySoon()` when the response has been
 * written; that one call is replaced on this socket.
 */
export function lingerAfterResponse(request: IncomingMessage, opts: LingerOptions): void {
  const socket = request.socket as Socket & { destroySoon?: () => void };
  if (!socket || socket.destroyed || lingering.has(socket)) return;
  socket.destroySoon = () => lingerClose(socket, opts, request);
  // Discard the body from now on, so the parser keeps reading while the response is written.
  request.resume();
}
