import { spawnSync } from 'node:child_process';
import { Writable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/runtime/logger.ts';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(String(chunk));
      callback();
    },
  });
  return { lines, destination };
}

describe('logger', () => {
  it('writes JSON lines and never the secrets, whatever field or message carries them', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ level: 'info', secrets: ['sk-live-123456'], destination });
    logger.info({ headers: { 'x-api-key': 'sk-live-123456' }, apiKey: 'sk-live-123456' }, 'calling upstream');
    logger.error({ err: new Error('upstream said: bad key sk-live-123456') }, 'request failed with sk-live-123456');
    logger.debug('not at info level');
    expect(lines).toHaveLength(2);
    const text = lines.join('');
    expect(text).not.toContain('sk-live-123456');
    const first = JSON.parse(lines[0]!);
    expect(first.msg).toBe('calling upstream');
    expect(first.headers['x-api-key']).toBe('[redacted]');
    expect(JSON.parse(lines[1]!).msg).toBe('request failed with [redacted]');
  });

  it('scrubs a secret that a JSON line holds only escaped, and its URL-encoded form', () => {
    // A quote and a backslash: in a JSON line they are escaped, so the literal key never appears there.
    const key = 'sk"live\\5f/2b+9=';
    const { lines, destination } = capture();
    const logger = createLogger({ level: 'info', secrets: [key], destination });
    logger.info(
      { body: `{"error":"bad key ${JSON.stringify(key).slice(1, -1)}"}` },
      `called /x?key=${encodeURIComponent(key)}`,
    );
    logger.warn({ err: new Error(`rejected ${key}`) }, 'failed');
    const text = lines.join('');
    for (const form of [
      key,
      JSON.stringify(key).slice(1, -1),
      JSON.stringify(JSON.stringify(key)).slice(1, -1),
      encodeURIComponent(key),
    ])
      expect(text).not.toContain(form);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      msg: 'called /x?key=[redacted]',
      body: '{"error":"bad key [redacted]"}',
    });
    expect(JSON.parse(lines[1]!).err.message).toBe('rejected [redacted]');
  });

  it('writes the fields log shippers read: the level by name, an ISO-8601 UTC time, the service', () => {
    const { lines, destination } = capture();
    const logger = createLogger({ level: 'debug', destination });
    const before = Date.now();
    logger.warn({ queue: 'prices' }, 'backlog');
    logger.debug('detail');
    logger.error('failed');
    const after = Date.now();
    const parsed = lines.map((line) => JSON.parse(line) as { level: unknown; time: unknown; service: unknown });
    expect(parsed.map((line) => line.level)).toEqual(['warn', 'debug', 'error']);
    expect(parsed[0]).toMatchObject({ service: 'chaintap', pid: process.pid, queue: 'prices', msg: 'backlog' });
    for (const { time, service } of parsed) {
      expect(service).toBe('chaintap');
      expect(time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(Date.parse(time as string)).toBeGreaterThanOrEqual(before);
      expect(Date.parse(time as string)).toBeLessThanOrEqual(after);
    }
  });

  it('prints pretty lines, not JSON, when asked to (as on a terminal)', () => {
    const script = `
      const { createLogger } = await import(${JSON.stringify(new URL('../../src/runtime/logger.ts', import.meta.url).href)});
      const logger = createLogger({ level: 'info', pretty: true });
      logger.warn({ queue: 'prices' }, 'backlog');
      logger.flush();`;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    const lines = stripVTControlCharacters(result.stderr).split('\n').filter(Boolean);
    // pino-pretty's form: `[12:00:00.000] WARN (1234): backlog`, then the fields, one a line.
    expect(lines[0]).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] WARN \(\d+\): backlog$/);
    expect(lines.slice(1).join('\n')).toContain('queue: "prices"');
    expect(result.stderr).not.toContain('service');
  });

  it('works without secrets', () => {
    const { lines, destination } = capture();
    createLogger({ level: 'info', destination }).info({ n: 1 }, 'hello');
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'info', msg: 'hello', n: 1 });
  });
});
