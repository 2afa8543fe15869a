import { describe, expect, it } from 'vitest';
import { loadOptions, requireApiKey } from '../../src/config/options.ts';
import { ConfigError } from '../../src/errors.ts';

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

  it('never echoes a rejected quota either', () => {
    expect(() => loadOptions({}, { UPSTREAM_RATE: 'sk-live-s3cret' })).toThrow(
      /UPSTREAM_RATE: must be requests per period/,
    );
    expect(() => loadOptions({}, { UPSTREAM_RATE: 'sk-live-s3cret' })).not.toThrow(/s3cret/);
  });

  it('requires the API key only where the upstream is called', () => {
    expect(() => requireApiKey(loadOptions({}, {}))).toThrow(/UPSTREAM_API_KEY is not set/);
    expect(requireApiKey(loadOptions({}, { UPSTREAM_API_KEY: 'k-123456' }))).toBe('k-123456');
  });
});

describe('the upstream quota: UPSTREAM_RATE, and UPSTREAM_RPS as its alias', () => {
  it('defaults to the free tier of the real service, 40 requests a minute', () => {
    const options = loadOptions({}, {});
    expect(options.UPSTREAM_RATE).toEqual({ requests: 40, periodMs: 60_000, rps: 40 / 60, label: '40/min' });
    expect(options.UPSTREAM_RPS).toBe(40 / 60);
  });

  it('reads UPSTREAM_RATE in every form and resolves UPSTREAM_RPS from it', () => {
    const cases: [string, number, string][] = [
      ['40/min', 40 / 60, '40/min'],
      ['2/s', 2, '2/s'],
      ['3600/h', 1, '3600/h'],
      ['10000/day', 10_000 / 86_400, '10000/day'],
      ['25', 25, '25/s'],
    ];
    for (const [text, rps, label] of cases) {
      const options = loadOptions({}, { UPSTREAM_RATE: text });
      expect(options.UPSTREAM_RPS, text).toBe(rps);
      expect(options.UPSTREAM_RATE.label, text).toBe(label);
    }
  });

  it('takes UPSTREAM_RPS alone as requests per second, from the environment or a flag', () => {
    expect(loadOptions({}, { UPSTREAM_RPS: '10' }).UPSTREAM_RATE).toMatchObject({ rps: 10, label: '10/s' });
    expect(loadOptions({ UPSTREAM_RPS: 50 }, { UPSTREAM_RPS: '5' }).UPSTREAM_RPS).toBe(50);
    // An empty setting counts as unset.
    expect(loadOptions({}, { UPSTREAM_RPS: '', UPSTREAM_RATE: '2/s' }).UPSTREAM_RPS).toBe(2);
  });

  it('accepts both when they agree, and refuses both when they disagree', () => {
    expect(loadOptions({}, { UPSTREAM_RATE: '120/min', UPSTREAM_RPS: '2' }).UPSTREAM_RATE.label).toBe('120/min');
    expect(() => loadOptions({}, { UPSTREAM_RATE: '40/min', UPSTREAM_RPS: '10' })).toThrow(ConfigError);
    expect(() => loadOptions({}, { UPSTREAM_RATE: '40/min', UPSTREAM_RPS: '10' })).toThrow(
      'UPSTREAM_RATE (40/min) and UPSTREAM_RPS (10/s) disagree: set only UPSTREAM_RATE',
    );
  });

  it('rejects a quota it cannot read, of zero, or past the pacing limit, naming the setting', () => {
    for (const env of [{ UPSTREAM_RATE: '40/week' }, { UPSTREAM_RATE: '0/s' }, { UPSTREAM_RATE: '200000/s' }]) {
      expect(() => loadOptions({}, env)).toThrow(/UPSTREAM_RATE: must/);
    }
    for (const env of [{ UPSTREAM_RPS: '0' }, { UPSTREAM_RPS: 'fast' }, { UPSTREAM_RPS: '100001' }]) {
      expect(() => loadOptions({}, env)).toThrow(/UPSTREAM_RPS/);
    }
  });

  it('reads a tiny UPSTREAM_RPS (String() writes it with an exponent) as a configuration, not a crash', () => {
    expect(loadOptions({}, { UPSTREAM_RPS: '0.0000001' }).UPSTREAM_RATE).toMatchObject({ rps: 1e-7 });
  });
});

describe('DATASET_PRIORITY', () => {
  it('serves current prices, then positions, then NFTs by default', () => {
    expect(loadOptions({}, {}).DATASET_PRIORITY).toEqual(['prices', 'positions', 'nfts']);
  });

  it('takes any order that names each dataset once, spaces allowed', () => {
    expect(loadOptions({}, { DATASET_PRIORITY: 'nfts, prices ,positions' }).DATASET_PRIORITY).toEqual([
      'nfts',
      'prices',
      'positions',
    ]);
  });

  it('refuses a missing, repeated, unknown or extra dataset', () => {
    for (const value of [
      'prices,positions',
      'prices,prices,nfts',
      'prices,positions,nfts,prices',
      'prices,positions,weather',
      'prices,positions,nfts,',
    ]) {
      expect(() => loadOptions({}, { DATASET_PRIORITY: value }), value).toThrow(
        'DATASET_PRIORITY: must name prices, positions, nfts once each, e.g. "prices,positions,nfts"',
      );
    }
  });
});
