import { Socket } from 'node:net';

/**
 * Counts what this process sends to Redis, at the socket: `requests` is each write to a Redis
 * connection (ioredis writes a command, or a whole pipeline or MULTI, in one), `roundTrips` the
 * requests that had to wait for an answer first (a write after a Redis answer arrived: requests sent
 * together, without awaiting one another, are one round trip). Only while counting; every Redis
 * socket of the process (the queues', the tracker's) is seen.
 */
export interface RoundTripCounter {
  start(): void;
  stop(): { requests: number; roundTrips: number; bytesSent: number };
  /** Puts Socket.prototype.write back. */
  uninstall(): void;
}

export function installRoundTripCounter(redisPort: number): RoundTripCounter {
  const original = Socket.prototype.write;
  const watched = new WeakSet<Socket>();
  let counting = false;
  let answered = true;
  let requests = 0;
  let roundTrips = 0;
  let bytesSent = 0;
  Socket.prototype.write = function (this: Socket, chunk: unknown, ...rest: unknown[]) {
    if (counting && this.remotePort === redisPort) {
      if (!watched.has(this)) {
        watched.add(this);
        this.on('data', () => (answered = true));
      }
      requests += 1;
      if (answered) roundTrips += 1;
      answered = false;
      bytesSent += typeof chunk === 'string' ? Buffer.byteLength(chunk) : ((chunk as Uint8Array).byteLength ?? 0);
    }
    return (original as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof Socket.prototype.write;
  return {
    start() {
      counting = true;
      answered = true;
      requests = 0;
      roundTrips = 0;
      bytesSent = 0;
    },
    stop() {
      counting = false;
      return { requests, roundTrips, bytesSent };
    },
    uninstall() {
      Socket.prototype.write = original;
    },
  };
}
