import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import {
  answerHeapMb,
  assertHeapFitsAnswers,
  WORKER_OLD_SPACE_MB,
  workerHeapFlags,
} from '../../src/config/memory-budget.ts';
import { loadOptions } from '../../src/config/options.ts';
import { ConfigError } from '../../src/errors.ts';

const MiB = 1024 * 1024;
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

it('holds one answer at the default limits in the documented worker heap, with half of it to spare', () => {
  const defaults = loadOptions({}, {});
  expect(answerHeapMb(defaults)).toBeLessThanOrEqual(WORKER_OLD_SPACE_MB / 1.5);
  // What V8 allows a process started with the documented flags: old space and young generation.
  expect(() => assertHeapFitsAnswers(defaults, WORKER_OLD_SPACE_MB * MiB)).not.toThrow();
});

it('refuses limits that let through answers the heap cannot hold, naming both settings and the flag', () => {
  const options = loadOptions({}, { UPSTREAM_MAX_ELEMENTS: '1000000' });
  expect(() => assertHeapFitsAnswers(options, WORKER_OLD_SPACE_MB * MiB)).toThrow(ConfigError);
  expect(() => assertHeapFitsAnswers(options, WORKER_OLD_SPACE_MB * MiB)).toThrow(
    /UPSTREAM_MAX_BODY_BYTES \(8388608\) and UPSTREAM_MAX_ELEMENTS \(1000000\) let through answers that need about \d+ MB of heap, and this process has 192 MB: lower them, or raise --max-old-space-size/,
  );
  expect(() => assertHeapFitsAnswers(options, 1024 * MiB)).not.toThrow();
});

it('is the heap the documentation, the compose file and the Kubernetes manifest give workers', () => {
  const flags = workerHeapFlags().join(' ');
  expect(read('docs/operations.md').replace(/\s+/g, ' ')).toContain(`NODE_OPTIONS="${flags}"`);
  expect(read('docker-compose.yml')).toContain(`NODE_OPTIONS: ${flags}`);
  expect(read('deploy/kubernetes/worker.yaml')).toContain(`value: "${flags}"`);
});
