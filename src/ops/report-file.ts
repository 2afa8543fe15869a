import { randomBytes } from 'node:crypto';
import { open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { ChaintapError, InvalidInputError } from '../errors.ts';

/** Where a report is written, a piece at a time. */
export interface ReportSink {
  write(text: string): Promise<void>;
}

/** Pieces are gathered up to this many characters and written as one chunk, one chunk in flight at a time. */
const CHUNK_CHARS = 64 * 1024;

/** A sink that writes in chunks and waits for each chunk to be taken: the writer never runs ahead of the output. */
function bufferedSink(writeChunk: (chunk: string) => Promise<void>) {
  let parts: string[] = [];
  let length = 0;
  async function flush(): Promise<void> {
    if (length === 0) return;
    const chunk = parts.join('');
    parts = [];
    length = 0;
    await writeChunk(chunk);
  }
  async function write(text: string): Promise<void> {
    parts.push(text);
    length += text.length;
    if (length >= CHUNK_CHARS) await flush();
  }
  return { write, flush };
}

/** A sink onto a stream (standard output): each chunk's write callback is awaited. */
export function streamSink(stream: Writable) {
  return bufferedSink(
    (chunk) => new Promise((done, fail) => stream.write(chunk, (error) => (error ? fail(error) : done()))),
  );
}

/** Fails before any work when `path` cannot become a file: its folder is missing, or it is a folder. */
export async function checkOutputPath(path: string): Promise<void> {
  const folder = dirname(resolve(path));
  const folderStat = await stat(folder).catch(() => undefined);
  if (!folderStat?.isDirectory()) throw new InvalidInputError(`cannot write --out ${path}: ${folder} is not a folder`);
  const fileStat = await stat(path).catch(() => undefined);
  if (fileStat && !fileStat.isFile()) throw new InvalidInputError(`cannot write --out ${path}: it is not a file`);
}

/**
 * Writes a file all or nothing: `work` writes a temporary file beside `path`, synced and renamed onto
 * it when `work` has finished. When anything fails, the temporary file goes and `path` is unchanged.
 */
export async function writeFileAtomically<T>(path: string, work: (sink: ReportSink) => Promise<T>): Promise<T> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temporary, 'wx', 0o644).catch((error: Error) => {
    throw new ChaintapError(`cannot write --out ${path}: ${error.message}`);
  });
  let closed = false;
  try {
    const sink = bufferedSink((chunk) => handle.write(chunk).then(() => undefined));
    const result = await work(sink);
    await sink.flush();
    await handle.sync();
    await handle.close();
    closed = true;
    await rename(temporary, path);
    return result;
  } catch (error) {
    if (!closed) await handle.close().catch(() => undefined);
    await rm(temporary, { force: true });
    throw error;
  }
}
