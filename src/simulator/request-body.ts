import type { IncomingMessage } from 'node:http';

export const MAX_BODY_BYTES = 1024 * 1024;

/** The body as text, or undefined when it is larger than MAX_BODY_BYTES. */
export function readBody(req: IncomingMessage, done: (body: string | undefined) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  });
  req.on('end', () => done(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString('utf8')));
}
