import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { ChaintapError } from '../errors.ts';
import type { RedisTopology } from '../config/redis-topology.ts';
import type { Logger } from '../runtime/logger.ts';
import {
  decodeOutcome,
  scrubber,
  type TransportBytesOutcome,
  type TransportOutcome,
  type TransportRequest,
  type TransportSettings,
  type UpstreamTransport,
} from './transport.ts';

/**
 * The transport the commands use: a thread of this process that owns the rate limiter (with a Redis
 * connection of its own) and the keep-alive connections, and does nothing else. For each request it
 * waits for a start (requests of a lower `priority` first), sends, reads the body and posts the
 * outcome back.
 *
 * Why a thread: a worker's event loop is busy with JSON, zod, normalizing and Postgres, so a request
 * sent from it left late, together with the ones after it, and a strict upstream counted more than
 * its limit in a trailing second (a 429 pauses every worker). The thread's loop is idle between
 * starts and has a heap of its own: the main thread's work and garbage collection no longer delay
 * sends (docs/operations.md, "Process tuning").
 *
 * The thread holds the process open only while a request is in flight; close() ends it with its
 * connections, and one that dies is replaced on the next request. The API key travels to it in
 * workerData, nowhere else.
 */
export type SenderThreadLimiter =
  /** The budget shared with every process through Redis (createSharedRateLimiter). */
  | { kind: 'shared'; redis: string | RedisTopology; key: string; rps: number; jitterAllowanceMs?: number }
  /** A budget of this process alone (createLocalRateLimiter). */
  | { kind: 'local'; rps: number; jitterAllowanceMs?: number };

/** What the thread is started with. */
export interface SenderThreadData extends TransportSettings {
  limiter: SenderThreadLimiter;
}

export interface SenderThreadSettings extends SenderThreadData {
  /** Where the thread's warnings go (its Redis connection reconnecting). */
  logger: Logger;
  /**
   * Called with the thread's id in the kernel each time a thread starts (Linux only), for the
   * program to set its threads' priorities by. The transport itself changes nothing in the process.
   */
  onStarted?: (threadId: number) => void;
}

export type ToThread =
  | ({ type: 'send'; id: number } & TransportRequest)
  | { type: 'abort'; id: number }
  | { type: 'pause'; id: number; ms: number }
  | { type: 'close' };

export type FromThread =
  | { type: 'started'; threadId: number }
  | { type: 'outcome'; id: number; outcome: TransportBytesOutcome }
  | { type: 'paused'; id: number }
  | { type: 'failed'; id: number; message: string }
  | { type: 'warn'; message: string; error: string };

/** How long close() lets the thread end its connections before it is terminated. */
const CLOSE_TIMEOUT_MS = 5_000;

interface Pending {
  resolve(outcome: TransportOutcome | undefined): void;
  reject(error: unknown): void;
}

/** Heap limits of the sender thread, in MB: far above its live set, far below V8's defaults. */
const SENDER_HEAP_LIMITS = { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 8 };

export function createSenderThread(settings: SenderThreadSettings): UpstreamTransport {
  const { logger, onStarted, ...data } = settings;
  const workerData: SenderThreadData = data;
  const scrub = scrubber(settings.apiKey);
  const pending = new Map<number, Pending>();
  let thread: Worker | undefined;
  let closing: Promise<void> | undefined;
  let lastId = 0;

  const start = (): Worker => {
    // No node flags of the process: it registers what it needs itself, and some (--input-type) would fail it.
    // Its heap holds only the requests in flight (bodies are read into buffers outside it and moved
    // to this thread): the limits keep V8 from growing it by the machine's memory, as it would by
    // default (peak RSS, docs/benchmarks.md).
    const worker = new Worker(threadEntry(), {
      workerData,
      name: 'chaintap upstream sender',
      execArgv: [],
      resourceLimits: SENDER_HEAP_LIMITS,
    });
    // Idle, it must not keep the process alive: it is ref'd only while something is pending.
    worker.unref();
    worker.on('message', (message: FromThread) => receive(message));
    worker.on('error', (error) => stopped(worker, `the upstream sender thread failed: ${scrub(error.message)}`));
    worker.on('exit', (code) => stopped(worker, `the upstream sender thread exited (code ${code})`));
    return worker;
  };

  /** The thread died: what was pending fails (the job is retried), the next request starts a new one. */
  const stopped = (worker: Worker, reason: string) => {
    if (thread !== worker) return;
    thread = undefined;
    logger.error({ component: 'upstream' }, reason);
    rejectAll(new ChaintapError(reason));
  };

  const rejectAll = (error: Error) => {
    const all = [...pending.values()];
    pending.clear();
    for (const entry of all) entry.reject(error);
  };

  const settle = (id: number): Pending | undefined => {
    const entry = pending.get(id);
    pending.delete(id);
    if (pending.size === 0) thread?.unref();
    return entry;
  };

  const receive = (message: FromThread) => {
    if (message.type === 'started') return onStarted?.(message.threadId);
    if (message.type === 'warn')
      return logger.warn({ component: 'upstream', err: scrub(message.error) }, message.message);
    // An answer to a request given up on (aborted) finds nothing here.
    const entry = settle(message.id);
    // Decoded here, not in the thread: a body as a string in the thread's heap made its garbage
    // collections long enough to hold starts back (docs/benchmarks.md).
    if (message.type === 'outcome') entry?.resolve(entry && decodeOutcome(message.outcome));
    else if (message.type === 'paused') entry?.resolve(undefined);
    else entry?.reject(new ChaintapError(scrub(message.message)));
  };

  /** Posts `message` and waits for the thread's reply to it, or the signal. */
  const ask = (message: (id: number) => ToThread, signal?: AbortSignal): Promise<TransportOutcome | undefined> => {
    if (closing) return Promise.reject(new ChaintapError('the upstream client is closed'));
    if (signal?.aborted) return Promise.reject(signal.reason);
    thread ??= start();
    const worker = thread;
    const id = ++lastId;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        settle(id);
        worker.postMessage({ type: 'abort', id } satisfies ToThread);
        reject(signal!.reason);
      };
      const done = () => signal?.removeEventListener('abort', onAbort);
      pending.set(id, {
        resolve: (value) => (done(), resolve(value)),
        reject: (error) => (done(), reject(error)),
      });
      if (pending.size === 1) worker.ref();
      signal?.addEventListener('abort', onAbort, { once: true });
      worker.postMessage(message(id));
    });
  };

  // Started now, so that it is ready (its modules loaded, Redis connected) by the first request.
  thread = start();
  return {
    send: async (request, signal) => (await ask((id) => ({ type: 'send', id, ...request }), signal))!,
    pause: async (ms) => void (await ask((id) => ({ type: 'pause', id, ms }))),
    close() {
      closing ??= (async () => {
        const worker = thread;
        thread = undefined;
        rejectAll(new ChaintapError('the upstream client is closed'));
        if (!worker) return;
        // Held open until the thread has ended its connections.
        worker.ref();
        const exited = once(worker, 'exit');
        const timer = setTimeout(() => void worker.terminate(), CLOSE_TIMEOUT_MS);
        worker.postMessage({ type: 'close' } satisfies ToThread);
        await exited;
        clearTimeout(timer);
      })();
      return closing;
    },
  };
}

/** The thread's entry module, next to this one: .ts from the sources (Node strips its types), .js compiled. */
function threadEntry(): URL {
  return new URL(
    import.meta.url.endsWith('.ts') ? './sender-thread-entry.ts' : './sender-thread-entry.js',
    import.meta.url,
  );
}
