import { afterAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/client.ts';
import { poolCache } from '../../src/db/pool-cache.ts';

// Pools connect on their first query: these never do.
const first = createDatabase('postgres://postgres@127.0.0.1:5432/unused', { max: 1 });
const second = createDatabase('postgres://postgres@127.0.0.1:5432/unused', { max: 1 });
afterAll(async () => Promise.all([first.close(), second.close()]));

describe('poolCache', () => {
  it('makes one value per pool, on first use', () => {
    let made = 0;
    const known = poolCache(() => ({ n: ++made }));
    expect(made).toBe(0);
    const a = known(first.sql);
    expect(known(first.sql)).toBe(a);
    expect(known(second.sql)).not.toBe(a);
    expect(made).toBe(2);
  });
});
