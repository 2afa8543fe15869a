import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonDelta } from '../../src/db/json-delta.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

/**
 * jsonDelta (the writer) and chaintap_jsonb_patch (the views, migration 0006): how snapshots store
 * what repeats once. What the writer stores must patch back to the value, as jsonb compares it.
 */
describe('JSON delta and patch', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  const cases: [reference: unknown, value: unknown, delta: unknown][] = [
    [null, null, null],
    [{ a: 1 }, { a: 1 }, null],
    [{ a: 1, b: 'x' }, { a: 2, b: 'x' }, { a: 2 }],
    [{ a: 1 }, { a: 1, c: [1, { d: null }] }, { c: [1, { d: null }] }],
    [{ a: 1, b: 2 }, { a: 1 }, [{ a: 1 }]],
    [{ a: 1 }, null, [null]],
    [null, { a: 1 }, { a: 1 }],
    [{ a: 1 }, {}, [{}]],
    [{}, {}, null],
    [{}, { a: null }, { a: null }],
    [{ a: { x: 1, y: 2 } }, { a: { x: 1 } }, { a: { x: 1 } }],
    [{ a: 1 }, [1, 2], [[1, 2]]],
    [{ a: 1 }, 'text', ['text']],
    [null, 7, [7]],
    [{ a: 1, b: 2 }, { b: 2, a: 1 }, null],
    [{ a: null }, {}, [{}]],
  ];

  it('stores NULL for a repeat, the changed or new keys for a change, the whole value otherwise', () => {
    for (const [reference, value, delta] of cases)
      expect(jsonDelta(reference, value), JSON.stringify({ reference, value })).toEqual(delta);
  });

  it('patches every delta back to its value in Postgres (jsonb equality)', async () => {
    const random = seeded(7);
    const generated: [unknown, unknown][] = [];
    for (let i = 0; i < 400; i++) {
      const reference = random() < 0.1 ? null : randomObject(random, 2);
      // Mostly small changes to the reference (the common case: a token object repeated or moved a little).
      generated.push([reference, random() < 0.2 ? randomValue(random, 2) : mutate(random, reference)]);
    }
    const special: [unknown, unknown][] = [
      [{ a: 1 }, { a: 1.0, b: 1e21 }],
      [{ a: [1, 2] }, { a: [2, 1] }],
      [{ a: 1 }, JSON.parse('{"a":1,"__proto__":{"x":1}}')],
      [{ a: 'x' }, { a: 'x', b: 'é\u2028"' }],
    ];
    const all = [
      ...cases.map(([reference, value]) => [reference, value] as [unknown, unknown]),
      ...special,
      ...generated,
    ];
    const rows = await database.sql<{ n: number; same: boolean; back: unknown }[]>`
      select c.n::int, chaintap_jsonb_patch(c.r, c.d) is not distinct from c.v as same, chaintap_jsonb_patch(c.r, c.d) as back
      from unnest(${all.map(([r]) => json(r))}::jsonb[], ${all.map(([, v]) => json(v))}::jsonb[], ${all.map(([r, v]) => json(jsonDelta(r, v)))}::jsonb[])
        with ordinality as c(r, v, d, n)
      order by c.n`;
    expect(rows).toHaveLength(all.length);
    for (const row of rows) expect(row.same, JSON.stringify({ case: all[row.n - 1], back: row.back })).toBe(true);
    // The generated cases cover every kind of answer: equal, a delta, the whole value.
    const kinds = new Set(
      generated.map(([r, v]) => {
        const d = jsonDelta(r, v);
        return d === null ? 'equal' : Array.isArray(d) ? 'whole' : 'delta';
      }),
    );
    expect([...kinds].sort()).toEqual(['delta', 'equal', 'whole']);
  });

  it('is the only delta: migration 0017 dropped the SQL twin', async () => {
    const [row] = await database.sql`select to_regprocedure('chaintap_jsonb_delta(jsonb, jsonb)') is null as gone`;
    expect(row!.gone).toBe(true);
  });
});

/** A small deterministic generator (mulberry32). */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYS = ['a', 'b', 'coinType', 'symbol', 'decimals', 'price', ''];

function randomValue(random: () => number, depth: number): unknown {
  const pick = random();
  if (depth > 0 && pick < 0.2) return randomObject(random, depth - 1);
  if (depth > 0 && pick < 0.3)
    return Array.from({ length: Math.floor(random() * 3) }, () => randomValue(random, depth - 1));
  if (pick < 0.45) return null;
  if (pick < 0.6) return random() < 0.5;
  if (pick < 0.8) return Math.round(random() * 1000) / (random() < 0.5 ? 1 : 100);
  return KEYS[Math.floor(random() * KEYS.length)];
}

function randomObject(random: () => number, depth: number): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const key of KEYS) if (random() < 0.4) object[key] = randomValue(random, depth);
  return object;
}

/** The reference with some keys changed, added or removed, in a shuffled key order. */
function mutate(random: () => number, reference: Record<string, unknown> | null): unknown {
  const entries = Object.entries(reference ?? {}).filter(() => random() > 0.05);
  const changed = entries.map(
    ([key, value]) => [key, random() < 0.15 ? randomValue(random, 1) : structuredClone(value)] as const,
  );
  if (random() < 0.2) changed.push([KEYS[Math.floor(random() * KEYS.length)]!, randomValue(random, 1)]);
  return Object.fromEntries(changed.sort(() => random() - 0.5));
}

function json(value: unknown): string | null {
  return value === null ? null : JSON.stringify(value);
}
