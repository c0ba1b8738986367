import { type AddressInfo, connect, createServer, type Socket } from "node:net";

/**
 * A TCP proxy to the database of `databaseUrl` that passes on what the database sends `delayMs` late
 * (what a client sends goes at once), and the URL to reach the same database through it: a
 * connection through it hears notifications late, as a listener on a loaded machine may.
 */
export async function delayingProxy(
  databaseUrl: string,
  delayMs: number,
): Promise<{ url: string; close(): void }> {
  const url = new URL(databaseUrl);
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(url.port || 5432), url.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => {});
      socket.on("close", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.on("data", (chunk) => upstream.write(chunk));
    // Every chunk waits as long, so they still arrive in order.
    upstream.on("data", (chunk) => setTimeout(() => client.write(chunk), delayMs));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const proxied = new URL(databaseUrl);
  proxied.hostname = "127.0.0.1";
  proxied.port = String((server.address() as AddressInfo).port);
  return {
    url: proxied.href,
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}
