import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { requireBinaries } from '../support/binaries.ts';
import { freePort } from '../support/fault-redis-server.ts';
import { startRedisProcess, type RedisProcess } from '../support/redis-process.ts';

/**
 * Redis over TLS: a redis-server with a certificate of a CA made here, reached with a rediss:// URL
 * or REDIS_TLS=true, trusting the CA through Node's NODE_EXTRA_CA_CERTS; a certificate Node does not
 * trust is refused, in one line naming the setting.
 */
let dir: string;
let redis: RedisProcess;
let tlsPort: number;
let database: TestDatabase;

function makeCertificates(): { ca: string; cert: string; key: string } {
  const file = (name: string) => join(dir, name);
  requireBinaries('openssl');
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  openssl(
    ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=chaintap test CA'],
    ...['-keyout', file('ca.key'), '-out', file('ca.pem')],
  );
  openssl(
    ...['req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1'],
    ...['-keyout', file('redis.key'), '-out', file('redis.csr')],
  );
  writeFileSync(file('san.ext'), 'subjectAltName=IP:127.0.0.1\n');
  openssl(
    ...['x509', '-req', '-in', file('redis.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key')],
    ...['-CAcreateserial', '-days', '2', '-extfile', file('san.ext'), '-out', file('redis.pem')],
  );
  return { ca: file('ca.pem'), cert: file('redis.pem'), key: file('redis.key') };
}

let certificates: { ca: string; cert: string; key: string };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'chaintap-redis-tls-'));
  certificates = makeCertificates();
  tlsPort = await freePort();
  const logFile = join(dir, 'redis.log');
  redis = await startRedisProcess({
    binary: 'redis-server',
    port: freePort, // plain, for the start's PING only
    args: (port) => [
      ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--logfile', logFile],
      ...['--tls-port', String(tlsPort), '--tls-cert-file', certificates.cert, '--tls-key-file', certificates.key],
      ...['--tls-ca-cert-file', certificates.ca, '--tls-auth-clients', 'no'],
    ],
    logFile,
  });
  database = await createTestDatabase({ migrate: true });
});
afterAll(async () => {
  await redis?.kill();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('Redis over TLS', () => {
  const env = (settings: Record<string, string>) => ({
    DATABASE_URL: database.url,
    QUEUE_PREFIX: 'tls-test',
    NODE_EXTRA_CA_CERTS: certificates.ca,
    ...settings,
  });

  it('connects with a rediss:// URL, or REDIS_TLS=true beside a redis:// one', async () => {
    const ways: Record<string, string>[] = [
      { REDIS_URL: `rediss://127.0.0.1:${tlsPort}` },
      { REDIS_URL: `redis://127.0.0.1:${tlsPort}`, REDIS_TLS: 'true' },
    ];
    for (const settings of ways) {
      const result = await runCli(['status'], env(settings), 60_000);
      expect(result.code, `${JSON.stringify(settings)}\n${result.stderr}`).toBe(0);
    }
  });

  it('refuses a certificate it does not trust, naming the setting', async () => {
    const { NODE_EXTRA_CA_CERTS: _trusted, ...untrusted } = env({ REDIS_URL: `rediss://127.0.0.1:${tlsPort}` });
    const result = await runCli(['status'], untrusted, 60_000);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/cannot reach Redis at 127\.0\.0\.1:\d+ .*certificate/i);
    expect(result.stderr).toContain('(REDIS_URL)');
  });
});
