import { Writable } from 'node:stream';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { checkKeyLayout } from '../../src/queue/key-layout.ts';
import { createQueues, closeQueues } from '../../src/queue/queues.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { createTestRedis } from '../support/redis.ts';

const testRedis = createTestRedis();
const redis = new Redis(testRedis.url);
afterAll(async () => {
  redis.disconnect();
  await testRedis.cleanup();
});

function capturingLogger() {
  const lines: { level: string; msg: string; queues?: { queue: string; waiting: number }[] }[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as (typeof lines)[number]);
      done();
    },
  });
  return { logger: createLogger({ level: 'info', destination }), lines };
}

describe('the key layout check at start', () => {
  it('finds nothing in the current layout, even with jobs waiting', async () => {
    const prefix = `${testRedis.prefix}-current`;
    const queues = createQueues(redis, prefix);
    await queues.positions.add('positions', { address: '0x1' }, { jobId: 'p1' });
    const { logger, lines } = capturingLogger();
    expect(await checkKeyLayout(redis, prefix, logger)).toEqual([]);
    expect(lines).toEqual([]);
    await closeQueues(queues);
  });

  it('warns of queues left in the untagged layout, with their unfinished jobs', async () => {
    const prefix = `${testRedis.prefix}-old`;
    // What an earlier version wrote: BullMQ with the plain prefix.
    const old = new Queue('positions', { connection: redis, prefix });
    await old.add('positions', { address: '0x1' }, { jobId: 'a' });
    await old.add('positions', { address: '0x2' }, { jobId: 'b', delay: 60_000 });
    const { logger, lines } = capturingLogger();
    expect(await checkKeyLayout(redis, prefix, logger)).toEqual(['positions']);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'warn', queues: [{ queue: 'positions', waiting: 2 }] });
    expect(lines[0]!.msg).toContain('their 2 unfinished jobs are not run by this version');
    await old.close();
  });
});
