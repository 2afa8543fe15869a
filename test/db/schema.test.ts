import { bigint, index, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as schema from '../../src/db/schema/index.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { databaseShape, drizzleShape, shapeDifferences } from '../support/schema-shape.ts';

/**
 * The Drizzle schema (src/db/schema, what drizzle-kit generates migrations from and the row types
 * come from) and the migrated database (the hand-written SQL of migrations/) are two sources of one
 * schema: they must agree on every table and view, column, type, nullability, key, index and check.
 */
describe('the Drizzle schema and the migrated database', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it('agree', async () => {
    const declared = drizzleShape(schema);
    expect(shapeDifferences(declared, await databaseShape(database.sql))).toEqual([]);
    // The walk reaches every kind of fact.
    for (const line of [
      'table raw_responses',
      'column raw_responses.body_bytes bytea null',
      'primary key token_price_points token_price_points_pkey (token_id, price_time)',
      'unique raw_responses raw_responses_job_body_key (dataset, target, tick, endpoint, sha256)',
      'index quarantined_payloads quarantined_payloads_raw_response_id_key unique (raw_response_id) partial',
      'foreign key positions positions_protocol_id_protocols_protocol_id_fk (protocol_id) -> protocols (protocol_id)',
      'check raw_responses raw_responses_body_check',
      'enum position_amount_kind (input, yield_collected, current_token, current_yield)',
      'column position_amounts.kind position_amount_kind',
    ])
      expect(declared).toContain(line);
  });

  describe('the check itself', () => {
    it('names each disagreement: a type, a nullability, a column, a key, an index, a table on one side only', async () => {
      await database.sql.unsafe(`
        create schema scratch;
        create table scratch.events (id integer primary key, name text, note text, constraint events_name_key unique (note));
        create table scratch.leftover (id integer)`);
      const events = pgTable(
        'events',
        {
          id: bigint('id', { mode: 'number' }).primaryKey(),
          name: text('name').notNull(),
          at: timestamp('at', { withTimezone: true }),
        },
        (t) => [unique('events_name_key').on(t.name), index('events_at_idx').on(t.at)],
      );
      const missing = pgTable('missing', { id: text('id') });
      expect(shapeDifferences(drizzleShape({ events, missing }), await databaseShape(database.sql, 'scratch'))).toEqual(
        [
          'database only: column events.id integer not null',
          'database only: column events.name text null',
          'database only: column events.note text null',
          'database only: column leftover.id integer null',
          'database only: table leftover',
          'database only: unique events events_name_key (note)',
          'schema only: column events.at timestamp with time zone null',
          'schema only: column events.id bigint not null',
          'schema only: column events.name text not null',
          'schema only: column missing.id text null',
          'schema only: index events events_at_idx (at)',
          'schema only: table missing',
          'schema only: unique events events_name_key (name)',
        ],
      );
    });

    it('sees a migrated table changed behind the schema', async () => {
      await database.sql`alter table watched_tokens alter column added_at drop not null`;
      await database.sql`create index watched_tokens_added_at_idx on watched_tokens (added_at)`;
      try {
        expect(shapeDifferences(drizzleShape(schema), await databaseShape(database.sql))).toEqual([
          'database only: column watched_tokens.added_at timestamp with time zone null',
          'database only: index watched_tokens watched_tokens_added_at_idx (added_at)',
          'schema only: column watched_tokens.added_at timestamp with time zone not null',
        ]);
      } finally {
        await database.sql`drop index watched_tokens_added_at_idx`;
        await database.sql`alter table watched_tokens alter column added_at set not null`;
      }
    });
  });
});
