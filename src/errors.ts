/** The base of chaintap's errors (upstream ones: src/upstream/errors.ts). */
export class ChaintapError extends Error {
  /** Whether doing the same work again may succeed: a job is retried only then (src/worker/job-outcome.ts). */
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
 * One line for logs, run records and health checks: name, code (an SQLSTATE, ECONNREFUSED) unless the
 * message has it, message, and the cause's message. Drizzle's query errors embed the whole SQL and its
 * parameters (can be MBs): their cause alone is described.
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
