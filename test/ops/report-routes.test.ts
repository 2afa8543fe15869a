import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openOpsStores, startOpsServer, type OpsStores, type RunningOpsServer } from './ops-test-server.ts';

let stores: OpsStores;
let server: RunningOpsServer;
const ADDRESS = `0x${'7'.repeat(64)}`;

beforeAll(async () => {
  stores = await openOpsStores();
  server = await startOpsServer(stores);
});

afterAll(async () => {
  await server.close();
  await stores.close();
});

describe('the report pages', () => {
  it.each([
    ['from=0000-01-01', 'invalid from "0000-01-01": times before 1970 are not supported'],
    ['from=0001-01-01T00:00:00Z&to=0001-01-02T00:00:00Z', 'invalid from "0001-01-01T00:00:00Z": times before 1970'],
    ['from=2026-02-30', 'invalid from "2026-02-30": 2026-02 has 28 days'],
    ['to=2026-13-01', 'invalid to "2026-13-01": there is no month 13'],
    ['interval=100000000000000000000d', 'invalid interval "100000000000000000000d": at most 3650d'],
    ['from=2026-11-02&to=2026-11-01', 'from 2026-11-02T00:00:00.000Z is after to 2026-11-01T00:00:00.000Z'],
  ])('answer 400 naming the parameter for %s, as the command refuses it', async (query, message) => {
    for (const path of [
      `/report/portfolio?address=${ADDRESS}&${query}`,
      `/report/prices?tokens=0x2::sui::SUI&${query}`,
    ]) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status, path).toBe(400);
      expect(await response.text(), path).toContain(message.replace(/"/g, '&quot;'));
    }
  });
});
