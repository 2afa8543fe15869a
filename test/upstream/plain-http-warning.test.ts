import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadOptions } from '../../src/config/options.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { createMetrics } from '../../src/runtime/metrics.ts';
import { createUpstreamClient } from '../../src/upstream/client.ts';
import type { UpstreamTransport } from '../../src/upstream/transport.ts';

/** Opens a client on `baseUrl` and returns the warnings logged meanwhile. */
async function warningsOpening(baseUrl: string): Promise<{ msg: string; host: string }[]> {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(String(chunk));
      callback();
    },
  });
  // Opening the client sends nothing: a transport that is never used.
  const transport: UpstreamTransport = {
    send: () => Promise.reject(new Error('not used')),
    pause: async () => new Date(),
    close: async () => {},
  };
  const client = createUpstreamClient({
    options: loadOptions({ UPSTREAM_BASE_URL: baseUrl, UPSTREAM_API_KEY: 'warn-key-1234' }, {}),
    logger: createLogger({ level: 'info', destination }),
    metrics: createMetrics({ defaultMetrics: false }),
    transport,
  });
  await client.close();
  return lines
    .map((line) => JSON.parse(line) as { level: string; msg: string; host: string })
    .filter((l) => l.level === 'warn');
}

describe('opening the upstream client', () => {
  it.each(['http://api.blockvision.example', 'http://10.0.0.7:8787', 'http://[2001:db8::1]:80', 'http://0.0.0.0:8787'])(
    'warns once when the key would travel in plain http: to %s',
    async (baseUrl) => {
      const warnings = await warningsOpening(baseUrl);
      expect(warnings).toEqual([
        expect.objectContaining({
          host: new URL(baseUrl).host,
          msg: expect.stringMatching(
            /^UPSTREAM_BASE_URL is plain http: to a host that is not this machine.*use https:/,
          ),
        }),
      ]);
    },
  );

  it.each([
    'https://api.blockvision.example',
    'http://127.0.0.1:8787',
    'http://127.8.9.10',
    'http://localhost:8787',
    'http://LOCALHOST',
    'http://sim.localhost:1',
    'http://[::1]:8787',
    'http://[::ffff:127.0.0.1]:8787',
  ])('says nothing for %s (encrypted, or this machine)', async (baseUrl) => {
    expect(await warningsOpening(baseUrl)).toEqual([]);
  });
});
