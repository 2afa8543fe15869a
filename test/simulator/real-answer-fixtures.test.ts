import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REAL_ANSWER_CASES } from './real-answer-cases.ts';

/** The real-answer fixtures are the simulator's own answers: they change only with the simulator. */
const DIR = new URL('../fixtures/real-answers/', import.meta.url);

describe('test/fixtures/real-answers', () => {
  it.each(Object.keys(REAL_ANSWER_CASES))('%s is what the real-shapes simulator answers', (file) => {
    expect(JSON.parse(readFileSync(new URL(file, DIR), 'utf8'))).toEqual(REAL_ANSWER_CASES[file]!());
  });

  it('holds one file per case, each described in the README', () => {
    const readme = readFileSync(new URL('README.md', DIR), 'utf8');
    const files = readdirSync(DIR).filter((name) => name.endsWith('.json'));
    expect(files.sort()).toEqual(Object.keys(REAL_ANSWER_CASES).sort());
    for (const file of files) expect(readme).toContain(`\`${file}\``);
  });
});
