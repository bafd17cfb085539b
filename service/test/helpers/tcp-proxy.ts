/**
 * A TCP proxy on loopback between the service and a dependency (PostgreSQL, Redis) that a test can
 * cut and restore: cut() drops every open connection and resets new ones until restore(). Used by the
 * outage tests and the chaos suite; never listens beyond 127.0.0.1.
 */
import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** host:port, for URLs. */
  address: string;
  readonly isCut: boolean;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let cut = false;
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
    client.pipe(upstream);
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
    cut() {
      cut = true;
      for (const s of sockets) s.resetAndDestroy();
      sockets.clear();
    },
    restore() {
      cut = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        cut = true;
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
