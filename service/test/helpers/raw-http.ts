/**
 * HTTP/1.1 over a raw TCP socket, for requests no HTTP client would send (malformed lines, bad framing,
 * bodies that end early) and for the client the lingering close is for: it writes its whole request,
 * and only then reads.
 */
import net from 'node:net';

export interface RawResponse {
  status?: number;
  headers: Record<string, string>;
  body: string;
  /** A socket error the client saw (ECONNRESET: the response was lost). */
  error?: string;
  /** Every byte received. */
  raw: string;
}

/** Parses the last final (non-1xx) response of what a connection received. */
export function parseResponse(raw: string, error?: string): RawResponse {
  let rest = raw;
  for (;;) {
    const m = /^HTTP\/1\.[01] (\d{3})[^\r\n]*\r\n((?:[^\r\n]+\r\n)*)\r\n/.exec(rest);
    if (!m) return { headers: {}, body: '', error, raw };
    const status = Number(m[1]);
    const headers: Record<string, string> = {};
    for (const line of m[2]!.split('\r\n')) {
      const at = line.indexOf(':');
      if (at > 0) headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
    }
    rest = rest.slice(m[0].length);
    if (status >= 200) {
      const length = Number(headers['content-length'] ?? NaN);
      return { status, headers, body: Number.isFinite(length) ? rest.slice(0, length) : rest, error, raw };
    }
  }
}

export interface ExchangeOptions {
  /** Pause between the chunks, ms. */
  gapMs?: number;
  /** Half-close after the last chunk (default true). */
  end?: boolean;
}

/**
 * Sends every chunk (each flushed to the kernel before the next), half-closes, and only then reads
 * what came back, until the server closes the connection. The socket reads nothing before (paused
 * from the start): what the server answered early waits in the kernel, where a reset would discard it.
 */
export async function exchange(port: number, chunks: (string | Buffer)[], opts: ExchangeOptions = {}): Promise<RawResponse> {
  const socket = net.connect(port, '127.0.0.1');
  socket.pause();
  const received: Buffer[] = [];
  let error: string | undefined;
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', (e: NodeJS.ErrnoException) => (error ??= e.code ?? e.message));
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  try {
    for (const chunk of chunks) {
      await new Promise<void>((resolve, reject) => socket.write(chunk, (e) => (e ? reject(e) : resolve())));
      if (opts.gapMs) await new Promise((r) => setTimeout(r, opts.gapMs));
    }
    if (opts.end !== false) socket.end();
  } catch {
    // the write failed (EPIPE, ECONNRESET): what the kernel still holds is the answer
  }
  socket.on('data', (d) => received.push(d));
  socket.resume();
  await closed;
  return parseResponse(Buffer.concat(received).toString('latin1'), error);
}
