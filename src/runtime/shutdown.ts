import type { Logger } from './logger.ts';

/**
 * The closes of one command's resources: each resource adds its close when it is opened, and close()
 * runs them last-added first, so that whatever uses a connection stops before the connection goes.
 * No timeout here: a close that can hang bounds itself, as only it knows what to do when time runs
 * out (the worker pool aborts its jobs after SHUTDOWN_GRACE_MS; Postgres ends with a timeout).
 */
export type Shutdown = ReturnType<typeof createShutdown>;

export function createShutdown(logger: Logger) {
  const closes: { name: string; close: () => unknown }[] = [];
  let closing: Promise<void> | undefined;

  async function closeAll(): Promise<void> {
    const failures: { name: string; error: unknown }[] = [];
    for (const { name, close } of [...closes].reverse()) {
      try {
        await close();
      } catch (error) {
        logger.error(
          { resource: name, err: error instanceof Error ? error.message : String(error) },
          'failed to close',
        );
        failures.push({ name, error });
      }
    }
    if (failures.length > 0) {
      throw new AggregateError(
        failures.map((failure) => failure.error),
        `failed to close: ${failures.map((failure) => failure.name).join(', ')}`,
      );
    }
  }

  return {
    /** Registers a close; `name` is what a failure is logged under. */
    add(name: string, close: () => unknown): void {
      // A resource opened after the closes ran would be left open: a bug in the caller.
      if (closing) throw new Error(`cannot add "${name}": shutdown has already started`);
      closes.push({ name, close });
    },
    /**
     * Runs every close once, last added first; a failure is logged, the others still run, then it
     * rejects with an AggregateError of the failures. A second call returns the first call's promise.
     */
    close(): Promise<void> {
      closing ??= closeAll();
      return closing;
    },
  };
}

/**
 * Runs `work` with a new shutdown and closes everything it registered when the work ends, however it
 * ends. When the work failed, that failure is what the caller gets (close failures are logged).
 */
export async function withShutdown<T>(logger: Logger, work: (shutdown: Shutdown) => Promise<T>): Promise<T> {
  const shutdown = createShutdown(logger);
  const result = await work(shutdown).catch(async (error: unknown) => {
    await shutdown.close().catch(() => undefined);
    throw error;
  });
  await shutdown.close();
  return result;
}
