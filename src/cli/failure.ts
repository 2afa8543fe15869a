import { loadOptions, type Options } from '../config/options.ts';
import { ChaintapError, describe } from '../errors.ts';

/** Socket errors that mean a server cannot be reached at the address a setting gives. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

/** What to do about a Postgres refusal, by SQLSTATE. */
const POSTGRES_ADVICE: Record<string, string> = {
  '3D000': '`chaintap migrate` creates it',
  '42P01': 'the database has no chaintap tables yet: run `chaintap migrate`',
  '28P01': 'check the user and password in DATABASE_URL',
  '28000': 'check the user in DATABASE_URL',
  '42501': 'the role of DATABASE_URL lacks a privilege',
  '57P03': 'PostgreSQL is starting or stopping: try again in a moment',
};

/**
 * The one line a failed command prints (no stack): its message for chaintap's own errors; for a
 * server that cannot be reached or refuses, which one and which setting names it (its host and port
 * only: a URL may carry a password); undefined for anything else (a bug: the stack helps).
 */
export function describeFailure(error: unknown, env: Record<string, string | undefined>): string | undefined {
  if (error instanceof ChaintapError) return error.message;
  const unreachable = findInCauses(error, (e) => UNREACHABLE.has(String(e.code)));
  if (unreachable) {
    const host = unreachable.address ?? unreachable.hostname ?? '?';
    const port = unreachable.port === undefined ? undefined : String(unreachable.port);
    return `cannot connect to ${serverAt(host, port, env)}: ${String(unreachable.code)}`;
  }
  // Postgres errors carry a five-character SQLSTATE and a severity.
  const postgres = findInCauses(error, (e) => typeof e.severity === 'string' && /^[0-9A-Z]{5}$/.test(String(e.code)));
  if (postgres) {
    const advice = POSTGRES_ADVICE[String(postgres.code)];
    return `PostgreSQL: ${postgres.message} (SQLSTATE ${String(postgres.code)}, DATABASE_URL)${advice ? `: ${advice}` : ''}`;
  }
  // A query the driver refused before sending it (too many parameters, …): Drizzle's error embeds
  // the whole SQL and its parameters (megabytes), so only what went wrong is said.
  const query = findInCauses(error, (e) => e.message.startsWith('Failed query'));
  if (query) return `PostgreSQL: ${describe(query).replace(/\s+/g, ' ').slice(0, 300)} (DATABASE_URL)`;
  return undefined;
}

type ErrorFields = Error & { code?: unknown; severity?: unknown; address?: string; hostname?: string; port?: unknown };

function findInCauses(error: unknown, test: (error: ErrorFields) => boolean): ErrorFields | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++) {
    if (test(e as ErrorFields)) return e as ErrorFields;
    // AggregateError (several addresses tried, or several closes failed): its first failure.
    if (e instanceof AggregateError && e.errors[0] instanceof Error) {
      const inner = findInCauses(e.errors[0], test);
      if (inner) return inner;
    }
  }
  return undefined;
}

/** "PostgreSQL at host:port (DATABASE_URL)" when a setting points there, else the address alone. */
function serverAt(host: string, port: string | undefined, env: Record<string, string | undefined>): string {
  const at = port === undefined ? host : `${host}:${port}`;
  let options: Options;
  try {
    options = loadOptions({}, env);
  } catch {
    return at;
  }
  const servers = [
    ['PostgreSQL', 'DATABASE_URL', options.DATABASE_URL, '5432'],
    ['Redis', 'REDIS_URL', options.REDIS_URL, '6379'],
    ['PostgreSQL', 'DATABASE_READ_URL', options.DATABASE_READ_URL, '5432'],
  ] as const;
  for (const [name, setting, url, defaultPort] of servers) {
    const parsed = URL.parse(url ?? '');
    if (parsed && (port === undefined || (parsed.port || defaultPort) === port) && sameHost(parsed.hostname, host))
      return `${name} at ${at} (${setting})`;
  }
  return at;
}

function sameHost(configured: string, connected: string): boolean {
  const local = (host: string) => ['localhost', '127.0.0.1', '::1', '[::1]'].includes(host);
  return configured === connected || (local(configured) && local(connected));
}
