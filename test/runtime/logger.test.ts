import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/runtime/logger.js';

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

  it('works without secrets', () => {
    const { lines, destination } = capture();
    createLogger({ level: 'info', destination }).info({ n: 1 }, 'hello');
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 30, msg: 'hello', n: 1 });
  });
});
