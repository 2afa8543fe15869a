import { describe as group, expect, it } from 'vitest';
import { describe, InvalidInputError } from '../src/errors.ts';

group('describe(error)', () => {
  it('gives the name and the message', () => {
    expect(describe(new InvalidInputError('invalid address "0x1"'))).toBe('InvalidInputError: invalid address "0x1"');
    expect(describe(new TypeError('x is not iterable'))).toBe('TypeError: x is not iterable');
  });

  it('adds a code the message does not carry (an SQLSTATE), and not one it does (ECONNREFUSED)', () => {
    const postgres = Object.assign(new Error('deadlock detected'), { name: 'PostgresError', code: '40P01' });
    expect(describe(postgres)).toBe('PostgresError 40P01: deadlock detected');
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(describe(refused)).toBe('Error: connect ECONNREFUSED 127.0.0.1:5432');
    // Node gives an AggregateError without a message when every address of a host refused.
    const aggregate = Object.assign(new AggregateError([], ''), { code: 'ECONNREFUSED' });
    expect(describe(aggregate)).toBe('AggregateError ECONNREFUSED');
  });

  it("adds the cause's message (a network error's reason)", () => {
    const socket = Object.assign(new Error('fetch failed', { cause: new Error('other side closed') }), {
      code: 'UND_ERR_SOCKET',
    });
    expect(describe(socket)).toBe('Error UND_ERR_SOCKET: fetch failed (other side closed)');
  });

  it('describes only the cause of a Drizzle query error, never the SQL and parameters it embeds', () => {
    const cause = Object.assign(new Error('duplicate key value'), { name: 'PostgresError', code: '23505' });
    const query = new Error(`Failed query: insert into t values ($1)\nparams: ${'x'.repeat(10_000)}`, { cause });
    expect(describe(query)).toBe('PostgresError 23505: duplicate key value');
  });

  it('describes what is not an Error as text', () => {
    expect(describe('aborted')).toBe('aborted');
    expect(describe(undefined)).toBe('undefined');
  });
});
