import { readlinkSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { createRedisConnection } from '../runtime/redis-connection.ts';
import { createLocalRateLimiter, createSharedRateLimiter } from './rate-limiter.ts';
import { createHttpTransport } from './http-transport.ts';
import type { FromThread, SenderThreadData, ToThread } from './sender-thread.ts';
import { scrubber } from './transport.ts';

/**
 * The sender thread (sender-thread.ts): the rate limiter and the keep-alive connections, serving
 * the requests the main thread posts. Nothing else runs here, so a start is kept to the millisecond.
 */
const data = workerData as SenderThreadData;
const port = parentPort!;
const post = (message: FromThread) => port.postMessage(message);
const scrub = scrubber(data.apiKey);
const { limiter: budget } = data;

const redis =
  budget.kind === 'shared'
    ? createRedisConnection(budget.redis, 'worker', { connectionName: 'chaintap-upstream-pace' })
    : undefined;
// ioredis reconnects by itself; without a listener each failed attempt would end the thread.
redis?.on('error', (error: Error) =>
  post({
    type: 'warn',
    message: 'Redis connection of the upstream rate limit lost; reconnecting',
    error: error.message,
  }),
);
const rateLimiter =
  budget.kind === 'shared'
    ? createSharedRateLimiter({
        redis: redis!,
        key: budget.key,
        rps: budget.rps,
        jitterAllowanceMs: budget.jitterAllowanceMs,
      })
    : createLocalRateLimiter(budget.rps, { jitterAllowanceMs: budget.jitterAllowanceMs });
const transport = createHttpTransport(data, rateLimiter);
const inFlight = new Map<number, AbortController>();

/**
 * This thread's id in the kernel (Linux: the last part of /proc/thread-self), which the main thread
 * needs to tell this thread apart from the process's others, e.g. to give it a CPU first.
 */
function kernelThreadId(): number | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    return Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return undefined;
  }
}
const threadId = kernelThreadId();
if (threadId !== undefined) post({ type: 'started', threadId });

const failed = (id: number, error: unknown) =>
  post({ type: 'failed', id, message: scrub(error instanceof Error ? error.message : String(error)) });

async function send(message: Extract<ToThread, { type: 'send' }>): Promise<void> {
  const controller = new AbortController();
  inFlight.set(message.id, controller);
  try {
    const outcome = await transport.sendForBytes(
      { method: message.method, path: message.path, json: message.json, priority: message.priority },
      controller.signal,
    );
    // The body's buffer moves to the main thread (no copy, no string in this thread's heap), when
    // the body is all of it (it is, as the HTTP transport and TextEncoder allocate it).
    const body = outcome.kind === 'failure' ? undefined : outcome.body;
    const movable =
      body !== undefined &&
      body.byteOffset === 0 &&
      body.byteLength === body.buffer.byteLength &&
      body.buffer instanceof ArrayBuffer;
    port.postMessage(
      { type: 'outcome', id: message.id, outcome } satisfies FromThread,
      movable ? [body.buffer as ArrayBuffer] : [],
    );
  } catch (error) {
    // Aborted: the main thread has stopped waiting for it.
    if (!controller.signal.aborted) failed(message.id, error);
  } finally {
    inFlight.delete(message.id);
  }
}

async function close(): Promise<void> {
  for (const controller of inFlight.values()) controller.abort(new Error('closing'));
  await transport.close();
  redis?.disconnect();
  // Nothing left to wait for: the thread ends.
  port.close();
}

port.on('message', (message: ToThread) => {
  switch (message.type) {
    case 'send':
      return void send(message);
    case 'abort':
      return inFlight.get(message.id)?.abort(new Error('aborted by the caller'));
    case 'pause':
      return void rateLimiter.pause(message.ms).then(
        () => post({ type: 'paused', id: message.id }),
        (error: unknown) => failed(message.id, error),
      );
    case 'close':
      return void close();
  }
});
