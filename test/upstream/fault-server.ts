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

/** What a streamed answer (streamBody) has sent so far. */
export interface StreamedBody {
  /** Bytes handed to the socket. */
  written: number;
  /** True once the whole body went out. */
  complete: boolean;
  /** Resolves when the answer is over: sent whole, or the client dropped the connection. */
  ended: Promise<void>;
}

/** The start of every streamed body (a positions answer), then STREAMED_BLOCK over and over. */
const STREAMED_HEAD = '{"data":[';
const STREAMED_ELEMENT =
  '{"protocol":"cetus","type":"liquidity","chain":"sui","positionId":"0x5f1e","inputValue":"1234.5678","currentValue":"1250.01"},';
/** Whole elements, about 64 KiB: what one write sends. */
const STREAMED_BLOCK = STREAMED_ELEMENT.repeat(Math.floor(65_536 / STREAMED_ELEMENT.length));

/** The first `bytes` bytes of every streamed body (ASCII: one byte per character). */
export function streamedText(bytes: number): string {
  let text = STREAMED_HEAD;
  while (text.length < bytes) text += STREAMED_BLOCK;
  return text.slice(0, bytes);
}

/**
 * An answer with a body of `totalBytes` (streamedText), written only as fast as the client reads it
 * (backpressure): a client that stops reading is sent no more than the socket buffers hold, and the
 * server never holds the body in memory. `announce`: with a content-length header (else chunked).
 */
export function streamBody(
  totalBytes: number,
  options: { status?: number; announce?: boolean } = {},
): { answer: Answer; sent: StreamedBody } {
  let ended!: () => void;
  const sent: StreamedBody = { written: 0, complete: false, ended: new Promise((resolve) => (ended = resolve)) };
  const answer: Answer = (res) => {
    res.writeHead(options.status ?? 200, {
      'content-type': 'application/json',
      ...(options.announce ? { 'content-length': String(totalBytes) } : {}),
    });
    let closed = false;
    res.on('close', () => {
      closed = true;
      ended();
    });
    const pump = () => {
      while (!closed && sent.written < totalBytes) {
        const block = sent.written === 0 ? STREAMED_HEAD : STREAMED_BLOCK;
        const chunk = block.slice(0, totalBytes - sent.written);
        sent.written += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      if (!closed) {
        sent.complete = true;
        res.end();
      }
    };
    pump();
  };
  return { answer, sent };
}
