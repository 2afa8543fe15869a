import { readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { countJsonValues } from '../../src/upstream/json-values.ts';

/** The same count on the parsed value: every value at any depth, keys not counted. */
function parsedValues(value: unknown): number {
  if (value === null || typeof value !== 'object') return 1;
  return 1 + (Array.isArray(value) ? value : Object.values(value)).reduce((sum: number, v) => sum + parsedValues(v), 0);
}

const FIXTURES = new URL('../fixtures/real-answers/', import.meta.url);

it('counts the values of a JSON text without parsing it, as many as parsing finds', () => {
  const texts = [
    '1',
    '"text"',
    '[]',
    '{}',
    ' { "a" : [ true , null , -1.5e3 ] , "b" : { } } ',
    // Brackets, commas, colons and escaped quotes inside strings are text.
    '[1,"a\\"b,[{:",{"k\\\\":"v\\\\","[":"]"},[[]]]',
    // Characters of several bytes, an escaped one among them.
    '{"name":"Sui 水 \\u6c34 🐋","tags":["ü","€",{"é":"\\""}]}',
    '{"data":[{"positionId":"1","chain":"SUI","type":"AMM","input":[{"amount":"1","value":2,"token":{"symbol":"SUI"}}]}]}',
    ...readdirSync(FIXTURES)
      .filter((name) => name.endsWith('.json'))
      .map((name) => readFileSync(new URL(name, FIXTURES), 'utf8')),
  ];
  for (const text of texts) {
    const values = parsedValues(JSON.parse(text));
    expect(countJsonValues(text), text.slice(0, 60)).toBe(values);
    // Its UTF-8 bytes, not decoded yet, give the same count.
    expect(countJsonValues(Buffer.from(text, 'utf8')), text.slice(0, 60)).toBe(values);
  }
});

it('stops once the count passes the limit', () => {
  const text = `[${'{"a":1},'.repeat(1_000_000)}0]`;
  expect(countJsonValues(text, 10)).toBe(11);
  expect(countJsonValues(text)).toBe(1 + 2 * 1_000_000 + 1);
});
