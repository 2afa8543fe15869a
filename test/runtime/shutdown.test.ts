import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/runtime/logger.ts';
import { createShutdown, withShutdown } from '../../src/runtime/shutdown.ts';

function capturedLogger() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(String(chunk));
      callback();
    },
  });
  return { lines, logger: createLogger({ level: 'info', destination }) };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('shutdown', () => {
  it('closes last-added first, each close finished before the next starts', async () => {
    const { logger } = capturedLogger();
    const shutdown = createShutdown(logger);
    const events: string[] = [];
    for (const name of ['postgres', 'redis', 'workers', 'scheduler']) {
      shutdown.add(name, async () => {
        events.push(`${name} start`);
        await pause(5);
        events.push(`${name} end`);
      });
    }
    await shutdown.close();
    expect(events).toEqual([
      'scheduler start',
      'scheduler end',
      'workers start',
      'workers end',
      'redis start',
      'redis end',
      'postgres start',
      'postgres end',
    ]);
  });

  it('runs each close once however often close() is called, and every caller waits for the end', async () => {
    const { logger } = capturedLogger();
    const shutdown = createShutdown(logger);
    const calls = { slow: 0, fast: 0 };
    let slowDone = false;
    shutdown.add('slow', async () => {
      calls.slow += 1;
      await pause(20);
      slowDone = true;
    });
    shutdown.add('fast', () => {
      calls.fast += 1;
    });
    const first = shutdown.close();
    const second = shutdown.close();
    await second;
    expect(slowDone).toBe(true);
    await first;
    await shutdown.close();
    expect(calls).toEqual({ slow: 1, fast: 1 });
  });

  it('runs every close when one fails, logs the failure and rejects with it at the end', async () => {
    const { logger, lines } = capturedLogger();
    const shutdown = createShutdown(logger);
    const closed: string[] = [];
    shutdown.add('postgres', () => closed.push('postgres'));
    shutdown.add('queues', async () => {
      await pause(1);
      throw new Error('connection is closed');
    });
    shutdown.add('ops server', () => {
      throw new Error('not listening');
    });
    shutdown.add('workers', () => closed.push('workers'));
    const outcome = await shutdown.close().catch((error: unknown) => error);
    expect(closed).toEqual(['workers', 'postgres']);
    expect(outcome).toBeInstanceOf(AggregateError);
    expect((outcome as AggregateError).message).toBe('failed to close: ops server, queues');
    expect((outcome as AggregateError).errors.map((error: Error) => error.message)).toEqual([
      'not listening',
      'connection is closed',
    ]);
    const logged = lines.map((line) => JSON.parse(line) as { msg: string; resource: string; err: string });
    expect(logged.map(({ msg, resource, err }) => ({ msg, resource, err }))).toEqual([
      { msg: 'failed to close', resource: 'ops server', err: 'not listening' },
      { msg: 'failed to close', resource: 'queues', err: 'connection is closed' },
    ]);
  });

  it('refuses a close added once shutdown has started, instead of leaving that resource open', async () => {
    const { logger } = capturedLogger();
    const shutdown = createShutdown(logger);
    shutdown.add('redis', () => pause(5));
    const closing = shutdown.close();
    expect(() => shutdown.add('late', () => undefined)).toThrow('cannot add "late": shutdown has already started');
    await closing;
  });
});

describe('withShutdown', () => {
  it('closes what the work registered and returns its result', async () => {
    const { logger } = capturedLogger();
    const closed: string[] = [];
    const result = await withShutdown(logger, async (shutdown) => {
      shutdown.add('postgres', () => closed.push('postgres'));
      shutdown.add('upstream client', () => closed.push('upstream client'));
      expect(closed).toEqual([]);
      return 42;
    });
    expect(result).toBe(42);
    expect(closed).toEqual(['upstream client', 'postgres']);
  });

  it("closes everything when the work fails and passes on the work's failure, not a close's", async () => {
    const { logger, lines } = capturedLogger();
    const closed: string[] = [];
    const outcome = await withShutdown(logger, async (shutdown) => {
      shutdown.add('postgres', () => closed.push('postgres'));
      shutdown.add('redis', () => {
        throw new Error('already closed');
      });
      throw new Error('cannot reach Redis');
    }).catch((error: unknown) => error);
    expect((outcome as Error).message).toBe('cannot reach Redis');
    expect(closed).toEqual(['postgres']);
    expect(lines.join('')).toContain('"resource":"redis"');
  });

  it('rejects with the close failure when the work itself succeeded', async () => {
    const { logger } = capturedLogger();
    const outcome = withShutdown(logger, async (shutdown) => {
      shutdown.add('queues', () => Promise.reject(new Error('connection is closed')));
      return 'done';
    });
    await expect(outcome).rejects.toThrow('failed to close: queues');
  });
});
