// A loopback TCP proxy in front of a database, which a test can cut (connections refused, the open
// ones dropped) and restore on the same port: a database outage on demand.
import net from 'node:net';

export interface CuttableProxy {
  url: string;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function cuttableProxy(databaseUrl: string): Promise<CuttableProxy> {
  const target = new URL(databaseUrl);
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = 0;

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const next = net.createServer((client) => {
        const upstream = net.connect({ host: target.hostname, port: Number(target.port || 5432) });
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => {
            client.destroy();
            upstream.destroy();
          });
        }
        client.pipe(upstream).pipe(client);
      });
      next.once('error', reject);
      next.listen(port, '127.0.0.1', () => {
        port = (next.address() as net.AddressInfo).port;
        server = next;
        resolve();
      });
    });

  await listen();
  const proxied = new URL(databaseUrl);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(port);
  return {
    url: proxied.toString(),
    async cut() {
      const closing = new Promise<void>((resolve) => server?.close(() => resolve()) ?? resolve());
      for (const s of sockets) s.destroy();
      await closing;
      server = undefined;
    },
    restore: listen,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server?.close(() => resolve()) ?? resolve());
    },
  };
}
