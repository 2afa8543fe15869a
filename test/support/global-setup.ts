import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { runMigrations } from '../../src/db/migrate.ts';

/**
 * Finds the PostgreSQL and Redis the tests run against: DATABASE_URL / REDIS_URL when set, else the
 * local services when they answer, else containers started by testcontainers (only where a Docker
 * engine exists; it is imported lazily so that machines without one never load it).
 * DATABASE_URL here is an admin connection: every test file creates its own database from it.
 */
declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
    /** A database migrated once per run: each test file's database is a copy of it. */
    pgTemplateDatabase: string;
    redisUrl: string;
    /** A folder for this run only (removed at its end): what files of one run share, e.g. the fault reference. */
    runFolder: string;
  }
}

function answers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 1000 });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
  });
}

export default async function setup(project: TestProject) {
  const stops: (() => Promise<unknown>)[] = [];
  let pgAdminUrl = process.env.DATABASE_URL;
  let redisUrl = process.env.REDIS_URL;
  if (!pgAdminUrl && (await answers('127.0.0.1', 5432))) pgAdminUrl = 'postgres://postgres@127.0.0.1:5432/postgres';
  if (!redisUrl && (await answers('127.0.0.1', 6379))) redisUrl = 'redis://127.0.0.1:6379';
  if (!pgAdminUrl) {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const container = await new PostgreSqlContainer('postgres:15')
      .withUsername('postgres')
      .withPassword('postgres')
      .start();
    stops.push(() => container.stop());
    pgAdminUrl = container.getConnectionUri().replace(/\/[^/]*$/, '/postgres');
  }
  if (!redisUrl) {
    const { RedisContainer } = await import('@testcontainers/redis');
    const container = await new RedisContainer('redis:7').start();
    stops.push(() => container.stop());
    redisUrl = container.getConnectionUrl();
  }
  const template = await createTemplateDatabase(pgAdminUrl);
  stops.unshift(template.drop);
  const runFolder = mkdtempSync(join(tmpdir(), 'chaintap-test-run-'));
  stops.push(async () => rmSync(runFolder, { recursive: true, force: true }));
  project.provide('runFolder', runFolder);
  project.provide('pgAdminUrl', pgAdminUrl);
  project.provide('pgTemplateDatabase', template.name);
  project.provide('redisUrl', redisUrl);
  return async () => {
    for (const stop of stops) await stop();
  };
}

/**
 * Migrates one database for the whole run; test files copy it (`create database ... template`),
 * which takes a tenth of the time of migrating each file's database anew.
 */
async function createTemplateDatabase(adminUrl: string): Promise<{ name: string; drop: () => Promise<void> }> {
  const name = `chaintap_template_${randomBytes(6).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  await runMigrations(url.toString());
  return {
    name,
    async drop() {
      const cleanup = postgres(adminUrl, { max: 1, onnotice: () => {} });
      await cleanup.unsafe(`drop database if exists "${name}" with (force)`);
      await cleanup.end();
    },
  };
}
