import { describe, expect, it } from 'vitest';
import { loadOptions, requireApiKey } from '../../src/config/options.js';
import { ConfigError } from '../../src/errors.js';

describe('loadOptions', () => {
  it('applies the documented defaults', () => {
    const options = loadOptions({}, {});
    expect(options.DATABASE_URL).toBe('postgres://postgres@127.0.0.1:5432/chaintap');
    expect(options.REDIS_URL).toBe('redis://127.0.0.1:6379');
    expect(options.QUEUE_PREFIX).toBe('chaintap');
    expect(options.PRICE_CRON).toBe('* * * * *');
    expect(options.RAW_RETENTION_DAYS).toBe(14);
  });

  it('reads the environment and lets overrides win', () => {
    const options = loadOptions(
      { UPSTREAM_RPS: '50' },
      { UPSTREAM_RPS: '5', UPSTREAM_CONCURRENCY: '4', LOG_LEVEL: 'debug' },
    );
    expect(options.UPSTREAM_RPS).toBe(50);
    expect(options.UPSTREAM_CONCURRENCY).toBe(4);
    expect(options.LOG_LEVEL).toBe('debug');
  });

  it('names every invalid setting in one clear error', () => {
    const env = { UPSTREAM_RPS: 'fast', DATABASE_URL: 'mysql://x', PRICE_CRON: 'every minute' };
    expect(() => loadOptions({}, env)).toThrow(ConfigError);
    try {
      loadOptions({}, env);
    } catch (error) {
      const message = (error as Error).message;
      expect(message).toContain('UPSTREAM_RPS');
      expect(message).toContain('DATABASE_URL');
      expect(message).toContain('PRICE_CRON');
    }
  });

  it('never echoes a rejected value, which may be a secret', () => {
    expect(() => loadOptions({}, { REDIS_URL: 'not-a-url-s3cret' })).toThrow(/REDIS_URL/);
    expect(() => loadOptions({}, { REDIS_URL: 'not-a-url-s3cret' })).not.toThrow(/s3cret/);
  });

  it('requires the API key only where the upstream is called', () => {
    expect(() => requireApiKey(loadOptions({}, {}))).toThrow(/UPSTREAM_API_KEY is not set/);
    expect(requireApiKey(loadOptions({}, { UPSTREAM_API_KEY: 'k-123456' }))).toBe('k-123456');
  });
});
