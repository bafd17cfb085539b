/**
 * A TCP proxy on loopback between the service and a dependency (PostgreSQL, Redis) that a test can
 * cut and restore: cut() drops every open connection and resets new ones until restore(). Used by the
 * outage tests and the chaos suite; never listens beyond 127.0.0.1. cutAfter() cuts at a chosen point
 * of a conversation: after the bytes of a statement reached the dependency, before its answer comes
 * back (a commit whose acknowledgement is lost).
 */
import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** host:port, for URLs. */
  address: string;
  readonly isCut: boolean;
  cut(): void;
  /**
   * Arms a cut: once a connection has sent `first` and then `then` (default: `first`) towards the
   * dependency, those bytes are delivered, the dependency's answer is never relayed, and every
   * connection is cut as by cut(). Resolves when it fires; restore() disarms it.
   */
  cutAfter(first: string, then?: string): Promise<void>;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let cut = false;
  let armed: { first: string; then: string; fired: () => void } | undefined;
  const cutAll = () => {
    cut = true;
    for (const s of sockets) s.resetAndDestroy();
    sockets.clear();
  };
  const server = net.createServer((client) => {
    if (cut) {
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(targetPort, targetHost);
    sockets.add(client);
    sockets.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    let sawFirst = false;
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      if (!armed) return;
      const text = chunk.toString('latin1');
      if (!sawFirst) {
        if (!text.includes(armed.first)) return;
        sawFirst = true;
        if (armed.then !== armed.first) return;
      } else if (!text.includes(armed.then)) return;
      const { fired } = armed;
      armed = undefined;
      // the statement goes out (then the dependency sees the connection end); its answer never comes back
      upstream.unpipe(client);
      sockets.delete(upstream);
      upstream.off('close', drop).off('error', drop).on('error', () => undefined);
      upstream.end();
      cutAll();
      fired();
    });
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    address: `127.0.0.1:${port}`,
    get isCut() {
      return cut;
    },
    cut: cutAll,
    cutAfter(first, then = first) {
      return new Promise<void>((fired) => (armed = { first, then, fired }));
    },
    restore() {
      cut = false;
      armed = undefined;
    },
    close: () =>
      new Promise<void>((resolve) => {
        cut = true;
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
