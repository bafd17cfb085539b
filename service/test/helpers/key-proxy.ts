/**
 * TEST FIXTURE: a reverse proxy that adds `Authorization: Bearer <key>` to every request and passes
 * everything else through as it is (method, path, Host, Origin, body; the response streamed back), as
 * an agent gateway would. The MCP conformance suite has no option for a header, so this is how it
 * reaches /mcp, which wants a key like every route.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface KeyProxy {
  url: string;
  close(): Promise<void>;
}

export async function keyProxy(target: string, key: string): Promise<KeyProxy> {
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    const forward = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, authorization: `Bearer ${key}` } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    res.on('close', () => forward.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
