/**
 * The project's error base classes. Upstream errors live in src/upstream/errors.ts; these are the
 * ones any layer may raise for input a person gave us.
 */
export class ChaintapError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Invalid configuration: missing or malformed settings. */
export class ConfigError extends ChaintapError {}

/** Invalid input from a person or a file (coin type, address, date, chain). Nothing is written. */
export class InvalidInputError extends ChaintapError {}
