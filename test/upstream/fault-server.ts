import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP server whose answers a test scripts one by one, to inject the faults the simulator
 * does not produce on demand (a reset connection, a 403 with a body, a body that is not JSON...).
 * Every request is recorded as it arrived.
 */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** performance.now() at arrival. */
  arrivedAt: number;
}

export type Answer = (response: ServerResponse, request: RecordedRequest) => void;

export interface FaultServer {
  url: string;
  requests: RecordedRequest[];
  /** Answers for the next requests, in order; once used up, `fallback` answers. */
  script(...answers: Answer[]): void;
  fallback(answer: Answer): void;
  close(): Promise<void>;
}

export async function startFaultServer(): Promise<FaultServer> {
  const requests: RecordedRequest[] = [];
  let queue: Answer[] = [];
  let fallback: Answer = json(200, { data: [] });
  const server = createServer((req, res) => {
    const arrivedAt = performance.now();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
        arrivedAt,
      };
      requests.push(recorded);
      (queue.shift() ?? fallback)(res, recorded);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script: (...answers) => void (queue = answers),
    fallback: (answer) => void (fallback = answer),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function text(status: number, body: string, headers: Record<string, string> = {}): Answer {
  return (res) => {
    res.writeHead(status, { 'content-type': 'text/plain', ...headers });
    res.end(body);
  };
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Answer {
  return (res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
}

/** Drops the connection without an answer (the client sees a reset / "other side closed"). */
export const reset: Answer = (res) => void res.socket?.destroy();

/** Never answers (the client times out); the connection is cleaned up when the server closes. */
export const hang: Answer = () => {};

/** Sends the headers and part of a body, then stalls (a body timeout). */
export const stallBody: Answer = (res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{"data": [');
};
