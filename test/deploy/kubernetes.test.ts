import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadOptions } from '../../src/config/options.ts';
import { openOpsStores, startOpsServer, type OpsStores, type RunningOpsServer } from '../ops/ops-test-server.ts';
import { CLI } from '../support/cli.ts';

// The Kubernetes manifests of deploy/kubernetes: valid against the Kubernetes API's schemas
// (kubernetes-models, which validates offline), and matching the code: the image, commands,
// settings, ports and probe routes they name are chaintap's own.
const ROOT = join(import.meta.dirname, '../..');
const FOLDER = join(ROOT, 'deploy/kubernetes');
const read = (file: string) => parse(readFileSync(join(FOLDER, file), 'utf8'));

interface Container {
  name: string;
  image: string;
  args: string[];
  envFrom: ({ secretRef: { name: string } } | { configMapRef: { name: string } })[];
  env?: { name: string; value: string }[];
  ports?: { name: string; containerPort: number }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  livenessProbe?: Probe;
  readinessProbe?: Probe;
}
interface Probe {
  httpGet: { path: string; port: string };
  timeoutSeconds?: number;
}
interface PodSpec {
  containers: Container[];
  terminationGracePeriodSeconds?: number;
  affinity?: unknown;
}
interface Workload {
  kind: string;
  metadata: { name: string };
  spec: {
    replicas?: number;
    selector?: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
  };
}

const kustomization = read('kustomization.yaml') as {
  resources: string[];
  images: { name: string; newName: string; newTag: string }[];
};
const configMap = read('configmap.yaml') as { metadata: { name: string }; data: Record<string, string> };
const secret = read('secret.example.yaml') as { metadata: { name: string }; stringData: Record<string, string> };
const workloads = (['migrate-job.yaml', 'worker.yaml', 'scheduler.yaml'] as const).map(
  (file) => read(file) as Workload,
);
const [migrate, worker, scheduler] = workloads as [Workload, Workload, Workload];
const containers = workloads.flatMap((workload) => workload.spec.template.spec.containers);
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

/** The settings README documents ("Configuration": `NAME` or `A` / `B` in the first column). */
const documentedSettings = new Set(
  [...readFileSync(join(ROOT, 'README.md'), 'utf8').matchAll(/^\| (`[A-Z0-9_]+`(?: \/ `[A-Z0-9_]+`)*) \|/gm)].flatMap(
    ([, names]) => names!.split(' / ').map((name) => name.replaceAll('`', '')),
  ),
);

describe('deploy/kubernetes', () => {
  it('lists every manifest in its kustomization, but the example Secret', () => {
    const manifests = readdirSync(FOLDER).filter((file) => file.endsWith('.yaml') && file !== 'kustomization.yaml');
    expect([...kustomization.resources].sort()).toEqual(
      manifests.filter((file) => file !== 'secret.example.yaml').sort(),
    );
  });

  it('holds manifests valid against the Kubernetes schemas', () => {
    const models = { ConfigMap, Secret, Deployment, Job } as const;
    for (const file of [...kustomization.resources, 'secret.example.yaml']) {
      const manifest = read(file) as { apiVersion: string; kind: keyof typeof models };
      const Model = models[manifest.kind];
      expect(Model, `${file}: ${manifest.kind}`).toBeDefined();
      const model = new Model(manifest as never);
      expect(manifest.apiVersion, file).toBe(model.apiVersion);
      expect(() => model.validate(), file).not.toThrow();
    }
  });

  it('the schema check itself refuses a malformed manifest', () => {
    const broken = structuredClone(worker) as unknown as { spec: { replicas: unknown } };
    broken.spec.replicas = 'three';
    expect(() => new Deployment(broken as never).validate()).toThrow(/replicas must be integer/);
  });

  it("runs the release's image and commands that chaintap has", () => {
    expect(kustomization.images).toEqual([{ name: 'chaintap', newName: expect.any(String), newTag: version }]);
    expect(migrate.metadata.name).toBe(`chaintap-migrate-v${version.replaceAll('.', '-')}`);
    expect(containers.map((container) => [container.name, container.image, container.args])).toEqual([
      ['migrate', 'chaintap', ['migrate']],
      ['worker', 'chaintap', ['worker']],
      ['scheduler', 'chaintap', ['scheduler', '--ops']],
    ]);
    for (const { args } of containers) {
      const help = spawnSync(process.execPath, [CLI, ...args, '--help'], { encoding: 'utf8' });
      expect(help.status, `chaintap ${args.join(' ')} --help\n${help.stderr}`).toBe(0);
    }
  });

  it('gives every pod the same settings, each one chaintap reads, and they load', () => {
    for (const container of containers) {
      expect(container.envFrom, container.name).toEqual([
        { secretRef: { name: secret.metadata.name } },
        { configMapRef: { name: configMap.metadata.name } },
      ]);
    }
    const names = [
      ...Object.keys(configMap.data),
      ...Object.keys(secret.stringData),
      ...containers.flatMap((container) => (container.env ?? []).map((variable) => variable.name)),
    ].filter((name) => name !== 'NODE_OPTIONS');
    expect(names.filter((name) => !documentedSettings.has(name))).toEqual([]);
    for (const container of containers) {
      const env = Object.fromEntries((container.env ?? []).map((variable) => [variable.name, variable.value]));
      const options = loadOptions({}, { ...configMap.data, ...secret.stringData, ...env });
      expect(options.UPSTREAM_RATE.label, container.name).toBe(configMap.data.UPSTREAM_RATE);
      expect(options.REDIS_SENTINELS, container.name).toBe(configMap.data.REDIS_SENTINELS);
    }
  });

  it("gives workers more time to stop than SHUTDOWN_GRACE_MS, and neither a CPU limit nor the scheduler's single replica", () => {
    const grace = loadOptions({}, configMap.data).SHUTDOWN_GRACE_MS;
    expect(worker.spec.template.spec.terminationGracePeriodSeconds! * 1000).toBeGreaterThan(grace);
    expect(worker.spec.template.spec.containers[0]!.resources?.limits?.cpu).toBeUndefined();
    expect(scheduler.spec.replicas).toBe(2);
    expect(scheduler.spec.template.spec.affinity).toEqual({
      podAntiAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          {
            labelSelector: { matchLabels: scheduler.spec.template.metadata.labels },
            topologyKey: 'kubernetes.io/hostname',
          },
        ],
      },
    });
    for (const deployment of [worker, scheduler]) {
      expect(deployment.spec.selector?.matchLabels).toEqual(deployment.spec.template.metadata.labels);
    }
  });

  describe("the probes, on the ops server's port and routes", () => {
    let stores: OpsStores;
    let server: RunningOpsServer;
    beforeAll(async () => {
      stores = await openOpsStores();
      // As in a pod: OPS_TOKEN set, so only the probes' routes answer without it.
      server = await startOpsServer({ ...stores, options: { OPS_TOKEN: secret.stringData.OPS_TOKEN } });
    });
    afterAll(async () => {
      await server?.close();
      await stores?.close();
    });

    it('probe /healthz (liveness) and /readyz (readiness) on the ops port, which answer 200 without a token', async () => {
      const opsPort = loadOptions({}, { ...configMap.data, ...secret.stringData }).OPS_PORT;
      expect(readFileSync(join(ROOT, 'Dockerfile'), 'utf8')).toMatch(
        new RegExp(`OPS_PORT=${opsPort}\\b[\\s\\S]*EXPOSE ${opsPort}\\n`),
      );
      for (const container of [worker, scheduler].map((deployment) => deployment.spec.template.spec.containers[0]!)) {
        expect(container.ports).toEqual([{ name: 'ops', containerPort: opsPort }]);
        expect(container.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'ops' });
        expect(container.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'ops' });
        // /readyz waits up to 3 s for Postgres and 3 s for Redis (docs/operations.md, "Ops server").
        expect(container.readinessProbe?.timeoutSeconds).toBeGreaterThan(6);
        for (const probe of [container.livenessProbe!, container.readinessProbe!]) {
          expect((await fetch(`${server.url}${probe.httpGet.path}`)).status, probe.httpGet.path).toBe(200);
        }
      }
      // And the token is really required elsewhere: the probes pass for being open, not for lack of one.
      expect((await fetch(`${server.url}/status.json`)).status).toBe(401);
    });
  });
});
