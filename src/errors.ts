/**
 * The project's error base classes and the one way to describe an error in a line. Upstream errors
 * live in src/upstream/errors.ts; these are the ones any layer may raise for input a person gave us.
 */
export class ChaintapError extends Error {
  /**
   * Whether doing the same work again may succeed. The queue retries a job on a retryable error and
   * fails it at once otherwise (src/worker/job-outcome.ts). True unless a class knows better.
   */
  readonly retryable: boolean = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Invalid configuration: missing or malformed settings. */
export class ConfigError extends ChaintapError {
  override readonly retryable = false;
}

/** Invalid input from a person or a file (coin type, address, date, chain). Nothing is written. */
export class InvalidInputError extends ChaintapError {
  override readonly retryable = false;
}

/**
 * One line that says what went wrong, for logs, run records and health checks: the error's name,
 * its code when the message does not already carry it (an SQLSTATE, ECONNREFUSED), the message and
 * the cause's message. Drizzle's query errors embed the whole SQL and its parameters (can be MBs):
 * their cause is what went wrong, so it alone is described.
 */
export function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const { message, cause } = error;
  if (message.startsWith('Failed query') && cause instanceof Error) return describe(cause);
  const code = (error as { code?: unknown }).code;
  const codeText = typeof code === 'string' && code && !message.includes(code) ? ` ${code}` : '';
  const causeText =
    cause instanceof Error && cause.message && !message.includes(cause.message) ? ` (${cause.message})` : '';
  return `${error.name}${codeText}${message ? `: ${message}` : ''}${causeText}`;
}
