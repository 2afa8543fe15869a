import { describe, expect, it } from 'vitest';
import { ChaintapError, ConfigError, InvalidInputError } from '../../src/errors.ts';
import { UnreadablePayloadError } from '../../src/normalize/index.ts';
import {
  AuthError,
  InvalidPayloadError,
  OversizedPayloadError,
  PermanentError,
  RateLimitedError,
  TransientError,
} from '../../src/upstream/errors.ts';
import { jobOutcome, type JobOutcome } from '../../src/worker/job-outcome.ts';

const details = { operation: 'prices' as const, url: '/tokens/sui/price' };

describe('jobOutcome: what the queue does with each error', () => {
  const cases: [Error, JobOutcome][] = [
    [
      new TransientError('the upstream failed (HTTP 503)', { ...details, status: 503, reason: 'server_error' }),
      'retry',
    ],
    [new TransientError('no answer within 5000 ms', { ...details, reason: 'timeout' }), 'retry'],
    [new RateLimitedError({ ...details, status: 429, retryAfterMs: 1_000, resumeAt: new Date() }), 'rate_limited'],
    [new AuthError({ ...details, status: 401 }), 'stop_and_alert'],
    [new PermanentError({ ...details, status: 404 }), 'fail'],
    [new InvalidInputError('invalid address "0xnot-hex"'), 'fail'],
    [new ConfigError('UPSTREAM_API_KEY is not set'), 'fail'],
    [new InvalidPayloadError({ ...details, status: 200, body: '{}', issues: 'data: expected array' }), 'quarantine'],
    [new UnreadablePayloadError('timestamp 17 is not a Unix time'), 'quarantine'],
    [
      new OversizedPayloadError({ ...details, status: 200, body: '{"data":[', maxBytes: 1024, bytesRead: 1100 }),
      'quarantine',
    ],
    // A bug (in a normalizer or anywhere) is not a bad payload: never quarantined.
    [new TypeError("Cannot read properties of undefined (reading 'price')"), 'retry'],
    [new RangeError('Invalid time value'), 'retry'],
    // An error we know nothing more about, e.g. a lost connection to Postgres.
    [Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }), 'retry'],
    [new ChaintapError('the upstream client is closed'), 'retry'],
  ];
  it.each(cases)('%s → %s', (error, outcome) => {
    expect(jobOutcome(error)).toBe(outcome);
  });

  it('decides retry or fail by the retryable flag alone, for any class', () => {
    class Retryable extends ChaintapError {}
    class NotRetryable extends ChaintapError {
      override readonly retryable = false;
    }
    expect(jobOutcome(new Retryable('x'))).toBe('retry');
    expect(jobOutcome(new NotRetryable('x'))).toBe('fail');
  });

  it('gives every error class the retryable flag that matches its outcome', () => {
    const retryable = (error: ChaintapError) => error.retryable;
    expect(retryable(new InvalidInputError('x'))).toBe(false);
    expect(retryable(new ConfigError('x'))).toBe(false);
    expect(retryable(new UnreadablePayloadError('x'))).toBe(false);
    expect(retryable(new InvalidPayloadError({ ...details, body: '', issues: '' }))).toBe(false);
    expect(retryable(new OversizedPayloadError({ ...details, body: '', maxBytes: 1, bytesRead: 2 }))).toBe(false);
    expect(retryable(new PermanentError(details))).toBe(false);
    expect(retryable(new AuthError(details))).toBe(false);
    expect(retryable(new RateLimitedError({ ...details, retryAfterMs: 1, resumeAt: new Date() }))).toBe(true);
    expect(retryable(new TransientError('x', { ...details, reason: 'network' }))).toBe(true);
  });
});
