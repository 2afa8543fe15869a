import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/runtime/logger.ts';
import { createClockSkewCheck, largestSkew } from '../../src/scheduler/clock-skew.ts';
import { createTestRedis } from '../support/redis.ts';

const testRedis = createTestRedis();
const redis = new Redis(testRedis.url);
afterAll(async () => {
  redis.disconnect();
  await testRedis.cleanup();
});

function capturingLogger() {
  const lines: { level: string; msg: string; skewMs?: number }[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as (typeof lines)[number]);
      done();
    },
  });
  return { logger: createLogger({ level: 'info', destination }), lines };
}

describe('the schedulers compare their clocks', () => {
  it('finds the other scheduler furthest from this one, among those heard of in the last ten minutes', () => {
    const at = 1_000_000_000;
    expect(largestSkew({ offsetMs: 40_000, atMs: at }, [])).toBeUndefined();
    expect(
      largestSkew({ offsetMs: 40_000, atMs: at }, [
        { offsetMs: 0, atMs: at - 1_000 },
        { offsetMs: 39_000, atMs: at - 2_000 },
        // Stopped eleven minutes ago: no longer counts.
        { offsetMs: -100_000, atMs: at - 11 * 60_000 },
      ]),
    ).toEqual({ skewMs: 40_000 });
    expect(largestSkew({ offsetMs: 0, atMs: at }, [{ offsetMs: 40_000, atMs: at }])).toEqual({ skewMs: -40_000 });
  });

  it('a scheduler 40 s ahead of another says so once, each of the two from its side; clocks within 5 s are quiet', async () => {
    const prefix = `${testRedis.prefix}-skew`;
    const slow = capturingLogger();
    const fast = capturingLogger();
    const slowCheck = createClockSkewCheck(redis, prefix, slow.logger);
    const fastCheck = createClockSkewCheck(redis, prefix, fast.logger);
    const close = createClockSkewCheck(redis, prefix, capturingLogger().logger);
    await slowCheck.check(new Date());
    await close.check(new Date(Date.now() + 2_000));
    await fastCheck.check(new Date(Date.now() + 40_000));
    await slowCheck.check(new Date());
    // Said once an hour, not at every price tick.
    await fastCheck.check(new Date(Date.now() + 40_000));
    await slowCheck.check(new Date());
    const said = (lines: typeof slow.lines) => lines.filter((line) => line.level === 'warn');
    expect(said(fast.lines)).toHaveLength(1);
    expect(said(fast.lines)[0]!.msg).toMatch(
      /^this scheduler's clock is (39|40)\.\d s ahead of another scheduler's: the one ahead enqueues every tick that much early/,
    );
    expect(said(slow.lines)).toHaveLength(1);
    expect(said(slow.lines)[0]!.msg).toMatch(/^this scheduler's clock is (39|40)\.\d s behind another scheduler's/);
    expect(Math.abs(said(slow.lines)[0]!.skewMs! + 40_000)).toBeLessThan(1_000);
  });
});
