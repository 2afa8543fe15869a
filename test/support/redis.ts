import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { inject } from 'vitest';

export interface TestRedis {
  url: string;
  /** A BullMQ prefix of this test file's own. */
  prefix: string;
  /** Deletes every key under the prefix and closes the connection. */
  cleanup(): Promise<void>;
}

export function createTestRedis(): TestRedis {
  const url = inject('redisUrl');
  const prefix = `chaintap-test-${randomBytes(5).toString('hex')}`;
  return {
    url,
    prefix,
    async cleanup() {
      const redis = new Redis(url, { maxRetriesPerRequest: 1 });
      try {
        let cursor = '0';
        do {
          // Both chaintap's hash-tagged keys ({prefix:...}) and the tests' own (prefix:...).
          const [next, keys] = await redis.scan(cursor, 'MATCH', `*${prefix}*`, 'COUNT', 1000);
          cursor = next;
          if (keys.length) await redis.del(...keys);
        } while (cursor !== '0');
      } finally {
        redis.disconnect();
      }
    },
  };
}
