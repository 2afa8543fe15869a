import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = join(import.meta.dirname, '../..');
const COMPOSE_FILE = join(ROOT, 'docker-compose.yml');
const text = readFileSync(COMPOSE_FILE, 'utf8');
const compose = parse(text, { merge: true }) as {
  services: Record<string, { environment?: Record<string, string>; volumes?: string[]; secrets?: string[] }>;
  secrets?: Record<string, { environment?: string }>;
};

/** The secrets the deployment needs, each without a default: compose must stop when one is unset. */
const SECRETS = [
  'POSTGRES_PASSWORD',
  'CHAINTAP_DB_PASSWORD',
  'READER_DB_PASSWORD',
  'GRAFANA_ADMIN_PASSWORD',
  'OPS_TOKEN',
  'UPSTREAM_API_KEY',
];
const SECRET_NAME = /PASSWORD|TOKEN|SECRET|API_KEY/;
/** `${NAME:?message}`: compose stops with the message when NAME is unset or empty. */
const required = (name: string) => new RegExp(`^\\$\\{${name}:\\?[^}]+\\}$`);

describe('docker-compose.yml', () => {
  it('requires every secret, each time it is used, with a message and no default', () => {
    for (const name of SECRETS) {
      const uses = [...text.matchAll(new RegExp(`\\$\\{${name}\\b[^}]*\\}`, 'g'))].map((match) => match[0]);
      expect(uses.length, name).toBeGreaterThan(0);
      for (const use of uses) expect(use, name).toMatch(required(name));
    }
  });

  it('gives no service a literal or default password, token or key', () => {
    const offending: string[] = [];
    for (const [service, { environment = {} }] of Object.entries(compose.services)) {
      for (const [key, value] of Object.entries(environment)) {
        if (!SECRET_NAME.test(key)) continue;
        const ok =
          [...SECRETS.map(required)].some((pattern) => pattern.test(String(value))) ||
          // Unset (empty) is its safe value: Bull Board read-only.
          (key === 'OPS_ADMIN_TOKEN' && value === '${OPS_ADMIN_TOKEN:-}');
        if (!ok) offending.push(`${service}.${key}=${value}`);
      }
    }
    expect(offending).toEqual([]);
    // No password in a URL but the required one.
    const credentials = [...text.matchAll(/\w+:\/\/[^:/\s"]+:([^@"\n]+)@/g)].map((match) => match[1]);
    expect(credentials.length).toBeGreaterThan(0);
    for (const password of credentials) expect(password).toMatch(required('CHAINTAP_DB_PASSWORD'));
  });

  it('runs the pipeline as the owner role chaintap, not as the Postgres superuser', () => {
    const postgres = compose.services.postgres!;
    // POSTGRES_USER names the superuser the image creates: not the pipeline's role.
    expect(postgres.environment?.POSTGRES_USER ?? 'postgres').toBe('postgres');
    expect(postgres.volumes).toContain('./docker/postgres-init:/docker-entrypoint-initdb.d:ro');
    for (const service of ['migrate', 'scheduler', 'worker']) {
      expect(compose.services[service]!.environment?.DATABASE_URL, service).toMatch(
        /^postgres:\/\/chaintap:\$\{CHAINTAP_DB_PASSWORD:\?[^}]+\}@postgres:5432\/chaintap$/,
      );
    }
  });

  it('requires OPS_TOKEN of the ops servers it exposes, and gives it to Prometheus as a file', () => {
    for (const service of ['scheduler', 'worker']) {
      const environment = compose.services[service]!.environment!;
      expect(environment.OPS_HOST, service).toBe('0.0.0.0');
      expect(environment.OPS_TOKEN, service).toMatch(required('OPS_TOKEN'));
    }
    expect(compose.secrets?.ops_token).toEqual({ environment: 'OPS_TOKEN' });
    expect(compose.services.prometheus!.secrets).toEqual(['ops_token']);
    const prometheus = parse(readFileSync(join(ROOT, 'docs/grafana/prometheus.yml'), 'utf8')) as {
      scrape_configs: { authorization?: unknown }[];
    };
    expect(prometheus.scrape_configs[0]!.authorization).toEqual({
      type: 'Bearer',
      credentials_file: '/run/secrets/ops_token',
    });
  });

  it("connects Grafana's Postgres data source as chaintap_bi, a chaintap_reader login", () => {
    const datasources = parse(
      readFileSync(join(ROOT, 'docs/grafana/provisioning/datasources/chaintap.yml'), 'utf8'),
    ) as { datasources: { type: string; user?: string; secureJsonData?: { password?: string } }[] };
    const postgres = datasources.datasources.find((source) => source.type === 'grafana-postgresql-datasource')!;
    expect(postgres.user).toBe('chaintap_bi');
    expect(postgres.secureJsonData?.password).toBe('$CHAINTAP_READER_PASSWORD');
    expect(compose.services.grafana!.environment!.CHAINTAP_READER_PASSWORD).toMatch(required('READER_DB_PASSWORD'));
    const init = readFileSync(join(ROOT, 'docker/postgres-init/10-chaintap-roles.sh'), 'utf8');
    expect(init).toContain('reader_login="${CHAINTAP_DB_READER_LOGIN:-chaintap_bi}"');
    expect(init).toMatch(/CREATE ROLE :"reader_login" LOGIN [^;]*IN ROLE chaintap_reader;/);
  });

  it('.env.example lists every secret, empty', () => {
    const example = readFileSync(join(ROOT, '.env.example'), 'utf8');
    for (const name of SECRETS) expect(example, name).toMatch(new RegExp(`^${name}=$`, 'm'));
  });
});

/** Whether the Compose CLI (the docker client's plugin) is installed; it needs no Docker engine for `config`. */
const composeCli = spawnSync('docker', ['compose', 'version'], { encoding: 'utf8' }).status === 0;

describe.runIf(composeCli)('docker compose config', () => {
  const folder = mkdtempSync(join(tmpdir(), 'chaintap-compose-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  /** `docker compose config` with exactly these variables (an env file of its own, no .env of the checkout). */
  function config(variables: Record<string, string>) {
    const envFile = join(folder, 'env');
    writeFileSync(
      envFile,
      Object.entries(variables)
        .map(([name, value]) => `${name}=${value}\n`)
        .join(''),
    );
    return spawnSync('docker', ['compose', '--env-file', envFile, '-f', COMPOSE_FILE, 'config'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    });
  }
  const secrets = Object.fromEntries(SECRETS.map((name) => [name, `value-of-${name.toLowerCase()}`]));

  it('accepts the deployment with every secret set, and uses them', () => {
    const result = config(secrets);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('postgres://chaintap:value-of-chaintap_db_password@postgres:5432/chaintap');
    expect(result.stdout).toContain('GF_SECURITY_ADMIN_PASSWORD: value-of-grafana_admin_password');
  });

  it.each(SECRETS)('stops with the message of %s when it is unset or empty', (name) => {
    const message = text.match(new RegExp(`\\$\\{${name}:\\?([^}]+)\\}`))![1]!;
    for (const variables of [
      { ...secrets, [name]: '' },
      Object.fromEntries(Object.entries(secrets).filter(([key]) => key !== name)),
    ]) {
      const result = config(variables);
      expect(result.status, name).not.toBe(0);
      expect(result.stderr, name).toContain(name);
      expect(result.stderr, name).toContain(message);
    }
  });
});
