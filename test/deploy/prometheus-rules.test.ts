import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createMetrics } from '../../src/runtime/metrics.ts';

// The alert rules of deploy/prometheus/rules.yml: valid for Prometheus (promtool check rules), each
// unit-tested to fire on series that should fire it and to stay quiet on series that should not
// (promtool test rules), over metrics chaintap exports, and loaded by the compose Prometheus.
const ROOT = join(import.meta.dirname, '../..');
const RULES_DIR = join(ROOT, 'deploy/prometheus');
const RULES = join(RULES_DIR, 'rules.yml');

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels: { severity: string };
  annotations: { summary: string };
}
interface RuleTest {
  alertname: string;
  exp_alerts: unknown[];
}
const rules = (parse(readFileSync(RULES, 'utf8')) as { groups: { rules: Rule[] }[] }).groups.flatMap(
  (group) => group.rules,
);
const ruleTests = (
  parse(readFileSync(join(RULES_DIR, 'rules.test.yml'), 'utf8')) as { tests: { alert_rule_test: RuleTest[] }[] }
).tests.flatMap((test) => test.alert_rule_test);

const promtool = (args: string[], cwd = ROOT) => spawnSync('promtool', args, { cwd, encoding: 'utf8' });

describe('deploy/prometheus/rules.yml', () => {
  it('passes promtool check rules', () => {
    const result = promtool(['check', 'rules', RULES]);
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain(`SUCCESS: ${rules.length} rules found`);
  });

  it('passes its unit tests (promtool test rules)', () => {
    const result = promtool(['test', 'rules', 'rules.test.yml'], RULES_DIR);
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain('SUCCESS');
  });

  it('has, for each rule, a test where it fires and one where it stays quiet, and no test of another alert', () => {
    const names = rules.map((rule) => rule.alert);
    for (const name of names) {
      const cases = ruleTests.filter((test) => test.alertname === name);
      expect(
        cases.some((test) => test.exp_alerts.length > 0),
        `${name} fires`,
      ).toBe(true);
      expect(
        cases.some((test) => test.exp_alerts.length === 0),
        `${name} stays quiet`,
      ).toBe(true);
    }
    expect(ruleTests.filter((test) => !names.includes(test.alertname))).toEqual([]);
  });

  it('names only metrics chaintap exports (and Prometheus its up), and gives each rule a severity and a summary', () => {
    const exported = new Set(
      createMetrics()
        .registry.getMetricsAsArray()
        .map((metric) => metric.name),
    );
    for (const rule of rules) {
      for (const [name] of rule.expr.matchAll(/\bchaintap_[a-z_]+/g)) expect(exported, rule.alert).toContain(name);
      expect(['critical', 'warning'], rule.alert).toContain(rule.labels.severity);
      expect(rule.annotations.summary, rule.alert).toBeTruthy();
    }
  });

  it('is listed in docs/operations.md, rule by rule', () => {
    const docs = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8');
    const listed = [...docs.matchAll(/^\| `(Chaintap\w+)` \| (critical|warning) \|/gm)].map(([, alert, severity]) => ({
      alert,
      severity,
    }));
    expect(listed).toEqual(rules.map((rule) => ({ alert: rule.alert, severity: rule.labels.severity })));
  });

  describe("the compose Prometheus's configuration, with compose's mounts and secrets in place", () => {
    const folder = mkdtempSync(join(tmpdir(), 'chaintap-prometheus-'));
    afterAll(() => rmSync(folder, { recursive: true, force: true }));

    it('loads the rules file (promtool check config)', () => {
      const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
        services: { prometheus: { command: string[]; volumes: string[]; secrets: string[] } };
      };
      const prometheus = compose.services.prometheus;
      // Each path the container sees, as the file of this repository that compose mounts there.
      const mounts = prometheus.volumes
        .map((volume) => volume.split(':'))
        .filter(([source]) => source!.startsWith('./'))
        .map(([source, target]) => ({ source: join(ROOT, source!), target: target! }));
      for (const secret of prometheus.secrets) {
        writeFileSync(join(folder, secret), 'a-token\n');
        mounts.push({ source: join(folder, secret), target: `/run/secrets/${secret}` });
      }
      const configPath = prometheus.command.find((arg) => arg.startsWith('--config.file='))!.split('=')[1]!;
      const configSource = mounts.find((mount) => mount.target === configPath)!.source;
      let config = readFileSync(configSource, 'utf8');
      for (const { source, target } of mounts) config = config.replaceAll(target, source);
      writeFileSync(join(folder, 'prometheus.yml'), config);

      expect(mounts).toContainEqual({ source: RULES, target: '/etc/prometheus/rules.yml' });
      const result = promtool(['check', 'config', join(folder, 'prometheus.yml')]);
      expect(result.status, result.stdout + result.stderr).toBe(0);
      expect(result.stdout).toContain('SUCCESS: 1 rule files found');
      expect(result.stdout).toContain(`Checking ${RULES}\n  SUCCESS: ${rules.length} rules found`);
    });
  });
});
