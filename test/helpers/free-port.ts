import { createServer } from 'node:net';

/** A loopback port nobody listens on now: a receiver's public URL can name it before it starts, or a refused connection be had. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** `run`'s flags for a webhook receiver on a free loopback port, public at the same address. */
export async function webhookFlags(): Promise<string[]> {
  const port = await freePort();
  return ['--webhook-listen', `127.0.0.1:${port}`, '--webhook-public-url', `http://127.0.0.1:${port}`];
}
