import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { requireBinaries } from '../support/binaries.ts';
import { runCli } from '../support/cli.ts';
import { createTestDatabase } from '../support/database.ts';
import { freePort } from '../support/fault-redis-server.ts';
import { redisCommand, waitUntil } from '../support/redis-process.ts';

const ROOT = join(import.meta.dirname, '../..');
const COMPOSE_FILE = join(ROOT, 'docker-compose.yml');
const text = readFileSync(COMPOSE_FILE, 'utf8');

interface Service {
  image?: string;
  entrypoint?: string[];
  profiles?: string[];
  user?: string;
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  secrets?: string[];
  depends_on?: Record<string, { condition: string; restart?: boolean }>;
  deploy?: { replicas?: number | string };
  networks?: Record<string, { aliases?: string[] } | null>;
}
const compose = parse(text, { merge: true }) as {
  services: Record<string, Service>;
  secrets?: Record<string, { environment?: string }>;
  volumes?: Record<string, unknown>;
};

/** The services of `docker compose up` without a profile: the simulated upstream runs only when asked. */
const DEFAULT_SERVICES = ['postgres', 'redis', 'migrate', 'scheduler', 'worker'];
/** The folder of the `ha` profile's Redis scripts and templates, and where its services mount it. */
const REDIS_HA_DIR = join(ROOT, 'docker/redis-sentinel');
const REDIS_HA_MOUNT = '/etc/chaintap/redis-sentinel';
const haServices = Object.keys(compose.services).filter((name) => compose.services[name]!.profiles?.includes('ha'));
const runs = (script: string) => (name: string) =>
  JSON.stringify(compose.services[name]!.command) === JSON.stringify(['sh', `${REDIS_HA_MOUNT}/${script}`]);
const haDataNodes = haServices.filter(runs('start-redis.sh'));
const haSentinels = haServices.filter(runs('start-sentinel.sh'));
/** The chaintap processes of the profile and the default service each stands in for. */
const HA_CHAINTAP = { 'ha-worker': 'worker', 'ha-scheduler': 'scheduler' } as const;

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

  it('.env.example lists every secret, and UPSTREAM_BASE_URL, empty', () => {
    const example = readFileSync(join(ROOT, '.env.example'), 'utf8');
    for (const name of [...SECRETS, 'UPSTREAM_BASE_URL']) expect(example, name).toMatch(new RegExp(`^${name}=$`, 'm'));
  });

  it('runs against the simulated upstream only when asked: UPSTREAM_BASE_URL has no default, the simulator a profile', () => {
    const uses = [...text.matchAll(/\$\{UPSTREAM_BASE_URL\b[^}]*\}/g)].map((match) => match[0]);
    expect(uses.length).toBeGreaterThan(0);
    for (const use of uses) expect(use).toMatch(required('UPSTREAM_BASE_URL'));
    for (const service of ['migrate', 'scheduler', 'worker'])
      expect(compose.services[service]!.environment?.UPSTREAM_BASE_URL, service).toMatch(required('UPSTREAM_BASE_URL'));
    expect(compose.services.simulator!.profiles).toEqual(['simulator']);
    expect(text).toMatch(/^#\s+docker compose --profile simulator up -d/m);
  });
});

describe("docker-compose.yml's watchlist service (profile monitoring)", () => {
  it('adds the tokens and addresses of docker/watchlist, running its own command here', async () => {
    const service = compose.services.watchlist!;
    expect(service.profiles).toEqual(['monitoring']);
    expect(service.depends_on?.migrate).toEqual({ condition: 'service_completed_successfully' });
    const mount = service.volumes!.find((volume) => volume.startsWith('./docker/watchlist:'))!.split(':')[1]!;
    expect(service.entrypoint).toEqual(['sh', '-c']);
    const commands = service.command![0]!.split('&&').map((command) => command.trim().split(/\s+/));
    expect(commands).toHaveLength(2);
    const database = await createTestDatabase();
    try {
      // Twice, as every `up` runs it: adding is idempotent.
      for (const round of [1, 2]) {
        for (const command of commands) {
          expect(command.slice(0, 2)).toEqual(['node', 'dist/cli/main.js']);
          const args = command.slice(2).map((arg) => arg.replace(mount, join(ROOT, 'docker/watchlist')));
          const run = await runCli(args, { DATABASE_URL: database.url, LOG_LEVEL: 'warn' });
          expect(run.code, `round ${round}: ${args.join(' ')}\n${run.stderr}`).toBe(0);
        }
      }
      const [counts] = await database.sql<{ tokens: number; addresses: number; pnl: number }[]>`
        select (select count(*)::int from watched_tokens) as tokens,
               (select count(*)::int from watched_addresses) as addresses,
               (select count(*)::int from watched_addresses where include_pnl) as pnl`;
      const lines = (file: string) =>
        readFileSync(join(ROOT, 'docker/watchlist', file), 'utf8')
          .split('\n')
          .filter((line) => line.trim() && !line.startsWith('#')).length;
      expect(counts).toEqual({
        tokens: lines('tokens.txt'),
        addresses: lines('addresses.txt'),
        pnl: lines('addresses.txt'),
      });
    } finally {
      await database.drop();
    }
  });
});

describe("docker-compose.yml's ha profile", () => {
  const environment = (name: string) => compose.services[name]!.environment ?? {};
  const withoutRedis = (variables: Record<string, string>) =>
    Object.fromEntries(Object.entries(variables).filter(([key]) => !key.startsWith('REDIS_')));
  const masterNode = () => haDataNodes.find((name) => !environment(name).REDIS_REPLICA_OF)!;

  it('leaves the default deployment as it was: the profile only adds services, which no default one uses', () => {
    const defaults = Object.keys(compose.services).filter((name) => !compose.services[name]!.profiles);
    expect(defaults).toEqual(DEFAULT_SERVICES);
    for (const name of defaults) {
      const { depends_on = {}, environment = {}, networks } = compose.services[name]!;
      const references = [...Object.keys(depends_on), ...Object.values(environment).map(String)].join(' ');
      for (const ha of haServices) expect(references, name).not.toContain(ha);
      expect(networks, name).toBeUndefined();
    }
    for (const name of ['scheduler', 'worker']) {
      expect(environment(name).REDIS_URL, name).toBe('redis://redis:6379');
      for (const key of ['REDIS_SENTINELS', 'REDIS_SENTINEL_NAME', 'REDIS_CLUSTER_NODES'])
        expect(environment(name), name).not.toHaveProperty(key);
    }
    // Every other service is in exactly one profile.
    for (const [name, { profiles }] of Object.entries(compose.services)) {
      if (profiles) expect([['monitoring'], ['ha'], ['simulator']], name).toContainEqual(profiles);
    }
    expect([...haServices].sort()).toEqual([...haDataNodes, ...haSentinels, ...Object.keys(HA_CHAINTAP)].sort());
  });

  it('connects its workers and schedulers through every sentinel, by the name the sentinels give the master', () => {
    expect(haSentinels).toHaveLength(3);
    const masterNames = new Set(haSentinels.map((name) => environment(name).SENTINEL_MASTER_NAME));
    expect(masterNames.size).toBe(1);
    for (const [name, counterpart] of Object.entries(HA_CHAINTAP)) {
      const variables = environment(name);
      // Emptied (empty counts as unset): the shared REDIS_URL set with the sentinels is a configuration error.
      expect(variables.REDIS_URL, name).toBe('');
      expect(variables, name).not.toHaveProperty('REDIS_CLUSTER_NODES');
      // Each sentinel on start-sentinel.sh's default port, which no sentinel service changes.
      expect(variables.REDIS_SENTINELS!.split(',').sort(), name).toEqual(
        haSentinels.map((sentinel) => `${sentinel}:26379`).sort(),
      );
      for (const sentinel of haSentinels) expect(environment(sentinel)).not.toHaveProperty('SENTINEL_PORT');
      expect(variables.REDIS_SENTINEL_NAME, name).toBe([...masterNames][0]);
      // Otherwise the same settings as the default deployment's process: one fleet, one configuration.
      expect(withoutRedis(variables), name).toEqual(withoutRedis(environment(counterpart)));
    }
  });

  it('runs WORKER_REPLICAS workers (3 by default) and two schedulers, under the names Prometheus looks up', () => {
    expect(compose.services['ha-worker']!.command).toEqual(compose.services.worker!.command);
    expect(compose.services['ha-scheduler']!.command).toEqual(compose.services.scheduler!.command);
    expect(compose.services['ha-worker']!.deploy?.replicas).toBe('${WORKER_REPLICAS:-3}');
    expect(compose.services['ha-scheduler']!.deploy?.replicas).toBe(2);
    for (const [name, counterpart] of Object.entries(HA_CHAINTAP)) {
      expect(compose.services[name]!.networks, name).toEqual({ default: { aliases: [counterpart] } });
    }
    const prometheus = parse(readFileSync(join(ROOT, 'docs/grafana/prometheus.yml'), 'utf8')) as {
      scrape_configs: { dns_sd_configs: { names: string[] }[] }[];
    };
    expect(prometheus.scrape_configs[0]!.dns_sd_configs[0]!.names.sort()).toEqual(['scheduler', 'worker']);
  });

  it('starts its whole Redis, and nothing of the default deployment but Postgres and migrate, from its usage line', () => {
    const usage = text.match(/^#\s+docker compose --profile ha up -d ([\w -]+)$/m);
    expect(usage).not.toBeNull();
    const named = usage![1]!.trim().split(/\s+/);
    const started = new Set<string>();
    const visit = (name: string) => {
      if (started.has(name)) return;
      started.add(name);
      for (const dependency of Object.keys(compose.services[name]!.depends_on ?? {})) visit(dependency);
    };
    named.forEach(visit);
    expect([...started].sort()).toEqual([...haServices, 'postgres', 'migrate', 'simulator'].sort());
  });

  it('runs every data node and sentinel from the scripts, as the redis user, each with a volume of its own', () => {
    expect(haDataNodes).toHaveLength(2);
    const redisImages = Object.keys(compose.services).filter((name) => compose.services[name]!.image === 'redis:7');
    expect(redisImages.sort()).toEqual(['redis', ...haDataNodes, ...haSentinels].sort());
    for (const name of [...haDataNodes, ...haSentinels]) {
      const service = compose.services[name]!;
      expect(service.profiles, name).toEqual(['ha']);
      expect(service.user, name).toBe('redis');
      expect(existsSync(join(REDIS_HA_DIR, service.command![1]!.slice(REDIS_HA_MOUNT.length + 1))), name).toBe(true);
      expect(service.volumes, name).toEqual([`./docker/redis-sentinel:${REDIS_HA_MOUNT}:ro`, `${name}-data:/data`]);
      expect(compose.volumes, name).toHaveProperty(`${name}-data`);
    }
  });

  it('starts one data node as the master and the other as its replica, each node and sentinel known by its name', () => {
    const master = masterNode();
    const replicas = haDataNodes.filter((name) => name !== master);
    expect(replicas).toHaveLength(1);
    expect(environment(replicas[0]!).REDIS_REPLICA_OF).toBe(`${master} 6379`);
    for (const name of haDataNodes) expect(environment(name).REDIS_ANNOUNCE_HOST, name).toBe(name);
    for (const name of haSentinels) {
      expect(environment(name).SENTINEL_MASTER_HOST, name).toBe(master);
      expect(environment(name).SENTINEL_MASTER_PORT, name).toBe('6379');
      expect(environment(name).SENTINEL_ANNOUNCE_HOST, name).toBe(name);
      // Started once the nodes run, restarted when compose recreates one: it resolves their names at start only.
      expect(compose.services[name]!.depends_on, name).toEqual(
        Object.fromEntries(haDataNodes.map((node) => [node, { condition: 'service_healthy', restart: true }])),
      );
    }
  });

  it('configures the data nodes to keep every key, and the sentinels to go by names, two of three agreeing', () => {
    const settings = (file: string) =>
      readFileSync(join(REDIS_HA_DIR, file), 'utf8')
        .split('\n')
        .filter((line) => line.trim() && !line.startsWith('#'));
    expect(settings('redis.conf')).toEqual(
      expect.arrayContaining(['appendonly yes', 'appendfsync everysec', 'maxmemory-policy noeviction']),
    );
    expect(settings('sentinel.conf')).toEqual(
      expect.arrayContaining([
        'sentinel resolve-hostnames yes',
        'sentinel announce-hostnames yes',
        'sentinel monitor @MASTER_NAME@ @MASTER_HOST@ @MASTER_PORT@ 2',
      ]),
    );
  });
});

/**
 * The `ha` profile's Redis, run here by its own scripts and templates as compose runs them, with
 * the directories and ports of the test and `localhost` for every name (each process listens on
 * 127.0.0.1, and ::1 where there is one, as a name may resolve to either).
 */
describe('docker/redis-sentinel, run here', () => {
  const folder = mkdtempSync(join(tmpdir(), 'chaintap-redis-ha-'));
  const children: ChildProcess[] = [];
  const LOOPBACK = ['--bind', '127.0.0.1', '-::1'];
  const masterName = compose.services[haSentinels[0]!]!.environment!.SENTINEL_MASTER_NAME!;
  /** The master first, then the replica. */
  const nodes: { port: number; dir: string }[] = [];
  const sentinels: { port: number; dir: string }[] = [];

  /** Runs `script` of docker/redis-sentinel with `environment` only; resolves once it answers PING on `port`. */
  async function start(script: string, environment: Record<string, string>, port: number, dir: string) {
    requireBinaries('redis-server', 'redis-sentinel');
    mkdirSync(dir);
    const child = spawn('sh', [join(REDIS_HA_DIR, script), ...LOOPBACK], {
      env: { PATH: process.env.PATH ?? '', ...environment },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let output = '';
    for (const stream of [child.stdout, child.stderr]) {
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => (output += chunk));
    }
    await waitUntil(`${script} answering PING on ${port}`, 15_000, async () => {
      if (child.exitCode !== null) throw new Error(`${script} exited ${child.exitCode}:\n${output}`);
      return (await redisCommand(port, 'PING')) === 'PONG' ? null : 'no PONG';
    });
    return { port, dir };
  }

  /** The data node `service` as compose starts it; its master (if it starts as a replica) on `masterPort`. */
  async function startNode(service: string, masterPort?: number) {
    const port = await freePort();
    const dir = join(folder, service);
    const { REDIS_REPLICA_OF, ...environment } = compose.services[service]!.environment!;
    const replicaOf: Record<string, string> = REDIS_REPLICA_OF ? { REDIS_REPLICA_OF: `localhost ${masterPort}` } : {};
    const local = { REDIS_ANNOUNCE_HOST: 'localhost', REDIS_PORT: String(port), REDIS_DIR: dir };
    return start('start-redis.sh', { ...environment, ...replicaOf, ...local }, port, dir);
  }

  /** The sentinel `service` as compose starts it, its master on `masterPort`. */
  async function startSentinel(service: string, masterPort: number) {
    const port = await freePort();
    const dir = join(folder, service);
    const local = {
      SENTINEL_MASTER_HOST: 'localhost',
      SENTINEL_MASTER_PORT: String(masterPort),
      SENTINEL_ANNOUNCE_HOST: 'localhost',
      SENTINEL_PORT: String(port),
      SENTINEL_DIR: dir,
    };
    return start('start-sentinel.sh', { ...compose.services[service]!.environment!, ...local }, port, dir);
  }

  const masterAddress = async (port: number) =>
    (await redisCommand(port, 'SENTINEL', 'get-master-addr-by-name', masterName)) as string[];
  const replicationField = async (port: number, field: string) =>
    ((await redisCommand(port, 'INFO', 'replication')) as string).match(new RegExp(`^${field}:(.*)\r?$`, 'm'))?.[1];
  /** A sentinel's [field, value, ...] entries as objects. */
  const entries = (reply: unknown) =>
    (reply as string[][]).map((entry) =>
      Object.fromEntries(entry.flatMap((value, i) => (i % 2 ? [] : [[value, entry[i + 1]]]))),
    );

  beforeAll(async () => {
    const master = await startNode(haDataNodes.find((name) => !compose.services[name]!.environment!.REDIS_REPLICA_OF)!);
    nodes.push(master);
    for (const name of haDataNodes) {
      if (compose.services[name]!.environment!.REDIS_REPLICA_OF) nodes.push(await startNode(name, master.port));
    }
    // The sentinels learn the replica from the master: once it is connected (the master waits 5 s
    // for more replicas before it sends the first copy, repl-diskless-sync-delay).
    await waitUntil('the replica connected to the master', 15_000, async () =>
      (await replicationField(nodes[1]!.port, 'master_link_status')) === 'up' ? null : 'link down',
    );
    for (const name of haSentinels) sentinels.push(await startSentinel(name, master.port));
  }, 60_000);

  afterAll(async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGKILL');
          }),
      ),
    );
    rmSync(folder, { recursive: true, force: true });
  });

  it('starts the master and its replica from copies of redis.conf that keep every key', async () => {
    for (const { port, dir } of nodes) {
      expect(await redisCommand(port, 'CONFIG', 'GET', 'appendonly')).toEqual(['appendonly', 'yes']);
      expect(await redisCommand(port, 'CONFIG', 'GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction']);
      expect(readFileSync(join(dir, 'redis.conf'), 'utf8')).toContain('\nreplica-announce-ip localhost\n');
    }
    expect(await replicationField(nodes[0]!.port, 'role')).toBe('master');
    expect(await replicationField(nodes[1]!.port, 'role')).toBe('slave');
  });

  it('starts sentinels that name the master by its name, and know the replica and each other by theirs', async () => {
    for (const { port } of sentinels) {
      // announce-hostnames: the name, not the address it resolves to.
      expect(await masterAddress(port)).toEqual(['localhost', String(nodes[0]!.port)]);
    }
    for (const { port } of sentinels) {
      await waitUntil(`sentinel ${port} knowing the replica and the other sentinels`, 15_000, async () => {
        const replicas = entries(await redisCommand(port, 'SENTINEL', 'REPLICAS', masterName));
        const others = entries(await redisCommand(port, 'SENTINEL', 'SENTINELS', masterName));
        const seen = JSON.stringify({ replicas, others });
        const ready =
          replicas.length === 1 &&
          replicas[0]!.ip === 'localhost' &&
          replicas[0]!.port === String(nodes[1]!.port) &&
          replicas[0]!.flags === 'slave' &&
          replicas[0]!['master-link-status'] === 'ok' &&
          others.length === sentinels.length - 1 &&
          others.every((other) => other.ip === 'localhost' && other.flags === 'sentinel');
        return ready ? null : seen;
      });
    }
  });

  it('fails over to the replica, and the sentinels rewrite its copy of redis.conf and their own', async () => {
    const [first] = sentinels;
    expect(await redisCommand(first!.port, 'SENTINEL', 'FAILOVER', masterName)).toBe('OK');
    const promoted = String(nodes[1]!.port);
    for (const { port } of sentinels) {
      await waitUntil(`sentinel ${port} naming the promoted replica`, 15_000, async () => {
        const address = await masterAddress(port);
        return address.join(':') === `localhost:${promoted}` ? null : address.join(':');
      });
    }
    expect(await replicationField(nodes[1]!.port, 'role')).toBe('master');
    // A restarted node or sentinel resumes from these: the new master is no replica any more.
    expect(readFileSync(join(nodes[1]!.dir, 'redis.conf'), 'utf8')).not.toMatch(/^replicaof /m);
    expect(readFileSync(join(first!.dir, 'sentinel.conf'), 'utf8')).toMatch(
      new RegExp(`^sentinel monitor ${masterName} localhost ${promoted} 2$`, 'm'),
    );
  });
});

/**
 * Whether the Compose CLI (the docker client's plugin) is installed; it needs no Docker engine for
 * `config`. The one program a test skips without: no registry this project reaches has Compose v2
 * (Debian 12 packages only the Python `docker-compose` 1.x, whose `config` differs), so .ci/run cannot
 * install it. The skip is said out loud, and the YAML checks above run everywhere.
 */
const composeCli = spawnSync('docker', ['compose', 'version'], { encoding: 'utf8' }).status === 0;
if (!composeCli)
  console.warn(
    'test/deploy/compose.test.ts: `docker compose` is not installed: its `docker compose config` tests are skipped',
  );

describe.runIf(composeCli)('docker compose config', () => {
  const folder = mkdtempSync(join(tmpdir(), 'chaintap-compose-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  /**
   * `docker compose config` with exactly these variables (an env file of its own, no .env of the
   * checkout), these profiles and these arguments of `config`.
   */
  function config(
    variables: Record<string, string>,
    { profiles = [], args = [] }: { profiles?: string[]; args?: string[] } = {},
  ) {
    const envFile = join(folder, 'env');
    writeFileSync(
      envFile,
      Object.entries(variables)
        .map(([name, value]) => `${name}=${value}\n`)
        .join(''),
    );
    const profileFlags = profiles.flatMap((profile) => ['--profile', profile]);
    return spawnSync(
      'docker',
      ['compose', ...profileFlags, '--env-file', envFile, '-f', COMPOSE_FILE, 'config', ...args],
      {
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
      },
    );
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

  it('adds the ha services only with the ha profile', () => {
    const services = (result: ReturnType<typeof config>) => {
      expect(result.status, result.stderr).toBe(0);
      return result.stdout.split('\n').filter(Boolean).sort();
    };
    expect(services(config(secrets, { args: ['--services'] }))).toEqual([...DEFAULT_SERVICES].sort());
    expect(services(config(secrets, { profiles: ['ha'], args: ['--services'] }))).toEqual(
      [...DEFAULT_SERVICES, ...haServices].sort(),
    );
  });

  it('runs WORKER_REPLICAS workers in the ha profile', () => {
    const result = config({ ...secrets, WORKER_REPLICAS: '5' }, { profiles: ['ha'] });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const rendered = parse(result.stdout) as { services: Record<string, Service> };
    expect(rendered.services['ha-worker']!.deploy?.replicas).toBe(5);
    expect(rendered.services['ha-scheduler']!.deploy?.replicas).toBe(2);
    expect(rendered.services['ha-worker']!.environment?.REDIS_URL).toBe('');
  });
});
