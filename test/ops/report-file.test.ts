import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/errors.ts';
import { checkOutputPath, streamSink, writeFileAtomically } from '../../src/ops/report-file.ts';

const folder = mkdtempSync(join(tmpdir(), 'chaintap-report-file-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('writeFileAtomically', () => {
  it('writes the whole file, in chunks, and leaves nothing else behind', async () => {
    const path = join(folder, 'whole.csv');
    const line = `${'x'.repeat(99)}\n`;
    await writeFileAtomically(path, async (sink) => {
      for (let i = 0; i < 5000; i++) await sink.write(line);
    });
    expect(readFileSync(path, 'utf8')).toBe(line.repeat(5000));
    expect(readdirSync(folder)).toEqual(['whole.csv']);
  });

  it('leaves no file when the work fails part-way, and keeps a file that was there', async () => {
    const absent = join(folder, 'absent.csv');
    const kept = join(folder, 'kept.csv');
    writeFileSync(kept, 'the previous report\n');
    for (const path of [absent, kept]) {
      await expect(
        writeFileAtomically(path, async (sink) => {
          // More than a chunk, so that part of it reached the disk before the failure.
          for (let i = 0; i < 2000; i++) await sink.write(`${'y'.repeat(99)}\n`);
          throw new Error('the database went away');
        }),
      ).rejects.toThrow('the database went away');
    }
    expect(readdirSync(folder).sort()).toEqual(['kept.csv', 'whole.csv']);
    expect(readFileSync(kept, 'utf8')).toBe('the previous report\n');
  });
});

describe('checkOutputPath', () => {
  it('refuses a missing folder and a folder in place of the file', async () => {
    await expect(checkOutputPath(join(folder, 'missing', 'x.csv'))).rejects.toThrow(InvalidInputError);
    await expect(checkOutputPath(folder)).rejects.toThrow('it is not a file');
    await expect(checkOutputPath(join(folder, 'new.csv'))).resolves.toBeUndefined();
  });
});

describe('streamSink', () => {
  it('writes everything once flushed, waiting for the stream to take each chunk', async () => {
    const stream = new PassThrough({ highWaterMark: 16 });
    const received: string[] = [];
    stream.on('data', (chunk) => received.push(String(chunk)));
    const sink = streamSink(stream);
    for (let i = 0; i < 3000; i++) await sink.write(`${i}\n`);
    await sink.flush();
    expect(received.join('')).toBe(Array.from({ length: 3000 }, (_, i) => `${i}\n`).join(''));
  });
});
