import net from 'node:net';

/**
 * A loopback TCP proxy to `target` (host:port) that can stop forwarding without closing anything:
 * a network partition as a process sees it — its connections stay open, its bytes go nowhere, no
 * error comes back — until `heal()` lets the held bytes through again.
 */
export interface TcpProxy {
  /** The proxy's port on 127.0.0.1. */
  port: number;
  /** Stops forwarding in both directions (bytes are held, not dropped). */
  cut(): void;
  /** Forwards again, the held bytes first. */
  heal(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let cut = false;
  /** Each direction of each connection: bytes from the first go to the second. */
  const pairs: [net.Socket, net.Socket][] = [];
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    pairs.push([client, upstream], [upstream, client]);
    if (!cut) {
      client.pipe(upstream);
      upstream.pipe(client);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    cut: () => {
      cut = true;
      for (const [from, to] of pairs) {
        from.unpipe(to);
        from.pause();
      }
    },
    heal: () => {
      cut = false;
      for (const [from, to] of pairs) from.pipe(to);
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
