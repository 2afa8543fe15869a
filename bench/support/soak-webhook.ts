import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The soak's alert webhook: answers 200 and counts each event's deliveries by its Idempotency-Key. */
export interface SoakWebhook {
  url: string;
  deliveries: Map<string, number>;
  close(): Promise<void>;
}

export async function startSoakWebhook(): Promise<SoakWebhook> {
  const deliveries = new Map<string, number>();
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const key = request.headers['idempotency-key'];
      if (typeof key === 'string') deliveries.set(key, (deliveries.get(key) ?? 0) + 1);
      response.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/alerts`,
    deliveries,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
