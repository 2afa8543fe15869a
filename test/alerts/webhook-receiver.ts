import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AlertPayload } from '../../src/alerts/store.ts';

export interface ReceivedRequest {
  key: string;
  payload: AlertPayload;
  /** What the receiver answered (0: held, never answered). */
  status: number;
}

export interface HeldRequest {
  key: string;
  /** Answers 200 now (the sender may be gone by then). */
  release(): void;
}

/**
 * A webhook receiver as a careful integration would write one: it processes each event once,
 * deduplicating by the Idempotency-Key header (a repeated key is acknowledged without processing),
 * and only answers after processing. Knobs make it refuse attempts and hold an answer.
 */
export interface WebhookReceiver {
  url: string;
  /** Every request, in arrival order. */
  requests: ReceivedRequest[];
  /** Events processed, by key, in the order processed: each key at most once. */
  processed: Map<string, AlertPayload>;
  /** Answers 503 to the first `count` requests of each key (0: none). */
  refuseFirst(count: number): void;
  /** The next request that would be processed: processes it, then holds the answer. */
  holdNext(): Promise<HeldRequest>;
  /** Times each key was received. */
  receivedCount(key: string): number;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const requests: ReceivedRequest[] = [];
  const processed = new Map<string, AlertPayload>();
  const seen = new Map<string, number>();
  let refuse = 0;
  let holder: ((held: HeldRequest) => void) | undefined;
  const open = new Set<ServerResponse>();

  const answer = (res: ServerResponse, status: number, body: object) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
    open.delete(res);
  };

  const handle = (req: IncomingMessage, res: ServerResponse, text: string) => {
    open.add(res);
    const key = String(req.headers['idempotency-key'] ?? '');
    const payload = JSON.parse(text) as AlertPayload;
    const count = (seen.get(key) ?? 0) + 1;
    seen.set(key, count);
    const request: ReceivedRequest = { key, payload, status: 0 };
    requests.push(request);
    if (count <= refuse) {
      request.status = 503;
      return answer(res, 503, { error: 'refused by the test' });
    }
    if (processed.has(key)) {
      request.status = 200;
      return answer(res, 200, { duplicate: true });
    }
    processed.set(key, payload);
    if (holder) {
      const resolve = holder;
      holder = undefined;
      return resolve({
        key,
        release: () => {
          request.status = 200;
          if (!res.destroyed) answer(res, 200, { ok: true });
        },
      });
    }
    request.status = 200;
    answer(res, 200, { ok: true });
  };

  const server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => handle(req, res, text));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/T000/B000/secret-path`,
    requests,
    processed,
    refuseFirst: (count) => (refuse = count),
    holdNext: () => new Promise((resolve) => (holder = resolve)),
    receivedCount: (key) => seen.get(key) ?? 0,
    async close() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
